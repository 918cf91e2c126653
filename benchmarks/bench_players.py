"""How well the reading model predicts answers it has not seen, against simple baselines; and its fit at scale.

Prediction, measured as the spaced-repetition benchmarks measure schedulers:
each synthetic log is split by session, every player's last session held out
and the earlier ones trained on. Printed per model: the mean log-likelihood
per held-out answer of the latency (log density per ms, correct answers) and
of the accuracy (log probability of right or wrong, every trial), higher is
better. Models:

- reading: `fit_reading`, partial pooling, the roll's features;
- per player: one ex-Gaussian latency and one accuracy per player;
- per player and command: one ex-Gaussian and one accuracy per player and command.

Two logs: one whose generator has roll effects (the presets as reading models:
dice, near ties, grey, command first; standard and kids in turn), one whose
generator has none (the same players with every roll effect set to 0, so
only the command matters). Target: the reading model above both baselines
on the first, no worse than the per-command baseline on the second.

Scale: a 1,000,000-row synthetic log (`diavolo synth-log`, cached) read with
`load_logs(columns=FIT_COLUMNS)` and fitted, in a child process; its seconds
and peak resident memory are printed. Target: the fit in under a minute and
under 1 GB.

    python benchmarks/bench_players.py [--cache DIR] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.analytics.synthetic import write_reading_log
from diavolo_stats.drill import MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.performance import answered_correctly
from diavolo_stats.drill.roll_features import logged_features
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ROLL_EFFECTS, ReadingModel
from diavolo_stats.game.reading_fit import FIT_COLUMNS, fit_reading
from diavolo_stats.stats import fit_ex_gaussian

TARGET_S = 60.0
TARGET_BYTES = 1 << 30


def players(with_effects: bool) -> list[ReadingModel]:
    """Five players: the three presets and two between them; without effects, every roll effect 0."""
    models = [ReadingModel.from_player(PlayerModel.preset(level)) for level in ("novice", "average", "expert")]
    models += [replace(models[1].scaled(0.8, 0.7), name="brisk"), replace(models[1].scaled(1.2, 1.4), name="careful")]
    if with_effects:
        return models
    effects = [COEFFICIENTS.index(name) for name in ROLL_EFFECTS]
    flat = []
    for model in models:
        time, accuracy = list(model.time), list(model.accuracy)
        for index in effects:
            time[index] = accuracy[index] = 0.0
        flat.append(replace(model, time=tuple(time), accuracy=tuple(accuracy)))
    return flat


def split_by_session(drills: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, test): every player's last session (by its first timestamp) is the test."""
    rows = drills.loc[~drills["too_early"].to_numpy(dtype=bool)]
    starts = rows.groupby(["player", "session_id"], observed=True)["timestamp"].min().reset_index()
    last = starts.sort_values("timestamp").groupby("player", observed=True).tail(1)["session_id"]
    test = rows["session_id"].isin(set(last)).to_numpy()
    return rows.loc[~test], rows.loc[test]


