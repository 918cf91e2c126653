"""A list flag's text is read by the rule of the field it sets (`Several`, `TextMap`): the command line refuses
what the library refuses, with the library's words."""

from __future__ import annotations

import pytest
from helpers.cli import REPO, assert_one_line_error, run_diavolo

from diavolo_stats.cli import build_parser
from diavolo_stats.core.variant import Variant
from diavolo_stats.core.variant_file import variant_named
from diavolo_stats.drill.settings import DrillSettings
from diavolo_stats.errors import InputError
from diavolo_stats.sweep.grid import SweepGrid

SIXES = str(REPO / "examples" / "variants" / "sixes.toml")

# (the command line, the flag, the library given the values the flag's text stands for)
BAD_LISTS = {
    "grey color": (["odds", "--colors", "black,grey"], "--colors", lambda: Variant(colors=("black", "grey"))),
    "capital color": (["simulate", "--colors", "Black,red"], "--colors", lambda: Variant(colors=("Black", "red"))),
    "nine colors": (["odds", "--colors", "a,b,c,d,e,f,g,h,i"], "--colors", lambda: Variant(colors=tuple("abcdefghi"))),
    "one color twice": (["odds", "--colors", "red, red"], "--colors", lambda: Variant(colors=("red", "red"))),
    "unknown command": (["odds", "--commands", "highest-total,tallest"], "--commands",
                        lambda: Variant(commands=("highest-total", "tallest"))),
    "no command": (["simulate", "--commands", ","], "--commands", lambda: Variant(commands=("", ""))),
    "an empty color": (["simulate", "--colors", "red,,blue"], "--colors", lambda: Variant(colors=("red", "", "blue"))),
    "command not in the file": (["odds", "--variant", SIXES, "--commands", "most-sevens"], "--commands",
                                lambda: variant_named(SIXES).commands_named(("most-sevens",))),
    "sweep color twice": (["sweep", "--colors", "red,red"], "--colors", lambda: SweepGrid(colors=("red", "red"))),
    "sweep unknown command": (["sweep", "--commands", "closets"], "--commands",
                              lambda: SweepGrid(commands=("closets",))),
    "key without its answer": (["drill", "--player", "ana", "--keys", "black=j,red"], "--keys",
                               lambda: DrillSettings(player="ana", keys="black=j,red")),
    "one key for two answers": (["drill", "--player", "ana", "--keys", "black=j, red=j"], "--keys",
                                lambda: DrillSettings(player="ana", keys={"black": "j", "red": "j"})),
}


@pytest.mark.parametrize("argv, flag, library", BAD_LISTS.values(), ids=list(BAD_LISTS))
def test_a_bad_list_is_refused_by_the_command_line_in_the_library_s_words(tmp_path, argv, flag, library):
    with pytest.raises(InputError) as refused:
        library()
    result = run_diavolo(*argv, cwd=tmp_path)
    assert_one_line_error(result)
    # argparse refuses a flag it reads (--colors), the command a field the library checks (--commands); either
    # way the flag, then the library's own message. A list refused as a whole is quoted as typed.
    message = refused.value.message
    if ", got (" in message:
        message = f"{message.rsplit(', got ', 1)[0]}, got {argv[argv.index(flag) + 1]!r}"
    assert result.stderr.strip() == f"diavolo: error: {flag}: {message}", (result.stderr, refused.value)


@pytest.mark.parametrize("argv, line", [
    (["odds", "--colors", "red,red"], "--colors: red repeated; each color once, got 'red,red'"),
    (["simulate", "--colors", "red,,blue"],
     "--colors: has an empty color (nothing between two commas, or at an end), got 'red,,blue'"),
    (["minodice", "odds", "--against", "2,2"], "--against: 2 repeated; each count once, got '2,2'"),
    # Read by the command line, checked by the library: --commands against the variant's, --foreperiod-ms as a drill.
    (["odds", "--commands", "closest, closest"],
     "--commands: closest repeated; each command once, got 'closest, closest'"),
    (["sweep", "--commands", ","],
     "--commands: has an empty command (nothing between two commas, or at an end), got ','"),
    (["drill", "--player", "ana", "--foreperiod-ms", "600,,900"],
     "--foreperiod-ms: has an empty bound (nothing between two commas, or at an end), got '600,,900'"),
    # One wait is taken as both bounds: the count allowed is 1 or 2.
    (["drill", "--player", "ana", "--foreperiod-ms", "1,2,3"],
     "--foreperiod-ms: need 1 or 2 bounds (one wait, or MIN,MAX), got 3"),
    # An empty list says it is empty and what it takes (--keys: not read as no key changed), not `need 2, got 0`.
    (["drill", "--player", "ana", "--keys", ""],
     "--keys: is empty; give ANSWER=KEY pairs, separated by commas, got ''"),
    (["drill", "--player", "ana", "--foreperiod-ms", ""],
     "--foreperiod-ms: is empty; give 1 or 2 bounds (one wait, or MIN,MAX), separated by commas, got ''"),
    (["odds", "--colors", " "], "--colors: is empty; give 2 to 8 colors, separated by commas, got ' '"),
    (["sweep", "--commands", ""], "--commands: is empty; give at least one command, separated by commas, got ''"),
    (["minodice", "odds", "--against", ""],
     "--against: is empty; give at least one count, separated by commas, got ''"),
    # Names given one by one: each checked as it is read, the list quoted as the words typed.
    (["players", "--log", "log.csv", "--player", "ann", ""],
     "--player: must be non-empty text without control characters, got ''"),
    (["players", "--log", "log.csv", "--player", "ann", "ann"],
     "--player: ann repeated; each player once, got 'ann ann'"),
])
def test_a_list_refused_as_a_whole_is_quoted_as_typed_not_as_a_tuple(tmp_path, argv, line):
    result = run_diavolo(*argv, cwd=tmp_path)
    assert_one_line_error(result)
    assert result.stderr.strip() == f"diavolo: error: {line}"


