"""Fitting reading models to a drill log, with partial pooling across its players (empirical Bayes).

Every player of the log gets a `ReadingModel`, its coefficients the posterior given their own answers and the
club's fitted means and spreads: a player with 30 answers sits near the club, one with thousands on their own
figures, and a roll type a player never saw is the club's figure for them. How: docs/architecture.md, "Reading
models fitted to a log".
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from diavolo_stats.core.variant import GREY
from diavolo_stats.drill.log import NO_ANSWER
from diavolo_stats.drill.log.roll import ROLL_COLUMNS, LoggedRolls, read_rolls
from diavolo_stats.drill.performance import answered_correctly, anticipated
from diavolo_stats.drill.roll_features import RollFeatures, logged_features, readable_rolls
from diavolo_stats.errors import InputError
from diavolo_stats.game.players import MAX_SKILL_MS, PRIOR_WRONG_ANSWERS, PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, ReadingModel, design
from diavolo_stats.results import counted
from diavolo_stats.stats import MIN_FIT_ANSWERS, Estimate, z_for
from diavolo_stats.validation import shown

FIT_COLUMNS = tuple(dict.fromkeys(("player", "answer", "correct", "latency_ms", "too_early", "timed_out")
                                  + ROLL_COLUMNS))
"""The drill log columns a fit reads, and no others (a million-row log's session ids and timestamps alone take
a few hundred MB): `load_logs(paths, columns=FIT_COLUMNS)`."""

PRIOR_SPREAD = {"time": (0.3, 0.1), "accuracy": (0.7, 0.3)}
"""The club spread a pseudo-player pulls toward: (command coefficients, roll effects), log scale / log-odds."""

PRIOR_MEAN_SPREAD = {"time": (2.0, 0.5), "accuracy": (3.0, 1.0)}
"""How far the club mean may stray from the `average` preset's reading a priori: (commands, roll effects)."""

NOISE_PSEUDO_ANSWERS = 10
"""Pseudo-answers pulling a player's time noise toward the club's."""

_COMMANDS = sum(name.startswith("command:") for name in COEFFICIENTS)
_EM_STEPS, _EM_TOLERANCE = 500, 1e-7

FLOOR_RANK, FASTEST_READING = 3, 0.8
"""A correct answer under FASTEST_READING times its player's FLOOR_RANK-th fastest is left out of the time fit."""


@dataclass(frozen=True)
class PlayerReading:
    """One player's fit: the model, its coefficients' posterior, and what it rests on.

    time_covariance, accuracy_covariance: (coefficients, coefficients) posterior
    covariance, widened for the club mean's uncertainty. answers: trials that are
    not anticipations; answers_per_coefficient: how many of them have each
    design column non-zero (the rolls that inform it). dice_drilled: the fewest
    and most dice of their rolls.
    """

    model: ReadingModel
    time_covariance: np.ndarray
    accuracy_covariance: np.ndarray
    answers: int
    answers_per_coefficient: tuple[int, ...]
    dice_drilled: tuple[int, int]

    def interval(self, part: str, coefficient: str, confidence: float = 0.95) -> Estimate:
        """A coefficient with its interval: `part` "time" (log scale) or "accuracy" (log-odds)."""
        index = COEFFICIENTS.index(coefficient)
        value = getattr(self.model, part)[index]
        half = z_for(confidence) * math.sqrt(getattr(self, f"{part}_covariance")[index, index])
        return Estimate(value, value - half, value + half)

    def draws(self, part: str, count: int, rng: np.random.Generator) -> np.ndarray:
        """Coefficient vectors drawn from the posterior: (count, coefficients) float64."""
        return rng.multivariate_normal(np.array(getattr(self.model, part)), getattr(self, f"{part}_covariance"),
                                       size=count, method="cholesky")


