"""Exact odds: the fast method agrees with enumerating every roll, and with facts known by hand."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from helpers.brute_force import brute_force_odds
from hypothesis import given, settings
from hypothesis import strategies as st

from diavolo_stats.core.distributions import figure_distribution
from diavolo_stats.core.figures import DiceFigure
from diavolo_stats.core.odds import ExactOdds, exact_odds, fraction_text
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.errors import InputError

COLOR_NAMES = ("black", "red", "white", "blue")


@st.composite
def small_variants(draw, max_rolls: int = 2**14) -> Variant:
    """Variants of 2-4 colors, 1-3 dice, 2-6 sides with at most `max_rolls` joint rolls, any value commands."""
    colors = draw(st.integers(2, 4))
    dice = draw(st.integers(1, 3))
    sides = draw(st.integers(2, 6).filter(lambda s: s ** (colors * dice) <= max_rolls))
    commands = draw(st.lists(st.sampled_from(tuple(Command)), min_size=1, max_size=6, unique=True))
    return Variant(colors=COLOR_NAMES[:colors], dice_per_color=dice, sides=sides, commands=tuple(commands))


@settings(max_examples=100, deadline=None)
@given(small_variants())
def test_exact_odds_equal_brute_force_on_small_variants(variant):
    assert exact_odds(variant) == brute_force_odds(variant)


def test_exact_odds_equal_brute_force_on_kids_variant():
    kids = Variant.preset("kids")
    assert exact_odds(kids) == brute_force_odds(kids)


def test_exact_odds_equal_brute_force_on_standard_game():
    # 6**9 (about 10 million) joint rolls, resolved in chunks by rules.answers: a few seconds.
    standard = Variant.preset("standard")
    assert exact_odds(standard) == brute_force_odds(standard)


@pytest.mark.parametrize("figure", ["sum", "max", "min", "spread", "distinct", "most-alike", "nth-highest:1",
                                    "nth-highest:2", "count:odd", "count:even", "count:=2", "count:>=2",
                                    "count:<=1"])
@pytest.mark.parametrize("dice, faces", [(2, (1, 2, 3, 4, 5)), (3, (1, 2, 3, 4, 5, 6)), (4, (0, 1, 1, 2, 2, 3)),
                                         (2, (2, 2, 5))])
def test_figure_distributions_match_the_resolver_figures_over_all_outcomes(figure, dice, faces):
    figure = DiceFigure.parse(figure)
    # values: (dice, outcomes) uint8, every ordered roll of one color once
    index = np.indices((len(faces),) * dice).reshape(dice, -1)
    values = np.asarray(faces, dtype=np.uint8)[index]
    shown, rolls = np.unique(figure.of(values), return_counts=True)
    assert figure_distribution((figure,), dice, faces) == {(int(v),): int(n) for v, n in zip(shown, rolls)}


@pytest.mark.parametrize("variant", [
    Variant(),
    Variant.preset("kids"),
    Variant(colors=("a", "b"), dice_per_color=1, sides=2),
    Variant(colors=tuple("abcdefgh"), dice_per_color=12, sides=100, table=TableModel(scatter_mm=1000)),
    Variant(colors=tuple("abcde"), dice_per_color=5, sides=7),
])
def test_each_commands_answers_are_probabilities_summing_to_one(variant):
    odds = exact_odds(variant)
    for command in variant.value_commands:
        by_answer = odds.answer_probability[command]
        assert set(by_answer) == {*variant.colors, GREY}
        assert all(0 <= p <= 1 for p in by_answer.values())
        assert sum(by_answer.values()) == 1
        assert by_answer[GREY] == odds.tie_probability[command]


def test_colors_are_equally_likely_to_be_the_answer():
    odds = exact_odds(Variant(colors=("a", "b", "c", "d", "e"), dice_per_color=4, sides=8))
    for by_answer in odds.answer_probability.values():
        assert len({p for answer, p in by_answer.items() if answer != GREY}) == 1


def test_highest_and_lowest_total_tie_equally_often():
    # Turning every die upside down (v -> sides + 1 - v) swaps the two commands.
    odds = exact_odds(Variant(dice_per_color=4, sides=10, colors=("a", "b", "c", "d")))
    assert odds.tie_probability[Command.HIGHEST_TOTAL] == odds.tie_probability[Command.LOWEST_TOTAL]


@pytest.mark.parametrize("sides", range(2, 21))
def test_highest_die_with_one_die_and_two_colors_ties_one_time_in_sides(sides):
    odds = exact_odds(Variant(colors=("a", "b"), dice_per_color=1, sides=sides))
    assert odds.tie_probability[Command.HIGHEST_DIE] == Fraction(1, sides)


@pytest.mark.parametrize("colors", [2, 3, 4])
@pytest.mark.parametrize("sides", [2, 5, 6, 7])
def test_most_odd_with_one_die_ties_on_two_odd_dice_or_on_no_odd_die(colors, sides):
    odd, even = Fraction((sides + 1) // 2, sides), Fraction(sides // 2, sides)
    exactly_one_odd = colors * odd * even ** (colors - 1)
    no_odd = even**colors
    at_least_two_odd = 1 - exactly_one_odd - no_odd
    odds = exact_odds(Variant(colors=COLOR_NAMES[:colors], dice_per_color=1, sides=sides))
    # The all-even roll is a tie (grey), not "nobody": it is part of the tie probability.
    assert odds.tie_probability[Command.MOST_ODD] == at_least_two_odd + no_odd


def test_standard_game_most_odd_tie_is_53_in_128():
    # A color has 0..3 odd dice with weights 1, 3, 3, 1 (of 8). It alone has the most
    # with k odd when both others have fewer: (3*1**2 + 3*4**2 + 1*7**2) / 8**3 = 100/512.
    # Three colors: 300/512 alone, so the tie is 212/512 = 53/128.
    assert exact_odds(Variant()).tie_probability[Command.MOST_ODD] == Fraction(53, 128)


def test_closest_has_no_exact_value():
    odds = exact_odds(Variant(commands=(Command.HIGHEST_DIE, Command.CLOSEST)))
    assert list(odds.tie_probability) == [Command.HIGHEST_DIE]
    assert "simulate" in odds.closest_note
    assert exact_odds(Variant(commands=(Command.HIGHEST_DIE,))).closest_note is None


def test_changing_a_result_does_not_change_the_next_one():
    first = exact_odds(Variant())
    first.answer_probability[Command.MOST_ODD]["black"] = Fraction(0)
    first.tie_probability[Command.MOST_ODD] = Fraction(0)
    assert exact_odds(Variant()).tie_probability[Command.MOST_ODD] == Fraction(53, 128)
    assert exact_odds(Variant()).answer_probability[Command.MOST_ODD]["black"] == Fraction(25, 128)


def test_brute_force_refuses_variants_over_2_to_the_25_rolls():
    with pytest.raises(InputError, match="2\\*\\*25"):
        brute_force_odds(Variant(dice_per_color=4))


def test_exact_odds_object_refuses_probabilities_not_summing_to_one():
    variant = Variant(commands=(Command.MOST_ODD,))
    half = Fraction(1, 2)
    with pytest.raises(ValueError, match="answer_probability"):
        ExactOdds(variant, {Command.MOST_ODD: half},
                  {Command.MOST_ODD: {"black": half, "red": half, "white": half, GREY: half}})


def test_fraction_text_always_has_a_denominator():
    assert [fraction_text(Fraction(n, d)) for n, d in [(0, 5), (4, 4), (6, 8)]] == ["0/1", "1/1", "3/4"]


def test_a_work_budget_gives_the_same_odds_within_it_and_one_line_past_it():
    from diavolo_stats.core.budget import Stopped, WorkBudget

    variant = Variant(dice_per_color=5, sides=12)
    counted = WorkBudget(10**9, "a test")
    assert exact_odds(variant, counted).document() == exact_odds(variant).document()
    assert counted.spent > 0
    exact = WorkBudget(counted.spent, "a test")
    assert exact_odds(variant, exact).document() == exact_odds(variant).document()  # the same steps each time
    with pytest.raises(InputError, match=f"more than {counted.spent - 1:,} steps of work, a test"):
        exact_odds(variant, WorkBudget(counted.spent - 1, "a test"))
    stopped = WorkBudget(10**9, "a test")
    stopped.stop()
    with pytest.raises(Stopped):
        exact_odds(variant, stopped)