def scores_of_reading(train: pd.DataFrame, test: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per test row: (latency log density per ms, NaN but for correct answers; accuracy log probability)."""
    fit = fit_reading(train)
    features = logged_features(test)
    latency, accuracy = np.full(len(test), np.nan), np.zeros(len(test))
    for name, index in test.groupby("player", observed=True).indices.items():
        part = test.iloc[index]
        timed = answered_correctly(part).to_numpy(dtype=bool)
        latency_ms = np.where(timed, part["latency_ms"].to_numpy(dtype=np.float64), np.nan)
        latency[index], accuracy[index] = fit.player(str(name)).model.log_likelihood(
            features.take(index), part["correct"].to_numpy(dtype=bool), latency_ms)
    return latency, accuracy


def scores_of_cells(train: pd.DataFrame, test: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A baseline: one ex-Gaussian and one accuracy (add-one smoothed) per group of `keys`; groups with too
    few correct answers to fit take the player's own. Per test row, as `scores_of_reading`."""
    from scipy import stats

    def fitted(rows: pd.DataFrame):
        latency = fit_ex_gaussian(rows.loc[answered_correctly(rows), "latency_ms"])
        right = rows["correct"].to_numpy(dtype=bool)
        return latency, (right.sum() + 1) / (len(right) + 2)

    own = {name: fitted(rows) for name, rows in train.groupby("player", observed=True)}
    cells = {key: fitted(rows) for key, rows in train.groupby(keys, observed=True)} if keys != ["player"] else own
    latency, accuracy = np.full(len(test), np.nan), np.zeros(len(test))
    for key, index in test.groupby(keys, observed=True).indices.items():
        rows = test.iloc[index]
        name = key[0] if isinstance(key, tuple) else key
        ex_gaussian, chance = cells.get(key, own[name])
        ex_gaussian = ex_gaussian or own[name][0]
        right = rows["correct"].to_numpy(dtype=bool)
        accuracy[index] = np.where(right, math.log(chance), math.log(1 - chance))
        timed = answered_correctly(rows).to_numpy(dtype=bool)
        values = rows["latency_ms"].to_numpy(dtype=np.float64)[timed]
        latency[index[timed]] = stats.exponnorm.logpdf(values, ex_gaussian.tau_ms / ex_gaussian.sigma_ms,
                                                       loc=ex_gaussian.mu_ms, scale=ex_gaussian.sigma_ms)
    return latency, accuracy


def prediction(folder: Path, with_effects: bool) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    path = folder / f"held_out_{'effects' if with_effects else 'flat'}.csv"
    if not path.exists():
        write_reading_log(path, players(with_effects), sessions=6, trials=300, seed=23,
                          variant_names=("standard", "kids"))
    train, test = split_by_session(load_logs([path], columns=FIT_COLUMNS + ("session_id", "timestamp")))
    return {"reading": scores_of_reading(train, test),
            "per player": scores_of_cells(train, test, ["player"]),
            "per player and command": scores_of_cells(train, test, ["player", "command"])}


SCALE_CHILD = """
import json, sys, time
from diavolo_stats.drill.log import load_logs
from diavolo_stats.game.reading_fit import FIT_COLUMNS, fit_reading
start = time.perf_counter()
drills = load_logs([sys.argv[1]], columns=FIT_COLUMNS)
read = time.perf_counter()
fit = fit_reading(drills)
done = time.perf_counter()
print(json.dumps({"rows": len(drills), "read_s": read - start, "fit_s": done - read, "players": len(fit.players)}))
"""


def scale(cache: Path, rows: int) -> dict:
    players_count = 3
    sessions = -(-rows // (players_count * MAX_TRIALS_PER_SESSION))
    trials = -(-rows // (players_count * sessions))
    path = cache / f"drills_{players_count}x{sessions}x{trials}.csv"
    if not path.exists():
        subprocess.run([sys.executable, "-m", "diavolo_stats", "synth-log", "--log", str(path), "--sessions",
                        str(sessions), "--trials", str(trials), "--seed", "11", "--variant", "standard", "kids"],
                       check=True, capture_output=True)
    import json

    child = subprocess.run([sys.executable, "-c", SCALE_CHILD, str(path)], check=True, capture_output=True, text=True)
    figures = json.loads(child.stdout)
    figures["peak_bytes"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "diavolo_bench_players")
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")
    for with_effects in (True, False):
        scores = prediction(args.cache, with_effects)
        print(f"\nheld-out log-likelihood per answer, generator {'with' if with_effects else 'without'} roll effects")
        print(f"{'model':<24}{'latency':>10}{'accuracy':>10}")
        for name, (latency, accuracy) in scores.items():
            print(f"{name:<24}{np.nanmean(latency):>10.4f}{accuracy.mean():>10.4f}")
        reading = scores["reading"]
        for name in ("per player", "per player and command"):
            # Paired over the same held-out answers: the difference and twice its standard error.
            shown = []
            for part, (ours, theirs) in zip(("latency", "accuracy"), zip(reading, scores[name])):
                difference = (ours - theirs)[np.isfinite(ours - theirs)]
                error = 2 * difference.std() / math.sqrt(difference.size)
                shown.append(f"{part} {difference.mean():+.4f} +- {error:.4f}")
            print(f"reading - {name}: {', '.join(shown)} (per answer, +- 2 standard errors)")
    figures = scale(args.cache, args.rows)
    print(f"\nfit of a {figures['rows']:,}-row log ({figures['players']} players): read {figures['read_s']:.1f} s, "
          f"fit {figures['fit_s']:.1f} s (target under {TARGET_S:.0f} s), "
          f"peak {figures['peak_bytes'] / 2**20:.0f} MiB (target under {TARGET_BYTES / 2**30:.0f} GiB)")
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")


if __name__ == "__main__":
    main()
