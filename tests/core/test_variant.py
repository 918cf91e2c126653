"""A variant is validated once, with errors that name the field and what is allowed."""

from __future__ import annotations

import pytest

from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import ALL_COMMANDS, Command, Variant
from diavolo_stats.errors import InputError


def test_the_standard_game_is_the_box():
    variant = Variant.preset("standard")
    assert variant.colors == ("black", "red", "white")
    assert variant.dice_per_color == 3 and variant.sides == 6
    assert variant.commands == ALL_COMMANDS
    assert variant.dice_count == 9


def test_the_kids_variant_has_two_dice_per_color():
    assert Variant.preset("kids").dice_per_color == 2


@pytest.mark.parametrize("fields, message", [
    ({"colors": ("black",)}, "colors: need 2 to 8 colors"),
    ({"colors": ("black", "red", "black")}, "black repeated"),
    ({"colors": ("black", "grey")}, "'grey' is reserved"),
    ({"colors": ("black", "Red Hot")}, "must be a color name"),
    ({"dice_per_color": 0}, "dice_per_color: must be a whole number from 1"),
    ({"sides": 1}, "sides: must be a whole number from 2"),
    ({"commands": ()}, "commands: need at least one"),
    ({"commands": ("highest-total", "highest-total")}, "repeated"),
    ({"commands": ("tallest",)}, "commands: each command must be one of highest-total, .*, got 'tallest'"),
])
def test_bad_variants_name_the_field(fields, message):
    with pytest.raises(InputError, match=message):
        Variant(**fields)


@pytest.mark.parametrize("fields, message", [
    ({"tolerance": -0.1}, "tolerance: must be a number from 0 to 1"),
    ({"tolerance": 1.5}, "tolerance: must be a number from 0 to 1"),
    ({"die_mm": 0}, "die_mm: must be a number above 0 mm"),
    ({"scatter_mm": 10}, "scatter_mm: must be larger than the die"),
])
def test_bad_table_models_name_the_field(fields, message):
    with pytest.raises(InputError, match=message):
        TableModel(**fields)


def test_too_many_dice_for_the_table_is_refused():
    with pytest.raises(InputError, match="do not fit"):
        Variant(colors=tuple("abcdefgh"), dice_per_color=12, table=TableModel(scatter_mm=100))
    # Without `closest`, where dice land does not matter.
    Variant(colors=tuple("abcdefgh"), dice_per_color=12, table=TableModel(scatter_mm=100),
            commands=("highest-total",))


def test_commands_given_as_names_become_commands():
    assert Variant(commands=("most-odd",)).commands == (Command.MOST_ODD,)


def test_unknown_preset_lists_the_allowed_ones():
    with pytest.raises(InputError, match="allowed: standard, kids"):
        Variant.preset("giant")
