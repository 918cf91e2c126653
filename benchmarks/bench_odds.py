"""Speed of the exact odds: the standard game, a grid of variants, and icepool as a reference.

Run: python benchmarks/bench_odds.py

Prints each figure beside the figure it is compared to (the target the
performance page states, or icepool computing the same five tie probabilities). Nothing is
asserted: machines are noisy.
"""

from __future__ import annotations

import statistics
import time
from fractions import Fraction

import diavolo_stats.core.distributions as distributions
import diavolo_stats.core.odds as odds
from diavolo_stats.core.variant import Command, Variant

STANDARD_TARGET_MS = 5.0
GRID_TARGET_S = 2.0
GRID_DICE = range(1, 7)
GRID_COLORS = range(2, 7)
GRID_SIDES = (4, 6, 8, 10, 12, 20)
REPEATS = 200


def milliseconds(function, repeats: int = 1, before=None) -> float:
    """Median wall time of `function()` in ms over `repeats` runs, `before()` run untimed ahead of each."""
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def clear_cache() -> None:
    # The per-(figures, dice, faces) memo of each color's distribution: clearing it makes every call cold.
    distributions.figure_distribution.cache_clear()


def bench_standard() -> dict[Command, Fraction]:
    standard = Variant()
    first_ms = milliseconds(lambda: odds.exact_odds(standard))
    cold_ms = milliseconds(lambda: odds.exact_odds(standard), REPEATS, before=clear_cache)
    warm_ms = milliseconds(lambda: odds.exact_odds(standard), REPEATS)
    print(f"standard game, five value commands (target {STANDARD_TARGET_MS:g} ms):")
    print(f"  first call after import  {first_ms:8.3f} ms  = {first_ms / STANDARD_TARGET_MS:.3f} x target")
    print(f"  cold cache (median)      {cold_ms:8.3f} ms  = {cold_ms / STANDARD_TARGET_MS:.3f} x target")
    print(f"  warm cache (median)      {warm_ms:8.3f} ms  = {warm_ms / STANDARD_TARGET_MS:.3f} x target")
    return odds.exact_odds(standard).tie_probability


def bench_grid() -> None:
    variants = [Variant(colors=tuple(f"c{i}" for i in range(colors)), dice_per_color=dice, sides=sides)
                for dice in GRID_DICE for colors in GRID_COLORS for sides in GRID_SIDES]
    clear_cache()
    start = time.perf_counter()
    for variant in variants:
        odds.exact_odds(variant)
    seconds = time.perf_counter() - start
    print(f"grid of {len(variants)} variants (dice per color 1-6 x colors 2-6 x sides {GRID_SIDES}), cold cache "
          f"(target {GRID_TARGET_S:g} s):")
    print(f"  {seconds:.4f} s  = {seconds / GRID_TARGET_S:.4f} x target")


def icepool_ties():
    """The five standard-game tie probabilities the icepool way: the figure as a die, a pool of three."""
    import icepool
    from icepool import d6

    def top_two_equal(pool) -> Fraction:
        return pool.expand().map(lambda pair: pair[0] == pair[1]).probability(True)

    total = 3 @ d6
    spread = d6.pool(3).expand().map(lambda sorted_dice: sorted_dice[-1] - sorted_dice[0])
    odd_count = 3 @ (d6 % 2)
    highest = icepool.highest(d6, d6, d6)
    return {
        Command.HIGHEST_TOTAL: top_two_equal(total.pool(3).highest(2)),
        Command.LOWEST_TOTAL: top_two_equal(total.pool(3).lowest(2)),
        Command.LARGEST_SPREAD: top_two_equal(spread.pool(3).highest(2)),
        Command.MOST_ODD: top_two_equal(odd_count.pool(3).highest(2)),
        Command.HIGHEST_DIE: top_two_equal(highest.pool(3).highest(2)),
    }


def bench_icepool(ours: dict[Command, Fraction]) -> None:
    try:
        import icepool
    except ImportError:
        print("icepool: not installed (pip install icepool); reference skipped")
        return
    standard = Variant()
    start = time.perf_counter()
    theirs = icepool_ties()
    icepool_first_ms = (time.perf_counter() - start) * 1e3
    icepool_warm_ms = milliseconds(icepool_ties, 20)
    ours_cold_ms = milliseconds(lambda: odds.exact_odds(standard), REPEATS, before=clear_cache)
    agree = "agree" if theirs == ours else f"DISAGREE: {theirs}"
    print(f"icepool {icepool.__version__}, the same five tie probabilities ({agree}):")
    print(f"  icepool first call       {icepool_first_ms:8.3f} ms; exact_odds cold {ours_cold_ms:.3f} ms "
          f"= {ours_cold_ms / icepool_first_ms:.4f} x icepool")
    print(f"  icepool repeated (median) {icepool_warm_ms:7.3f} ms; exact_odds cold {ours_cold_ms:.3f} ms "
          f"= {ours_cold_ms / icepool_warm_ms:.4f} x icepool")


def main() -> None:
    ours = bench_standard()
    bench_grid()
    bench_icepool(ours)


if __name__ == "__main__":
    main()
