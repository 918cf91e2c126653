"""How well each model of players predicts answers it has not seen, against simple baselines and in games.

Models are graded as the spaced-repetition benchmarks grade schedulers: by
their predictions on held-out answers, on logs from three generator
families, none of them the fitted code:

- reading: the reading model itself (`ReadingModel.from_player` of the
  presets and two players between them);
- diffusion: `EulerDiffusion` below, a drift-diffusion player simulated step
  by step (its own Euler scheme, not the fitted likelihood nor its sampler),
  the drift falling as 1 / (1 + load (dice - 9) / 9) with the dice, and with
  near ties and grey;
- lapses: the same players, 3 % of whose answers are lapses, at 2 to 6 s, a
  random answer.

Each log has sessions of 6, 9 and 12 dice. Two splits: by session (every
player's last session held out, the earlier ones trained on) and by dice
(train on 6 and 9 dice, test on 12). For each: the held-out log-likelihood
per answer of the answer and its latency together (log probability of right
or wrong plus log density per ms of the latency; a time-out's log
probability), and the median-latency error per dice count (ms, a model's
draws on the held-out rolls against the players' own). Models:

- diffusion: `fit_diffusion`; reading: `fit_reading`;
- per player, per player and command, per player and dice count: one
  ex-Gaussian latency (`stats.fit_ex_gaussian`, sigma held at least
  MIN_SIGMA_MS) and one accuracy per group; a group with too few answers
  takes the player's own, a player with too few the club's.

And at the level users care about: for pairs of players, the win chance of
the fitted players (fitted on 6 and 9 dice) against the generating players'
own games, at 9 dice (drilled) and 12 (not drilled).

Targets: the default model above every baseline on every family and split;
its win chances within 0.05 of the generators' at 12 dice.

    python benchmarks/bench_players.py [--cache DIR] [--games 3000]
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from diavolo_stats.analytics.synthetic import write_reading_log
from diavolo_stats.core.variant import Variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import load_logs, read_rolls
from diavolo_stats.drill.roll_features import REFERENCE_DICE, RollFeatures, logged_features
from diavolo_stats.game.diffusion import TIMEOUT_MS
from diavolo_stats.game.diffusion_fit import fit_diffusion
from diavolo_stats.game.engine import play_games
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import ReadingModel, design
from diavolo_stats.game.reading_fit import FIT_COLUMNS, fit_reading
from diavolo_stats.stats import fit_ex_gaussian

VARIANTS = (Variant(dice_per_color=2), Variant(), Variant(dice_per_color=4))  # 6, 9 and 12 dice
TRAIN_DICE = (6, 9)
LAPSE_SHARE, LAPSE_MS = 0.03, (2000.0, 6000.0)
EULER_STEP_S = 0.002
PAIRS = ((0, 1), (0, 2), (1, 2), (1, 3), (3, 4))
TARGET_WIN_ERROR = 0.05


@dataclass(frozen=True)
class EulerDiffusion:
    """A generating player: evidence x starts at 0 and moves by drift dt + sqrt(dt) z each EULER_STEP_S until
    |x| reaches boundary / 2 (the upper is right); latency = nondecision + that time; with chance `lapse` the
    answer is a lapse instead (LAPSE_MS, a random one of four answers)."""

    name: str
    rate: tuple[float, ...]  # per command, per second, on a plain roll of 9 dice
    boundary: float
    nondecision_ms: float
    load: float  # how fast the drift falls with the dice
    near_tie: float = 0.6  # the drift's factor on a near tie
    grey: float = 0.5
    lapse: float = 0.0
    wrong_grey_share: float = 1 / 3

    def drifts(self, features: RollFeatures) -> np.ndarray:
        rate = np.array(self.rate)[features.command.astype(np.intp)]
        load = 1 + self.load * (features.dice.astype(np.float64) - REFERENCE_DICE) / REFERENCE_DICE
        return rate / load * np.where(features.near_tie, self.near_tie, 1.0) * np.where(features.grey, self.grey, 1.0)

    def scaled(self, time_factor: float = 1.0, error_factor: float = 1.0) -> EulerDiffusion:
        return self  # the benchmark's logs are written without practice

    @staticmethod
    def sample_lineup(players, features: RollFeatures, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        correct, latency = zip(*(player.simulate(features, rng) for player in players))
        return np.array(correct), np.array(latency)

    def simulate(self, features: RollFeatures, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        drift = self.drifts(features)
        evidence = np.zeros(len(drift))
        elapsed = np.full(len(drift), np.inf)
        going = np.arange(len(drift))
        step, limit = 0, int((TIMEOUT_MS - self.nondecision_ms) / 1000 / EULER_STEP_S) + 1
        while going.size and step < limit:
            step += 1
            evidence[going] += drift[going] * EULER_STEP_S + math.sqrt(EULER_STEP_S) * rng.standard_normal(going.size)
            ended = np.abs(evidence[going]) >= self.boundary / 2
            elapsed[going[ended]] = step * EULER_STEP_S
            going = going[~ended]
        correct = evidence > 0
        latency_ms = self.nondecision_ms + 1000 * elapsed  # inf: not ended by the timeout
        lapsed = rng.random(len(drift)) < self.lapse
        correct = np.where(lapsed, rng.random(len(drift)) < 0.25, correct)
        latency_ms = np.where(lapsed, rng.uniform(*LAPSE_MS, len(drift)), latency_ms)
        return correct, np.maximum(latency_ms, MIN_LATENCY_MS)


def reading_players() -> list[ReadingModel]:
    """The three presets and two between them, as reading models."""
    models = [ReadingModel.from_player(PlayerModel.preset(level)) for level in ("novice", "average", "expert")]
    return models + [replace(models[1].scaled(0.8, 0.7), name="brisk"),
                     replace(models[1].scaled(1.2, 1.4), name="careful")]


def diffusion_players(lapse: float) -> list[EulerDiffusion]:
    """Five diffusion players: steady; fast and rash; slow and sure; one whom every extra die costs a lot; a
    quick reader."""
    rate = (2.6, 2.3, 1.7, 1.5, 1.3, 1.2)
    return [EulerDiffusion("steady", rate, 1.6, 350.0, 0.5, lapse=lapse),
            EulerDiffusion("rash", tuple(1.1 * r for r in rate), 1.1, 280.0, 0.4, lapse=lapse),
            EulerDiffusion("sure", tuple(0.9 * r for r in rate), 2.2, 400.0, 0.4, lapse=lapse),
            EulerDiffusion("loaded", tuple(1.2 * r for r in rate), 1.5, 320.0, 1.5, lapse=lapse),
            EulerDiffusion("quick", tuple(1.4 * r for r in rate), 1.5, 260.0, 0.3, lapse=lapse)]


FAMILIES = {"reading": reading_players, "diffusion": lambda: diffusion_players(0.0),
            "lapses": lambda: diffusion_players(LAPSE_SHARE)}


def family_log(cache: Path, family: str) -> pd.DataFrame:
    path = cache / f"players_{family}.csv"
    if not path.exists():
        write_reading_log(path, FAMILIES[family](), sessions=9, trials=300, seed=23, variants=VARIANTS,
                          practice=False)
    return load_logs([path], columns=FIT_COLUMNS + ("session_id", "timestamp"))


def splits(drills: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """by session: (train, test) with every player's last session the test; by dice: 6 and 9 train, 12 test."""
    rows = drills.loc[~drills["too_early"].to_numpy(dtype=bool)]
    starts = rows.groupby(["player", "session_id"], observed=True)["timestamp"].min().reset_index()
    last = starts.sort_values("timestamp").groupby("player", observed=True).tail(1)["session_id"]
    test = rows["session_id"].isin(set(last)).to_numpy()
    dice = logged_features(read_rolls(rows)).dice
    trained = np.isin(dice, TRAIN_DICE)
    return {"by session": (rows.loc[~test], rows.loc[test]), "by dice": (rows.loc[trained], rows.loc[~trained])}


