"""Players from their command-line specs: a preset, a player TOML file, or a name fitted from the drill log.

A preset or a player file (a `players.PlayerModel`) plays as its `reading.ReadingModel`. A name is fitted from
the drill log, every player of the log together, by one of MODELS: drift diffusion (`diffusion_fit`,
DEFAULT_MODEL, the better predictor in `benchmarks/bench_players.py`) or the reading model (`reading_fit`). So a
harder variant makes every modelled player slower and more error-prone, whoever they are.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Collection, Sequence
from pathlib import Path

import pandas as pd

from diavolo_stats.errors import InputError
from diavolo_stats.files import not_a_file
from diavolo_stats.game.diffusion import DiffusionModel
from diavolo_stats.game.diffusion_fit import fit_diffusion
from diavolo_stats.game.player_file import read_player
from diavolo_stats.game.players import PRESET_PREFIX, PlayerModel, player_levels
from diavolo_stats.game.reading import COEFFICIENTS, ReadingModel
from diavolo_stats.game.reading_fit import FIT_COLUMNS, ReadingFit, fit_reading, not_a_player
from diavolo_stats.game.settings import DEFAULT_MODEL, MODELS
from diavolo_stats.stats import MIN_FIT_ANSWERS

Player = PlayerModel | ReadingModel | DiffusionModel
"""What a game seats: a reading model (or a PlayerModel it reads as one, `reading.reading_of`) or a diffusion."""


def fit_players(drills: pd.DataFrame, model: str = DEFAULT_MODEL,
                min_answers: int = MIN_FIT_ANSWERS) -> ReadingFit:
    """Every player of a drill log frame (FIT_COLUMNS) fitted by `model`, one of MODELS; InputError (field
    `model`) for another name."""
    if model not in MODELS:
        raise InputError(f"unknown player model {model!r}; allowed: {', '.join(MODELS)}", field="model")
    return (fit_diffusion if model == "diffusion" else fit_reading)(drills, min_answers)


def player_from_spec(spec: str, fit: ReadingFit | None = None, log_path: str | Path | None = None,
                     command_first: bool = False) -> Player:
    """A player from a command-line spec: `preset:NAME`, a `.toml` file, or a name in the drill log.

    A name is their model (a diffusion by default) fitted with the other players of the log
    (`fit`, or the log at `log_path`, default `drill_log.default_log_path()`).
    With `command_first`, a player none of whose answers had the command die
    shown first is warned about: their figure for it is the club's. Errors
    name the field `players`, or `log_path` when there is no drill log.
    """
    levels = player_levels()
    if spec.startswith(PRESET_PREFIX) and spec[len(PRESET_PREFIX):] not in levels:
        allowed = ", ".join(PRESET_PREFIX + name for name in levels)
        raise InputError(f"unknown player preset {spec!r}; allowed: {allowed}", field="players")
    try:
        if spec.startswith(PRESET_PREFIX):
            return PlayerModel.preset(spec[len(PRESET_PREFIX):])
        if not _named(spec):
            return read_player(spec)
        reading = (fit or fit_log(log_path)).player(spec)
    except InputError as error:
        if error.field == "log_path":  # no drill log: the log is what is wrong, not the player
            raise
        raise InputError(error.message if error.field in (None, "player", "log") else str(error),
                         field="players") from None
    first = reading.answers_per_coefficient[COEFFICIENTS.index("command_first")]
    if command_first and first == 0:
        warnings.warn(f"player {spec!r}: no drill rows with the command die shown first; their figure for it "
                      "is the club's", stacklevel=2)
    return reading.model


PLAYER_KINDS = "a player is preset:NAME, a player file ending in .toml, or a name in the drill log"
"""What a spec may be, as an error about one says it."""


def players_from_specs(specs: Sequence[str], log_path: str | Path | None = None, command_first: bool = False,
                       fit: ReadingFit | None = None, model: str = DEFAULT_MODEL) -> list[Player]:
    """Players for several specs, fitting the drill log once by `model` (only if a spec names a player; `fit`
    if given, as `specs_fit` gives it)."""
    fit = fit or specs_fit(specs, log_path, model)
    return [player_from_spec(spec, fit, log_path, command_first) for spec in specs]


def specs_fit(specs: Sequence[str], log_path: str | Path | None = None,
              model: str = DEFAULT_MODEL) -> ReadingFit | None:
    """The drill log fitted by `model` (`fit_log`) if a spec names a player of it, else None. A name that is no
    player of the log (or there is none) but a folder, a FIFO or a file not ending in .toml on disk is refused as
    what it is (InputError, field `players`): a path given where a player or a player file was meant; so is an
    empty or blank spec, which names no player, before the log is read."""
    blank = next((spec for spec in specs if not spec.strip()), None)
    if blank is not None:
        raise InputError(f"{blank!r} names no player; {PLAYER_KINDS}", field="players")
    named = [spec for spec in specs if _named(spec)]
    if not named:
        return None
    try:
        fit = fit_log(log_path, model, named)
    except InputError:
        _refuse_paths(named, ())
        raise
    _refuse_paths(named, fit.players)
    return fit


def _named(spec: str) -> bool:
    """Whether `spec` names a player of the drill log: neither `preset:NAME` nor a player file (`.toml`)."""
    return not spec.startswith(PRESET_PREFIX) and not spec.lower().endswith(".toml")


def _refuse_paths(names: Sequence[str], players: Collection[str]) -> None:
    for name in names:
        problem = None if name in players else _path_problem(name)
        if problem is not None:
            raise InputError(f"{problem}; {PLAYER_KINDS}", field="players")


def _path_problem(name: str) -> str | None:
    """Why `name`, taken for a player of the drill log, is a path on disk no player can be: a folder or a FIFO
    (`files.not_a_file`), or a file whose name does not end in .toml (a drill log given as a player); else None."""
    problem = not_a_file(name)
    if problem is None and os.path.isfile(name):  # False for a name the system cannot hold (too long)
        problem = f"{name!r} is a file whose name does not end in .toml, not a player file"
    return problem


def extrapolation_notes(specs: Sequence[str], fit: ReadingFit | None, dice: int) -> list[str]:
    """A sentence for each player named from the drill log (`fit`) whose rolls of `dice` colored dice lie
    outside the dice of every roll of the log: their reading there is extrapolated, and by how many dice."""
    if fit is None:
        return []
    fewest, most = fit.dice_drilled
    beyond = dice - most if dice > most else fewest - dice if dice < fewest else 0
    if not beyond:
        return []
    named = [spec for spec in specs if spec in fit.players]
    where = f"more than the most of any roll of the drill log ({most})" if dice > most else \
        f"fewer than the fewest of any roll of the drill log ({fewest})"
    return [f"{', '.join(named)}: this variant's {dice} dice are {beyond} {where}; "
            f"{'their' if len(named) > 1 else 'the'} reading of its rolls is extrapolated that far from the "
            "fitted per-die effect"] if named else []


def fit_named(log_path: str | Path, names: Sequence[str],
              model: str = DEFAULT_MODEL) -> dict[str, ReadingModel | DiffusionModel]:
    """The players `names` of the drill log fitted by `model`, by name: those it can fit (MIN_FIT_ANSWERS answers
    or more, which a model fits); none when the log is missing. InputError if the log cannot be read."""
    from diavolo_stats.drill import log as drill_log

    path = Path(log_path)
    if not path.is_file() or not names:
        return {}
    drills = drill_log.load_logs([path], columns=FIT_COLUMNS)
    drills = drills[drills["player"].isin(list(names))]
    try:
        fit = fit_players(drills, model, MIN_FIT_ANSWERS)
    except InputError:  # none of them can be fitted: each is left out, as a player the fit refuses is
        return {}
    return {name: player_from_spec(name, fit) for name in fit.players}


def fit_log(log_path: str | Path | None = None, model: str = DEFAULT_MODEL,
            names: Sequence[str] = ()) -> ReadingFit:
    """Every player of the drill log fitted by `model` (`fit_players`); InputError (field `log_path`) if there is
    no log, or (field `players`) if one of `names` is no player of it, before the fit can say the log is too
    short (the name is what is wrong, or a path: `_refuse_paths`)."""
    from diavolo_stats.drill import log as drill_log

    path = Path(log_path) if log_path is not None else drill_log.default_log_path()
    if not path.is_file():
        raise InputError(not_a_file(path) or drill_log.missing_log_message(path, "use preset:novice|average|expert "
                                                                                 "players"), field="log_path")
    try:
        drills = drill_log.load_logs([path], columns=FIT_COLUMNS)
        logged = [str(name) for name in drills["player"].unique()] if names else []
        strangers = [name for name in names if name not in logged]
        _refuse_paths(strangers, ())
        if strangers:
            raise InputError(not_a_player(strangers[0], logged), field="players")
        return fit_players(drills, model, MIN_FIT_ANSWERS)
    except InputError as error:
        # the reader names the file in the message alone (not a drill log): the log is what is wrong
        raise InputError(error.message, field="log_path" if error.field in ("log", None) else error.field) from None
