"""`diavolo players`: each player's figures, per command and per roll feature, with intervals and in words.

The fitted players (`game.specs.fit_players`) put in a player's units, so that a player or a coach can read them;
`words` says the main ones as sentences. What each figure is and how its interval is drawn: docs/architecture.md,
"A player's figures".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from diavolo_stats.core.variant import ALL_COMMANDS, MAX_COLORS, MAX_DICE_PER_COLOR
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.roll_features import REFERENCE_DICE, RollFeatures
from diavolo_stats.errors import InputError
from diavolo_stats.game.diffusion import LAPSE_RIGHT, mean_decision_s
from diavolo_stats.game.diffusion_fit import PlayerDiffusion, rates_of
from diavolo_stats.game.players import STATED_EFFECTS
from diavolo_stats.game.reading import COEFFICIENTS, design, logistic
from diavolo_stats.game.reading_fit import FIT_COLUMNS, PlayerReading, ReadingFit
from diavolo_stats.game.settings import DEFAULT_MODEL, MODELS
from diavolo_stats.game.specs import fit_players
from diavolo_stats.names import PLAYER_ASKED
from diavolo_stats.results import NotedRows, render_fitted, wrap
from diavolo_stats.stats import CONFIDENCE, MIN_FIT_ANSWERS, Estimate
from diavolo_stats.validation import FilePath, Maybe, OneOf, Several, Whole, checked

DRAWS = 2000
"""Posterior draws behind each interval (seeded: the same log always gives the same intervals)."""


@dataclass(frozen=True)
class Figure:
    """One figure of one player: what it is, its value and interval in `unit`, and the answers it rests on."""

    player: str
    figure: str
    estimate: Estimate
    unit: str
    answers: int


@dataclass(frozen=True)
class PlayerFigures(NotedRows):
    """Every player's figures (`figures`, player by player), the roll they are quoted on, who was left out."""

    log: str
    dice: int
    dice_drilled: tuple[int, int]
    confidence: float
    figures: tuple[Figure, ...]
    answers: dict[str, int]
    left_out: dict[str, int]
    model: str = DEFAULT_MODEL
    words: dict[str, str] = field(default_factory=dict)
    """Each player's main figures in a coach's sentences."""
    refused: dict[str, str] = field(default_factory=dict)
    """Players the fit refused, with why."""

    columns = ("player", "figure", "value", "low", "high", "unit", "answers", "dice", "extrapolated_dice")
    text_columns = ("figure", "value", "interval", "unit", "answers")

    @property
    def extrapolated_dice(self) -> int:
        """Dice of the quoted roll beyond the most of any roll in the log (0 within it)."""
        return max(self.dice - self.dice_drilled[1], 0)

    def rows(self) -> list[dict]:
        return [{"player": f.player, "figure": f.figure, "value": round(f.estimate.value, 4),
                 "low": round(f.estimate.low, 4), "high": round(f.estimate.high, 4), "unit": f.unit,
                 "answers": f.answers, "dice": self.dice, "extrapolated_dice": self.extrapolated_dice}
                for f in self.figures]

    def document(self) -> dict:
        players = []
        for name, answers in self.answers.items():
            players.append({"player": name, "answers": answers, "words": self.words.get(name, ""), "figures": [
                {"figure": f.figure, "value": f.estimate.value, "interval": f.estimate.bounds, "unit": f.unit,
                 "answers": f.answers} for f in self.figures if f.player == name]})
        return {"log": self.log, "model": self.model, "dice": self.dice, "dice_drilled": list(self.dice_drilled),
                "extrapolated_dice": self.extrapolated_dice, "confidence": self.confidence,
                "players": players, "left_out": dict(self.left_out), "refused": dict(self.refused)}

    def text(self) -> str:
        blocks = []
        for name, answers in self.answers.items():
            rows = [{"figure": f.figure, "value": _shown(f.estimate.value, f.unit),
                     "interval": f"{_shown(f.estimate.low, f.unit)} to {_shown(f.estimate.high, f.unit)}",
                     "unit": f.unit, "answers": f.answers} for f in self.figures if f.player == name]
            words = [wrap(self.words[name], "  ")] if name in self.words else []
            blocks += [wrap(f"{name}: {answers} answers"), *words, render_fitted(rows, self.text_columns, keep=3), ""]
        return "\n".join([*blocks, *(wrap(note) for note in self.notes())])

    def notes(self) -> list[str]:
        quoted = (f"Figures of the {self.model} model on a roll of {self.dice} dice, no near tie, not grey, the dice "
                  "shown first; "
                  f"intervals {self.confidence:.0%}; answers: the player's answers on the rolls that inform "
                  "the figure (none: the club's figure, or the prior's if no one drilled such rolls).")
        notes = [quoted]
        if self.extrapolated_dice:
            notes.append(f"Extrapolated: {self.dice} dice is {self.extrapolated_dice} more than any roll of the log "
                         f"({self.dice_drilled[1]}); the figures follow the fitted per-die effect that far.")
        if self.left_out:
            listed = ", ".join(f"{name} ({answers})" for name, answers in self.left_out.items())
            notes.append(f"Not fitted, fewer than {MIN_FIT_ANSWERS} answers: {listed}.")
        notes += [f"Not fitted: {reason}." for reason in self.refused.values()]
        return notes


