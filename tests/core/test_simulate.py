"""The simulator against exact odds, against a slow reference for `closest`, and its repeatability."""

from __future__ import annotations

import math
import random

import pytest
from scipy.stats import norm

from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.simulate import BLOCK_ROUNDS, simulate
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import VALUE_COMMANDS, Command, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.stats import Estimate, proportion_estimate

# Each comparison below is one of many; the interval is widened (Bonferroni) so that the whole
# file fails by chance less than once in 1000 runs, while a real bias of a few standard errors fails.
COMPARISONS = 120
FAMILY_CONFIDENCE = 0.999
CONFIDENCE_LIMIT = 1 - (1 - FAMILY_CONFIDENCE) / COMPARISONS
Z_LIMIT = norm.ppf(1 - (1 - FAMILY_CONFIDENCE) / (2 * COMPARISONS))


def values_only(variant: Variant) -> Variant:
    import dataclasses

    return dataclasses.replace(variant, commands=variant.value_commands)


# One variant for each way the simulator rolls: a joint table (standard, kids), per-color
# tables (4 colors; d8), and plain dice (7 dice per color: too many outcomes for a table).
ENGINE_VARIANTS = {
    "standard": Variant(),
    "kids": Variant.preset("kids"),
    "four colors": Variant(colors=("black", "red", "white", "blue")),
    "d8": Variant(sides=8),
    "seven dice": Variant(dice_per_color=7),
}


@pytest.mark.parametrize("name", ENGINE_VARIANTS)
@pytest.mark.parametrize("seed", [11, 12])
def test_simulated_tie_frequency_matches_exact_odds(name, seed):
    variant = values_only(ENGINE_VARIANTS[name])
    result = simulate(variant, 400_000, seed=seed)
    exact = exact_odds(variant)
    for command in variant.commands:
        truth = float(exact.tie_probability[command])
        estimate = proportion_estimate(result.ties(command), result.rounds, confidence=CONFIDENCE_LIMIT)
        assert truth in estimate, (name, command, result.tie_probability(command), truth)
        for color in variant.colors:
            share_truth = float(exact.answer_probability[command][color])
            count = result.counts[command][variant.colors.index(color)]
            estimate = proportion_estimate(count, result.rounds, confidence=CONFIDENCE_LIMIT)
            assert share_truth in estimate, (name, command, color)


def _reference_closest_tie(model: TableModel, colors: int, dice_per_color: int, rng: random.Random) -> bool:
    """One throw the slow, obvious way: place dice one by one, re-throwing any that lands on another."""
    half = model.die_mm / 2
    placed: list[tuple[float, float]] = []
    while len(placed) < 1 + colors * dice_per_color:
        x = rng.uniform(half, model.scatter_mm - half)
        y = rng.uniform(half, model.scatter_mm - half)
        if all(abs(x - px) >= model.die_mm or abs(y - py) >= model.die_mm for px, py in placed):
            placed.append((x, y))
    (cx, cy), dice = placed[0], placed[1:]
    nearest = [min(math.hypot(x - cx, y - cy) for x, y in dice[c * dice_per_color:(c + 1) * dice_per_color])
               for c in range(colors)]
    best = min(nearest)
    return sum(d <= best * (1 + model.tolerance) for d in nearest) > 1


@pytest.mark.parametrize("model", [TableModel(), TableModel(scatter_mm=150, tolerance=0.2)])
def test_closest_tie_frequency_matches_a_slow_reference_throw(model):

    variant = Variant(commands=(Command.CLOSEST,), table=model)
    reference_rounds = 20_000
    rng = random.Random(2024)
    reference_ties = sum(_reference_closest_tie(model, 3, 3, rng) for _ in range(reference_rounds))
    result = simulate(variant, 400_000, seed=3)
    p_fast = result.tie_probability(Command.CLOSEST)
    p_slow = reference_ties / reference_rounds
    pooled = (result.ties(Command.CLOSEST) + reference_ties) / (result.rounds + reference_rounds)
    standard_error = math.sqrt(pooled * (1 - pooled) * (1 / result.rounds + 1 / reference_rounds))
    assert abs(p_fast - p_slow) <= Z_LIMIT * standard_error, (p_fast, p_slow)


def test_closest_ties_more_often_with_a_coarser_eye():
    rates = [simulate(Variant(commands=(Command.CLOSEST,), table=TableModel(tolerance=t)), 200_000, seed=5)
             .tie_probability(Command.CLOSEST) for t in (0.0, 0.05, 0.1, 0.3)]
    assert rates == sorted(rates) and rates[0] < 0.001 < rates[1]


