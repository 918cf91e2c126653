"""Fair races over real connections: round trips per seat, the window a claim is held in, the grace before a
devil is awarded, and the order of true reaction times kept over uneven, jittery and asymmetric links."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diavolo_stats.game.fairness import (
    JITTER_FACTOR,
    MAX_PENDING_PINGS,
    MAX_TRIP_MS,
    MIN_ONE_WAY_TRIPS,
    RECENT_TRIPS,
    RESOLUTION_MS,
    TOLERANCE_MS,
    UNMEASURED_TRIP_MS,
    RoundTrips,
    claim_window,
    grace_ms,
    judge_claim,
    settled_below_ms,
)
from diavolo_stats.game.referee import Grab, referee_round

FOREPERIOD_MS = 800.0


def trips_of(*samples: float) -> RoundTrips:
    trips = RoundTrips()
    for sample in samples:
        trips.add(sample)
    return trips


def test_a_round_trip_is_from_the_ping_sent_to_its_pong_and_a_pong_without_a_ping_is_no_sample():
    trips = RoundTrips()
    first = trips.ping(1000.0)
    second = trips.ping(1500.0)
    assert trips.pong(second, 1540.0) == 40.0
    assert trips.pong(first, 1600.0) == 600.0
    assert trips.pong(first, 1700.0) is None  # answered already
    assert trips.pong(12345, 1700.0) is None  # never sent
    assert (trips.count, trips.min_ms, trips.median_ms) == (2, 40.0, 320.0)


def test_only_the_recent_trips_count_and_only_the_latest_pings_are_awaited():
    trips = trips_of(*[5.0] * RECENT_TRIPS)
    for _ in range(RECENT_TRIPS):
        trips.add(120.0)  # the link changed (the phone left the Wi-Fi): the old trips are forgotten
    assert (trips.min_ms, trips.median_ms) == (120.0, 120.0)
    pings = [trips.ping(float(at)) for at in range(MAX_PENDING_PINGS + 1)]
    assert trips.pong(pings[0], 50.0) is None  # the oldest ping was let go
    assert trips.pong(pings[-1], 50.0) == 50.0 - MAX_PENDING_PINGS


def test_the_window_runs_from_the_longest_trip_to_the_shortest_one_way_delay():
    trips = trips_of(100.0, 110.0, 120.0, 130.0, 300.0)  # min 100, median 120: jitter 20
    assert trips.longest_ms == 120.0 + JITTER_FACTOR * 20.0 + TOLERANCE_MS
    assert trips.shortest_one_way_ms == 100.0 / 2 - 20.0
    assert claim_window(1000.0, trips) == (1000.0 - trips.longest_ms, 1000.0 - 30.0 + TOLERANCE_MS)


def test_a_seat_with_fewer_trips_than_the_minimum_is_held_to_no_one_way_delay():
    # One slow first trip (a busy server's queue, 720 ms on a link of a few ms) must not hold an honest claim
    # of 150 ms down: the server saw 180 ms pass, so the claim is believed until enough trips show the link.
    for count in range(1, MIN_ONE_WAY_TRIPS):
        few = trips_of(*[720.0] * count)
        assert few.shortest_one_way_ms == 0.0
        assert judge_claim(150.0, 180.0, few).held is None
    enough = trips_of(*[720.0] * MIN_ONE_WAY_TRIPS)
    assert enough.shortest_one_way_ms == 360.0
    assert judge_claim(150.0, 180.0, enough).held == "latest"


def test_a_seat_no_pong_came_from_is_allowed_the_unmeasured_trip_and_no_seat_more_than_the_maximum():
    assert claim_window(1000.0, RoundTrips()) == (1000.0 - UNMEASURED_TRIP_MS, 1000.0 + TOLERANCE_MS)
    slow_pongs = trips_of(*[5000.0] * 8)  # a page holding its pongs back to widen its window
    assert slow_pongs.longest_ms == MAX_TRIP_MS
    assert grace_ms([trips_of(20.0), slow_pongs]) == MAX_TRIP_MS
    assert grace_ms([]) == 0.0


def test_a_claim_inside_its_window_counts_as_claimed_one_outside_at_the_end_it_passed():
    trips = trips_of(*[40.0] * 10)  # a steady link: jitter 0, longest 65, shortest one way 20
    inside = judge_claim(700.0, 740.0, trips)
    assert (inside.latency_ms, inside.held) == (700.0, None)
    # A page claiming 300 ms when the server saw 740 ms pass, on a link of 40: at most 65 ms are the network's.
    faster = judge_claim(300.0, 740.0, trips)
    assert (faster.latency_ms, faster.held) == (740.0 - 65.0, "earliest")
    slower = judge_claim(900.0, 740.0, trips)
    assert (slower.latency_ms, slower.held) == (740.0 - 20.0 + TOLERANCE_MS, "latest")
    assert slower.as_dict() == {"claimed_ms": 900.0, "latency_ms": 745.0, "earliest_ms": 675.0, "latest_ms": 745.0,
                                "held": "latest", "implausible": False}


def test_a_page_whose_clock_restarted_is_counted_from_the_first_send():
    # A reload mid-round: the page paints the roll again and its player answers 70 ms later; the server first
    # sent the roll 2 s before, so its player had the roll in front of them all that time less the link.
    judged = judge_claim(70.0, 2000.0 - FOREPERIOD_MS, trips_of(*[30.0] * 10))
    assert judged.latency_ms == 2000.0 - FOREPERIOD_MS - (30.0 + TOLERANCE_MS)


def test_a_delay_spike_past_the_window_costs_the_seat_exactly_the_excess():
    trips = trips_of(*[40.0] * 10)  # longest 65 ms
    reaction_ms, spike_ms = 600.0, 40.0 + 200.0
    judged = judge_claim(reaction_ms, reaction_ms + spike_ms, trips)
    assert judged.held == "earliest"
    assert judged.latency_ms - reaction_ms == spike_ms - trips.longest_ms


def test_a_claim_under_the_players_plausible_floor_is_flagged_not_refused():
    trips = trips_of(*[30.0] * 10)
    flagged = judge_claim(150.0, 180.0, trips, plausible_ms=210.0)
    assert flagged.implausible and flagged.latency_ms == 150.0
    assert not judge_claim(250.0, 280.0, trips, plausible_ms=210.0).implausible
    assert not judge_claim(150.0, 180.0, trips).implausible  # no fitted model: nothing to compare with


def test_a_seat_with_150_ms_more_delay_wins_when_its_player_is_faster_by_more_than_the_resolution():
    near, far = trips_of(*[4.0, 5.0, 6.0] * 6), trips_of(*[304.0, 305.0, 306.0] * 6)
    far_reaction = 600.0
    near_reaction = far_reaction + RESOLUTION_MS + 1
    near_claim = judge_claim(near_reaction, near_reaction + 5.0, near)
    far_claim = judge_claim(far_reaction, far_reaction + 305.0, far)
    _, order, _ = referee_round(("red",), (5, 5), [Grab(0, "red", near_claim.latency_ms),
                                                   Grab(1, "red", far_claim.latency_ms)], ("red",))
    assert order == (1, 0)


# ------------------------------------------------------------------------------------ simulated links


@dataclass(frozen=True)
class Link:
    """One seat's network: each way a base delay plus a uniform jitter, in ms (uneven across seats, the two
    ways of one seat different)."""

    down_ms: float
    down_jitter_ms: float
    up_ms: float
    up_jitter_ms: float

    def down(self, rng: np.random.Generator) -> float:
        return self.down_ms + rng.uniform(0, self.down_jitter_ms)

    def up(self, rng: np.random.Generator) -> float:
        return self.up_ms + rng.uniform(0, self.up_jitter_ms)


delay = st.floats(0, 300)
jitter = st.floats(0, 100)
links = st.builds(Link, delay, jitter, delay, jitter)
seats = st.lists(st.tuples(links, st.floats(150, 3000), st.floats(0, RESOLUTION_MS, exclude_max=True)),
                 min_size=2, max_size=6)


@dataclass(frozen=True)
class Answer:
    seat: int
    reaction_ms: float  # the player's true reaction, from the roll shown to the key
    arrived_ms: float  # at the server, its clock
    judged_ms: float
    held: str | None


def race(table: list[tuple[Link, float, float]], seed: int) -> tuple[list[Answer], dict[int, tuple[float,
                                                                                                    RoundTrips]]]:
    """One round over simulated links: each seat pinged RECENT_TRIPS times first, sent the roll one after
    another, its honest page claiming its player's reaction from the frame that painted the roll (which a
    display shows up to a frame later). The answers in the order they reach the server, and each seat's
    (first send ms, round trips)."""
    rng = np.random.default_rng(seed)
    sent: dict[int, tuple[float, RoundTrips]] = {}
    answers = []
    for seat, (link, reaction_ms, shown_after_ms) in enumerate(table):
        trips = trips_of(*[link.down(rng) + link.up(rng) for _ in range(RECENT_TRIPS)])
        sent_ms = 0.2 * seat
        painted_ms = sent_ms + link.down(rng) + FOREPERIOD_MS
        pressed_ms = painted_ms + shown_after_ms + reaction_ms
        arrived_ms = pressed_ms + link.up(rng)
        judged = judge_claim(pressed_ms - painted_ms, arrived_ms - sent_ms - FOREPERIOD_MS, trips)
        answers.append(Answer(seat, reaction_ms, arrived_ms, judged.latency_ms, judged.held))
        sent[seat] = (sent_ms, trips)
    return sorted(answers, key=lambda answer: answer.arrived_ms), sent


@settings(max_examples=150, deadline=None)
@given(seats, st.integers(0, 2**32 - 1))
def test_the_awarded_order_is_the_order_of_true_reactions_further_apart_than_the_resolution(table, seed):
    answers, _ = race(table, seed)
    assert all(answer.held is None for answer in answers)  # an honest page's claim is counted as it is
    grabs = [Grab(answer.seat, "red", answer.judged_ms) for answer in answers]
    _, order, _ = referee_round(("red",), (5,) * len(table), grabs, ("red",))
    place = {seat: index for index, seat in enumerate(order)}
    reaction = {answer.seat: answer.reaction_ms for answer in answers}
    for first in reaction:
        for second in reaction:
            if reaction[first] + RESOLUTION_MS < reaction[second]:
                assert place[first] < place[second], (first, second)


@settings(max_examples=150, deadline=None)
@given(seats, st.integers(0, 2**32 - 1))
def test_an_answer_settled_by_the_grace_is_never_overtaken_by_one_still_on_its_way(table, seed):
    answers, sent = race(table, seed)
    for index, answer in enumerate(answers):
        now_ms = answer.arrived_ms
        waiting = [(now_ms - sent[later.seat][0] - FOREPERIOD_MS, sent[later.seat][1]) for later in answers[index + 1:]]
        settled = settled_below_ms(waiting)
        assert all(later.judged_ms >= settled for later in answers[index + 1:])
    # And nothing is held back once every answer is in.
    assert settled_below_ms([]) == math.inf


@pytest.mark.parametrize("extra_ms", [0.0, 150.0])
def test_the_grace_lets_a_far_seat_faster_than_a_near_one_win_though_its_answer_comes_later(extra_ms):
    near, far = trips_of(*[10.0] * 10), trips_of(*[10.0 + 2 * extra_ms] * 10)
    # The near seat answers 700 ms after its roll appeared; at that moment the far seat (reaction 650 ms) is
    # still on its way: 700 ms is not yet final while the far seat could still come in faster.
    assert settled_below_ms([(700.0, far)]) < 650.0 + RESOLUTION_MS
    # Once the far seat's longest trip has passed since a reaction of 700 ms, 700 ms is final.
    assert settled_below_ms([(700.0 + far.longest_ms, far)]) == 700.0
    assert grace_ms([near, far]) == far.longest_ms
