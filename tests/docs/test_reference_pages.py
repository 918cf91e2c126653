"""The generated command reference writes every argument as `diavolo ... --help` does.

The reference hook (`docs/hooks/reference.py`) formats each argument from the
actions' documented attributes rather than argparse's private formatter; these
tests hold it to what `--help` prints, for every option of every command, so
that a new kind of argument cannot be written differently in the manual.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from diavolo_stats.cli import build_parser
from diavolo_stats.cli.common import OneLineErrorParser

pytest.importorskip("mkdocs")  # the hook builds mkdocs File objects; the docs extra installs it (CI does)

HOOK = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "reference.py"
_spec = importlib.util.spec_from_file_location("reference_hook", HOOK)
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def _help(parser: OneLineErrorParser, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "400")  # no wrapping: each argument's help on its line
    return parser.format_help()


def _parsers():
    return list(build_parser().walk())


def test_every_argument_is_written_as_help_writes_it(monkeypatch):
    checked = 0
    for parser in _parsers():
        shown = _help(parser, monkeypatch)
        lines = [line.strip() for line in shown.splitlines()]
        for action in parser.options():
            written = reference.invocation(action)
            assert any(line == written or line.startswith(written + "  ") for line in lines), (
                f"{parser.prog}: the reference writes {written!r}, --help does not")
            if action.help and action.help is not argparse.SUPPRESS:
                assert " ".join(reference.meaning(action, parser.prog).split()) in " ".join(shown.split()), (
                    f"{parser.prog} {written}: the reference's help differs from --help")
            checked += 1
    assert checked > 100  # every command's options, not a few


def test_every_option_is_on_its_command_page():
    pages = reference.command_pages()
    root = build_parser()
    for name, (_, parser) in root.subcommands().items():
        page = pages[f"{name}.md"]
        for sub in parser.walk():
            for action in sub.options():
                if "--help" not in action.option_strings:
                    written = reference._cell(reference.invocation(action))  # as the table cell writes it
                    assert f"`{written}`" in page, f"diavolo {name}: {action.dest} missing"


@pytest.mark.parametrize(("spec", "written"), [
    ({"nargs": "?"}, "--level [LEVEL]"),
    ({"nargs": "*"}, "--level [LEVEL ...]"),
    ({"nargs": "+", "metavar": "N"}, "--level N [N ...]"),
    ({"nargs": 2}, "--level LEVEL LEVEL"),
    ({"choices": ("a", "b")}, "--level {a,b}"),
    ({"action": "store_true"}, "--level"),
])
def test_argument_forms_match_argparse(spec, written, monkeypatch):
    parser = argparse.ArgumentParser(prog="x")
    action = parser.add_argument("--level", **spec)
    assert reference.invocation(action) == written
    assert written in _help(parser, monkeypatch)


def test_an_option_with_two_spellings_is_written_as_help_writes_it(monkeypatch):
    parser = argparse.ArgumentParser(prog="x")
    action = parser.add_argument("-o", "--out", metavar="DIR")
    assert reference.invocation(action) in _help(parser, monkeypatch)
    assert reference.invocation(action) in ("-o DIR, --out DIR", "-o, --out DIR")  # before and from Python 3.13


def test_an_argument_form_it_cannot_write_fails_the_build():
    parser = argparse.ArgumentParser(prog="x")
    action = parser.add_argument("--rest", nargs=argparse.REMAINDER)  # the rest of the line: no command has one
    with pytest.raises(ValueError, match="nargs="):
        reference.invocation(action)


def test_help_placeholders_are_filled_as_help_fills_them(monkeypatch):
    parser = argparse.ArgumentParser(prog="diavolo x")
    action = parser.add_argument("--rounds", type=int, default=7, help="%(prog)s rolls %(default)s times, 95 %% sure")
    assert reference.meaning(action, parser.prog) == "diavolo x rolls 7 times, 95 % sure"
    assert reference.meaning(action, parser.prog) in _help(parser, monkeypatch)
