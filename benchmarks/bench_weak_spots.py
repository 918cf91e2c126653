"""What the weak spots by roll type cost: `roll_weak_spots` by the diffusion fit (the default) and the reading model.

The report and the progress page `/me` name each player's weak spots from a
fit of every player's most recent 2,000 answers. This writes a log of five
players (the three presets and two between them, as reading models; eight
sessions of 250 answers on 6, 9 and 12 dice in turn: 2,000 answers each),
kept in a cache folder, and times `roll_weak_spots` with each model, the
best of three runs taken in turn, and the diffusion fit alone
(`fit_diffusion` on the same answers), in one process pinned to one BLAS
thread. Prints each time and the diffusion's ratio to the reading model's.

    python benchmarks/bench_weak_spots.py [--cache DIR] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from threadpoolctl import threadpool_limits

from diavolo_stats.analytics.roll_weak_spots import COLUMNS, recent_answers, roll_weak_spots
from diavolo_stats.analytics.synthetic import write_reading_log
from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.game.diffusion_fit import fit_diffusion
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import ReadingModel
from diavolo_stats.game.reading_fit import FIT_COLUMNS

VARIANTS = (Variant(dice_per_color=2), Variant(), Variant(dice_per_color=4))


def players() -> list[ReadingModel]:
    """The three presets and two between them, as reading models."""
    models = [ReadingModel.from_player(PlayerModel.preset(level)) for level in ("novice", "average", "expert")]
    return models + [replace(models[1].scaled(0.8, 0.7), name="brisk"),
                     replace(models[1].scaled(1.2, 1.4), name="careful")]


def timed(work) -> float:
    """How long work() takes, s."""
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "diavolo_bench_weak_spots")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    path = args.cache / "weak_spots.csv"
    if not path.exists():
        write_reading_log(path, players(), sessions=8, trials=250, seed=3, variants=VARIANTS, practice=False)
    drills = load_logs([path], columns=tuple(dict.fromkeys(FIT_COLUMNS + COLUMNS)))
    names = sorted(map(str, drills["player"].unique()))
    recent = recent_answers(drills)
    print(f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}; {len(names)} players, "
          f"{len(recent):,} recent answers")
    with threadpool_limits(limits=1, user_api="blas"):
        times = {"reading": [], "diffusion": [], "diffusion fit": []}
        for _ in range(args.runs):  # in turn, so that a change of load falls on each alike
            times["reading"].append(timed(lambda: roll_weak_spots(drills, names, "reading")))
            times["diffusion"].append(timed(lambda: roll_weak_spots(drills, names, "diffusion")))
            times["diffusion fit"].append(timed(lambda: fit_diffusion(recent)))
    best = {label: min(values) for label, values in times.items()}
    print(f"weak spots, reading model:   {best['reading']:.2f} s")
    print(f"weak spots, diffusion:       {best['diffusion']:.2f} s ({best['diffusion'] / best['reading']:.1f} x the "
          "reading model's)")
    print(f"of which the diffusion fit:  {best['diffusion fit']:.2f} s")
    print(f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
