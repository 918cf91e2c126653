"""The manual states only what is true: its commands parse, its flags and files exist, its contracts hold.

Console examples marked `exec="1"` are run when the site is built (`mkdocs build
--strict` fails on one that exits with another status than it states); these
tests check what the build cannot: every command line the README and the pages
show, run or not, is one `diavolo` accepts; every flag and repository path they
name exists; the keys and columns the contracts page lists are the ones the
commands print; the README is short, and its test command is what CI runs.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cli import run_diavolo
from helpers.markdown_examples import (
    DOCS,
    FLAG,
    REPOSITORY,
    REPOSITORY_PATH,
    blocks,
    console_commands,
    diavolo_argv,
    inline_code,
    manual_files,
    prose,
    shell_commands,
)

from diavolo_stats.cli import build_parser

SHELL_LANGUAGES = ("console", "bash", "sh", "shell", "text")
# Paths the manual names that a user's own runs create; the repository does not ship them.
MADE_BY_USE = ("data/drills.csv", "data/reports")
# Flags of other programs the manual shows (mkdocs, pytest).
OTHER_PROGRAMS_FLAGS = {"--strict", "--dist"}


def every_flag() -> set[str]:
    """The long flags of every diavolo command, and of the benchmark scripts the manual tells how to run."""
    flags = {option for parser in build_parser().walk() for action in parser.options()
             for option in action.option_strings if option.startswith("--")}
    for script in (REPOSITORY / "benchmarks").glob("*.py"):
        flags.update(re.findall(r"add_argument\(\s*[\"'](--[a-z][a-z0-9-]*)", script.read_text()))
    return flags


def command_lines(inline: bool) -> list[tuple[str, str]]:
    """(where, command) for every diavolo command the manual shows in code blocks, or else in inline code."""
    found = []
    for path in manual_files():
        if inline:
            for line, code in inline_code(path):
                found += [(f"{path.relative_to(REPOSITORY)} line {line}", c) for c in shell_commands(code)]
            continue
        for block in blocks(path):
            if block.language in SHELL_LANGUAGES:
                text = "\n".join(console_commands(block)) if block.language == "console" else block.text
                found += [(block.where, command) for command in shell_commands(text)]
    return [(where, command) for where, command in found if diavolo_argv(command) is not None]


def parse_error(argv: list[str]) -> str | None:
    """The parser's complaint about argv, or None when it accepts it."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as exit:
        return None if exit.code == 0 else stderr.getvalue().strip() or f"exit status {exit.code}"
    return None


def test_the_manual_shows_diavolo_commands():
    # The checks below would pass on a manual without commands; make sure they see them.
    assert len(command_lines(inline=False)) >= 20
    assert len(command_lines(inline=True)) >= 20


def test_every_command_line_in_the_manual_is_accepted_by_diavolo():
    refused = [f"{where}: `{command}`: {error}" for where, command in command_lines(inline=False)
               if (error := parse_error(diavolo_argv(command))) is not None]
    assert not refused, "\n".join(refused)


def test_every_command_named_in_the_text_exists_with_the_flags_shown():
    # In the text `diavolo game` names a command without its required flags; anything else must parse.
    refused = [f"{where}: `{command}`: {error}" for where, command in command_lines(inline=True)
               if (error := parse_error(diavolo_argv(command))) is not None
               and "the following arguments are required" not in error]
    assert not refused, "\n".join(refused)


def test_every_flag_the_manual_names_exists():
    flags = every_flag() | OTHER_PROGRAMS_FLAGS
    unknown = []
    for path in manual_files():
        texts = [(f"{path.relative_to(REPOSITORY)} line {line}", code) for line, code in inline_code(path)]
        texts += [(block.where, block.text) for block in blocks(path) if block.language in SHELL_LANGUAGES]
        for where, text in texts:
            unknown += [f"{where}: {flag}" for flag in FLAG.findall(text) if flag not in flags]
    assert not unknown, "flags no diavolo command has:\n" + "\n".join(unknown)


def named_paths() -> list[tuple[str, str]]:
    found = []
    for path in manual_files():
        for line, text in prose(path):
            found += [(f"{path.relative_to(REPOSITORY)} line {line}", p) for p in REPOSITORY_PATH.findall(text)]
        for block in blocks(path):
            found += [(block.where, p) for p in REPOSITORY_PATH.findall(block.text)]
            found += [(block.where, p) for p in re.findall(r'--8<-- "([^"]+)"', block.text)]
    return found


def test_every_repository_path_the_manual_names_exists():
    assert len(named_paths()) >= 10
    missing = [f"{where}: {path}" for where, path in named_paths()
               if not (REPOSITORY / path).exists() and not path.startswith(MADE_BY_USE)]
    assert not missing, "paths that are not in the repository:\n" + "\n".join(missing)


