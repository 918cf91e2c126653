"""Designers' own commands: exact odds beside icepool computing the same thing, and the simulated rate.

    python benchmarks/bench_rules.py            # needs icepool (the `test` extra)

For each case, `exact_odds` (cold: its per-color memo cleared) and icepool
compute the probability that each color alone is the answer and the tie
probability; the figures must agree to the fraction (target: equal) and
exact_odds should be at least 10x icepool's speed. Then a custom command's
simulated rate against the raw dice (target 0.5x, the built-ins' 1.0x is in
bench_simulate.py). Ratios are measured in this one run; the load average is
printed beside them. Nothing is asserted: machines are noisy.
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction
from pathlib import Path

import diavolo_stats.core.distributions as distributions
from diavolo_stats.core.commands import Command, Criterion
from diavolo_stats.core.figures import DiceFigure
from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import GREY, ColorDice, Variant

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_odds import milliseconds  # noqa: E402  (the benchmarks' own timings)
from bench_simulate import best_rate, raw_dice_rate  # noqa: E402

SPEED_TARGET = 10.0
RATE_TARGET = 0.5


def command(name: str, *chain: tuple[str, bool]) -> Command:
    return Command(name, None, None, tuple(Criterion(DiceFigure.parse(figure), highest) for figure, highest in chain))


CASES = [
    ("tie-break chain: max, then 2nd highest, then sum (3 x 3d6)",
     Variant(commands=(command("broken", ("max", True), ("nth-highest:2", True), ("sum", True)),))),
    ("most sixes, then the lowest total (3 x 3d6)",
     Variant(commands=(command("most-sixes", ("count:=6", True), ("sum", False)),))),
    ("most alike, then the total (3 x 4d6)",
     Variant(dice_per_color=4, commands=(command("most-alike", ("most-alike", True), ("sum", True)),))),
    ("uneven colors: highest total, white 4 dice of 0-3 pips",
     Variant(dice=(ColorDice(color="white", count=4, faces=(0, 1, 1, 2, 2, 3)),),
             commands=(Command.HIGHEST_TOTAL,))),
    ("custom faces 2,3,3,4,4,5: largest spread, then fewest distinct",
     Variant(faces=(2, 3, 3, 4, 4, 5), commands=(command("spread", ("spread", True), ("distinct", False)),))),
    ("large: 6 colors x 8d10, most tens then the total",
     Variant(colors=("a", "b", "c", "d", "e", "f"), dice_per_color=8, sides=10,
             commands=(command("most-tens", ("count:=10", True), ("sum", True)),))),
]


def icepool_answers(variant: Variant, custom: Command) -> dict[str, Fraction]:
    """Each color's probability of being the answer alone, and grey, the icepool way: each color's chain of
    figures as a die of tuples (lowest-wins figures negated), then P(its figure beats the highest of the others)."""
    import icepool

    def chain_value(sorted_dice: tuple[int, ...]):
        return tuple((1 if c.highest else -1) * _figure(c.figure, sorted_dice) for c in custom.chain)

    colors = []
    for count, faces in zip(variant.counts, variant.color_faces):
        die = icepool.Die(list(faces))
        if custom.chain == (Criterion(DiceFigure("sum")),):
            colors.append((count @ die).map(lambda total: (total,)))
        else:
            colors.append(die.pool(count).expand().map(chain_value))
    answers = {}
    for index, color in enumerate(variant.colors):
        others = icepool.highest(*(die for other, die in enumerate(colors) if other != index))
        answers[color] = icepool.map(lambda mine, best: mine > best, colors[index], others).probability(True)
    answers[GREY] = 1 - sum(answers.values())
    return answers


def _figure(figure: DiceFigure, dice: tuple[int, ...]) -> int:
    """A figure of one sorted roll, as a person would count it (for icepool's map)."""
    if figure.kind == "sum":
        return sum(dice)
    if figure.kind == "max":
        return max(dice)
    if figure.kind == "spread":
        return max(dice) - min(dice)
    if figure.kind == "distinct":
        return len(set(dice))
    if figure.kind == "most-alike":
        return max(dice.count(value) for value in dice)
    if figure.kind == "nth-highest":
        return sorted(dice)[-figure.rank]
    if figure.kind == "count":
        return sum(figure.counts_face(value) for value in dice)
    raise ValueError(figure)


def main() -> None:
    try:
        import icepool
    except ImportError:
        sys.exit("bench_rules needs icepool: pip install -e '.[test]'")
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores); icepool {icepool.__version__}")
    print(f"{'case':62s} {'agree':>6s} {'ours ms':>9s} {'icepool ms':>11s} {'speed-up':>9s}  "
          f"(target {SPEED_TARGET:g}x)")
    for label, variant in CASES:
        custom = variant.commands[0]
        ours = exact_odds(variant).answer_probability[custom]
        theirs = icepool_answers(variant, custom)
        ours_ms = milliseconds(lambda variant=variant: exact_odds(variant), 3,
                               before=distributions.figure_distribution.cache_clear)
        theirs_ms = milliseconds(lambda variant=variant, custom=custom: icepool_answers(variant, custom))
        agree = "yes" if ours == theirs else "NO"
        print(f"{label:62s} {agree:>6s} {ours_ms:9.2f} {theirs_ms:11.1f} {theirs_ms / ours_ms:8.0f}x")
    print()
    raw = raw_dice_rate(Variant())
    print(f"reference: raw dice, integers(1, 7, size=(N, 9), uint8): {raw / 1e6:.1f} M rounds/s")
    for label, variant in [("most sixes, then the lowest total", CASES[1][1]),
                           ("tie-break chain, 3 criteria", CASES[0][1]),
                           ("highest-total (built-in)", Variant(commands=(Command.HIGHEST_TOTAL,)))]:
        simulate(variant, 1 << 16, seed=0)  # compile the lookup tables outside the timing
        rate = best_rate(lambda variant=variant: simulate(variant, 1 << 25, seed=1), 1 << 25, repeats=2)
        print(f"  simulate {label:36s} {rate / 1e6:8.1f} M rounds/s  {rate / raw:5.2f}x raw dice "
              f"(target {RATE_TARGET:g}x)   load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
