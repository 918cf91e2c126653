"""Commands a designer writes: every figure and tie-break form, exact to the fraction against brute force,
and simulated inside the simulation's own interval around the exact value."""

from __future__ import annotations

from fractions import Fraction

import pytest
from helpers.brute_force import brute_force_odds
from helpers.variants import VALUE_FIGURES, command, small_variants_with_a_command
from hypothesis import given, settings

from diavolo_stats.core.commands import Command
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.rules import resolve
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import ColorDice, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.stats import proportion_estimate


@settings(max_examples=150, deadline=None)
@given(small_variants_with_a_command())
def test_exact_odds_of_any_command_equal_brute_force(variant):
    assert exact_odds(variant) == brute_force_odds(variant)


@pytest.mark.parametrize("figure", VALUE_FIGURES)
@pytest.mark.parametrize("wins", [True, False])
def test_every_figure_both_ways_equals_brute_force_on_uneven_colors(figure, wins):
    custom = command("custom", (figure, wins))
    variant = Variant(colors=("black", "red", "white"), dice_per_color=2, faces=(0, 1, 1, 2, 3),
                      dice=(ColorDice(color="white", count=3, faces=(1, 2, 3)),), commands=(custom,))
    assert exact_odds(variant) == brute_force_odds(variant)


@pytest.mark.parametrize("then", [
    [("max", True)], [("max", False)], [("sum", True), ("min", False)], [("most-alike", True), ("spread", False)],
])
def test_every_tie_break_form_equals_brute_force(then):
    chained = command("chained", ("count:odd", True), *then)
    variant = Variant(dice_per_color=3, sides=5, commands=(chained,))
    assert exact_odds(variant) == brute_force_odds(variant)


def test_a_tie_break_turns_ties_into_answers_and_only_ties():
    plain = command("plain", ("max", True))
    broken = command("broken", ("max", True), ("nth-highest:2", True))
    odds = exact_odds(Variant(commands=(plain, broken)))
    assert odds.tie_probability[broken] < odds.tie_probability[plain]
    for color in ("black", "red", "white"):
        assert odds.answer_probability[broken][color] > odds.answer_probability[plain][color]


def test_uneven_colors_are_not_symmetric():
    # White rolls four dice: it wins the highest total more often than the colors with three.
    variant = Variant(dice=(ColorDice(color="white", count=4),), commands=(Command.HIGHEST_TOTAL,))
    odds = exact_odds(variant).answer_probability[Command.HIGHEST_TOTAL]
    assert odds["white"] > odds["black"] == odds["red"]
    assert sum(odds.values()) == 1


def test_one_die_each_most_sixes_is_a_tie_unless_exactly_one_six():
    # With one die per color, "most sixes" has an answer only when exactly one color shows a six.
    sixes = command("most-sixes", ("count:=6", True))
    odds = exact_odds(Variant(dice_per_color=1, commands=(sixes,)))
    assert odds.tie_probability[sixes] == 1 - 3 * Fraction(1, 6) * Fraction(5, 6) ** 2


def test_custom_faces_resolve_and_refuse_a_value_no_face_shows():
    variant = Variant(faces=(0, 1, 1, 2, 2, 3), commands=(Command.HIGHEST_TOTAL,))
    assert resolve(variant, Command.HIGHEST_TOTAL, {"black": [0, 3, 3], "red": [1, 1, 2],
                                                    "white": [2, 2, 0]}).answer == "black"
    with pytest.raises(InputError, match="among 0, 1, 2, 3"):
        resolve(variant, Command.HIGHEST_TOTAL, {"black": [6, 3, 3], "red": [1, 1, 2], "white": [2, 2, 0]})


