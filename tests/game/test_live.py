"""A live table judged over real connections: each seat's link measured by ping and pong, a claim held to what
the server saw pass on that link, a grab final only after the round's grace, an implausible claim flagged."""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone

import numpy as np
import pytest

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Variant
from diavolo_stats.errors import InputError
from diavolo_stats.game import fairness
from diavolo_stats.game.diffusion import DiffusionModel
from diavolo_stats.game.live import Table
from diavolo_stats.game.settings import GameRules
from diavolo_stats.game.specs import player_from_spec

FOREPERIOD_S = 0.8
NOW = datetime(2026, 12, 1, 8, tzinfo=timezone.utc)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def table_of(*names: str, foreperiod_ms: int = 800) -> tuple[Table, Clock, list]:
    clock, rows = Clock(), []
    table = Table(Variant(), GameRules(), (foreperiod_ms,) * 2, np.random.default_rng(7), rows.append, clock=clock)
    for name in names:
        table.join(name)
    return table, clock, rows


def measure(table: Table, clock: Clock, seat: int, trip_ms: float, pings: int = 10) -> None:
    """`pings` pings of `seat` answered `trip_ms` later."""
    for _ in range(pings):
        ping_id = table.ping(seat)
        clock.now += trip_ms / 1000
        table.pong(seat, ping_id)


def dealt(*names: str, foreperiod_ms: int = 800) -> tuple[Table, Clock, list]:
    """`table_of` with each seat's link measured (three 6 ms trips), the game started and its first round dealt."""
    table, clock, rows = table_of(*names, foreperiod_ms=foreperiod_ms)
    for seat in range(len(names)):
        measure(table, clock, seat, 6.0, pings=3)
    table.start()
    table.deal_next()
    return table, clock, rows


def right(table: Table) -> str:
    roll = table.deal.roll
    return resolve(Variant(), roll.command, roll.dice, roll.positions).answer


def race(near_reaction_ms: float, far_reaction_ms: float, extra_ms: float = 150.0) -> dict:
    """Ann on a 6 ms link and Bea on the same link with `extra_ms` added each way, both sent the roll at once,
    each answering right after their true reaction: the round's record."""
    table, clock, _ = table_of("Ann", "Bea")
    measure(table, clock, 0, 6.0)
    measure(table, clock, 1, 6.0 + 2 * extra_ms)
    table.start()
    table.deal_next()
    sent = clock.now
    table.send(0)
    table.send(1)
    answer = right(table)
    arrivals = sorted([(3.0 + near_reaction_ms + 3.0, 0, near_reaction_ms),
                       (3.0 + extra_ms + far_reaction_ms + 3.0 + extra_ms, 1, far_reaction_ms)])
    for arrived_ms, seat, reaction_ms in arrivals:
        clock.now = sent + FOREPERIOD_S + arrived_ms / 1000
        table.answer(seat, 1, answer, reaction_ms, NOW)
    table.settle()
    return table.round_document()


def test_a_seat_with_150_ms_more_delay_wins_when_its_player_is_faster_by_more_than_the_resolution():
    record = race(near_reaction_ms=600.0 + fairness.RESOLUTION_MS + 0.5, far_reaction_ms=600.0)
    assert record["order"] == [1, 0]
    assert [claim["held"] for claim in record["claims"]] == [None, None]  # both honest claims counted as made
    record = race(near_reaction_ms=600.0, far_reaction_ms=600.0 + fairness.RESOLUTION_MS + 0.5)
    assert record["order"] == [0, 1]


def test_a_page_on_a_fast_link_cannot_claim_more_than_its_links_longest_trip_faster():
    table, clock, rows = table_of("Ann", "Bea")
    measure(table, clock, 0, 6.0)  # a steady 6 ms link: its longest trip is 6 + TOLERANCE_MS
    table.start()
    table.deal_next()
    table.send(0)
    clock.now += FOREPERIOD_S + 0.9  # Ann answers 900 ms after her roll appeared and claims 500 ms
    taken = table.answer(0, 1, right(table), 500.0, NOW)
    assert taken.latency_ms == round(900.0 - (6.0 + fairness.TOLERANCE_MS), 1)
    assert taken.claim.held == "earliest"
    assert rows[0].latency_ms == taken.latency_ms


