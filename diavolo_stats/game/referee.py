"""A game of Diavolo refereed round by round, for a table of people (and modelled players) playing it live.

`referee_round` hands out one round's devils in order of latency (equal latencies: the earlier seat) with the
engine's rules (docs/rules.md) and says who got which devil. `Referee` carries a game to its end rule, and
`engine_mismatches` replays its round log through `engine.play_round`, naming every round where the two
disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from diavolo_stats.core.rules import GREY_CODE
from diavolo_stats.core.variant import ALL_COMMANDS, GREY, Command, check_answer
from diavolo_stats.drill.roll_features import REFERENCE_DICE, RollFeatures
from diavolo_stats.errors import InputError
from diavolo_stats.game.engine import START_GEMS, Outcome, devils_per_color, gems_after, play_round
from diavolo_stats.game.reading import Lineup
from diavolo_stats.game.settings import (
    DEFAULT_MAX_ROUNDS,
    GREY_DEVILS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    EndRule,
    GameRules,
    devil_cap,
)
from diavolo_stats.game.specs import Player

_NO_GRAB_CODE = -2
"""In the engine's arrays, a seat that grabbed nothing: no color index, not GREY_CODE, never accepted."""


def devils_at_start(colors: Sequence[str], per_color: int) -> dict[str, int]:
    """The devils on the table at the start of a round: `per_color` of each color (`engine.devils_per_color`)
    and GREY_DEVILS grey."""
    return {color: per_color for color in colors} | {GREY: GREY_DEVILS}


@dataclass(frozen=True)
class Grab:
    """What one seat reached for in a round, and when.

    seat: 0-based. answer: a color, `grey`, or None for no answer. latency_ms:
    ms from the roll on the table to the grab, None without an answer.
    """

    seat: int
    answer: str | None
    latency_ms: float | None

    def as_dict(self) -> dict:
        return {"seat": self.seat, "answer": self.answer, "latency_ms": self.latency_ms}


@dataclass(frozen=True)
class RefereedRound:
    """One refereed round.

    number: 1, 2, ... command: the command die. accepted: the answers counted right, the table's call first
    (`rules.Resolution.accepted`). reason: the rules' one line (`red: total 13 > 12 white, 11 black`). gems_before and
    gems_after: per seat. grabs: per seat, in seat order. order: the seats that grabbed, fastest first. held: per seat,
    the devil they got (a color or grey) or None. devils: devils of each color on the table this round.
    """

    number: int
    command: str
    accepted: tuple[str, ...]
    reason: str
    gems_before: tuple[int, ...]
    grabs: tuple[Grab, ...]
    order: tuple[int, ...]
    held: tuple[str | None, ...]
    gems_after: tuple[int, ...]
    devils: int

    def as_dict(self) -> dict:
        """The round as plain JSON types."""
        return {"number": self.number, "command": self.command, "accepted": list(self.accepted),
                "reason": self.reason, "gems_before": list(self.gems_before),
                "grabs": [grab.as_dict() for grab in self.grabs], "order": list(self.order),
                "held": list(self.held), "gems_after": list(self.gems_after), "devils": self.devils}