def observed(test: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(correct: (rows,) bool, latency_ms: (rows,) float64, NaN for a time-out)."""
    latency = test["latency_ms"].to_numpy(dtype=np.float64).copy()
    latency[test["timed_out"].to_numpy(dtype=bool)] = np.nan
    return test["correct"].to_numpy(dtype=bool), latency


def fitted_models(train: pd.DataFrame, test: pd.DataFrame, model: str) -> dict[str, object]:
    """Each test player's fitted model (the club's for a player the fit has no figures for)."""
    fit = fit_diffusion(train) if model == "diffusion" else fit_reading(train)
    return {str(name): (fit.players[str(name)] if str(name) in fit.players else fit.club).model
            for name in test["player"].unique()}


def score_models(models: dict[str, object], test: pd.DataFrame, rng: np.random.Generator) -> tuple[np.ndarray,
                                                                                                    np.ndarray]:
    """Per test row: the joint log-likelihood, and a latency drawn from the model (NaN for a time-out)."""
    correct, latency = observed(test)
    features = logged_features(read_rolls(test))
    scores, drawn = np.zeros(len(test)), np.zeros(len(test))
    for name, index in test.groupby("player", observed=True).indices.items():
        model = models[str(name)]
        rolls = features.take(index)
        if isinstance(model, ReadingModel):
            scores[index] = reading_joint(model, rolls, correct[index], latency[index])
        else:
            scores[index] = model.log_likelihood(rolls, correct[index], latency[index])
        _, sampled = model.sample(rolls, rng)
        drawn[index] = np.where(sampled > TIMEOUT_MS, np.nan, sampled)
    return scores, drawn


def reading_joint(model: ReadingModel, rolls: RollFeatures, correct: np.ndarray, latency: np.ndarray) -> np.ndarray:
    """The reading model's joint log-likelihood: its accuracy and its latency, which it draws apart; a time-out
    is a latency past TIMEOUT_MS."""
    density, accuracy = model.log_likelihood(rolls, correct, latency)
    location = design(rolls) @ np.array(model.time)
    beyond = stats.norm.logsf((math.log(TIMEOUT_MS - model.shift_ms) - location) / model.spread)
    return np.where(np.isnan(latency), beyond, density + accuracy)


def score_baseline(train: pd.DataFrame, test: pd.DataFrame, keys: list[str],
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A baseline: one ex-Gaussian and one accuracy (add-one smoothed) per group of `keys` (the player's own for a
    group with too few answers, the club's for a player with too few). Per test row, as `score_models`."""
    def fitted(rows: pd.DataFrame):
        _, latency = observed(rows)
        answered = latency[np.isfinite(latency)]
        right = rows["correct"].to_numpy(dtype=bool)
        out = rows["timed_out"].to_numpy(dtype=bool)
        return fit_ex_gaussian(answered), (right.sum() + 1) / (len(right) + 2), (out.sum() + 1) / (len(out) + 2)

    def with_keys(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.assign(dice_count=logged_features(read_rolls(frame)).dice)

    train, test = with_keys(train), with_keys(test)
    club = fitted(train)
    own = {name: fitted(rows) for name, rows in train.groupby("player", observed=True)}
    cells = {key: fitted(rows) for key, rows in train.groupby(keys, observed=True)}
    correct, latency = observed(test)
    scores, drawn = np.zeros(len(test)), np.zeros(len(test))
    for key, index in test.groupby(keys, observed=True).indices.items():
        name = key[0] if isinstance(key, tuple) else key
        fallback = own.get(name) if own.get(name) and own[name][0] else club
        ex_gaussian, chance, out = cells.get(key, fallback)
        if ex_gaussian is None:
            ex_gaussian, chance, out = fallback
        shape = ex_gaussian.tau_ms / ex_gaussian.sigma_ms
        values = latency[index]
        timed = np.isfinite(values)
        density = stats.exponnorm.logpdf(np.where(timed, values, 0.0), shape, loc=ex_gaussian.mu_ms,
                                         scale=ex_gaussian.sigma_ms)
        answered = math.log(1 - out) + np.where(correct[index], math.log(chance), math.log(1 - chance)) + density
        scores[index] = np.where(timed, answered, math.log(out))
        sampled = stats.exponnorm.rvs(shape, loc=ex_gaussian.mu_ms, scale=ex_gaussian.sigma_ms, size=len(index),
                                      random_state=rng)
        drawn[index] = np.where(rng.random(len(index)) < out, np.nan, sampled)
    return scores, drawn


def median_errors(test: pd.DataFrame, drawn: np.ndarray) -> dict[int, float]:
    """Per dice count: |median drawn latency - median observed latency| of the answered rows, ms."""
    _, latency = observed(test)
    dice = logged_features(read_rolls(test)).dice
    return {int(count): abs(float(np.nanmedian(drawn[dice == count])) - float(np.nanmedian(latency[dice == count])))
            for count in np.unique(dice)}


def win_chances(players: list, variant: Variant, games: int, seed: int) -> list[float]:
    """The first player's win chance in each pair of PAIRS."""
    return [float(play_games(variant, [players[a], players[b]], games, seed=seed).win_share[:, 0].mean())
            for a, b in PAIRS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "diavolo_bench_players")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--families", nargs="+", default=list(FAMILIES))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
    for family in args.families:
        drills = family_log(args.cache, family)
        for split, (train, test) in splits(drills).items():
            rng = np.random.default_rng(1)
            results = {model: score_models(fitted_models(train, test, model), test, rng)
                       for model in ("diffusion", "reading")}
            for label, keys in (("per player", ["player"]), ("per player and command", ["player", "command"]),
                                ("per player and dice", ["player", "dice_count"])):
                results[label] = score_baseline(train, test, keys, rng)
            print(f"\n{family} generator, {split} ({len(train):,} answers trained, {len(test):,} held out)")
            print(f"{'model':<26}{'log-lik/answer':>15}  median-latency error per dice count (ms)")
            for name, (scores, drawn) in results.items():
                errors = ", ".join(f"{dice}: {error:.0f}" for dice, error in median_errors(test, drawn).items())
                print(f"{name:<26}{scores.mean():>15.4f}  {errors}")
            ours = results["diffusion"][0]
            for name in ("reading", "per player", "per player and command", "per player and dice"):
                difference = ours - results[name][0]
                error = 2 * difference.std() / math.sqrt(difference.size)
                verdict = "above" if difference.mean() - error > 0 else "NOT above"
                print(f"diffusion - {name}: {difference.mean():+.4f} +- {error:.4f} per answer ({verdict})")
        train, test = splits(drills)["by dice"]
        generators = FAMILIES[family]()
        names = ["synthetic-" + player.name for player in generators]
        for model in ("diffusion", "reading"):
            fitted = fitted_models(train, test, model)
            print(f"\n{family} generator, win chance of the first of each pair, {model} fitted on 6 and 9 dice "
                  f"({args.games:,} games each)")
            for variant in (Variant(), Variant(dice_per_color=4)):
                own = win_chances(generators, variant, args.games, seed=5)
                fits = win_chances([fitted[name] for name in names], variant, args.games, seed=5)
                shown = "; ".join(f"{generators[a].name}-{generators[b].name} {o:.3f}/{f:.3f}"
                                  for (a, b), o, f in zip(PAIRS, own, fits))
                worst = max(abs(o - f) for o, f in zip(own, fits))
                verdict = "" if variant.dice_count == 9 else \
                    f" (target within {TARGET_WIN_ERROR}: {'met' if worst <= TARGET_WIN_ERROR else 'MISSED'})"
                print(f"  {variant.dice_count} dice, generators/fitted: {shown}; worst {worst:.3f}{verdict}")
    print(f"\nload average {' '.join(f'{load:.1f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