def test_closest_favours_no_color():
    variant = Variant(commands=(Command.CLOSEST,))
    result = simulate(variant, 600_000, seed=8)
    shares = result.counts[Command.CLOSEST][:3]
    total = sum(shares)
    for count in shares:
        estimate = proportion_estimate(count, total, confidence=CONFIDENCE_LIMIT)
        assert 1 / 3 in estimate


@pytest.mark.parametrize("variant", [Variant(), Variant(colors=("a", "b", "c", "d")), Variant(dice_per_color=7)])
def test_the_same_seed_gives_the_same_counts_however_the_work_is_split(variant):
    rounds = 2 * BLOCK_ROUNDS + 12_345
    reference = simulate(variant, rounds, seed=77, workers=1, chunk_rounds=BLOCK_ROUNDS)
    for workers, chunk in [(1, 10**9), (2, BLOCK_ROUNDS), (2, 2 * BLOCK_ROUNDS + 1), (3, 1)]:
        again = simulate(variant, rounds, seed=77, workers=workers, chunk_rounds=chunk)
        assert again.counts == reference.counts, (workers, chunk)
    assert simulate(variant, rounds, seed=78).counts != reference.counts


def test_a_run_without_seed_reports_the_seed_that_repeats_it():
    first = simulate(Variant(), 50_000)
    assert simulate(Variant(), 50_000, seed=first.seed).counts == first.counts


def test_every_round_counts_once_for_every_command():
    result = simulate(Variant(), 100_003, seed=1)
    for command in Variant().commands:
        assert sum(result.counts[command]) == 100_003


def test_report_gives_exact_values_and_z_scores_for_value_commands_only():
    document = simulate(Variant(), 100_000, seed=2).document()
    for command in VALUE_COMMANDS:
        entry = document["commands"][command.value]
        assert entry["exact"] == pytest.approx(float(exact_odds(Variant()).tie_probability[command]))
        assert entry["z_score"] == pytest.approx(
            (entry["tie_probability"] - entry["exact"]) / math.sqrt(entry["exact"] * (1 - entry["exact"]) / 100_000))
    assert "exact" not in document["commands"]["closest"]
    assert "16 mm dice" in document["table_model"]


def test_proportion_estimate_is_the_wilson_interval_of_a_known_case():
    # 81 successes out of 263: the Wilson interval of the textbook example (Newcombe 1998, case 1 style).
    estimate = proportion_estimate(81, 263)
    assert estimate.value == 81 / 263
    assert [round(bound, 4) for bound in estimate.bounds] == [0.2553, 0.3662]


def test_an_exact_figure_is_its_own_interval():
    assert Estimate.exact(0.25).bounds == [0.25, 0.25]
    assert 0.25 in Estimate.exact(0.25)


@pytest.mark.parametrize("kwargs, message", [
    ({"rounds": 0}, "rounds: must be a whole number from 1 to 1,000,000,000,000"),
    ({"rounds": 10, "workers": 0}, "workers: must be"),
    ({"rounds": 10, "seed": -1}, "seed: must be"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(InputError, match=message):
        simulate(Variant(), **kwargs)


def test_no_more_workers_start_than_there_are_chunks_and_too_many_are_refused(monkeypatch):
    import diavolo_stats.core.simulate as simulate_module

    started = []
    real_pool = simulate_module.worker_pool

    def recording_pool(workers):
        started.append(workers)
        return real_pool(workers)

    monkeypatch.setattr(simulate_module, "worker_pool", recording_pool)
    rounds = 3 * BLOCK_ROUNDS
    reference = simulate(Variant(), rounds, seed=5)
    # 3 chunks of one block: 3 workers at most, whatever was asked for, and the same counts.
    assert simulate(Variant(), rounds, seed=5, workers=8, chunk_rounds=BLOCK_ROUNDS).counts == reference.counts
    assert started == [3]
    with pytest.raises(InputError, match=f"workers: must be a whole number from 1 to {simulate_module.MAX_WORKERS}"):
        simulate(Variant(), rounds, workers=simulate_module.MAX_WORKERS + 1)
    with pytest.raises(InputError, match="rounds: must be a whole number from 1 to 1,000,000,000,000"):
        simulate(Variant(), 10**23)
