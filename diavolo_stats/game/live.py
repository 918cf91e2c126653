"""A live table: one game of Diavolo played round by round by people (and modelled players), one state object
that the Play page and the rooms only carry messages to.

A `Table` holds its seats, the deal on it, the answers given and the devils left; the round's rules are
`drill.deal.Deal` and `referee.Referee`. The server tells it when a roll is sent (`Table.send`) and an answer
comes (`Table.answer`); it judges and logs the answer once, awards grabs once final (`Table.award`, for good)
and settles the round (`Table.settle`) at the carrier's word. Why: docs/architecture.md, "The live table".
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np

from diavolo_stats.core.variant import GREY, Variant, check_answer
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.deal import Deal
from diavolo_stats.drill.log import GAME_INTERFACE, NO_ANSWER, TrialRow
from diavolo_stats.drill.roll_features import played_features
from diavolo_stats.drill.settings import FEEDBACK_MS
from diavolo_stats.errors import InputError
from diavolo_stats.game import fairness
from diavolo_stats.game.engine import START_GEMS
from diavolo_stats.game.referee import (
    Grab,
    Referee,
    RefereedRound,
    devils_at_start,
    engine_mismatches,
    modelled_grabs,
    referee_round,
)
from diavolo_stats.game.settings import MAX_PLAYERS, MIN_PLAYERS, GameRules
from diavolo_stats.game.specs import Player
from diavolo_stats.names import looks_alike

LATENCY_STEP_MS = 0.1
"""Judged latencies are kept to a tenth of a ms (as the log keeps them)."""
RESULT_MS = max(FEEDBACK_MS, 2500)
"""How long a round's result stays on a live table's screens before the next roll, ms: the drill's feedback
time, and at least 2.5 s to read who took which devil."""

if TYPE_CHECKING:
    from diavolo_stats.game.diffusion import DiffusionModel
    from diavolo_stats.game.reading import ReadingModel

@dataclass
class Seat:
    """One seat: its player's name, the session id its rows are logged under (one per game), the modelled
    player sitting there (None: a person), the rounds in a row it let pass unanswered, its link's round trips,
    and the person's own fitted model (None: none known), whose quantile flags an implausible claim."""

    name: str
    model: Player | None = None
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    missed: int = 0
    trips: fairness.RoundTrips = field(default_factory=fairness.RoundTrips)
    fitted: ReadingModel | DiffusionModel | None = None


@dataclass(frozen=True)
class Taken:
    """What a table made of one answer: the answer (None: none), the latency counted in the race (ms, None
    without an answer), whether it grabs, why not when it does not, and how its claimed time was judged (None:
    no answer; held "final" when the race counts it after the grabs already final, `Table.award`)."""

    answer: str | None
    latency_ms: float | None
    counted: bool
    reason: str | None = None
    claim: fairness.JudgedClaim | None = None


