"""A list flag's text is read by the rule of the field it sets (`Several`, `TextMap`): the command line refuses
what the library refuses, with the library's words."""

from __future__ import annotations

import pytest
from helpers.cli import REPO, assert_one_line_error, run_diavolo

from diavolo_stats.core.variant import Variant
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
    "no command": (["simulate", "--commands", ","], "--commands", lambda: Variant(commands=())),
    "command not in the file": (["odds", "--variant", SIXES, "--commands", "most-sevens"], "--commands",
                                lambda: Variant.named(SIXES).commands_named(("most-sevens",))),
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
    # argparse says `argument --colors: ...` for a flag it reads, the command `--commands: ...` for a field the
    # library checks; either way the flag, then the library's own message.
    assert result.stderr.strip().endswith(f"{flag}: {refused.value.message}"), (result.stderr, refused.value)


def test_a_variant_file_s_own_command_is_taken_by_name():
    result = run_diavolo("odds", "--variant", SIXES, "--commands", "most-sixes", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert [line.split(",")[0] for line in result.stdout.splitlines()[1:]] == ["most-sixes"]