@dataclass(frozen=True)
class ReadingFit:
    """Every player of a log fitted together: `players` by name (in the log's order), the club, the log's range."""

    players: dict[str, PlayerReading]
    club: PlayerReading
    dice_drilled: tuple[int, int]
    too_few: dict[str, int]
    """Players left out of the fit, with their answers (fewer than the minimum)."""
    min_answers: int
    refused: dict[str, str] = field(default_factory=dict)
    """Players whose answers fit no model, with why in one line naming them (`refusal`)."""

    def player(self, name: str) -> PlayerReading:
        """The fit of player `name`; InputError (field `player`) naming why if the log has none for them."""
        if name in self.players:
            return self.players[name]
        if name in self.refused:
            raise InputError(self.refused[name], field="player")
        if name in self.too_few:
            raise InputError(f"{name!r} has {counted(self.too_few[name], 'answer')} in the drill log; a fit needs "
                             f"at least {self.min_answers}", field="player")
        raise InputError(not_a_player(name, self.players), field="player")

    def extrapolated_dice(self, features: RollFeatures) -> np.ndarray:
        """How many dice each roll has beyond the most any roll of the log had: (rolls,) int, 0 within it."""
        return np.maximum(features.dice.astype(np.int64) - self.dice_drilled[1], 0)


def not_a_player(name: str, players: Iterable[str]) -> str:
    """Why `name` has no fit, the drill log's `players` being others (the first ten named)."""
    known = ", ".join(list(players)[:10]) or "none"
    return f"{shown(name)} is not a player of the drill log; its players: {known}"


def fit_reading(drills: pd.DataFrame, min_answers: int = MIN_FIT_ANSWERS) -> ReadingFit:
    """Fit every player of a drill log frame (`load_logs` with FIT_COLUMNS) with at least `min_answers` answers.

    The answers are those the model reads (`readable_rolls`): a built-in command, on
    colors that each roll as many dice. A player whose figures are not finite
    or out of a ReadingModel's range is refused with the reason (`ReadingFit.refused`);
    InputError (field `log`) if no player has that many answers or none can be fitted.
    """
    rows, rolls, too_few = fitted_rows(drills, min_answers)
    player_codes, names = pd.factorize(rows["player"], sort=False)
    features = logged_features(rolls)
    roll_type = _roll_types(features)
    type_codes, type_index = np.unique(roll_type, return_inverse=True)
    first_rows = np.zeros(len(type_codes), dtype=np.int64)
    first_rows[type_index[::-1]] = np.arange(len(roll_type))[::-1]
    patterns = design(features.take(first_rows))  # (roll types, coefficients)
    players, types = len(names), len(type_codes)
    cell = player_codes * types + type_index

    def per_cell(weights: np.ndarray | None = None, where: np.ndarray | None = None) -> np.ndarray:
        chosen = cell if where is None else cell[where]
        return np.bincount(chosen, weights=weights, minlength=players * types).reshape(players, types)

    trials = per_cell()
    right = per_cell(where=rows["correct"].to_numpy(dtype=bool))
    timed = answered_correctly(rows).to_numpy(dtype=bool)
    latency_ms = rows["latency_ms"].to_numpy(dtype=np.float64)[timed]
    prior = ReadingModel.from_player(PlayerModel.preset("average"))
    time_fit = _fit_time(latency_ms, cell[timed], players, types, patterns, np.array(prior.time))
    accuracy_fit = _fit_accuracy(trials, right, patterns, np.array(prior.accuracy))
    informed = np.einsum("pu,uk->pk", trials, patterns != 0).astype(np.int64)
    dice = features.dice.astype(np.int64)
    low = pd.Series(dice).groupby(player_codes).min().to_numpy()
    high = pd.Series(dice).groupby(player_codes).max().to_numpy()
    shares = wrong_grey_shares(rows, player_codes, players)
    fitted, refused = {}, {}
    for index, name in enumerate(map(str, names)):
        try:
            if not finite(time_fit.means[index], time_fit.covariances[index], time_fit.noise[index],
                          time_fit.shift_ms, accuracy_fit.means[index], accuracy_fit.covariances[index]):
                raise InputError(UNDEFINED)
            model = ReadingModel(name=name, time=tuple(time_fit.means[index].tolist()),
                                 spread=float(time_fit.noise[index]), shift_ms=time_fit.shift_ms,
                                 accuracy=tuple(accuracy_fit.means[index].tolist()), wrong_grey_share=shares[index])
        except InputError as error:
            refused[name] = refusal(name, int(trials[index].sum()), "reading", error)
            continue
        fitted[name] = PlayerReading(model, time_fit.covariances[index], accuracy_fit.covariances[index],
                                     int(trials[index].sum()), tuple(informed[index].tolist()),
                                     (int(low[index]), int(high[index])))
    if not fitted:
        raise InputError("no player of the drill log can be fitted: " + "; ".join(refused.values()), field="log")
    check_defined("club", time_fit.club, time_fit.club_variance, time_fit.club_noise, time_fit.shift_ms,
                   accuracy_fit.club, accuracy_fit.club_variance)
    club_model = ReadingModel(name="club", time=tuple(time_fit.club.tolist()), spread=float(time_fit.club_noise),
                              shift_ms=time_fit.shift_ms, accuracy=tuple(accuracy_fit.club.tolist()),
                              wrong_grey_share=float(np.mean(shares)))
    club = PlayerReading(club_model, np.diag(time_fit.club_variance), np.diag(accuracy_fit.club_variance),
                         int(trials.sum()), tuple(informed.sum(axis=0).tolist()), (int(dice.min()), int(dice.max())))
    return ReadingFit(fitted, club, (int(dice.min()), int(dice.max())), too_few, min_answers, refused)


