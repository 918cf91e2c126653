"""MkDocs hook: the command and API reference pages, generated at build time.

The command pages are written from the `diavolo` command's own argparse
parser (`diavolo_stats.cli.build_parser`), as its public listing gives them
(`OneLineErrorParser.sections()` and `subcommands()`), so a flag or a command
added to the code appears in the manual at the next build, with its help
text and default, and none can go undocumented. The API pages are one per layer of
the package, listing every module found in it, rendered by mkdocstrings.

In `mkdocs.yml` a nav entry whose value is `reference/commands/` or
`reference/api/` stands for the generated pages; this hook replaces it.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import pkgutil
import sys

from mkdocs.structure.files import File

from diavolo_stats.cli import build_parser
from diavolo_stats.cli.common import OneLineErrorParser

COMMANDS_DIR = "reference/commands/"
API_DIR = "reference/api/"

# Layers of the package, lowest first, as the architecture page describes them.
# A subpackage not named here (a new layer) still gets its page, after these.
BASE_MODULES = ("errors", "stats", "files", "results")
LAYER_ORDER = ("core", "drill", "game", "analytics", "minodice")
UNDOCUMENTED_PACKAGES = ("cli",)  # documented by the command pages instead


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default(action: argparse.Action) -> str:
    """A phrase giving the default, unless the help text already says it."""
    if action.required:
        return "required"
    if action.help and "default" in action.help:
        return ""
    if action.nargs == 0 and isinstance(action.default, bool):  # a switch (store_true, store_false)
        return "default: off" if action.default is False else "default: on"
    if action.default in (None, argparse.SUPPRESS):
        return ""
    if isinstance(action.default, (list, tuple)):
        return "default: `" + " ".join(str(v) for v in action.default) + "`"
    return f"default: `{action.default}`"


USAGE = "usage: "


def _usage(parser: OneLineErrorParser) -> str:
    """The usage line as `--help` prints it on an 80-column terminal, whatever the build's terminal is, without
    its `usage: ` (the lines wrap at 80 columns once it is taken off, each under the first)."""
    formatter_class = parser.formatter_class
    parser.formatter_class = functools.partial(formatter_class, width=80 + len(USAGE))
    try:
        first, *rest = parser.format_usage().strip().splitlines()
    finally:
        parser.formatter_class = formatter_class
    return "\n".join([first.removeprefix(USAGE), *(line.removeprefix(" " * len(USAGE)) for line in rest)])


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return action.metavar
    if action.choices is not None:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest if not action.option_strings else action.dest.upper()


_ARGUMENTS = {None: "{0}", "?": "[{0}]", "*": "[{0} ...]", "+": "{0} [{0} ...]"}
"""How `--help` writes an argument's values for each `nargs` the commands use (a whole number: that many)."""


def invocation(action: argparse.Action) -> str:
    """An argument as `--help` lists it: `--rounds N`, `--colors C1,C2,...`, `--quiet`, `-o DIR, --out DIR`
    (`-o, --out DIR` from Python 3.13), or a positional's name. ValueError for an `nargs` this page does not
    know how to write."""
    metavar = _metavar(action)
    if not action.option_strings:
        return metavar
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    if isinstance(action.nargs, int):
        values = " ".join([metavar] * action.nargs)
    elif action.nargs in _ARGUMENTS:
        values = _ARGUMENTS[action.nargs].format(metavar)
    else:
        raise ValueError(f"{action.option_strings[0]}: nargs={action.nargs!r} is not written by the reference pages; "
                         f"add it to _ARGUMENTS")
    if sys.version_info >= (3, 13):
        return f"{', '.join(action.option_strings)} {values}"
    return ", ".join(f"{option} {values}" for option in action.option_strings)


def meaning(action: argparse.Action, prog: str) -> str:
    """An argument's help as `--help` prints it: `%(default)s`, `%(prog)s` and the like filled in, `%%` a %."""
    params = {name: value for name, value in {**vars(action), "prog": prog}.items() if value is not argparse.SUPPRESS}
    params = {name: getattr(value, "__name__", value) for name, value in params.items()}
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return action.help % params