def referee_round(colors: Sequence[str], gems: Sequence[int], grabs: Sequence[Grab], accepted: Sequence[str],
                  devils: str = "rulebook") -> tuple[tuple[int, ...], tuple[int, ...], tuple[str | None, ...]]:
    """One round: who gets which devil, and every seat's gems after.

    gems: per seat, 0 for a player already out (who neither grabs nor scores). grabs: at most one per seat (a seat left
    out grabbed nothing). accepted: the answers counted right. Returns (gems_after per seat, the seats that got a devil
    or missed one, fastest first, the devil each seat holds or None). InputError for a second grab by one seat, a seat
    out of range or an answer that is no color of the game.
    """
    seats = len(gems)
    by_seat: dict[int, Grab] = {}
    for grab in grabs:
        if not 0 <= grab.seat < seats:
            raise InputError(f"seat {grab.seat} is not at this table of {seats}", field="seat")
        if grab.seat in by_seat:
            raise InputError(f"seat {grab.seat} grabbed twice; one devil per player, no swapping", field="seat")
        if grab.answer is not None:
            check_answer(grab.answer, colors)
        if grab.answer is not None and grab.latency_ms is None:
            raise InputError("a grab needs its latency in ms", field="latency_ms")
        by_seat[grab.seat] = grab
    left = devils_at_start(colors, int(devils_per_color(sum(1 for g in gems if g > 0), devil_cap(devils))))
    reaching = [grab for seat, grab in sorted(by_seat.items()) if gems[seat] > 0 and grab.answer is not None]
    order = sorted(reaching, key=lambda grab: (grab.latency_ms, grab.seat))
    held: list[str | None] = [None] * seats
    for grab in order:
        if left[grab.answer] > 0:
            left[grab.answer] -= 1
            held[grab.seat] = grab.answer
    after = gems_after(np.array(gems, dtype=np.int8), np.array([devil is not None and devil in accepted
                                                                for devil in held]),
                       np.array([devil == GREY for devil in held]))
    return tuple(map(int, after)), tuple(grab.seat for grab in order), tuple(held)


@dataclass
class Referee:
    """One game at one table, refereed round by round (see the module docstring).

    names: one per seat, 2 to 6. colors: the game's colors. rules: the end rule
    and the devils' reading (`settings.GameRules`).
    """

    names: tuple[str, ...]
    colors: tuple[str, ...]
    rules: GameRules = field(default_factory=GameRules)
    max_rounds: int = DEFAULT_MAX_ROUNDS
    gems: tuple[int, ...] = ()
    rounds: list[RefereedRound] = field(default_factory=list)
    outcome: Outcome | None = None
    winners: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        self.names, self.colors = tuple(self.names), tuple(self.colors)
        if not MIN_PLAYERS <= len(self.names) <= MAX_PLAYERS:
            raise InputError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(self.names)}",
                             field="players")
        self.gems = tuple(self.gems) or (START_GEMS,) * len(self.names)

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def seats_in(self) -> tuple[int, ...]:
        return tuple(seat for seat, gems in enumerate(self.gems) if gems > 0)

    def devils(self) -> int:
        """Devils of each color on the table for the next round."""
        return int(devils_per_color(len(self.seats_in), self.rules.devil_cap))

    def play(self, command: str, accepted: Sequence[str], reason: str, grabs: Sequence[Grab]) -> RefereedRound:
        """Referee the next round and end the game if its end rule says so; the round's record."""
        if self.over:
            raise InputError("the game is over", field="round")
        devils = self.devils()
        gems_after, order, held = referee_round(self.colors, self.gems, grabs, accepted, self.rules.devils)
        by_seat = {grab.seat: grab for grab in grabs}
        record = RefereedRound(number=len(self.rounds) + 1, command=str(command), accepted=tuple(accepted),
                             reason=reason, gems_before=self.gems,
                             grabs=tuple(by_seat.get(seat, Grab(seat, None, None)) for seat in range(len(self.gems))),
                             order=order, held=held, gems_after=gems_after, devils=devils)
        self.rounds.append(record)
        self._end_round(self.gems, gems_after)
        self.gems = gems_after
        return record

    def _end_round(self, before: tuple[int, ...], after: tuple[int, ...]) -> None:
        """The end rules of `engine._play_chunk`, for one game."""
        still_in = [gems > 0 for gems in after]
        most = max(after)
        if self.rules.end is EndRule.LAST_STANDING:
            decided = sum(still_in) <= 1
            winners = [seat for seat, alive in enumerate(still_in) if alive]
        else:
            decided = any(b > 0 and a <= 0 for b, a in zip(before, after))
            winners = [seat for seat, gems in enumerate(after) if gems > 0 and gems == most]
        if decided:
            self.winners = tuple(winners)
            self.outcome = (Outcome.ALL_OUT if not winners else Outcome.WINNER if len(winners) == 1
                            else Outcome.SHARED)
        elif len(self.rounds) >= self.max_rounds:
            self.outcome = Outcome.ROUND_LIMIT

    def document(self) -> dict:
        """The game as plain JSON types: seats, gems, rules, outcome, winners and every round."""
        return {"names": list(self.names), "colors": list(self.colors), **self.rules.as_dict(),
                "gems": list(self.gems), "devils_per_color": self.devils(), "over": self.over,
                "outcome": self.outcome.label if self.outcome is not None else None,
                "winners": list(self.winners), "rounds": [record.as_dict() for record in self.rounds]}


