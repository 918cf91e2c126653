"""Players from their command-line specs: a preset, a player TOML file, or a name fitted from the drill log.

Every player reads rolls through a `reading.ReadingModel`: a preset or a
player TOML file (a `players.PlayerModel`) is read as
`ReadingModel.from_player`, a name is fitted from the drill log
(`reading_fit.fit_reading`, every player of the log together). So a harder
variant (more dice, more near ties) makes every modelled player slower and
more error-prone, whoever they are.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

from diavolo_stats.errors import InputError
from diavolo_stats.game.player_file import read_player
from diavolo_stats.game.players import PRESET_PREFIX, PlayerModel, player_levels
from diavolo_stats.game.reading import COEFFICIENTS, ReadingModel
from diavolo_stats.game.reading_fit import FIT_COLUMNS, ReadingFit, fit_reading
from diavolo_stats.stats import MIN_FIT_ANSWERS

Player = PlayerModel | ReadingModel
"""What a game seats: a reading model, or a PlayerModel it reads as one (`reading.reading_of`)."""


def player_from_spec(spec: str, fit: ReadingFit | None = None, log_path: str | Path | None = None,
                     command_first: bool = False) -> Player:
    """A player from a command-line spec: `preset:NAME`, a `.toml` file, or a name in the drill log.

    A name is their reading model fitted with the other players of the log
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
        if spec.lower().endswith(".toml"):
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


def players_from_specs(specs: Sequence[str], log_path: str | Path | None = None, command_first: bool = False,
                       fit: ReadingFit | None = None) -> list[Player]:
    """Players for several specs, fitting the drill log once (only if a spec names a player; `fit` if given,
    as `specs_fit` gives it)."""
    fit = fit or specs_fit(specs, log_path)
    return [player_from_spec(spec, fit, log_path, command_first) for spec in specs]


def specs_fit(specs: Sequence[str], log_path: str | Path | None = None) -> ReadingFit | None:
    """The drill log fitted (`fit_log`) if a spec names a player of it, else None."""
    named = [spec for spec in specs if not spec.startswith(PRESET_PREFIX) and not spec.lower().endswith(".toml")]
    return fit_log(log_path) if named else None


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


def fit_log(log_path: str | Path | None = None) -> ReadingFit:
    """Every player of the drill log fitted; InputError (field `log_path`) if there is no log."""
    from diavolo_stats.drill import log as drill_log

    path = Path(log_path) if log_path is not None else drill_log.default_log_path()
    if not path.is_file():
        raise InputError(drill_log.missing_log_message(path, "use preset:novice|average|expert players"),
                         field="log_path")
    try:
        return fit_reading(drill_log.load_logs([path], columns=FIT_COLUMNS), MIN_FIT_ANSWERS)
    except InputError as error:
        raise InputError(error.message, field="log_path" if error.field == "log" else error.field) from None