@checked(log_path=FilePath(), players=Maybe(Several(PLAYER_ASKED, noun="player")),
         dice=Whole(2, MAX_COLORS * MAX_DICE_PER_COLOR), confidence=CONFIDENCE, model=OneOf(MODELS))
def player_figures(log_path: str | Path, players: Sequence[str] | None = None, dice: int = REFERENCE_DICE,
                   confidence: float = 0.95, model: str = DEFAULT_MODEL) -> PlayerFigures:
    """Fit the drill log at `log_path` by `model` and give each player's figures (only `players`, if given).

    InputError for a file that is not a drill log, a player not in it or with
    fewer than MIN_FIT_ANSWERS answers.
    """
    try:
        fit = fit_of_log(log_path, model)
    except InputError as error:  # a log that is missing, a folder, no drill log or fits no player
        raise InputError(error.message, field="log_path") from None
    try:
        names = list(players) if players else list(fit.players)
        readings = {name: fit.player(name) for name in names}
    except InputError as error:  # named as this function's parameters: the log, the players
        raise InputError(error.message, field={"log": "log_path", "player": "players"}.get(error.field)) from None
    figures = {name: reading_figures(name, reading, dice, confidence) for name, reading in readings.items()}
    club = reading_figures("club", fit.club, dice, confidence)
    return PlayerFigures(log=str(log_path), dice=dice, dice_drilled=fit.dice_drilled, confidence=confidence,
                         figures=tuple(figure for shown in figures.values() for figure in shown),
                         answers={name: r.answers for name, r in readings.items()},
                         left_out=dict(fit.too_few) if not players else {}, model=model,
                         words={name: coach_words(name, shown, club) for name, shown in figures.items()},
                         refused=dict(fit.refused) if not players else {})


def reading_figures(name: str, reading: PlayerReading, dice: int = REFERENCE_DICE,
                    confidence: float = 0.95) -> list[Figure]:
    """One player's figures (see the module docstring), each an Estimate from posterior draws."""
    informed = informed_answers(reading)
    return [Figure(name, label, draws.estimate(confidence), draws.unit, informed[draws.coefficient])
            for label, draws in figure_draws(reading, dice).items()]


def informed_answers(reading: PlayerReading | PlayerDiffusion) -> dict[str, int]:
    """The player's answers each figure's coefficient rests on, by `FigureDraws.coefficient` ("": all)."""
    return dict(zip(COEFFICIENTS, reading.answers_per_coefficient)) | {"": reading.answers}


@dataclass(frozen=True)
class FigureDraws:
    """One figure under each posterior draw of a player's coefficients: `values` (draws,) in `unit`, and the
    coefficient whose rolls inform it."""

    values: np.ndarray
    unit: str
    coefficient: str

    def estimate(self, confidence: float = 0.95) -> Estimate:
        """The figure as its draws' median, with their central `confidence` interval."""
        low, high = np.quantile(self.values, [(1 - confidence) / 2, (1 + confidence) / 2])
        return Estimate(float(np.median(self.values)), float(low), float(high))


def figure_draws(reading: PlayerReading, dice: int = REFERENCE_DICE) -> dict[str, FigureDraws]:
    """Every figure of `reading_figures` by name, as posterior draws (seeded: the same fit, the same draws): each
    command's time and accuracy, then every roll effect a player may state (`players.STATED_EFFECTS`, in its unit).
    Draw i of every figure comes from the same coefficients, so figures combine draw by draw."""
    rng = np.random.default_rng(0)
    figures, own = {}, {}
    if isinstance(reading, PlayerDiffusion):
        mean_ms, chance = _diffusion_draws(reading, dice, rng, own)
    else:
        time = reading.draws("time", DRAWS, rng)  # (draws, coefficients)
        accuracy = reading.draws("accuracy", DRAWS, rng)
        model = reading.model

        def mean_ms(rolls: RollFeatures) -> np.ndarray:  # (draws, rolls) mean answer time, ms
            rows = design(rolls)
            return model.shift_ms + np.exp(time @ rows.T + model.spread**2 / 2)

        def chance(rolls: RollFeatures) -> np.ndarray:  # (draws, rolls) probability of a right answer
            return logistic(accuracy @ design(rolls).T)

    plain = _rolls(dice=dice)
    base_ms, base_right = mean_ms(plain), chance(plain)
    for index, command in enumerate(ALL_COMMANDS):
        figures[f"time {command}"] = FigureDraws(base_ms[:, index], "ms", f"command:{command}")
        figures[f"accuracy {command}"] = FigureDraws(base_right[:, index], "probability", f"command:{command}")
    figures |= own

    def effect(name: str, values: np.ndarray) -> None:  # a roll effect: its unit and coefficient, the players'
        figures[name] = FigureDraws(values, STATED_EFFECTS[name].unit, STATED_EFFECTS[name].coefficient)

    more = _rolls(dice=dice + 1)
    effect("per extra die", (mean_ms(more) - base_ms).mean(axis=1))
    effect("accuracy per extra die", (chance(more) - base_right).mean(axis=1))
    near = _rolls(dice=dice, near_tie=True)
    near_ms, near_right = mean_ms(near) - base_ms, chance(near) - base_right
    for index, command in enumerate(ALL_COMMANDS):
        effect(f"near tie {command}", near_ms[:, index])
        effect(f"accuracy near tie {command}", near_right[:, index])
    grey = _rolls(dice=dice, grey=True)
    effect("grey", (mean_ms(grey) - base_ms).mean(axis=1))
    effect("accuracy on grey", chance(grey).mean(axis=1))
    first = _rolls(dice=dice, command_first=True)
    effect("command first", (mean_ms(first) - base_ms).mean(axis=1))
    return figures


