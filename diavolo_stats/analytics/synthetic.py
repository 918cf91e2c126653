"""Synthetic drill logs: modelled players drilling, so the report and notebooks have data anywhere.

Every row is a real roll answered by a `reading.ReadingModel`, judged by `judged_trial` and written through
`DrillLog`, so a synthetic log has the format and the checks of a real one; names start with `synthetic-` so
nobody mistakes them for people. `write_reading_log` takes reading models themselves, so a test can write a log
with known effects and see a fit find them. How its players learn: docs/architecture.md, "Synthetic logs".
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from diavolo_stats.core.rules import GREY_CODE, resolve, roll_many
from diavolo_stats.core.variant import GREY, PRESETS, Variant
from diavolo_stats.drill import MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log import DrillLog, TrialRow, is_drill_log
from diavolo_stats.drill.roll_features import played_features
from diavolo_stats.drill.settings import FOREPERIOD_MS
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError, about
from diavolo_stats.files import check_target
from diavolo_stats.game.diffusion import TIMEOUT_MS
from diavolo_stats.game.players import PRESET_PREFIX
from diavolo_stats.game.reading import Lineup, ReadingModel
from diavolo_stats.game.specs import player_from_spec
from diavolo_stats.results import TextResult, wrap
from diavolo_stats.validation import FilePath, Flag, OneOf, Several, Whole, checked

PLAYER_PREFIX = "synthetic-"
PRACTICE_SLOWDOWN = 0.5
PRACTICE_ERRORS = 1.0
PRACTICE_EXPONENT = 0.7

READING_MS = 1500.0
"""Time between an answer and the next fixation mark, ms: the drill shows its feedback, the player reads it and
settles; spaces the timestamps."""

FIRST_SESSION = datetime(2024, 1, 1, 18, 0, tzinfo=timezone.utc)
"""When the first synthetic session starts; each later session is one day on, each player one hour on."""

DEFAULT_PLAYERS = ("preset:novice", "preset:average", "preset:expert")
MAX_SESSIONS = 1000


@dataclass(frozen=True)
class SyntheticLog(TextResult):
    """What `write_synthetic_log` wrote: the file, its player names and how many trials (rows of the log)."""

    path: Path
    players: tuple[str, ...]
    trials: int

    columns = ("path", "players", "trials")

    def rows(self) -> list[dict]:
        """One row: the file, its players (a list) and its trials."""
        return [self.document()]

    def document(self) -> dict:
        return {"path": str(self.path), "players": list(self.players), "trials": self.trials}

    def text(self) -> str:
        return wrap(f"wrote {self.trials} synthetic trials ({', '.join(self.players)}) to {self.path}")


@checked(session=Whole(1))
def practised(model: ReadingModel, session: int) -> ReadingModel:
    """`model` as it plays in its `session`-th session (1 = first): slower and less accurate early on."""
    practice = session ** -PRACTICE_EXPONENT
    return model.scaled(time_factor=1 + PRACTICE_SLOWDOWN * practice, error_factor=1 + PRACTICE_ERRORS * practice)


_VARIANTS = Several(OneOf(tuple(PRESETS)), unique=False, noun="variant")


@checked(path=FilePath(), sessions=Whole(1, MAX_SESSIONS), trials=Whole(1, MAX_TRIALS_PER_SESSION), seed=Whole(0),
         variant_names=_VARIANTS, replace=Flag(), practice=Flag())
def write_synthetic_log(path: str | Path, player_specs: Sequence[str] = DEFAULT_PLAYERS, sessions: int = 6,
                        trials: int = 60, seed: int = 7, variant_names: Sequence[str] = ("standard",),
                        replace: bool = False, practice: bool = True) -> SyntheticLog:
    """Write a seeded synthetic drill log of `sessions` sessions of `trials` trials per player.

    player_specs: `preset:novice|average|expert` or a player TOML file, each played as `ReadingModel.from_player`
    and logged as `synthetic-<name>`. variant_names: the presets drilled, session by session in turn. The same
    arguments write the same file. An existing file is refused unless `replace` (so a real drill log is never
    overwritten by accident); the log is written beside it and moved into place whole.
    """
    models = [ReadingModel.from_player(_player(spec)) for spec in player_specs]
    if not models:
        raise InputError("give at least one player", field="player_specs")
    return write_reading_log(path, models, sessions, trials, seed, variant_names, replace, practice)


@checked(path=FilePath(), sessions=Whole(1, MAX_SESSIONS), trials=Whole(1, MAX_TRIALS_PER_SESSION), seed=Whole(0),
         variant_names=_VARIANTS, replace=Flag(), practice=Flag())
def write_reading_log(path: str | Path, models: Sequence, sessions: int = 6, trials: int = 60,
                      seed: int = 7, variant_names: Sequence[str] = ("standard",), replace: bool = False,
                      practice: bool = True, variants: Sequence[Variant] | None = None) -> SyntheticLog:
    """`write_synthetic_log` for models given as they are (known effects, for a fit to recover): reading or
    diffusion models, or any player a `reading.Lineup` seats. `variants`, if given, are drilled instead of the
    presets `variant_names`."""
    path = Path(path)
    names = [PLAYER_PREFIX + model.name for model in models]
    if not models:
        raise InputError("give at least one player", field="models")
    if len(set(names)) != len(names):
        raise InputError(f"each player once; got {', '.join(names)}", field="player_specs")
    variants = list(variants) if variants else [Variant.preset(name) for name in variant_names]
    with about("path"):
        check_target(path)
    if path.exists() and not replace:
        raise InputError(f"{str(path)!r} exists; a synthetic log writes over a file only with replace, "
                         "so that a real log is never lost", field="path")
    if path.exists() and not is_drill_log(path):
        raise InputError(f"{str(path)!r} is not a drill log; replace only writes over a drill log", field="path")
    draft = path.with_name(f".{path.name}.synthetic-{os.getpid()}")
    draft.unlink(missing_ok=True)
    try:
        log = DrillLog(draft)
        players = np.random.SeedSequence(seed).spawn(len(models))
        for index, (model, name, player_seeds) in enumerate(zip(models, names, players)):
            for session, session_seeds in enumerate(player_seeds.spawn(sessions), start=1):
                start = FIRST_SESSION + timedelta(days=session - 1, hours=index)
                session_seed = int(session_seeds.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
                playing = practised(model, session) if practice else model
                log.append_rows(_session_rows(playing, name, variants[(session - 1) % len(variants)], trials,
                                              session_seed, start))
        os.replace(draft, path)
    finally:
        draft.unlink(missing_ok=True)
    return SyntheticLog(path=path, players=tuple(names), trials=len(models) * sessions * trials)


def _player(spec: str):
    if not (spec.startswith(PRESET_PREFIX) or spec.lower().endswith(".toml")):
        raise InputError(f"{spec!r} is neither preset:novice|average|expert nor a player .toml file",
                         field="player_specs")
    with about("player_specs"):
        return player_from_spec(spec)


def _session_rows(model: ReadingModel, name: str, variant: Variant, trials: int, session_seed: int,
                  start: datetime) -> list[TrialRow]:
    """One session's rows, judged as the drill judges them."""
    rng = np.random.default_rng(session_seed)
    session_id = str(uuid.UUID(bytes=rng.bytes(16), version=4))
    rolls = roll_many(variant, trials, rng)
    codes = {answer: code for code, answer in enumerate(variant.colors)} | {GREY: GREY_CODE}
    # accepted: (2, trials) int8 color index or GREY_CODE
    judged = [resolve(variant, r.command, r.dice, r.positions).accepted for r in rolls]
    accepted = np.array([[codes[a[0]] for a in judged], [codes[a[-1]] for a in judged]], dtype=np.int8)
    grabbed, latency_ms = Lineup((model,)).respond(accepted, played_features(variant, rolls), len(variant.colors), rng)
    foreperiod_ms = rng.uniform(*FOREPERIOD_MS, size=trials)  # the drill's random wait before each roll
    rows = []
    elapsed_ms = 0.0
    for trial, played in enumerate(rolls):
        timed_out = bool(latency_ms[0, trial] > TIMEOUT_MS)
        code = int(grabbed[0, trial])
        elapsed_ms += foreperiod_ms[trial]
        rows.append(judged_trial(
            variant, played.command, played.dice, played.positions,
            None if timed_out else (GREY if code == GREY_CODE else variant.colors[code]),
            None if timed_out else round(float(latency_ms[0, trial]), 3),
            interface="terminal", player=name, session_id=session_id, trial=trial + 1,
            timestamp=start + timedelta(milliseconds=elapsed_ms),
            foreperiod_ms=round(float(foreperiod_ms[trial]), 3), seed=session_seed))
        elapsed_ms += min(latency_ms[0, trial], TIMEOUT_MS) + READING_MS
    return rows
