"""Every flag of every command, read from the parsers themselves, given each hostile value: the command either runs
(exit 0) or refuses in one line (exit 2) that starts with the flag (an argument: its placeholder), or, the value
taken, with the base command line's own refusal; never a traceback, never another status.

A new flag is covered as soon as a parser has it; a new command needs a cheap base command line in BASES (a test
says so). Each value is given last, after the base's own flags, so that it is the one argparse keeps.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers.cli import REPO, run_diavolo
from helpers.drill_logs import trial_row

from diavolo_stats.cli import build_parser
from diavolo_stats.drill.log import DrillLog

pytestmark = pytest.mark.slow  # 131 flags x 14 values: 1,834 runs in this process, about 40 s of CPU

SIMULATION = str(REPO / "data" / "simulation_standard.csv")

HOSTILE = {
    "empty": "", "blank": " ", "a comma": ",", "an empty item": "a,,b", "minus one": "-1", "zero": "0",
    "nan": "nan", "inf": "inf", "past a float": "1e309", "10,000 characters": "x" * 10_000, "a NUL byte": "a\x00b",
    "the parent folder": "..", "a folder": "{world}/adir", "a FIFO": "{world}/fifo",
}
"""What a user (or a script gone wrong) may type for any value; {world} is the scratch folder of the run."""

BASES = {  # each command's cheap, valid command line: every flag tried is added after it
    "odds": ["odds"],
    "simulate": ["simulate", "--rounds", "1000", "--workers", "1"],
    "sweep": ["sweep", "--sides", "4", "--dice-per-color", "2", "--colors-count", "2", "--rounds", "1000",
              "--workers", "1"],
    "drill": ["drill", "--player", "ana", "--log", "{world}/drill.csv"],  # refused at the terminal, all else good
    "log upgrade": ["log", "upgrade", "{world}/log.csv"],  # schema 2 already: refused, the flags read first
    "synth-log": ["synth-log", "--log", "{world}/synthetic.csv", "--sessions", "1", "--trials", "5"],
    "report": ["report", "--log", "{world}/header_only.csv", "--simulation", SIMULATION, "--out", "{world}/report"],
    "players": ["players", "--log", "{world}/log.csv"],
    "game": ["game", "--players", "preset:novice", "preset:expert", "--games", "1", "--design-games", "0",
             "--max-rounds", "5"],
    "minodice score": ["minodice", "score", "{world}/sheet.csv"],
    "minodice odds": ["minodice", "odds", "--simulations", "100", "--against", "1"],
    "minodice bid": ["minodice", "bid", "--hand", "black", "--round", "1", "--players", "3", "--simulations", "100"],
    "serve": ["serve", "--port", "0"],  # everything up to serving: the address bound, then closed (_run patched)
}
COMPANIONS = {("game", "--players"): ["preset:novice"]}
"""A list flag that needs more than one item: the valid items given beside the hostile one."""


def _flags() -> dict[str, tuple[str, str | None, int, str]]:
    """Every argument or option that takes a value, of every command: id -> (command, flag or None, position of an
    argument among the base's words, the name a refusal starts with)."""
    found = {}
    for parser in build_parser().walk():
        command = parser.prog.removeprefix("diavolo").strip()
        arguments = 0
        for action in parser.options():
            if action.nargs == 0 or not command or parser.subcommands():
                continue
            if action.option_strings:
                flag = max(action.option_strings, key=len)
                found[f"{command} {flag}"] = (command, flag, 0, flag)
            else:
                arguments += 1
                found[f"{command} {action.metavar}"] = (command, None, len(command.split()) + arguments - 1,
                                                        action.metavar)
    return found


FLAGS = _flags()


def build_world(folder: Path) -> None:
    log = DrillLog(folder / "log.csv")
    for trial in range(1, 4):
        log.append(trial_row(trial, player="ana"))
    (folder / "header_only.csv").write_text((folder / "log.csv").read_text(encoding="utf-8").splitlines()[0] + "\n")
    shutil.copy(REPO / "examples" / "sheet.csv", folder / "sheet.csv")
    (folder / "adir").mkdir()
    os.mkfifo(folder / "fifo")


def test_every_command_with_flags_has_a_base_command_line():
    assert {command for command, _, _, _ in FLAGS.values()} == set(BASES)


@pytest.mark.parametrize("command, flag, position, named", FLAGS.values(), ids=list(FLAGS))
def test_a_hostile_value_of_any_flag_runs_or_is_refused_in_one_line_naming_it(command, flag, position, named,
                                                                              tmp_path, monkeypatch):
    from diavolo_stats.web import server

    # serve: checked and bound, never serving. Its loop is never started: a browser test's Playwright, earlier in
    # this process, keeps an event loop running on this thread, where asyncio.run refuses to start.
    monkeypatch.setattr(server.asyncio, "run", lambda serving: serving.close())
    world = tmp_path / "world"
    (world / "cwd").mkdir(parents=True)  # '..' is the scratch folder, not the test's
    environment = {"DIAVOLO_LOG": str(world / "log.csv")}
    base = [word.replace("{world}", str(world)) for word in BASES[command]]
    # The base's own refusal (the drill's, without a terminal), which a value taken leaves as it was; the world
    # made again after it, as the base may have written in it.
    build_world(world)
    base_refusal = run_diavolo(*base, cwd=world / "cwd", env=environment).stderr
    shutil.rmtree(world)
    (world / "cwd").mkdir(parents=True)
    build_world(world)
    failures = []
    for name, value in HOSTILE.items():
        value = value.replace("{world}", str(world))
        if flag is None:
            argv = base[:position] + [value] + base[position + 1:]
        else:
            argv = [*base, flag, value, *COMPANIONS.get((command, flag), [])]
        result = run_diavolo(*argv, cwd=world / "cwd", env=environment)
        lines = result.stderr.splitlines()
        refused_in_one_line = (result.returncode == 2 and len(lines) == 1
                               and (lines[0].startswith(f"diavolo: error: {named}: ") or result.stderr == base_refusal))
        if "Traceback" in result.stderr or not (result.returncode == 0 or refused_in_one_line):
            said = result.stderr if len(result.stderr) < 400 else f"{result.stderr[:150]}...{result.stderr[-150:]}"
            failures.append(f"{name}: exit {result.returncode}: {said!r}")
    assert not failures, "\n".join(failures)