def fitted_rows(drills: pd.DataFrame, min_answers: int) -> tuple[pd.DataFrame, LoggedRolls, dict[str, int]]:
    """The rows a fit of players reads (answers, not anticipations: `performance.anticipated`, so latency 0 is
    none; the models read them: `readable_rolls`) of the players with at least `min_answers` of them, their
    rolls (`read_rolls`), and the others' answers by name. InputError (field `log`) if no player has that
    many."""
    answered = ~anticipated(drills)
    rolls = read_rolls(drills)
    kept = answered & readable_rolls(rolls)
    rows = drills.loc[kept]
    counts = rows["player"].value_counts(sort=False)
    unread = set(map(str, drills.loc[answered, "player"].unique())) - {str(name) for name in counts.index}
    too_few = {str(name): int(count) for name, count in counts.items() if count < min_answers}
    too_few |= dict.fromkeys(sorted(unread), 0)
    enough = ~rows["player"].isin(list(too_few)).to_numpy()
    rows = rows.loc[enough]
    if rows.empty:
        raise InputError(f"no player of the drill log has the {min_answers} answers a fit needs "
                         f"(most: {int(counts.max()) if len(counts) else 0})", field="log")
    return rows, rolls.take(np.flatnonzero(kept)[enough]), too_few


@dataclass(frozen=True)
class _Pooled:
    means: np.ndarray        # (players, coefficients) posterior means
    covariances: np.ndarray  # (players, coefficients, coefficients)
    club: np.ndarray         # (coefficients,) club means
    club_variance: np.ndarray  # (coefficients,) variance of the club means
    noise: np.ndarray | None = None  # (players,) time noise (log scale)
    club_noise: float = 0.0
    shift_ms: float = 0.0