def test_a_grab_is_final_only_once_no_seat_still_to_answer_could_be_judged_faster():
    table, clock, _ = table_of("Ann", "Bea")
    measure(table, clock, 0, 6.0)
    measure(table, clock, 1, 306.0)
    table.start()
    table.deal_next()
    sent = clock.now
    table.send(0)
    table.send(1)
    black = "black"
    on_table = table.devils_left()[black]
    clock.now = sent + FOREPERIOD_S + 0.5
    table.answer(0, 1, black, 494.0, NOW)  # Ann (near) grabs black at 494 ms
    # Bea (far) could still come in faster: the devil is on the table for her, not yet awarded
    assert table.devils_left(waiting=[0, 1])[black] == on_table
    assert table.devils_left()[black] == on_table - 1  # the provisional view, nobody waited for
    final_at = table.final_at([0, 1])
    assert final_at == pytest.approx(sent + FOREPERIOD_S + (494.0 + table.seats[1].trips.longest_ms) / 1000)
    clock.now = final_at + 1e-6
    assert table.devils_left(waiting=[0, 1])[black] == on_table - 1
    # final, and not yet awarded: whoever asks later (a busy server) is told to award it now, not never
    clock.now += 2.0
    assert table.final_at([0, 1]) == clock.now
    table.award([0, 1])
    assert table.final_at([0, 1]) is None
    table.settle(absent=[1])
    record = table.round_document()
    assert record["grace_ms"] == round(table.seats[1].trips.longest_ms, 1) == round(table.grace_ms(), 1)
    assert record["resolution_ms"] == round(fairness.RESOLUTION_MS, 1)
    assert record["links"][1] == table.seats[1].trips.as_dict()


def test_a_claim_under_the_players_own_fitted_quantile_is_flagged_in_the_round_and_the_game_log():
    table, clock, rows = table_of("Ann", "Bea")
    table.seats[0].fitted = DiffusionModel.from_player(player_from_spec("preset:novice"))
    table.start()
    for claim_ms in (120.0, 5000.0):
        table.deal_next()
        table.send(0)
        clock.now += FOREPERIOD_S + claim_ms / 1000
        table.answer(0, table.number, right(table), claim_ms, NOW)
        table.settle(absent=[1])
    log = table.round_log()
    assert log[0]["flagged"] == [0] and log[0]["claims"][0]["implausible"]
    assert log[1]["flagged"] == [] and log[1]["claims"][1] is None
    assert table.round_document() == log[1] | {"dice": table.last[0].wire()["dice"]}
    assert rows[0].latency_ms == 120.0  # flagged, not refused


def test_a_seat_left_before_the_game_is_freed_and_once_it_started_kept():
    table, _, _ = table_of("Ann", "Bea", "Cid")
    table.leave(1)
    assert [seat.name for seat in table.seats] == ["Ann", "Cid"]
    assert table.join("Bea") == 2  # the name is anyone's again
    table.start()
    with pytest.raises(InputError, match="before the game starts"):
        table.leave(2)
    assert table.referee.names == ("Ann", "Cid", "Bea")