def repository_text_files() -> list[tuple[Path, str]]:
    """Every text file of the repository: what a clone has, without what installing and building leave (their
    folders are not walked: the manual's build may be writing in build/ meanwhile)."""
    left_by_tools = {"site", "build", "__pycache__"}

    def kept(name: str) -> bool:
        return not (name.startswith(".") and name != ".ci") and not name.endswith(".egg-info")

    files = []
    for folder, subfolders, names in os.walk(REPOSITORY):
        subfolders[:] = sorted(name for name in subfolders if kept(name) and name not in left_by_tools)
        for path in (Path(folder) / name for name in sorted(names) if kept(name)):
            try:
                files.append((path, path.read_text(encoding="utf-8")))
            except UnicodeDecodeError:
                continue  # a picture
    return files


def test_no_file_of_the_repository_points_outside_it():
    # The rules and the seeds they came from lived outside the repository; a clone has neither.
    outside = re.compile(r"RULES\.md|(?i:shared[ ]folder)|\.\./shared|/work/")
    this_check = {Path(__file__).resolve(), (REPOSITORY / "tests/docs/test_rules_page.py").resolve()}
    found = [f"{path.relative_to(REPOSITORY)} line {number}: {line.strip()}"
             for path, text in repository_text_files() if path.resolve() not in this_check
             for number, line in enumerate(text.splitlines(), 1) if outside.search(line)]
    assert len(repository_text_files()) > 100
    assert not found, "\n".join(found)


def test_every_manual_page_the_repository_names_exists():
    # Code comments and docstrings send readers to pages of the manual; those pages must be there.
    page = re.compile(r"(?<![\w/.-])(docs[\w]*/[\w/.-]+\.md)")
    named = [(f"{path.relative_to(REPOSITORY)} line {number}", name)
             for path, text in repository_text_files()
             for number, line in enumerate(text.splitlines(), 1) for name in page.findall(line)]
    assert len(named) >= 5
    missing = [f"{where}: {name}" for where, name in named if not (REPOSITORY / name).is_file()]
    assert not missing, "pages that are not in docs/:\n" + "\n".join(missing)


# The README

