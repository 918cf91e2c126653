"""A live table judged over real connections: each seat's link measured by ping and pong, a claim held to what
the server saw pass on that link, a grab final only after the round's grace, an implausible claim flagged."""

from __future__ import annotations

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


def table_of(*names: str) -> tuple[Table, Clock, list]:
    clock, rows = Clock(), []
    table = Table(Variant(), GameRules(), (800, 800), np.random.default_rng(7), rows.append, clock=clock)
    for name in names:
        table.join(name)
    return table, clock, rows


def measure(table: Table, clock: Clock, seat: int, trip_ms: float, pings: int = 10) -> None:
    """`pings` pings of `seat` answered `trip_ms` later."""
    for _ in range(pings):
        ping_id = table.ping(seat)
        clock.now += trip_ms / 1000
        table.pong(seat, ping_id)


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
