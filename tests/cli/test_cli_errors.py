"""Every command-line error has one form, and a library field is shown as the flag that sets it."""

from __future__ import annotations

import os
import re

import pytest
from helpers.cli import assert_one_line_error, run_diavolo
from helpers.drill_logs import trial_row

from diavolo_stats.cli import build_parser
from diavolo_stats.cli.common import error_line
from diavolo_stats.drill.log import DrillLog
from diavolo_stats.errors import InputError


@pytest.mark.parametrize("args, fragment", [
    (("simulate", "--rounds", "0"), "--rounds: must be a whole number from 1 to 1,000,000,000,000, got 0"),
    (("game", "--players", "preset:novice", "--games", "zero"), "--games: must be a whole number"),
    (("minodice", "bid", "--hand", "black"), "the following arguments are required"),
    (("nosuchcommand",), "COMMAND: invalid choice: 'nosuchcommand'"),
])
def test_argument_errors_and_library_errors_share_one_prefix(args, fragment):
    result = run_diavolo(*args)
    assert_one_line_error(result, fragment)
    assert result.stderr.startswith("diavolo: error: ")


@pytest.mark.parametrize("args, flag", [
    # Refused by argparse: a value the flag's type refuses, no value, a value not among the choices.
    (("simulate", "--rounds", "0"), "--rounds"),
    (("odds", "--colors", "black"), "--colors"),
    (("simulate", "--seed"), "--seed"),
    (("odds", "--format", "xml"), "--format"),
    (("game", "--players"), "--players"),
    # Refused by the library, the field named by its flag.
    (("odds", "--commands", "tallest"), "--commands"),
    (("odds", "--scatter-mm", "10", "--die-mm", "16"), "--scatter-mm"),
    (("sweep", "--sides", "1"), "--sides"),
    (("game", "--players", "ann", "preset:novice", "--log", "missing.csv"), "--log"),
])
def test_every_refusal_of_a_flag_starts_with_the_flag_alone(tmp_path, args, flag):
    result = run_diavolo(*args, cwd=tmp_path)
    assert_one_line_error(result)
    assert result.stderr.startswith(f"diavolo: error: {flag}: "), result.stderr


@pytest.mark.parametrize("args, line", [
    # A Variant field (commands) and a TableModel field (scatter_mm), through the variant flags.
    (("odds", "--commands", "tallest"), "diavolo: error: --commands: each command must be one of"),
    (("odds", "--scatter-mm", "10", "--die-mm", "16"), "diavolo: error: --scatter-mm: must be larger than the die"),
    # A field whose flag is not its name: round_number is --round.
    (("minodice", "bid", "--hand", "black,red,red,red,red,red,red,red", "--round", "8", "--players", "6"),
     "diavolo: error: --round: a 6-player game has rounds 1 to 6"),
    # log_path is --log for `game`; `path` is --log for `synth-log`.
    (("game", "--players", "ann", "preset:novice", "--games", "1", "--design-games", "0", "--log", "missing.csv"),
     "diavolo: error: --log: no drill log at 'missing.csv'"),
    # An empty player is no name of the log, refused before the log is looked for.
    (("game", "--players", "", "preset:novice", "--log", "missing.csv"),
     "diavolo: error: --players: '' names no player; a player is preset:NAME, a player file ending in .toml, or a "
     "name in the drill log"),
])
def test_a_library_error_names_the_flag_the_user_typed(tmp_path, args, line):
    result = run_diavolo(*args, cwd=tmp_path)
    assert_one_line_error(result, line)
    assert result.stderr.startswith(line)


def test_an_existing_synthetic_log_is_refused_naming_the_flag(tmp_path):
    (tmp_path / "real.csv").write_text("mine\n", encoding="utf-8")
    result = run_diavolo("synth-log", "--log", "real.csv", "--sessions", "1", "--trials", "1", cwd=tmp_path)
    assert_one_line_error(result, "diavolo: error: --log: 'real.csv' exists")
    assert (tmp_path / "real.csv").read_text(encoding="utf-8") == "mine\n"