def _prior(part: str, prior_means: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(prior club means, their variance, the pseudo-player's spread squared), each (coefficients,)."""
    commands, effects = PRIOR_MEAN_SPREAD[part]
    mean_variance = np.where(np.arange(len(COEFFICIENTS)) < _COMMANDS, commands, effects) ** 2
    commands, effects = PRIOR_SPREAD[part]
    spread = np.where(np.arange(len(COEFFICIENTS)) < _COMMANDS, commands, effects) ** 2
    return prior_means, mean_variance, spread


def club_step(means: np.ndarray, variances: np.ndarray, spread: np.ndarray, prior_means: np.ndarray,
               prior_variance: np.ndarray, prior_spread: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The club's means, the variance of those means and its spreads from the players' posteriors (an EM step)."""
    # means, variances: (players, coefficients); the rest (coefficients,)
    players = len(means)
    precision = players / spread + 1 / prior_variance
    club = (means.sum(axis=0) / spread + prior_means / prior_variance) / precision
    new_spread = (((means - club) ** 2 + variances).sum(axis=0) + prior_spread) / (players + 1)
    return club, 1 / precision, new_spread


def widened(covariances: np.ndarray, spread: np.ndarray, club_variance: np.ndarray) -> np.ndarray:
    """Posterior covariances widened for the club mean's uncertainty: V + (V / spread) var(club) (V / spread)'."""
    shrink = covariances / spread[None, None, :]
    return covariances + np.einsum("pij,j,pkj->pik", shrink, club_variance, shrink)


def _fit_time(latency_ms: np.ndarray, cells: np.ndarray, players: int, types: int, patterns: np.ndarray,
              prior_means: np.ndarray) -> _Pooled:
    # latency_ms: (answers,) ms of the correct answers; cells: (answers,) int player * types + roll type
    from scipy import optimize

    kept = _readings(latency_ms, cells // types, players)
    latency_ms, cells = latency_ms[kept], cells[kept]
    counts = np.bincount(cells, minlength=players * types).reshape(players, types).astype(np.float64)
    gram = np.einsum("pu,uk,ul->pkl", counts, patterns, patterns)
    fastest = float(latency_ms.min()) if latency_ms.size else 0.0

    def fit(shift_ms: float) -> tuple[float, _Pooled]:
        logged = np.log(latency_ms - shift_ms)
        sums = np.bincount(cells, weights=logged, minlength=players * types).reshape(players, types)
        squares = np.bincount(cells, weights=logged**2, minlength=players * types).reshape(players, types)
        pooled, marginal = _gaussian_em(gram, sums @ patterns, squares.sum(axis=1), counts.sum(axis=1),
                                        prior_means)
        return -(marginal - float(logged.sum())), pooled

    if fastest > 1.0:
        # The floor lies below every answer read, and within what a ReadingModel holds (MAX_SKILL_MS).
        found = optimize.minimize_scalar(lambda shift: fit(shift)[0], bounds=(0.0, min(0.9 * fastest, MAX_SKILL_MS)),
                                         method="bounded", options={"xatol": 1.0})
        shift_ms = float(found.x)
    else:
        shift_ms = 0.0
    return _replace_shift(fit(shift_ms)[1], shift_ms)


def _readings(latency_ms: np.ndarray, player: np.ndarray, players: int) -> np.ndarray:
    """Which correct answers the time model reads: (answers,) bool, all but those under FASTEST_READING times
    their player's FLOOR_RANK-th fastest. Such an answer is far faster than the player ever reads a roll (a
    guess that came out right), and would drag the shift down with it."""
    # latency_ms: (answers,) ms; player: (answers,) int
    order = np.lexsort((latency_ms, player))
    rank = np.empty(len(order), dtype=np.int64)
    starts = np.searchsorted(player[order], np.arange(players))
    rank[order] = np.arange(len(order)) - starts[player[order]]
    floor = np.zeros(players)
    ranked = rank == FLOOR_RANK - 1
    floor[player[ranked]] = latency_ms[ranked]
    return latency_ms >= FASTEST_READING * floor[player]


def _replace_shift(pooled: _Pooled, shift_ms: float) -> _Pooled:
    return _Pooled(pooled.means, pooled.covariances, pooled.club, pooled.club_variance, pooled.noise,
                   pooled.club_noise, shift_ms)


def _gaussian_em(gram: np.ndarray, cross: np.ndarray, squares: np.ndarray, counts: np.ndarray,
                 prior_means: np.ndarray) -> tuple[_Pooled, float]:
    """The pooled linear model from each player's sums; returns it and the marginal log-likelihood."""
    # gram: (players, k, k) X'X; cross: (players, k) X'y; squares, counts: (players,) y'y and answers
    club, club_variance_prior, prior_spread = _prior("time", prior_means)
    spread = prior_spread.copy()
    total = max(counts.sum(), 1.0)
    noise = np.full(len(counts), 0.25)
    for _ in range(_EM_STEPS):
        precision = gram / noise[:, None, None] + np.diag(1 / spread)[None]
        covariances = np.linalg.inv(precision)
        means = np.einsum("pkl,pl->pk", covariances, cross / noise[:, None] + club / spread)
        residual = (squares - 2 * np.einsum("pk,pk->p", means, cross)
                    + np.einsum("pkl,pkl->p", gram, covariances + means[:, :, None] * means[:, None, :]))
        residual = np.maximum(residual, 0.0)
        club_noise = max(residual.sum() / total, 1e-6)
        new_noise = (residual + NOISE_PSEUDO_ANSWERS * club_noise) / (counts + NOISE_PSEUDO_ANSWERS)
        new_club, club_variance, new_spread = club_step(means, np.diagonal(covariances, axis1=1, axis2=2), spread,
                                                         prior_means, club_variance_prior, prior_spread)
        change = max(np.abs(new_club - club).max(), np.abs(new_spread - spread).max(), np.abs(new_noise - noise).max())
        club, spread, noise = new_club, new_spread, new_noise
        if change < _EM_TOLERANCE:
            break
    # Marginal likelihood of every player's logs: y ~ N(X club, noise I + X diag(spread) X'), by Woodbury.
    inner = np.diag(1 / spread)[None] * noise[:, None, None] + gram
    residual_cross = cross - gram @ club
    residual_squares = squares - 2 * cross @ club + np.einsum("k,pkl,l->p", club, gram, club)
    quadratic = (residual_squares - np.einsum("pk,pk->p", residual_cross,
                                              np.linalg.solve(inner, residual_cross[:, :, None])[:, :, 0])) / noise
    _, log_det = np.linalg.slogdet(np.eye(len(club))[None] + gram * spread[None, None, :] / noise[:, None, None])
    marginal = float(np.sum(-0.5 * counts * np.log(2 * math.pi * noise) - 0.5 * log_det - 0.5 * quadratic))
    pooled = _Pooled(means, widened(covariances, spread, club_variance), club, club_variance,
                     np.sqrt(noise), math.sqrt(club_noise))
    return pooled, marginal


def _fit_accuracy(trials: np.ndarray, right: np.ndarray, patterns: np.ndarray, prior_means: np.ndarray) -> _Pooled:
    """The pooled logistic model from each player's trials and right answers per roll type (Laplace EM)."""
    # trials, right: (players, roll types) counts; patterns: (roll types, k)
    club, club_variance_prior, prior_spread = _prior("accuracy", prior_means)
    spread = prior_spread.copy()
    means = np.tile(club, (len(trials), 1))
    for _ in range(_EM_STEPS):
        for _newton in range(50):
            chance = 0.5 * (1 + np.tanh(0.5 * means @ patterns.T))  # (players, roll types)
            gradient = (right - trials * chance) @ patterns - (means - club) / spread
            precision = np.einsum("pu,uk,ul->pkl", trials * chance * (1 - chance), patterns, patterns) \
                + np.diag(1 / spread)[None]
            step = np.linalg.solve(precision, gradient[:, :, None])[:, :, 0]
            means = means + step
            if np.abs(step).max() < 1e-9:
                break
        covariances = np.linalg.inv(precision)
        new_club, club_variance, new_spread = club_step(means, np.diagonal(covariances, axis1=1, axis2=2), spread,
                                                         prior_means, club_variance_prior, prior_spread)
        change = max(np.abs(new_club - club).max(), np.abs(new_spread - spread).max())
        club, spread = new_club, new_spread
        if change < _EM_TOLERANCE:
            break
    return _Pooled(means, widened(covariances, spread, club_variance), club, club_variance)


def _roll_types(features: RollFeatures) -> np.ndarray:
    """A whole number per roll naming its row of the design: (rolls,) int64."""
    kind = ((features.command.astype(np.int64) * 2 + features.near_tie) * 2 + features.grey) * 2 \
        + features.command_first
    return kind * 1000 + features.dice.astype(np.int64)


def wrong_grey_shares(rows: pd.DataFrame, player_codes: np.ndarray, players: int) -> list[float]:
    """Each player's share of grey among their wrong answers on rolls that were not grey (as `PlayerModel`)."""
    wrong = (~rows["correct"].to_numpy(dtype=bool) & (rows["expected"] != GREY).to_numpy(dtype=bool)
             & (rows["answer"] != NO_ANSWER).to_numpy(dtype=bool))
    grey = wrong & (rows["answer"] == GREY).to_numpy(dtype=bool)
    wrong_count = np.bincount(player_codes[wrong], minlength=players)
    grey_count = np.bincount(player_codes[grey], minlength=players)
    return ((grey_count + PRIOR_WRONG_ANSWERS / 3) / (wrong_count + PRIOR_WRONG_ANSWERS)).tolist()


UNDEFINED = "figures that are not numbers: too few answers, or too alike, to fit"


def refusal(name: str, answers: int, model: str, error: InputError) -> str:
    """Why player `name`'s fit makes no `model` model, in one line naming them: what `error` says was wrong (a
    figure out of the model's range, or UNDEFINED)."""
    return f"{name!r}: their {answers} answers fit no {model} model ({error})"


def finite(*figures) -> bool:
    """Whether every figure of a fit (coefficients, their covariances, the noise, the shift) is a finite number:
    checked before a model is made of them, so the error says what happened."""
    return all(np.all(np.isfinite(figure)) for figure in figures)


def check_defined(name: str, *figures) -> None:
    """InputError (field `log`) unless every figure of a fit is a finite number (`finite`)."""
    if not finite(*figures):
        raise InputError(f"the fit of {name!r} has undefined figures; the log is too small or too uniform to fit",
                         field="log")