@pytest.mark.parametrize("variant", [
    Variant(commands=(command("most-sixes", ("count:=6", True), ("sum", True)),
                      command("most-alike", ("most-alike", True)))),
    Variant(faces=(0, 1, 1, 2, 2, 3), dice=(ColorDice(color="white", count=4),),
            commands=(command("fewest-distinct", ("distinct", False), ("max", True)), Command.LOWEST_TOTAL)),
])
def test_simulated_custom_commands_lie_inside_their_intervals(variant):
    result = simulate(variant, 1 << 20, seed=11)
    exact = exact_odds(variant)
    for custom in variant.commands:
        interval = result.ci95(custom)
        assert interval.low <= float(exact.tie_probability[custom]) <= interval.high, custom
        for color, answered in zip(variant.colors, result.counts[custom]):
            # Each color's share inside its own Wilson interval (99.9 %: a dozen shares are checked at once);
            # uneven colors have their own odds.
            share = proportion_estimate(answered, result.rounds, confidence=0.999)
            assert share.low <= float(exact.answer_probability[custom][color]) <= share.high, (custom, color)


def test_the_overall_grey_rate_counts_repeated_faces_of_the_command_die():
    sixes = command("most-sixes", ("count:=6", True))
    variant = Variant(commands=(Command.HIGHEST_TOTAL, sixes), command_die=("highest-total", "most-sixes",
                                                                            "most-sixes"))
    odds = exact_odds(variant)
    expected = (odds.tie_probability[Command.HIGHEST_TOTAL] + 2 * odds.tie_probability[sixes]) / 3
    assert odds.overall_tie_probability == expected
    assert odds.document()["overall"]["tie_fraction"] == f"{expected.numerator}/{expected.denominator}"
    result = simulate(variant, 1 << 20, seed=3)
    overall = result.overall()
    assert overall.low <= float(expected) <= overall.high


def test_the_overall_grey_rate_is_not_exact_with_closest_on_the_die():
    odds = exact_odds(Variant())
    assert odds.overall_tie_probability is None
    assert odds.document()["overall"]["tie_probability"] is None
    assert "simulate" in odds.document()["overall"]["note"]


@pytest.mark.slow  # counts up to the state limit before it says so: about 5 s
def test_exact_odds_beyond_the_limit_say_so_and_point_to_simulate():
    # A total, then the lowest die, then the odd dice: the states multiply (about 13 x 1,200 x 100 x 13).
    chained = command("chained", ("sum", True), ("min", True), ("count:odd", True))
    with pytest.raises(InputError, match="100,000 states; estimate them with `diavolo simulate`"):
        exact_odds(Variant(dice_per_color=12, sides=100, commands=(chained,)))


def test_a_command_survives_pickling_for_worker_processes():
    import pickle

    custom = command("custom", ("max", True), ("sum", False))
    assert pickle.loads(pickle.dumps(custom)) == custom
    assert pickle.loads(pickle.dumps(Command.MOST_ODD)) is Command.MOST_ODD
    result_one = simulate(Variant(commands=(custom,)), 1 << 19, seed=5, workers=1, chunk_rounds=1 << 18)
    result_two = simulate(Variant(commands=(custom,)), 1 << 19, seed=5, workers=2, chunk_rounds=1 << 18)
    assert result_one.counts == result_two.counts


def test_a_large_variant_has_exact_odds_for_folding_figures():
    # 6 colors x 8d10: sums, maxima and counts fold over faces; no roll is enumerated.
    variant = Variant(colors=("a", "b", "c", "d", "e", "f"), dice_per_color=8, sides=10,
                      commands=(command("most-tens", ("count:=10", True), ("sum", True)), Command.HIGHEST_DIE))
    odds = exact_odds(variant)
    for by_answer in odds.answer_probability.values():
        assert sum(by_answer.values()) == 1
        assert len({by_answer[color] for color in variant.colors}) == 1  # even colors: one chance each
    # Highest die over 8d10: a color alone at the top value m, summed over m, as a closed form.
    top = sum(6 * (m**8 - (m - 1) ** 8) * ((m - 1) ** 8) ** 5 for m in range(1, 11))
    assert 1 - odds.tie_probability[Command.HIGHEST_DIE] == Fraction(top, 10 ** 48)