def readme() -> str:
    return (REPOSITORY / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_at_most_150_lines():
    assert len(readme().splitlines()) <= 150


def ci_command() -> str:
    """What .ci/run runs once in the repository's folder: its lines after `cd`, comments left out."""
    lines = [line.strip() for line in (REPOSITORY / ".ci/run").read_text().splitlines()]
    return "\n".join(line for line in lines if line and not line.startswith(("#", "set ", "cd ")))


def test_the_readme_test_command_is_what_ci_runs():
    bash_blocks = [block.text.strip() for block in blocks(REPOSITORY / "README.md") if block.language == "bash"]
    assert ci_command() in bash_blocks, (
        f"the README must show the command .ci/run runs, as one bash block:\n{ci_command()}")


def test_the_readme_opens_with_the_simulator_then_the_tests():
    first, second = [block.text.strip() for block in blocks(REPOSITORY / "README.md")][:2]
    assert first.startswith("python3 -m venv .venv && .venv/bin/pip install -e . && ")
    assert diavolo_argv(shell_commands(first)[-1])[0] == "simulate"
    assert second == ci_command()


def test_the_readme_module_map_names_every_part_of_the_package():
    (row,) = [line for line in readme().splitlines() if line.startswith("| `diavolo_stats/`")]
    package = REPOSITORY / "diavolo_stats"
    parts = sorted(path.name for path in package.iterdir() if (path / "__init__.py").is_file())
    parts += sorted(path.stem for path in package.glob("*.py") if not path.stem.startswith("_"))
    missing = [part for part in parts if f"`{part}`" not in row]
    assert not missing, f"the README's map of diavolo_stats/ leaves out {missing}"


# The contracts page: the keys and columns it lists are the ones the commands print

def contract_examples() -> list[tuple[str, str, list[str]]]:
    """(where, command, documented keys) for each example of the contracts page and the table after it."""
    path = DOCS / "reference" / "contracts.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    examples = []
    for block in blocks(path):
        if block.language != "console":
            continue
        (command,) = console_commands(block)
        table_rows = []
        after_block = block.line + len(block.text.splitlines()) + 1  # the line after its closing fence
        for line in lines[after_block:]:
            if line.startswith("$ ") or line.startswith("#") or (table_rows and not line.startswith("|")):
                break
            if line.startswith("| `"):
                table_rows.append(line)
        first_cells = [row.split("|")[1] for row in table_rows]
        keys = [key.split(".")[0] for cell in first_cells for key in re.findall(r"`([^`]+)`", cell)]
        examples.append((block.where, command, keys))
    return examples


def test_the_drill_summary_columns_on_the_contracts_page_are_the_ones_the_drill_prints():
    # The drill needs a terminal, so its summary is not run here: the page is checked against its columns.
    from diavolo_stats.drill.summary import SUMMARY_COLUMNS

    page = (DOCS / "reference" / "contracts.md").read_text(encoding="utf-8")
    section = page.split("## `diavolo drill` session summary", 1)[1].split("\n## ", 1)[0]
    documented = [key for row in section.splitlines() if row.startswith("| `")
                  for key in re.findall(r"`([^`]+)`", row.split("|")[1])]
    assert documented == list(SUMMARY_COLUMNS)


@pytest.fixture(scope="module")
def example_folder(tmp_path_factory) -> Path:
    """A folder like the one the site's examples run in: copies of examples/ and data/."""
    folder = tmp_path_factory.mktemp("docs-examples")
    for name in ("examples", "data"):
        shutil.copytree(REPOSITORY / name, folder / name,
                        ignore=shutil.ignore_patterns("reports", "drills.csv", "*.lock", "*.partial"))
    return folder


def printed_keys(output: str) -> list[str]:
    if output.lstrip().startswith("{"):
        return list(json.loads(output))
    return next(csv.reader(io.StringIO(output)))


def key_pattern(documented: str) -> re.Pattern:
    """`p_<color>` stands for p_black, p_red, ...: a placeholder in angle brackets matches any name."""
    return re.compile("".join(".+" if part.startswith("<") else re.escape(part)
                              for part in re.split(r"(<[^>]+>)", documented)) + r"\Z")


@pytest.mark.parametrize("where, command, documented", contract_examples(),
                         ids=[where for where, _, _ in contract_examples()])
def test_the_contracts_page_lists_exactly_what_the_command_prints(where, command, documented, example_folder):
    argv = diavolo_argv(command) if shell_commands(command) == [command] else None
    if argv is not None:  # one `diavolo` command: run in this process
        result = run_diavolo(*argv, cwd=example_folder, env={"DIAVOLO_LOG": ""})
    else:
        environment = {key: value for key, value in os.environ.items() if key != "DIAVOLO_LOG"}
        environment["PATH"] = str(Path(sys.executable).parent) + os.pathsep + environment.get("PATH", "")
        result = subprocess.run(["sh", "-c", command], cwd=example_folder, capture_output=True, text=True,
                                timeout=300, env=environment)
    assert result.returncode == 0, (where, result.stderr)
    printed = printed_keys(result.stdout)
    patterns = [key_pattern(key) for key in documented]
    undocumented = [key for key in printed if not any(p.match(key) for p in patterns)]
    assert not undocumented, f"{where}: `{command}` prints keys the page does not list: {undocumented}"
    # A key the page lists may be one the command prints only sometimes ("only when ..." in its row).
    page = (DOCS / "reference" / "contracts.md").read_text(encoding="utf-8")
    absent = [key for key, pattern in zip(documented, patterns) if not any(pattern.match(k) for k in printed)
              and not re.search(rf"\| `{re.escape(key)}` \|[^\n]*\bonly\b", page)]
    assert not absent, f"{where}: the page lists keys `{command}` does not print: {absent}"


def page_as_built(path: Path) -> str:
    """The page's text with each `python exec="1"` block replaced by what it prints, as the site shows it."""
    text = path.read_text(encoding="utf-8")
    for block in blocks(path):
        if block.language == "python" and block.option("exec") == "1":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(block.text, block.where, "exec"), {})  # the manual's own build-time code
            text = text.replace(block.text, printed.getvalue())
    return text


def test_the_security_page_gives_the_rooms_bounds_and_the_sums_that_make_guessing_a_code_hopeless():
    from diavolo_stats.game.settings import MAX_PLAYERS
    from diavolo_stats.web import rooms, sockets

    page = page_as_built(DOCS / "guides" / "security.md")
    rows = dict(line.strip("| ").split(" | ", 1) for line in page.splitlines() if line.startswith("| "))
    assert rows["WebSockets open at once, all rooms, joined or not"].startswith(f"{rooms.MAX_SOCKETS},")
    assert rows["a WebSocket that has not sent its join message"] == f"closed after {rooms.JOIN_TIMEOUT_S:g} s"
    assert rows["one message's send"].startswith(f"{sockets.SEND_DEADLINE_S:g} s;")
    assert rows["seats, before the game starts"].startswith(f"{MAX_PLAYERS}; a seat whose page left is freed")
    codes = len(rooms.CODE_LETTERS) ** rooms.CODE_LENGTH
    years = (codes / rooms.MAX_ROOMS - rooms.WRONG_CODE_BURST) / rooms.WRONG_CODES_PER_S / (365.25 * 24 * 3600)
    assert f"= **{codes:,}**" in page and f"about **{years:,.0f} years**" in page and years > 1000


def test_the_sweep_guide_states_the_librarys_limit_on_rounds():
    from diavolo_stats.core.simulate import MAX_ROUNDS

    (row,) = [line for line in page_as_built(DOCS / "guides" / "sweep.md").splitlines()
              if line.startswith("| `--rounds`")]
    assert f"1 to {MAX_ROUNDS:,} |" in row, row