def command_markdown(path: str, help_line: str, parser: OneLineErrorParser, level: int = 1) -> str:
    """One command's reference: description, usage, and a table of its arguments per group."""
    lines = [f"{'#' * level} `{path}`", ""]
    if help_line:
        lines += [help_line[0].upper() + help_line[1:] + ".", ""]
    if parser.description and parser.description.rstrip(".") != help_line:
        lines += [" ".join(parser.description.split()), ""]
    lines += ["```text", _usage(parser), "```", ""]
    for section, listed in parser.sections().items():
        actions = [action for action in listed if "--help" not in action.option_strings]
        if not actions:
            continue
        lines += [f"**{section.capitalize()}**", "", "| argument | meaning |", "| --- | --- |"]
        for action in actions:
            text = meaning(action, parser.prog) if action.help else ""
            if action.choices and not action.option_strings and not action.metavar:
                text += f" (one of {', '.join(map(str, action.choices))})"
            text = "; ".join(part for part in (text, _default(action)) if part)
            lines.append(f"| `{_cell(invocation(action))}` | {_cell(text)} |")
        lines.append("")
    for name, (sub_help, sub_parser) in parser.subcommands().items():
        lines.append(command_markdown(f"{path} {name}", sub_help, sub_parser, level + 1))
    return "\n".join(lines)


def command_pages() -> dict[str, str]:
    """File name (under reference/commands/) mapped to its markdown: an index, then one page per command."""
    root = build_parser()
    subcommands = root.subcommands()
    index = [
        "# Commands",
        "",
        "Every page in this section is generated from the command's own parser when the site is "
        "built, so it lists exactly the flags the installed `diavolo` accepts. "
        "`diavolo COMMAND --help` prints the same on the terminal.",
        "",
        "```text",
        _usage(root),
        "```",
        "",
        "| command | what it does |",
        "| --- | --- |",
    ]
    pages = {}
    for name, (help_line, parser) in subcommands.items():
        index.append(f"| [`diavolo {name}`]({name}.md) | {_cell(help_line)} |")
        pages[f"{name}.md"] = command_markdown(f"diavolo {name}", help_line, parser)
    index += [
        "",
        "Every command accepts `--help`; `diavolo --version` prints the version. Bad input gets one "
        "line on stderr saying what was wrong and what is allowed, and exit status 2.",
    ]
    return {"index.md": "\n".join(index) + "\n", **pages}


def api_pages() -> dict[str, str]:
    """File name (under reference/api/) mapped to its markdown: one page per layer of the package."""
    package = importlib.import_module("diavolo_stats")
    modules = {info.name: info.ispkg for info in pkgutil.iter_modules(package.__path__)}
    layers = [n for n in LAYER_ORDER if modules.get(n)]
    layers += sorted(n for n, is_package in modules.items()
                     if is_package and n not in LAYER_ORDER and n not in UNDOCUMENTED_PACKAGES)
    base = [n for n in BASE_MODULES if n in modules]
    base += sorted(n for n, is_package in modules.items()
                   if not is_package and n not in BASE_MODULES and not n.startswith("_"))
    pages = {"base.md": _api_page("The base: " + ", ".join(base), [f"diavolo_stats.{n}" for n in base])}
    for layer in layers:
        sub = importlib.import_module(f"diavolo_stats.{layer}")
        names = sorted(info.name for info in pkgutil.iter_modules(sub.__path__) if not info.name.startswith("_"))
        pages[f"{layer}.md"] = _api_page(f"`diavolo_stats.{layer}`", [f"diavolo_stats.{layer}.{n}" for n in names])
    return pages


def _api_page(title: str, modules: list[str]) -> str:
    lines = [f"# {title}", ""]
    for module in modules:
        lines += [f"::: {module}", ""]
    return "\n".join(lines)


def _nav_entries(directory: str, pages: dict[str, str]) -> list:
    entries = []
    for name, text in pages.items():
        title = text.split("\n", 1)[0].lstrip("# ").strip("`")
        entries.append({"Overview" if name == "index.md" else title: directory + name})
    return entries


def _replace_in_nav(nav, replacements: dict[str, list]):
    """The nav with every entry whose value is a generated folder replaced by that folder's pages."""
    if isinstance(nav, list):
        return [_replace_in_nav(item, replacements) for item in nav]
    if isinstance(nav, dict):
        return {key: _replace_in_nav(value, replacements) for key, value in nav.items()}
    if isinstance(nav, str) and nav in replacements:
        return replacements[nav]
    return nav


_pages: dict[str, dict[str, str]] = {}


def on_config(config):
    _pages.clear()
    _pages.update({COMMANDS_DIR: command_pages(), API_DIR: api_pages()})
    replacements = {directory: _nav_entries(directory, pages) for directory, pages in _pages.items()}
    config.nav = _replace_in_nav(config.nav, replacements)
    return config


def on_files(files, config):
    for directory, pages in _pages.items():
        for name, text in pages.items():
            files.append(File.generated(config, directory + name, content=text))
    return files