def test_the_flag_comes_from_the_parser_not_from_the_message():
    parser = build_parser()
    args = parser.parse_args(["drill", "--player", "ann"])
    # timeout_s is set by --timeout: the dest, not the text, decides.
    assert error_line(InputError("must be above 0", field="timeout_s"), args) == "--timeout: must be above 0"
    # A field no option of the chosen subcommand sets is left as the library says it.
    assert error_line(InputError("bad", field="rounds"), args) == "rounds: bad"
    assert error_line(InputError("no such file x.csv"), args) == "no such file x.csv"


def test_every_option_dest_is_a_python_name():
    """Each dest is the library parameter it feeds, so every one must be a valid identifier."""
    dests = [action.dest for parser in build_parser().walk() for action in parser.options()]
    assert len(dests) > 100 and all(dest.isidentifier() for dest in dests)


@pytest.mark.parametrize("command", ["odds", "simulate", "drill", "synth-log", "report", "game", "minodice"])
def test_help_shows_percent_signs_once(command):
    result = run_diavolo(command, "--help")
    assert result.returncode == 0
    assert "%%" not in result.stdout


FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


@pytest.mark.parametrize("parser", list(build_parser().walk()), ids=lambda parser: parser.prog)
def test_a_parser_lists_what_its_help_shows_in_the_same_sections(parser):
    """The manual's command pages and these tests read a parser's public listing: it must be what --help shows."""
    shown = parser.format_help()
    assert {option for action in parser.options() for option in action.option_strings
            if option.startswith("--")} == set(FLAG.findall(shown))
    headings = [line[:-1].replace("positional arguments", "arguments") for line in shown.splitlines()
                if line.endswith(":") and not line.startswith(" ")]
    if parser.subcommands():  # the subcommands are listed as a positional argument, COMMAND
        assert headings[0] == "arguments"
        headings = headings[1:]
        places = [re.search(rf"^    {re.escape(name)}\s", shown, re.MULTILINE).start() for name in parser.subcommands()]
        assert places == sorted(places)
        assert all(" ".join(help_line.split()) in " ".join(shown.split())
                   for help_line, _ in parser.subcommands().values())
    assert headings == list(parser.sections())


@pytest.mark.parametrize("kind, said", [("folder", "is a folder, not a file"),
                                        ("fifo", "is not a regular file (a FIFO, a device or a socket)")])
@pytest.mark.parametrize("args, flag", [
    (("report", "--log", "log.csv", "--simulation", "{path}"), "--simulation: simulation results "),
    (("report", "--log", "{path}"), "--log: "),
    (("game", "--players", "ann", "preset:novice", "--log", "{path}"), "--log: "),
    (("drill", "--player", "ann", "--log", "{path}"), "--log: "),  # before the drill asks for a terminal
    (("serve", "--log", "{path}"), "--log: "),  # before anything listens
    (("players", "--log", "{path}"), "--log: "),
    (("log", "upgrade", "{path}"), "FILE: "),  # an argument: by its placeholder
    (("minodice", "score", "{path}"), "SHEET.csv: "),
])
def test_a_folder_or_a_fifo_where_a_file_is_read_is_refused_as_what_it_is(tmp_path, kind, said, args, flag):
    (tmp_path / "log.csv").write_text("")  # a file, for a flag beside the one tried; the refusal comes first
    path = tmp_path / kind
    path.mkdir() if kind == "folder" else os.mkfifo(path)
    result = run_diavolo(*(arg.format(path=path) for arg in args), cwd=tmp_path)
    assert_one_line_error(result, f"diavolo: error: {flag}{str(path)!r} {said}")


