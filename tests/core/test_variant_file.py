"""Variant files: the examples read into the variants they describe, and every mistake is one line naming the
file and the key (and the line, where the TOML parser gives one)."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest
from helpers.variants import BAD_VARIANT_FILES, small_variants_with_a_command
from hypothesis import given, settings
from hypothesis import strategies as st

from diavolo_stats.cli import main
from diavolo_stats.core.commands import Command, Criterion
from diavolo_stats.core.figures import DiceFigure
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import ColorDice, Variant
from diavolo_stats.core.variant_file import read_variant, variant_named, variant_toml
from diavolo_stats.errors import InputError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"

# What each bad file's message must name: the key (and the line, for the syntax error).
NAMED = {
    "variant_syntax": "not valid TOML: Invalid value (at line 2, column 10)",
    "variant_unknown_key": "speed: unknown key; allowed: name, colors",
    "variant_unknown_figure": "commands.mid.figure: unknown figure; allowed: sum, max",
    "variant_bad_direction": "commands.big.wins: must be highest or lowest",
    "variant_then_not_list": "commands.big.then: must be a list",
    "variant_nth_beyond_dice": "commands.fourth.figure: nth-highest:4 needs 4 dice",
    "variant_count_no_face": "commands.sevens.figure: count:=7: no die shows 7",
    "variant_empty_faces": "faces: need 2 to 100 faces",
    "variant_count_zero": "dice.white.count: must be a whole number from 1 to 12",
    "variant_builtin_redefined": "commands.closest: closest is a built-in command",
    "variant_grey_color": "colors: 'grey' is reserved for ties",
    "variant_die_undefined": "command_die[1]: 'most-sevens' is not a command",
    "variant_binary": "not a text file",
    "variant_too_many_tie_breaks": "commands.big.then: must be a list of at most 6 tie-breaks",
    "variant_too_many_commands": "commands: at most 24 commands of your own, got 25",
    "variant_die_too_long": "command_die: must be a list of 1 to 60 command names",
}


def test_every_bad_file_is_named_here():
    assert set(NAMED) == set(BAD_VARIANT_FILES)


@pytest.mark.parametrize("name", sorted(BAD_VARIANT_FILES))
def test_a_bad_variant_file_is_one_line_naming_the_file_and_the_key(name, tmp_path, capsys):
    path = tmp_path / f"{name}.toml"
    text = BAD_VARIANT_FILES[name]
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputError) as error:
        read_variant(path)
    assert str(error.value).startswith(f"{path}: ") and NAMED[name] in str(error.value), str(error.value)
    assert main(["odds", "--variant", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"diavolo: error: --variant: {error.value}\n"


def test_the_box_file_is_the_standard_game():
    box = read_variant(EXAMPLES / "box.toml")
    assert exact_odds(box).tie_probability == exact_odds(Variant()).tie_probability
    assert box.die == Variant().die and box.name == "the box"


def test_a_file_and_the_same_variant_built_in_code_are_equal():
    from_file = read_variant(EXAMPLES / "uneven-colors.toml")
    in_code = Variant(dice=(ColorDice(color="white", count=4, faces=(0, 1, 1, 2, 2, 3)),), name="white handicap")
    assert from_file == in_code
    sixes = read_variant(EXAMPLES / "sixes.toml")
    most_sixes = sixes.command("most-sixes")
    assert most_sixes == Command.define("most-sixes", {
        "label": "most sixes", "rule": "the color with the most sixes wins; a tie is broken by the lowest total",
        "figure": "count:=6", "then": [{"figure": "sum", "wins": "lowest"}]})
    # Two of the die's six faces show it.
    assert sixes.die.count(most_sixes) == 2 and len(sixes.die) == 6


@pytest.mark.parametrize("path", sorted(set(EXAMPLES.glob("*.toml")) - {EXAMPLES / "broken.toml"}),
                         ids=lambda path: path.name)
def test_every_example_file_gives_exact_odds_on_the_command_line(path, capsys):
    assert main(["odds", "--variant", str(path), "--format", "json"]) == 0
    assert '"overall"' in capsys.readouterr().out


def test_commands_choose_among_the_files_faces_keeping_repeats():
    sixes = read_variant(EXAMPLES / "sixes.toml")
    odds = exact_odds(sixes)
    chosen = read_variant(EXAMPLES / "sixes.toml")
    import dataclasses

    chosen = dataclasses.replace(chosen, commands=(chosen.command("most-sixes"), Command.HIGHEST_TOTAL))
    assert [str(c) for c in chosen.die] == ["highest-total", "most-sixes", "most-sixes"]
    expected = (odds.tie_probability[Command.HIGHEST_TOTAL] + 2 * odds.tie_probability[sixes.command("most-sixes")]) / 3
    assert exact_odds(chosen).overall_tie_probability == expected


def test_a_preset_name_or_a_toml_path_and_nothing_else():
    assert variant_named("kids") == Variant.preset("kids")
    with pytest.raises(InputError, match="standard, kids, or a variant file ending in .toml"):
        variant_named("giant")


def test_the_broken_example_of_the_manual_is_refused_naming_its_key(capsys):
    assert main(["odds", "--variant", str(EXAMPLES / "broken.toml")]) == 2
    assert "broken.toml: commands.most-sixes.wins: must be highest or lowest" in capsys.readouterr().err


def test_the_drill_logs_the_box_file_as_standard_and_a_file_of_its_own_as_its_rules():
    from diavolo_stats.drill.log.rules import played_variant, rules_cell

    assert rules_cell(read_variant(EXAMPLES / "box.toml")) == "standard"
    for name in ("tie-break", "uneven-colors", "sixes", "custom-faces"):
        variant = read_variant(EXAMPLES / f"{name}.toml")
        assert played_variant(rules_cell(variant)) == variant


@pytest.mark.parametrize("name", ["sixes", "tie-break", "custom-faces"])
def test_the_json_document_gives_each_defined_command_as_its_file_section(name):
    variant = read_variant(EXAMPLES / f"{name}.toml")
    defined = exact_odds(variant).document()["variant"]["defined_commands"]
    assert defined and all(Command.define(command, section) == variant.command(command)
                           for command, section in defined.items())


def test_the_drill_teaches_each_built_in_with_the_label_and_rule_its_definition_states():
    from diavolo_stats.drill.teaching import help_lines

    shown = "\n".join(help_lines(Variant()))
    for command in Variant().commands:
        assert f"{command.label}: {command.rule}" in shown
    assert Command.MOST_ODD.rule == "the color with the most dice showing an odd number"  # the box's words


WRITTEN_IN_CODE = {
    "kids": Variant.preset("kids"),
    "a die of my own, closest off": Variant(faces=(0, 1, 1, 2, 2, 3), commands=(Command.HIGHEST_TOTAL,
                                                                                 Command.MOST_ODD)),
    "uneven colors, another table": Variant(colors=("blue", "green"), dice=(ColorDice("green", 4, (1, 2, 3)),),
                                            table=TableModel(scatter_mm=200, die_mm=12, tolerance=0.2),
                                            name="Blue vs. green!"),
    "a tie-break chain lowest first": Variant(commands=(Command("low", "low", "the lowest die, then the spread", (
        Criterion(DiceFigure.parse("min"), False), Criterion(DiceFigure.parse("spread"), True))),
        Command.CLOSEST), command_die=("low", "low", "closest")),
}


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES.glob("*.toml") if p.name != "broken.toml"),
                         ids=lambda p: p.name)
def test_a_written_variant_file_reads_back_as_the_example_it_was_written_from(path, tmp_path):
    variant = read_variant(path)
    written = tmp_path / "written.toml"
    written.write_text(variant_toml(variant), encoding="utf-8")
    assert read_variant(written) == variant


@pytest.mark.parametrize("name", sorted(WRITTEN_IN_CODE))
def test_a_variant_built_in_code_is_written_as_a_file_that_reads_back_as_it(name, tmp_path):
    variant = WRITTEN_IN_CODE[name]
    written = tmp_path / "written.toml"
    written.write_text(variant_toml(variant), encoding="utf-8")
    assert read_variant(written) == variant
    assert exact_odds(read_variant(written)).document() == exact_odds(variant).document()


@settings(max_examples=100, deadline=None)
@given(small_variants_with_a_command(), st.sampled_from([None, "Mine", 'a "quoted" name \\ é']),
       st.sampled_from([(), ("drawn", "drawn", "highest-total")]))
def test_any_variant_of_a_drawn_command_is_written_as_a_file_that_reads_back_as_it(variant, name, die):
    commands = (*variant.commands, Command.HIGHEST_TOTAL) if die else variant.commands
    variant = dataclasses.replace(variant, name=name, commands=commands, command_die=die)
    with tempfile.TemporaryDirectory() as folder:
        written = Path(folder) / "written.toml"
        written.write_text(variant_toml(variant), encoding="utf-8")
        assert read_variant(written) == variant
