"""How fast whole games are simulated: the vectorized lockstep simulator against a one-game loop.

Plays 100,000 four-player games (expert, average, average, novice; the
standard variant, closest included; last player standing) with
`game.play_games`, pinned to one core, best of three runs; then the plain
one-game-at-a-time loop of tests/helpers/game_reference.py on fewer games in
the same run, and prints both rates and their ratio. Target: 100,000 games
in under 2 s. Then 100,000 two-player games between drift-diffusion players
(expert and novice as `DiffusionModel.from_player`, 2 % lapses), whose
answers and times are drawn together, in the same run; target: under 3 s.

    python benchmarks/bench_game.py [--games 100000] [--loop-games 300]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

# One core, as the target says: no helper threads, and pinned where the OS allows it.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

import numpy as np  # noqa: E402

from diavolo_stats.core.variant import Variant  # noqa: E402
from diavolo_stats.game.diffusion import DiffusionModel  # noqa: E402
from diavolo_stats.game.engine import play_games  # noqa: E402
from diavolo_stats.game.players import PlayerModel  # noqa: E402

# The one-game loop is test code, kept with the test that checks the simulator against it.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers.game_reference import play_one_game  # noqa: E402

TARGET_S = 2.0
DIFFUSION_TARGET_S = 3.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--loop-games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    variant = Variant()
    players = [PlayerModel.preset(name) for name in ("expert", "average", "average", "novice")]
    play_games(variant, players, 1000, seed=0)  # warm-up: imports, caches

    def best(lineup) -> tuple[float, list[float], object]:
        times = []
        for repeat in range(args.repeats):
            start = time.perf_counter()
            records = play_games(variant, lineup, args.games, seed=repeat)
            times.append(time.perf_counter() - start)
        return min(times), times, records

    vectorized_s, times, records = best(players)
    deciders = [replace(DiffusionModel.from_player(PlayerModel.preset(name)), lapse=0.02)
                for name in ("expert", "novice")]
    play_games(variant, deciders, 1000, seed=0)  # warm-up: the decision-time grid
    diffusion_s, diffusion_times, diffusion_records = best(deciders)
    vectorized_rate = args.games / vectorized_s

    rng = np.random.default_rng(1)
    start = time.perf_counter()
    loop_rounds = sum(play_one_game(variant, players, rng)[0] for _ in range(args.loop_games))
    loop_s = time.perf_counter() - start
    loop_rate = args.loop_games / loop_s

    print(f"vectorized: {args.games:,} four-player games in {vectorized_s:.3f} s (best of {args.repeats}; "
          f"runs {', '.join(f'{t:.3f}' for t in times)} s) = {vectorized_rate:,.0f} games/s; "
          f"{records.rounds.mean():.2f} rounds per game; target under {TARGET_S:g} s: "
          f"{'met' if vectorized_s < TARGET_S else 'MISSED'}")
    print(f"one game at a time: {args.loop_games:,} games in {loop_s:.3f} s = {loop_rate:,.0f} games/s; "
          f"{loop_rounds / args.loop_games:.2f} rounds per game")
    print(f"speed-up: {vectorized_rate / loop_rate:,.0f}x")
    print(f"diffusion: {args.games:,} two-player games in {diffusion_s:.3f} s (best of {args.repeats}; runs "
          f"{', '.join(f'{t:.3f}' for t in diffusion_times)} s), {diffusion_s / vectorized_s:.2f} times the "
          f"four-player games; {diffusion_records.rounds.mean():.2f} rounds per game; target under "
          f"{DIFFUSION_TARGET_S:g} s: {'met' if diffusion_s < DIFFUSION_TARGET_S else 'MISSED'}")


if __name__ == "__main__":
    main()
