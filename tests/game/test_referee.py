"""The round-by-round referee: the rules of a round, the end rules, and agreement with the vectorized engine."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from diavolo_stats.core.rules import GREY_CODE, resolve, roll
from diavolo_stats.core.variant import GREY, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.game.engine import Outcome, devils_per_color, play_round
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.referee import (
    Grab,
    Referee,
    engine_mismatches,
    modelled_grabs,
    referee_round,
)
from diavolo_stats.game.settings import EndRule, GameRules

COLORS = ("black", "red", "white")


def test_devils_per_color_are_one_fewer_than_the_players_in_capped_at_three_by_the_rulebook_only():
    assert [int(devils_per_color(n)) for n in range(2, 7)] == [1, 2, 3, 3, 3]
    assert [int(devils_per_color(n, None)) for n in range(2, 7)] == [1, 2, 3, 4, 5]
    # One count per game at once, as the engine asks.
    assert devils_per_color(np.arange(2, 7)).tolist() == [1, 2, 3, 3, 3]


def test_a_devil_taken_is_gone_so_the_slower_player_reaching_for_it_gets_none_and_loses_a_gem():
    # Three players in: two red devils. Seats 2 and 0 are faster than seat 1 on red.
    grabs = [Grab(0, "red", 900.0), Grab(1, "red", 1200.0), Grab(2, "red", 800.0)]
    gems, order, held = referee_round(COLORS, (5, 5, 5), grabs, ("red",))
    assert order == (2, 0, 1)
    assert held == ("red", None, "red")
    assert gems == (5, 4, 5)


def test_grey_holder_gains_one_never_above_five_and_everyone_else_loses_one():
    grabs = [Grab(0, GREY, 700.0), Grab(1, GREY, 650.0), Grab(2, "black", 500.0)]
    gems, _, held = referee_round(COLORS, (3, 4, 5), grabs, (GREY,))
    assert held == (None, GREY, "black")  # one grey devil: the faster of the two takes it
    assert gems == (2, 5, 4)
    gems, _, _ = referee_round(COLORS, (5, 2), [Grab(0, GREY, 700.0), Grab(1, "red", 400.0)], (GREY,))
    assert gems == (5, 1)


def test_a_seat_without_an_answer_loses_a_gem_and_a_player_out_neither_grabs_nor_scores():
    gems, order, held = referee_round(COLORS, (0, 2, 5), [Grab(0, "red", 100.0), Grab(2, "red", 900.0)], ("red",))
    assert order == (2,)
    assert held == (None, None, "red")
    assert gems == (0, 1, 5)


def test_one_grab_per_player_no_swapping_and_answers_must_be_the_games():
    with pytest.raises(InputError, match="grabbed twice"):
        referee_round(COLORS, (5, 5), [Grab(0, "red", 500.0), Grab(0, "black", 600.0)], ("red",))
    with pytest.raises(InputError, match="seat 2"):
        referee_round(COLORS, (5, 5), [Grab(2, "red", 500.0)], ("red",))
    with pytest.raises(InputError, match="answer"):
        referee_round(COLORS, (5, 5), [Grab(0, "yellow", 500.0)], ("red",))


def test_equal_latencies_go_to_the_earlier_seat_as_in_the_engine():
    _, order, held = referee_round(COLORS, (5, 5), [Grab(1, "red", 500.0), Grab(0, "red", 500.0)], ("red",))
    assert order == (0, 1) and held == ("red", None)


def test_referee_round_agrees_with_the_engine_on_every_random_table():
    """Every seat count, random gems (players out included), answers, tied latencies and accepted pairs."""
    rng = np.random.default_rng(21)
    answers = (*COLORS, GREY, None)
    for seats, devils in itertools.product(range(2, 7), ("rulebook", "review")):
        rounds = 400
        gems = rng.integers(0, 6, size=(seats, rounds)).astype(np.int8)
        picks = rng.integers(0, len(answers), size=(seats, rounds))
        latency = rng.integers(1, 4, size=(seats, rounds)).astype(float) * 100  # many ties
        call = rng.integers(-1, 3, size=rounds)
        also = np.where(rng.random(rounds) < 0.2, rng.integers(0, 3, size=rounds), call)
        grabbed = np.array([*range(len(COLORS)), GREY_CODE, -2], dtype=np.int8)[picks]  # -2: no grab
        accepted = np.array([call, also], dtype=np.int8)
        engine_gems, _ = play_round(gems, grabbed, np.where(grabbed == -2, np.inf, latency), accepted,
                                    GameRules(devils=devils).devil_cap)
        names = dict(enumerate(COLORS)) | {GREY_CODE: GREY}
        for column in range(rounds):
            grabs = [Grab(seat, answers[picks[seat, column]], latency[seat, column]) for seat in range(seats)]
            accepted_names = tuple(dict.fromkeys(names[int(code)] for code in accepted[:, column]))
            ours, _, _ = referee_round(COLORS, tuple(gems[:, column]), grabs, accepted_names, devils)
            assert ours == tuple(engine_gems[:, column]), (seats, devils, column)


def _play_modelled_game(players, rules, seed):
    variant = Variant()
    rng = np.random.default_rng(seed)
    referee = Referee(names=tuple(p.name for p in players), colors=variant.colors, rules=rules)
    while not referee.over:
        thrown = roll(variant, rng)
        resolution = resolve(variant, thrown.command, thrown.dice, thrown.positions)
        seats = referee.seats_in
        grabs = modelled_grabs([players[s] for s in seats], seats, thrown.command, resolution.accepted,
                               variant.colors, rng)
        referee.play(thrown.command.value, resolution.accepted, resolution.reason, grabs)
    return referee


@pytest.mark.parametrize("end", list(EndRule))
@pytest.mark.parametrize("devils", ["rulebook", "review"])
def test_a_finished_games_round_log_replayed_through_the_engine_gives_the_same_gems_round_by_round(end, devils):
    players = [PlayerModel.preset(name) for name in ("novice", "average", "expert", "average", "novice")]
    rules = GameRules(end=end, devils=devils)
    for seed in range(10):
        referee = _play_modelled_game(players, rules, seed)
        assert referee.over and referee.rounds
        assert engine_mismatches(referee.colors, referee.rounds, rules) == []
        # and as JSON, the way the web page hands a round log back
        assert engine_mismatches(referee.colors, referee.document()["rounds"], rules) == []


def test_the_replay_names_a_round_whose_gems_were_changed():
    rules = GameRules()
    referee = _play_modelled_game([PlayerModel.preset("average")] * 3, rules, seed=3)
    log = referee.document()["rounds"]
    tampered = [dict(record) for record in log]
    seat = next(s for s, g in enumerate(tampered[1]["gems_after"]) if 0 < g < 5)
    tampered[1]["gems_after"] = [g + (s == seat) for s, g in enumerate(tampered[1]["gems_after"])]
    assert engine_mismatches(referee.colors, tampered, rules) == [2]


def test_the_end_rules_are_the_engines():
    # last-standing: the game goes on until one player holds gems.
    referee = Referee(names=("a", "b", "c"), colors=COLORS, gems=(1, 2, 3))
    referee.play("highest-die", ("red",), "", [Grab(0, "black", 300.0), Grab(2, "red", 500.0)])
    assert not referee.over and referee.gems == (0, 1, 3)  # seat 0 is out, seats 1 and 2 are in
    referee.play("highest-die", ("red",), "", [Grab(2, "red", 500.0)])
    assert referee.over and referee.outcome is Outcome.WINNER and referee.winners == (2,)
    # first-out: the first elimination ends it, the most gems win, shared on equal gems
    referee = Referee(names=("a", "b", "c"), colors=COLORS, gems=(1, 4, 4), rules=GameRules(end="first-out"))
    referee.play("highest-die", ("red",), "", [Grab(1, "red", 500.0), Grab(2, "red", 600.0)])
    assert referee.outcome is Outcome.SHARED and referee.winners == (1, 2)
    # the last players out together: no winner
    referee = Referee(names=("a", "b"), colors=COLORS, gems=(1, 1))
    referee.play("highest-die", ("red",), "", [])
    assert referee.outcome is Outcome.ALL_OUT and referee.winners == ()
    with pytest.raises(InputError, match="over"):
        referee.play("highest-die", ("red",), "", [])


def test_the_round_limit_stops_a_game_with_no_winner():
    referee = Referee(names=("a", "b"), colors=COLORS, max_rounds=2)
    for _ in range(2):
        referee.play("highest-die", (GREY,), "", [Grab(0, GREY, 300.0), Grab(1, "red", 400.0)])
    assert referee.outcome is Outcome.ROUND_LIMIT and referee.winners == ()


def test_modelled_players_answer_as_their_models_say():
    rng = np.random.default_rng(5)
    expert, novice = PlayerModel.preset("expert"), PlayerModel.preset("novice")
    draws = [modelled_grabs([expert, novice], (0, 3), "highest-total", ("red",), COLORS, rng) for _ in range(400)]
    assert all([g.seat for g in d] == [0, 3] for d in draws)
    expert_ms = np.median([d[0].latency_ms for d in draws])
    novice_ms = np.median([d[1].latency_ms for d in draws])
    assert expert_ms < novice_ms  # expert: 0.6 x average time, novice 1.5 x
    right = np.mean([d[0].answer == "red" for d in draws])
    assert right > np.mean([d[1].answer == "red" for d in draws])