@pytest.mark.parametrize("args, flag", [
    (("game", "--players", "ann", "preset:novice", "--log", "{path}"), "--log"),
    (("players", "--log", "{path}"), "--log"),
    (("report", "--log", "{path}", "--out", "{path}.report"), "--log"),
    (("log", "upgrade", "{path}"), "FILE"),
])
def test_a_file_that_is_no_drill_log_is_named_by_its_flag_then_the_file_and_line(tmp_path, args, flag):
    path = tmp_path / "scores.csv"
    path.write_text("name,score\nada,3\n")
    result = run_diavolo(*(arg.format(path=path) for arg in args), cwd=tmp_path)
    assert_one_line_error(result, f"diavolo: error: {flag}: {path}: line 1: not a drill log")


@pytest.mark.parametrize("name, said", [
    ("rules.toml", "rules.toml: is a folder, not a file; give a TOML file"),
    ("fifo.toml", "fifo.toml: is not a regular file (a FIFO, a device or a socket); give a TOML file"),
    ("missing.toml", "missing.toml: cannot read it (No such file"),
    ("rules/", "'rules/' is a folder, not a file; allowed: standard, kids, or a variant file ending in .toml"),
    ("fifo", "'fifo' is not a regular file (a FIFO, a device or a socket); allowed: standard, kids"),
    ("", "unknown variant ''; allowed: standard, kids, or a variant file ending in .toml"),  # not the folder '.'
])
@pytest.mark.parametrize("command", [("odds",), ("sweep",), ("serve", "--port", "0")])
def test_a_variant_that_is_no_file_is_refused_naming_the_variant_flag(tmp_path, command, name, said):
    (tmp_path / "rules.toml").mkdir()
    (tmp_path / "rules").mkdir()
    os.mkfifo(tmp_path / "fifo.toml")
    os.mkfifo(tmp_path / "fifo")
    result = run_diavolo(*command, "--variant", name, cwd=tmp_path)
    assert_one_line_error(result)
    assert result.stderr.startswith(f"diavolo: error: --variant: {said}"), result.stderr


@pytest.mark.parametrize("args, flag", [
    (("report", "--log", "{name}"), "--log"),
    (("report", "--log", "log.csv", "--out", "{name}"), "--out"),
    (("report", "--log", "log.csv", "--simulation", "{name}"), "--simulation"),
    (("serve", "--log", "{name}"), "--log"),  # before anything listens
    (("sweep", "--plot", "{name}"), "--plot"),
    (("players", "--log", "{name}/log.csv"), "--log"),
    (("synth-log", "--log", "{name}"), "--log"),
    (("simulate", "--out", "{name}"), "--out"),
    (("log", "upgrade", "{name}"), "FILE"),
])
def test_a_name_too_long_for_the_system_is_refused_naming_the_flag_and_the_limit(tmp_path, args, flag):
    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    name = "n" * (name_max + 1)
    result = run_diavolo(*(arg.format(name=name) for arg in args), cwd=tmp_path)
    assert_one_line_error(result, f"diavolo: error: {flag}: '{'n' * 39}... has a name of {name_max + 1:,} bytes; "
                                  f"the system allows at most {name_max:,} in a name")


def test_a_path_too_long_for_the_system_is_refused_naming_the_flag_and_the_limit(tmp_path):
    path_max = os.pathconf(tmp_path, "PC_PATH_MAX")
    path = "/".join(["folder"] * (path_max // 7 + 1))
    result = run_diavolo("report", "--log", path, cwd=tmp_path)
    assert_one_line_error(result, f"diavolo: error: --log: '{path[:39]}... is {len(path):,} bytes long; the system "
                                  f"allows at most {path_max - 1:,} in a path")


def test_a_name_that_is_no_player_of_a_log_too_short_to_fit_is_refused_as_no_player(tmp_path):
    # The name is what is wrong, not the log: said before the fit would say no player has enough answers.
    log = DrillLog(tmp_path / "log.csv")
    for trial in range(1, 4):
        log.append(trial_row(trial, player="ana"))
    result = run_diavolo("game", "--players", "nobody", "preset:novice", "--log", "log.csv", cwd=tmp_path)
    assert_one_line_error(result, "diavolo: error: --players: 'nobody' is not a player of the drill log; its "
                                  "players: ana")