@pytest.mark.parametrize("typed, bounds", [("500", (500, 500)), ("300,900", (300, 900)), (" 0 ", (0, 0))])
def test_the_drill_takes_one_wait_or_two_bounds_as_its_messages_say(typed, bounds):
    from diavolo_stats.cli.drill import _settings

    argv = ["drill", "--player", "ana", "--foreperiod-ms", typed]
    assert _settings(build_parser(argv).parse_args(argv)).foreperiod_ms == bounds


# Every flag that takes a comma-separated list, with an empty item: (the command line, the flag).
EMPTY_ITEMS = {
    "simulate --colors": (["simulate", "--colors", "red,,blue"], "--colors"),
    "odds --colors": (["odds", "--colors", "black,red,"], "--colors"),
    "odds --commands": (["odds", "--commands", "highest-total,,closest"], "--commands"),
    "simulate --commands": (["simulate", "--commands", "highest-total,,closest"], "--commands"),
    "drill --colors": (["drill", "--player", "ana", "--colors", ",black,red"], "--colors"),
    "drill --keys": (["drill", "--player", "ana", "--keys", "black=j,,red=k"], "--keys"),
    "drill --foreperiod-ms": (["drill", "--player", "ana", "--foreperiod-ms", "600,,900"], "--foreperiod-ms"),
    "drill --commands": (["drill", "--player", "ana", "--commands", "highest-total,,closest"], "--commands"),
    "game --colors": (["game", "--players", "novice", "expert", "--colors", "red,,blue"], "--colors"),
    "game --commands": (["game", "--players", "novice", "expert", "--commands", "closest,,most-odd"], "--commands"),
    "sweep --colors": (["sweep", "--colors", "red,,blue"], "--colors"),
    "sweep --commands": (["sweep", "--commands", "closest,"], "--commands"),
    "sweep --target": (["sweep", "--target", "highest-total=0.1..0.2,,closest=..0.15"], "--target"),
    "sweep --sides": (["sweep", "--sides", "4,,6"], "--sides"),
    "sweep --dice-per-color": (["sweep", "--dice-per-color", "2,,3"], "--dice-per-color"),
    "sweep --colors-count": (["sweep", "--colors-count", "2,3,"], "--colors-count"),
    "sweep --tolerance": (["sweep", "--commands", "closest", "--tolerance", "0.1,,0.2"], "--tolerance"),
    "sweep --scatter-mm": (["sweep", "--commands", "closest", "--scatter-mm", "200,,300"], "--scatter-mm"),
    "sweep --die-mm": (["sweep", "--commands", "closest", "--die-mm", ",16"], "--die-mm"),
    "sweep --plot-axes": (["sweep", "--sides", "4,6", "--colors-count", "2,3", "--plot-axes", "sides,,colors_count",
                           "--plot", "plots"], "--plot-axes"),
    "minodice odds --against": (["minodice", "odds", "--against", "1,,3"], "--against"),
    "minodice bid --hand": (["minodice", "bid", "--players", "3", "--round", "1", "--hand", "1,,3"], "--hand"),
}


@pytest.mark.parametrize("argv, flag", EMPTY_ITEMS.values(), ids=list(EMPTY_ITEMS))
def test_an_empty_item_of_any_list_is_refused_naming_the_flag_and_nothing_is_written(tmp_path, argv, flag):
    result = run_diavolo(*argv, cwd=tmp_path)
    # In the words of every list: `--flag: has an empty NOUN (nothing between two commas, or at an end), got ...`.
    assert_one_line_error(result, f"{flag}: has an empty ", "(nothing between two commas, or at an end), got ")
    assert list(tmp_path.iterdir()) == []


def test_the_empty_item_cases_are_every_list_flag_of_every_command():
    # A list flag says so in its help's placeholder (C1,C2,..., MIN,MAX, LIST): a new one must join EMPTY_ITEMS.
    from diavolo_stats.cli import build_parser

    flags = {f"{parser.prog.removeprefix('diavolo ')} {max(action.option_strings, key=len)}"
             for parser in build_parser().walk() for action in parser.options()
             if action.option_strings and ("," in str(action.metavar) or action.metavar == "LIST")}
    assert flags == set(EMPTY_ITEMS)


def test_a_variant_file_s_own_command_is_taken_by_name():
    result = run_diavolo("odds", "--variant", SIXES, "--commands", "most-sixes", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert [line.split(",")[0] for line in result.stdout.splitlines()[1:]] == ["most-sixes"]