class Table:
    """One table in play (see the module docstring).

    variant: the game. rules: its readings (`GameRules`). foreperiod_ms: the (shortest, longest) range each
    roll's wait is drawn from. rng: the dice's generator (and the models'). log: where a judged answer goes
    (`TrialStore.add`, or any callable taking a `TrialRow`); it is called before the answer is taken, so an
    answer the log refuses is not taken either. seed: logged with every row. clock: seconds, monotonic.
    """

    def __init__(self, variant: Variant, rules: GameRules, foreperiod_ms: tuple[int, int],
                 rng: np.random.Generator, log: Callable[[TrialRow], Any], seed: int | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.variant, self.rules, self.foreperiod_ms, self.rng = variant, rules, foreperiod_ms, rng
        self.log, self.seed, self.clock = log, seed, clock
        self.seats: list[Seat] = []
        self.referee: Referee | None = None
        self.deal: Deal | None = None  # the deal on the table, until it is settled
        self.number = 0  # the round of `deal`
        self.last: tuple[Deal, RefereedRound] | None = None  # the last round settled
        self._first_sent: dict[int, float] = {}
        self._sends: dict[int, int] = {}
        self._taken: dict[int, Taken] = {}
        self._final: set[int] = set()  # the seats whose grab the screens were told is final (`award`)
        self._modelled: list[Grab] = []
        self._fair: list[dict] = []  # per round settled: how it was judged
        self._lock = threading.RLock()

    # ---------------------------------------------------------------------------------------------- seats

    def join(self, name: str, model: Player | None = None) -> int:
        """Seat `name` (a person, or `model`) before the game starts: the seat's number. InputError once the
        game started, past MAX_PLAYERS, or for a name that looks like one the table has (`names.looks_alike`)."""
        with self._lock:
            if self.referee is not None:
                raise InputError("the table is playing; new players join before the game starts", field="name")
            if len(self.seats) >= MAX_PLAYERS:
                raise InputError(f"the table has its {MAX_PLAYERS} players", field="name")
            if any(looks_alike(seat.name, name) for seat in self.seats):
                raise InputError("someone at the table is already called that, or by a name that looks the same",
                                 field="name")
            self.seats.append(Seat(name, model))
            return len(self.seats) - 1

    def leave(self, seat: int) -> None:
        """Free `seat` before the game starts (its player left): its name and place are anyone's, the seats after
        it move up one. InputError once the game started."""
        with self._lock:
            if self.referee is not None:
                raise InputError("the table is playing; a seat is freed only before the game starts", field="seat")
            del self.seats[seat]

    def start(self) -> None:
        """Start a game with the seats there are (again, once one is over: each seat a new session id)."""
        with self._lock:
            if len(self.seats) < MIN_PLAYERS:
                raise InputError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players", field="start")
            for seat in self.seats:
                seat.session_id, seat.missed = str(uuid.uuid4()), 0
            self.referee = Referee(names=tuple(seat.name for seat in self.seats), colors=self.variant.colors,
                                   rules=self.rules)
            self.deal, self.number, self.last, self._fair = None, 0, None, []

    @property
    def over(self) -> bool:
        return self.referee is not None and self.referee.over

    @property
    def people(self) -> list[int]:
        """The seats of people (not modelled players)."""
        return [index for index, seat in enumerate(self.seats) if seat.model is None]

    def gems(self) -> tuple[int, ...]:
        """Each seat's gems (START_GEMS before the game)."""
        return self.referee.gems if self.referee is not None else (START_GEMS,) * len(self.seats)

    def ping(self, seat: int, at: float | None = None) -> int:
        """A ping's id for `seat`'s link, sent at `at` (the clock's seconds; now when None)."""
        at = self.clock() if at is None else at
        with self._lock:
            return self.seats[seat].trips.ping(1000 * at)

    def pong(self, seat: int, ping_id: int, at: float | None = None) -> float | None:
        """The round trip (ms) `seat`'s pong of `ping_id`, received at `at`, completes; None for no such ping."""
        at = self.clock() if at is None else at
        with self._lock:
            return self.seats[seat].trips.pong(ping_id, 1000 * at)

    # ---------------------------------------------------------------------------------------------- a round

    def deal_next(self) -> Deal:
        """Throw the next round's deal (and draw the modelled players' grabs on it); InputError once over."""
        with self._lock:
            if self.referee is None or self.referee.over:
                raise InputError("the game is over" if self.referee else "the game has not started", field="round")
            deal = Deal.throw(self.variant, self.rng, self.foreperiod_ms)
            modelled = [seat for seat in self.referee.seats_in if self.seats[seat].model is not None]
            self._modelled = modelled_grabs(
                [self.seats[seat].model for seat in modelled], modelled, deal.roll.command,
                deal.resolution.accepted, self.variant.colors, self.rng,
                features=played_features(self.variant, [deal.roll])) if modelled else []
            self.deal, self.number = deal, len(self.referee.rounds) + 1
            self._first_sent, self._sends, self._taken, self._final = {}, {}, {}, set()
            return deal

    def roll_message(self, at: float | None = None) -> dict:
        """The round on the table as a page paints it at `at` (the clock's; now when None): its number, the
        deal's wire form, the devils of each color on the table, the devils left (`devils_left`) and the seats
        still in."""
        with self._lock:
            if self.deal is None:
                raise InputError("no round is on the table", field="round")
            return {"round": self.number, **self.deal.wire(), "devils_per_color": self.referee.devils(),
                    "devils_left": self.devils_left(at), "seats_in": list(self.referee.seats_in)}

    def send(self, seat: int | None) -> dict:
        """The round on the table for `seat` (None: a screen that only watches), noting when the server first
        sent it there and whether it sends it again (a reload)."""
        with self._lock:
            at = self.clock()
            message = self.roll_message(at)
            if seat is not None:
                self._first_sent.setdefault(seat, at)
                self._sends[seat] = self._sends.get(seat, 0) + 1
            return message

    def answer(self, seat: int, round_number: int, answer: str | None, latency_ms: float | None,
               timestamp: datetime, at: float | None = None) -> Taken:
        """Take `seat`'s answer (None: none in the time) to round `round_number`, `latency_ms` after the roll
        appeared at `timestamp` by its page, received at `at` (the clock's; now when None): judged, logged
        once, and what it counts for: never faster than a grab already final (`award`), though its log row keeps
        the claim as its window judged it. InputError for a round not on the table, a seat out of it or that
        was never sent it, a second answer, or an answer that is no color of the game nor grey."""
        at = self.clock() if at is None else at
        with self._lock:
            if self.deal is None or round_number != self.number:
                raise InputError(f"round {round_number} is not on the table", field="round")
            if seat in self._taken:
                raise InputError("you grabbed already: one devil per player, no swapping", field="answer")
            if seat not in self.referee.seats_in or self.seats[seat].model is not None:
                raise InputError("you are out of this game", field="seat")
            if seat not in self._first_sent:
                raise InputError(f"round {round_number} was not sent to you", field="round")
            if (answer is None) != (latency_ms is None):
                raise InputError("an answer needs its latency, and no answer has none", field="latency_ms")
            logged_ms = None  # the log keeps a counted claim as its window judged it
            if answer is None:
                taken = Taken(None, None, False)
            else:
                check_answer(answer, self.variant.colors)
                claim = self._judge(seat, float(latency_ms), at)
                believed = round(claim.latency_ms, 1)
                early = believed < MIN_LATENCY_MS or (claim.held != "resent" and latency_ms < MIN_LATENCY_MS)
                after_ms = self._after_final_ms()
                taken = (Taken(None, None, False, f"faster than a person can answer (under {MIN_LATENCY_MS:g} ms):"
                                                  " logged as too early, it grabs nothing", claim) if early else
                         Taken(answer, believed, True, None, claim) if believed >= after_ms else
                         Taken(answer, after_ms, True, None, fairness.held_after(claim, after_ms)))
                logged_ms = None if early else believed
            self.log(self._row(seat, taken.answer, logged_ms, timestamp,
                               too_early=answer is not None and not taken.counted))
            self._taken[seat] = taken
            self.seats[seat].missed = 0
            return taken

    def _judge(self, seat: int, claimed_ms: float, at: float) -> fairness.JudgedClaim:
        """`seat`'s claim held to what the server saw pass for it (from its first send, less the foreperiod)."""
        trips = self.seats[seat].trips
        seen_ms = self._seen_ms(seat, at)
        if self._sends[seat] > 1:
            return fairness.judge_resent(claimed_ms, seen_ms, trips)
        fitted = self.seats[seat].fitted
        plausible_ms = None if fitted is None else float(fitted.latency_quantile_ms(
            played_features(self.variant, [self.deal.roll]), fairness.PLAUSIBLE_QUANTILE)[0])
        return fairness.judge_claim(claimed_ms, seen_ms, trips, plausible_ms)

    def _seen_ms(self, seat: int, at: float) -> float:
        """ms since the roll appeared at `seat` by the server's clock: from its first send, less the foreperiod."""
        return 1000 * (at - self._first_sent[seat]) - self.deal.foreperiod_ms

    def grace_ms(self) -> float:
        """The round's grace, ms: the longest trip of the slowest link among the people still in."""
        with self._lock:
            people = self.referee.seats_in if self.referee is not None else range(len(self.seats))
            return fairness.grace_ms(self.seats[seat].trips for seat in people if self.seats[seat].model is None)

    def settled_below_ms(self, waiting: Sequence[int], at: float | None = None) -> float:
        """People's judged latencies under this many ms are final at `at`: no seat of `waiting` (the seats the
        round still waits for) that has not answered could be judged faster (`fairness.settled_below_ms`)."""
        at = self.clock() if at is None else at
        with self._lock:
            if self.deal is None:
                return float("inf")
            return fairness.settled_below_ms((self._seen_ms(seat, at), self.seats[seat].trips) for seat in waiting
                                             if seat not in self._taken and seat in self._first_sent)

    def _after_final_ms(self) -> float:
        """The least latency an answer taken now counts for: a step after the slowest grab already final
        (-inf before any), so that no later answer takes a devil the screens were told is taken."""
        final = [self._taken[seat].latency_ms for seat in self._final]
        return round(max(final) + LATENCY_STEP_MS, 1) if final else -float("inf")

    def final_at(self, waiting: Sequence[int]) -> float | None:
        """When (the clock's seconds) the fastest counted grab not yet awarded (`award`) can be, with `waiting`
        still to answer: now when it is final already; None when every counted grab is awarded."""
        with self._lock:
            now = self.clock()
            pending = [taken.latency_ms for seat, taken in self._taken.items() if taken.counted
                       and seat not in self._final]
            if not pending or self.deal is None:
                return None
            if min(pending) < self.settled_below_ms(waiting, now):
                return now
            waited = [seat for seat in waiting if seat not in self._taken and seat in self._first_sent]
            # seen_ms - longest passes the fastest pending latency for every waited seat
            return max(self._first_sent[seat] + (self.deal.foreperiod_ms + min(pending)
                                                 + self.seats[seat].trips.longest_ms) / 1000 for seat in waited)

    def answered(self) -> set[int]:
        with self._lock:
            return set(self._taken)

    def revealed(self, at: float | None = None) -> list[Grab]:
        """The modelled players' grabs whose time has come by `at` (the clock's; now when None), counted from
        when the roll appeared to the first person sent it; all of them once every person still in answered."""
        at = self.clock() if at is None else at
        with self._lock:
            people = [seat for seat in self.referee.seats_in if seat in self.people] if self.referee else []
            if all(seat in self._taken for seat in people):
                return list(self._modelled)
            onset = self._onset()
            if onset is None:
                return []
            return [grab for grab in self._modelled if grab.latency_ms <= 1000 * (at - onset)]

    def next_reveal_s(self, at: float | None = None) -> float | None:
        """Seconds from `at` until the next modelled grab is due (None: none is left to come, or the roll has
        not been sent)."""
        at = self.clock() if at is None else at
        with self._lock:
            onset = self._onset()
            shown = len(self.revealed(at))
            later = sorted(grab.latency_ms for grab in self._modelled)[shown:]
            if onset is None or not later:
                return None
            return max(0.0, onset + later[0] / 1000 - at)

    def _onset(self) -> float | None:
        """When the roll appeared to the first person sent it (the clock's seconds), None before any send."""
        if not self._first_sent or self.deal is None:
            return None
        return min(self._first_sent.values()) + self.deal.foreperiod_ms / 1000

    def grabs(self, at: float | None = None, waiting: Sequence[int] = ()) -> list[Grab]:
        """Every grab counted so far: the people's answers that count and are final with `waiting` still to
        answer (`settled_below_ms`) or were awarded final (`award`), and the modelled grabs revealed."""
        with self._lock:
            final = self._final_seats(waiting, at)
            people = [Grab(seat, taken.answer, taken.latency_ms) for seat, taken in self._taken.items()
                      if seat in final]
            return people + self.revealed(at)

    def _final_seats(self, waiting: Sequence[int], at: float | None) -> set[int]:
        """The seats whose counted grab is final at `at` with `waiting` still to answer: awarded already
        (`award`), or under the round's settled threshold (`settled_below_ms`)."""
        settled = self.settled_below_ms(waiting, at)
        return {seat for seat, taken in self._taken.items()
                if taken.counted and (seat in self._final or taken.latency_ms < settled)}

    def holding(self, at: float | None = None, waiting: Sequence[int] = ()) -> tuple[int, tuple[str | None, ...]]:
        """The devils of each color on the table this round, and the devil each seat holds so far (a color,
        grey or None), the final grabs so far (`grabs`) handed out in order of latency as the referee hands them
        out; once the round is settled, what its grabs took."""
        with self._lock:
            if self.deal is not None:
                _, _, held = referee_round(self.variant.colors, self.referee.gems, self.grabs(at, waiting),
                                           (GREY,), self.rules.devils)
                return self.referee.devils(), held
            if self.last is not None:
                return self.last[1].devils, self.last[1].held
            return self.referee.devils(), (None,) * len(self.seats)

    def devils_left(self, at: float | None = None, waiting: Sequence[int] = ()) -> dict[str, int]:
        """The devils of each color (and grey) still on the table now, as `holding` hands them out."""
        with self._lock:
            if self.referee is None:
                return {}
            per_color, held = self.holding(at, waiting)
            left = devils_at_start(self.variant.colors, per_color)
            for devil in held:
                if devil is not None:
                    left[devil] -= 1
            return left

    def award(self, waiting: Sequence[int], at: float | None = None) -> dict[str, int]:
        """The devils left to tell every screen at `at` (now when None), with `waiting` still to answer: the
        grabs final then (`grabs`) stay final for the rest of the round, whatever trip is measured after or
        whoever comes back, so the devils left told never go back up (`answer` counts later answers after them)."""
        with self._lock:
            if self.deal is not None:
                self._final = self._final_seats(waiting, at)
            return self.devils_left(at, waiting)

    def settle(self, absent: Sequence[int] = ()) -> RefereedRound:
        """Referee the round on the table: every counted grab, in order of latency. A person still in who did
        not answer is logged as timed out (unless `absent`: no one was there) and has missed one more round."""
        with self._lock:
            if self.deal is None:
                raise InputError("no round is on the table", field="round")
            for seat in self.referee.seats_in:
                if seat in self._taken or self.seats[seat].model is not None:
                    continue
                self.seats[seat].missed += 1
                if seat not in absent:
                    self.log(self._row(seat, None, None, datetime.now(timezone.utc)))
            grabs = [Grab(seat, taken.answer, taken.latency_ms) for seat, taken in self._taken.items()
                     if taken.counted] + self._modelled
            deal = self.deal
            fair = self._fairness_record()
            record = self.referee.play(deal.roll.command.value, deal.resolution.accepted, deal.resolution.reason,
                                       grabs)
            self.deal, self.last = None, (deal, record)
            self._fair.append(fair)
            return record

    def _fairness_record(self) -> dict:
        """How the round on the table was judged, as its record states it: the grace (ms) and the resolution
        (ms, one display frame), each person's link (`RoundTrips.as_dict`) and judged claim (None: no answer;
        modelled seats None in both), and the seats whose claim was flagged implausible."""
        claims: list[dict | None] = [None] * len(self.seats)
        for seat, taken in self._taken.items():
            claims[seat] = taken.claim.as_dict() if taken.claim is not None else None
        return {"grace_ms": round(self.grace_ms(), 1), "resolution_ms": round(fairness.RESOLUTION_MS, 1),
                "links": [None if seat.model is not None else seat.trips.as_dict() for seat in self.seats],
                "claims": claims,
                "flagged": [seat for seat, claim in enumerate(claims) if claim is not None and claim["implausible"]]}

    def play_out(self) -> None:
        """Play the rest of the game at once among the modelled players (no person is left in)."""
        with self._lock:
            while not self.over:
                self.deal_next()
                self.settle()

    def round_document(self) -> dict:
        """The last round settled as plain JSON types: the referee's record, the dice and how it was judged
        (`_fairness_record`: grace, links, claims, flagged)."""
        with self._lock:
            deal, record = self.last
            return record.as_dict() | {"dice": deal.wire()["dice"]} | self._fair[-1]

    def round_log(self) -> list[dict]:
        """Every round of the game as plain JSON types: the referee's record and how it was judged."""
        with self._lock:
            return [record.as_dict() | fair for record, fair in zip(self.referee.rounds, self._fair)]

    def engine_check(self) -> dict:
        """The game's round log replayed through the vectorized engine: {"rounds": n, "mismatches": [...]}."""
        with self._lock:
            rounds = self.referee.rounds
            return {"rounds": len(rounds), "mismatches": engine_mismatches(self.variant.colors, rounds, self.rules)}

    def _row(self, seat: int, answer: str | None, latency_ms: float | None, timestamp: datetime,
             too_early: bool = False) -> TrialRow:
        return self.deal.judged(answer if answer is not None else NO_ANSWER, latency_ms,
                                timestamp=timestamp, interface=GAME_INTERFACE, player=self.seats[seat].name,
                                session_id=self.seats[seat].session_id, trial=self.number, too_early=too_early,
                                seed=self.seed)