def modelled_grabs(players: Sequence[Player], seats: Sequence[int], command: Command | str,
                   accepted: Sequence[str], colors: Sequence[str], rng: np.random.Generator,
                   features: RollFeatures | None = None) -> list[Grab]:
    """What each modelled player grabs on this roll, and when: their answer and latency drawn from their
    reading of the roll, as the engine draws them (`reading.Lineup.respond`).

    players[i] sits at seats[i]. accepted: the roll's accepted answers, the table's call first. features: the
    roll's features (`roll_features.roll_features` of its dice); without them, a roll of the box's 9 dice with
    no near tie, grey when the table's call is.
    """
    codes = {color: index for index, color in enumerate(colors)} | {GREY: GREY_CODE}
    names = {code: name for name, code in codes.items()}
    if features is None:
        features = RollFeatures(command=np.array([ALL_COMMANDS.index(Command(command))], dtype=np.int8),
                                dice=np.array([REFERENCE_DICE], dtype=np.int16), near_tie=np.zeros(1, bool),
                                grey=np.array([accepted[0] == GREY]), command_first=np.zeros(1, bool))
    # accepted codes: (2, 1) int8, row 0 the table's call, as `rules.accepted_answers` gives them
    accepted_codes = np.array([[codes[accepted[0]]], [codes[accepted[-1]]]], dtype=np.int8)
    grabbed, latency_ms = Lineup(players).respond(accepted_codes, features, len(colors), rng)
    return [Grab(seat, names[int(code)], round(float(latency), 1))
            for seat, code, latency in zip(seats, grabbed[:, 0], latency_ms[:, 0])]


def engine_mismatches(colors: Sequence[str], rounds: Sequence[RefereedRound | Mapping],
                      rules: GameRules = GameRules()) -> list[int]:
    """The numbers of the rounds whose gems after, replayed through the vectorized engine
    (`engine.play_round`, every round one column), differ from the round log's; [] when they all agree.

    rounds: `RefereedRound`s or their `as_dict()` (a round log read back from JSON).
    """
    records = [record.as_dict() if isinstance(record, RefereedRound) else record for record in rounds]
    if not records:
        return []
    codes = {color: index for index, color in enumerate(colors)} | {GREY: GREY_CODE}
    # gems, grabbed: (players, rounds) int8; latency_ms: (players, rounds) float64; accepted: (2, rounds) int8
    gems = np.array([record["gems_before"] for record in records], dtype=np.int8).T
    grabbed = np.array([[_NO_GRAB_CODE if grab["answer"] is None else codes[grab["answer"]]
                         for grab in record["grabs"]] for record in records], dtype=np.int8).T
    latency_ms = np.array([[np.inf if grab["latency_ms"] is None else grab["latency_ms"]
                            for grab in record["grabs"]] for record in records], dtype=np.float64).T
    accepted = np.array([[codes[record["accepted"][0]], codes[record["accepted"][-1]]] for record in records],
                        dtype=np.int8).T
    gems_after, _ = play_round(gems, grabbed, latency_ms, accepted, rules.devil_cap)
    logged = np.array([record["gems_after"] for record in records], dtype=np.int8).T
    return [int(record["number"]) for record, same in zip(records, (gems_after == logged).all(axis=0)) if not same]