def _diffusion_draws(reading: PlayerDiffusion, dice: int, rng: np.random.Generator, figures: dict):
    """A diffusion's posterior draws as (mean decision time, chance of a right answer), each a function of some
    rolls giving (draws, rolls); its own figures (drift and caution per command, non-decision time, lapses) are
    added to `figures`."""
    parameters = reading.draws(DRAWS, rng)  # (draws, parameters)
    lapse = logistic(parameters[:, -1:])

    def mean_ms(rolls: RollFeatures) -> np.ndarray:
        rate, separation, nondecision = rates_of(parameters, rolls)
        return 1000 * (nondecision + mean_decision_s(rate, separation))

    def chance(rolls: RollFeatures) -> np.ndarray:
        rate, separation, _ = rates_of(parameters, rolls)
        return (1 - lapse) * logistic(rate * separation) + lapse * LAPSE_RIGHT

    rate, separation, nondecision = rates_of(parameters, _rolls(dice=dice))
    nondecision_ms = 1000 * nondecision.mean(axis=1, keepdims=True)  # (draws, 1): over the commands
    for index, command in enumerate(ALL_COMMANDS):
        figures[f"takes in {command}"] = FigureDraws(rate[:, index], "per s", f"command:{command}")
        figures[f"caution {command}"] = FigureDraws(separation[:, index], "boundary", f"command:{command}")
    figures["non-decision time"] = FigureDraws(nondecision_ms[:, 0], "ms", "")
    figures["lapses"] = FigureDraws(lapse[:, 0], "probability", "")
    return mean_ms, chance


def coach_words(name: str, figures: Sequence[Figure], club: Sequence[Figure]) -> str:
    """A player's main figures in sentences: how fast they read (or take in) the rolls, how cautious they are
    against the club, what an extra die and a near tie cost them."""
    shown = {figure.figure: figure.estimate.value for figure in figures}
    club_shown = {figure.figure: figure.estimate.value for figure in club}
    times = {command: shown[f"time {command}"] for command in ALL_COMMANDS}
    fastest, slowest = min(times, key=times.get), max(times, key=times.get)
    near = np.mean([shown[f"near tie {command}"] for command in ALL_COMMANDS])
    sentences = [f"{name} answers a plain roll in {times[fastest]:.0f} ms on {fastest} to {times[slowest]:.0f} ms "
                 f"on {slowest}."]
    if "non-decision time" in shown:
        caution = np.mean([shown[f"caution {command}"] for command in ALL_COMMANDS])
        usual = np.mean([club_shown[f"caution {command}"] for command in ALL_COMMANDS])
        manner = "slower and surer than" if caution > 1.05 * usual else \
            "quicker and less sure than" if caution < usual / 1.05 else "as cautious as"
        sentences.append(f"Caution {caution:.2f} against the club's {usual:.2f}: {manner} the club. Seeing the roll "
                         f"and pressing take {shown['non-decision time']:.0f} ms; {shown['lapses']:.1%} of answers "
                         "are lapses.")
    sentences.append(f"An extra die costs {shown['per extra die']:.0f} ms and "
                     f"{-100 * shown['accuracy per extra die']:.1f} points of accuracy; a near tie "
                     f"{near:.0f} ms on average.")
    return " ".join(sentences)


def _rolls(dice: int, near_tie: bool = False, grey: bool = False, command_first: bool = False) -> RollFeatures:
    """One roll of each command with these features."""
    count = len(ALL_COMMANDS)
    return RollFeatures(command=np.arange(count, dtype=np.int8), dice=np.full(count, dice, dtype=np.int16),
                        near_tie=np.full(count, near_tie), grey=np.full(count, grey),
                        command_first=np.full(count, command_first))


def _shown(value: float, unit: str) -> str:
    return f"{value:.0f}" if unit == "ms" else f"{value:.3f}"


def fit_of_log(log_path: str | Path, model: str = DEFAULT_MODEL) -> ReadingFit:
    """The fit by `model` of the drill log at `log_path` (what `player_figures` reports on)."""
    return fit_players(load_logs([log_path], columns=FIT_COLUMNS), model)