def test_a_devil_told_taken_stays_taken_when_a_slower_trip_is_measured_after():
    table, clock, rows = dealt("Ann", "Bea", "Cid")
    sent = clock.now
    for seat in range(3):
        table.send(seat)
    full = table.devils_left()["black"]
    clock.now = sent + FOREPERIOD_S + 0.41
    table.answer(1, 1, "black", 400.0, NOW)  # Bea grabs black at 400 ms
    clock.now = sent + FOREPERIOD_S + 0.5  # past Ann's and Cid's longest trips (31 ms) since 400 ms: final
    told = [table.award([0, 2])["black"]]
    # Cid's next three pongs come back 300 ms after their pings: by his link as measured now, he could still
    # claim less than 400 ms, but the screens were told Bea's devil is taken
    for offset in (0.19, 0.20, 0.21):
        ping_id = table.ping(2, at=sent + FOREPERIOD_S + offset)
        table.pong(2, ping_id, at=sent + FOREPERIOD_S + offset + 0.3)
    clock.now = sent + FOREPERIOD_S + 0.52
    assert table.settled_below_ms([0, 2]) < 400.0  # the threshold itself went back down
    told.append(table.award([0, 2])["black"])
    assert told == [full - 1, full - 1]
    assert table.final_at([0, 2]) is None  # nothing left to make final
    clock.now = sent + FOREPERIOD_S + 0.6
    taken = table.answer(2, 1, "black", 250.0, NOW)  # inside Cid's window now, but after a grab already final
    assert (taken.latency_ms, taken.claim.held, taken.claim.claimed_ms) == (400.1, "final", 250.0)
    assert rows[-1].latency_ms == 250.0  # the log keeps the reaction as its window judged it
    assert table.award([0])["black"] == full - 2
    table.settle(absent=[0])
    record = table.round_document()
    assert record["order"] == [1, 2] and record["held"][1] == "black"
    assert record["claims"][2]["held"] == "final" and record["claims"][2]["latency_ms"] == 400.1


def test_a_seat_not_waited_for_that_answers_faster_later_cannot_take_a_devil_told_taken():
    # Cid is away (not waited for): Ann's and Bea's grabs are final as they come, and take the last blacks.
    # Cid comes back and claims a faster time than both, honestly by his link: he is counted after them.
    table, clock, _ = dealt("Ann", "Bea", "Cid")
    sent = clock.now
    for seat in range(2):
        table.send(seat)
    for seat, reaction_ms in ((0, 500.0), (1, 600.0)):
        clock.now = sent + FOREPERIOD_S + (reaction_ms + 10) / 1000
        table.answer(seat, 1, "black", reaction_ms, NOW)
        table.award([0, 1])
    _, held = table.holding(waiting=[0, 1])
    assert held == ("black", "black", None)
    table.send(2)  # Cid's page is back: the roll is sent to him now, and he answers 300 ms after it appeared
    clock.now += FOREPERIOD_S + 0.31
    assert table.answer(2, 1, "black", 300.0, NOW).latency_ms == 600.1
    assert table.holding(waiting=[])[1] == held
    assert table.settle().held == held


STEPS = ("wait", "trips", "send", "answer", "award")


def play_script(steps: list[tuple[str, int, float, list[int]]]) -> None:
    """Ann and Bea (one devil a color) through `steps`: waits, slower or faster trips measured, the roll sent (late:
    a page back; again: a reload), answers and awards with any seats waited for (away, idle or back). Each award's
    devils left are no more than the last's, and a devil a seat was told it holds stays its own to the result."""
    table, clock, _ = dealt("Ann", "Bea", foreperiod_ms=0)
    table.send(0)
    told_left, told_held = table.devils_left(), (None, None)
    for kind, seat, ms, waiting in steps:
        if kind == "wait":
            clock.now += ms / 1000
        elif kind == "trips":
            for _ in range(3):
                table.pong(seat, table.ping(seat, at=clock.now - ms / 1000))
        elif kind == "send":
            table.send(seat)
        elif kind == "answer" and seat not in table.answered():
            with contextlib.suppress(InputError):  # not sent the roll yet
                table.answer(seat, 1, "black", max(ms, 150.0), NOW)
        elif kind == "award":
            waiting = [seat for seat in waiting if seat not in table.answered()]
            left = table.award(waiting)
            _, held = table.holding(waiting=waiting)
            assert all(left[color] <= told_left[color] for color in left), (told_left, left, steps)
            assert all(before in (None, now) for before, now in zip(told_held, held)), (told_held, held, steps)
            told_left, told_held = left, held
    held = table.settle().held
    assert all(before in (None, now) for before, now in zip(told_held, held)), (told_held, held, steps)


def test_the_devils_told_never_come_back_and_a_grab_told_final_is_kept_to_the_round_s_end():
    rng = np.random.default_rng(11)
    for _ in range(1000):
        play_script([(str(rng.choice(STEPS)), int(rng.integers(2)), float(rng.choice([0, 40, 150, 300, 600, 900])),
                      [seat for seat in range(2) if rng.random() < 0.5]) for _ in range(rng.integers(1, 16))])
