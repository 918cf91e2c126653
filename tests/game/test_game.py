"""Whole games: the scoring of a round, the end rules, and what the figures of many games mean."""

from __future__ import annotations

import numpy as np
import pytest

import diavolo_stats.game.engine as engine
from diavolo_stats.core.rules import GREY_CODE
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import ALL_COMMANDS, Command, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.game.design import design_metrics, game_length_frame, skill_gap_curve
from diavolo_stats.game.engine import Outcome, play_games, play_round
from diavolo_stats.game.players import PlayerModel, Skill
from diavolo_stats.game.report import records_frame
from diavolo_stats.game.settings import EndRule, GameRules
from diavolo_stats.game.tally import GameLengths, GameTally, summarize_games
from diavolo_stats.stats import proportion_estimate

BLACK, RED, WHITE, GREY = 0, 1, 2, GREY_CODE
Z_999 = 3.29


def one_round(gems, grabbed, latency_ms, answer, also=None, rules=GameRules()):
    """play_round for one game, players in seat order: (gems after, held) as lists.

    answer: the table's call; also: the other answer accepted (an ambiguous closest), if any.
    """
    accepted = np.array([[answer], [answer if also is None else also]], dtype=np.int8)
    after, held = play_round(np.array(gems, dtype=np.int8)[:, None], np.array(grabbed, dtype=np.int8)[:, None],
                             np.array(latency_ms, dtype=np.float64)[:, None], accepted, rules.devil_cap)
    return after[:, 0].tolist(), held[:, 0].tolist()


def fixed_player(name: str, accuracy: float) -> PlayerModel:
    """A player with the same skill on every command and roll."""
    skill = Skill(accuracy=accuracy, mu_ms=1000.0, sigma_ms=100.0, tau_ms=300.0)
    return PlayerModel(name, {(c, t): skill for c in ALL_COMMANDS for t in (False, True)})


# Closest with no tolerance: a roll ties only when two colors' nearest dice are at exactly the same
# distance on the throw grid, too rare to happen in these tests (they check grey_rounds == 0).
NO_TIES = Variant(commands=(Command.CLOSEST,), table=TableModel(tolerance=0.0))


class TestRound:
    def test_right_color_keeps_gems_and_wrong_color_loses_one(self):
        gems, held = one_round([3, 3, 3], [RED, BLACK, WHITE], [500, 600, 700], RED)
        assert gems == [3, 2, 2]
        assert held == [True, True, True]

    def test_grey_grabbed_on_a_color_round_loses_one(self):
        gems, _ = one_round([3, 3, 3], [GREY, RED, RED], [100, 600, 700], RED)
        assert gems == [2, 3, 3]

    def test_a_player_whose_color_has_no_devil_left_gets_none_and_loses_one(self):
        # Three players: two red devils. The slowest of three right players finds none.
        gems, held = one_round([4, 4, 4], [RED, RED, RED], [900, 300, 600], RED)
        assert gems == [3, 4, 4]
        assert held == [False, True, True]

    def test_tie_the_grey_holder_gains_one_everyone_else_loses_one(self):
        # One grey devil: the faster of two right players takes it; the other is right but empty-handed.
        gems, held = one_round([3, 3, 3], [GREY, GREY, BLACK], [800, 400, 300], GREY)
        assert gems == [2, 4, 2]
        assert held == [False, True, True]

    def test_an_ambiguous_closest_keeps_the_nearest_color_holder_and_rewards_the_grey_holder(self):
        # The table calls grey (red and black within the tolerance); red is strictly nearest.
        gems, held = one_round([3, 3, 3, 3], [GREY, RED, BLACK, WHITE], [300, 400, 500, 600], GREY, also=RED)
        assert gems == [4, 3, 2, 2]
        assert held == [True, True, True, True]

    def test_gems_never_go_above_five(self):
        gems, _ = one_round([5, 2], [GREY, GREY], [300, 400], GREY)
        assert gems == [5, 1]

    def test_a_player_on_one_gem_who_loses_is_out_at_zero(self):
        gems, _ = one_round([1, 1], [BLACK, RED], [300, 400], RED)
        assert gems == [0, 1]

    def test_players_out_neither_grab_nor_change(self):
        # The out player is fastest and reaches for red; the two still in share one red devil.
        gems, held = one_round([0, 3, 3], [RED, RED, RED], [100, 500, 600], RED)
        assert gems == [0, 3, 2]
        assert held == [False, True, False]

    @pytest.mark.parametrize("players, still_in, devils", [(6, 6, 3), (5, 5, 3), (4, 4, 3), (4, 3, 2), (4, 2, 1)])
    def test_devils_per_color_are_one_fewer_than_players_in_at_most_three(self, players, still_in, devils):
        gems = [3] * still_in + [0] * (players - still_in)
        latency = list(range(100, 100 * players + 1, 100))
        after, held = one_round(gems, [RED] * players, latency, RED)
        assert sum(held) == devils
        assert after[:still_in] == [3] * devils + [2] * (still_in - devils)

    @pytest.mark.parametrize("players, still_in, devils", [(6, 6, 5), (5, 5, 4), (4, 4, 3), (5, 3, 2), (2, 2, 1)])
    def test_the_reviews_reading_has_one_fewer_devil_than_players_in_with_no_cap(self, players, still_in, devils):
        # «il y a un diablotin de moins que de joueur, et dans chaque couleur»: "one devil fewer than
        # players, in each color" (the French review); the rulebook's 3 per color at 4+ players is dropped.
        gems = [3] * still_in + [0] * (players - still_in)
        latency = list(range(100, 100 * players + 1, 100))
        after, held = one_round(gems, [RED] * players, latency, RED, rules=GameRules(devils="review"))
        assert sum(held) == devils
        assert after[:still_in] == [3] * devils + [2] * (still_in - devils)

    def test_hand_scored_five_player_round_under_both_devil_readings(self):
        # Five players in, four right (red) at 300 to 600 ms, one wrong (black).
        # Rulebook: 3 red devils, so the fourth right player (600 ms) finds none and loses a gem.
        # Review: 4 red devils, every right player keeps their gems.
        grabbed, latency = [RED, RED, BLACK, RED, RED], [300, 400, 350, 500, 600]
        assert one_round([3] * 5, grabbed, latency, RED)[0] == [3, 3, 2, 3, 2]
        assert one_round([3] * 5, grabbed, latency, RED, rules=GameRules(devils="rulebook"))[0] == [3, 3, 2, 3, 2]
        assert one_round([3] * 5, grabbed, latency, RED, rules=GameRules(devils="review"))[0] == [3, 3, 2, 3, 3]

    def test_game_rules_refuse_an_unknown_reading_by_field(self):
        with pytest.raises(InputError, match="^devils: must be one of rulebook, review, got 'house'"):
            GameRules(devils="house")

    def test_equal_latencies_go_to_the_earlier_seat(self):
        gems, _ = one_round([3, 3], [RED, RED], [500, 500], RED)
        assert gems == [3, 2]


class TestEndRules:
    def test_last_standing_no_winner_when_the_last_players_go_out_together(self):
        # Never right: everyone loses a gem every round, so all go out together in round 5.
        wrong = fixed_player("wrong", 0.0)
        records = play_games(Variant(), [wrong] * 3, 200, seed=1)
        assert (records.rounds == 5).all()
        assert (records.outcome == Outcome.ALL_OUT).all()
        assert summarize_games(records).no_winner == 1.0

    def test_last_standing_plays_on_when_players_go_out_together_while_others_hold_gems(self):
        # «Αν χάσουν πολλοί παίκτες ταυτόχρονα το τελευταίο τους πετράδι δεν υπάρχει νικητής» is read as
        # applying to the last players only: two players going out together in round 5 while two
        # others still hold gems do not end the game, which goes on to a winner.
        right, wrong = fixed_player("right", 1.0), fixed_player("wrong", 0.0)
        records = play_games(NO_TIES, [right, right, wrong, wrong], 200, seed=6)
        assert (records.rounds > 5).all()
        assert (records.outcome == Outcome.WINNER).all()
        assert (records.win_share[:, 2:] == 0).all() and (records.win_share.sum(axis=1) == 1).all()

    def test_first_out_no_winner_when_everyone_goes_out_at_once(self):
        wrong = fixed_player("wrong", 0.0)
        records = play_games(Variant(), [wrong] * 3, 200, seed=1, rules=GameRules(end=EndRule.FIRST_OUT))
        assert (records.rounds == 5).all()
        assert (records.outcome == Outcome.ALL_OUT).all()
        assert (records.win_share == 0).all()
        assert summarize_games(records).no_winner == 1.0

    def test_first_out_shares_the_win_on_equal_gems(self):
        # No ties: the two always-right players keep every devil they reach for; the third goes out in round 5.
        right, wrong = fixed_player("right", 1.0), fixed_player("wrong", 0.0)
        records = play_games(NO_TIES, [right, right, wrong], 100, seed=2, rules=GameRules(end=EndRule.FIRST_OUT))
        assert (records.grey_rounds == 0).all()
        assert (records.rounds == 5).all()
        assert (records.outcome == Outcome.SHARED).all()
        assert (records.win_share == [0.5, 0.5, 0.0]).all()

    def test_last_standing_plays_on_with_fewer_devils_until_one_is_left(self):
        # After the third player is out, one devil per color: the two right players fight for it.
        right, wrong = fixed_player("right", 1.0), fixed_player("wrong", 0.0)
        records = play_games(NO_TIES, [right, right, wrong], 300, seed=3)
        assert (records.outcome == Outcome.WINNER).all()
        assert (records.rounds >= 10).all()  # 5 rounds to put out the third, 5 more gems to lose after
        assert (records.win_share[:, 2] == 0).all()
        assert (records.win_share.sum(axis=1) == 1).all()
        assert set(np.unique(records.final_gems[:, :2])) <= {0, 1, 2, 3, 4, 5}

    def test_first_out_ends_at_the_first_elimination(self):
        records = play_games(Variant(), [PlayerModel.preset("average")] * 4, 2000, seed=4,
                             rules=GameRules(end=EndRule.FIRST_OUT))
        assert ((records.final_gems == 0).sum(axis=1) >= 1).all()
        assert (records.outcome != Outcome.ROUND_LIMIT).all()
        # Winners hold the most gems of the table; a shared win splits evenly.
        winners = records.win_share > 0
        most = records.final_gems.max(axis=1, keepdims=True)
        assert ((records.final_gems == most) | ~winners).all()
        shared = records.outcome == Outcome.SHARED
        assert shared.any()
        np.testing.assert_allclose(records.win_share[shared].max(axis=1), 1 / winners[shared].sum(axis=1))

    def test_a_game_at_the_round_limit_stops_with_no_winner_and_is_counted(self):
        records = play_games(Variant(), [fixed_player("wrong", 0.0)] * 2, 50, seed=5, max_rounds=3)
        summary = summarize_games(records)
        assert (records.rounds == 3).all()
        assert summary.round_limit_games == 50
        assert summary.no_winner == 1.0
        assert summary.outcomes["round-limit"] == 50


class TestManyGames:
    def test_gems_stay_between_zero_and_five_and_nobody_is_out_before_round_five(self):
        records = play_games(Variant(), [PlayerModel.preset(n) for n in ("novice", "average", "expert")] * 2,
                             2000, seed=6)
        assert records.final_gems.min() >= 0 and records.final_gems.max() <= 5
        assert records.rounds.min() >= 5  # a player loses at most one gem a round
        won = records.outcome == Outcome.WINNER
        assert ((records.final_gems > 0) == (records.win_share > 0))[won].all()

    def test_identical_players_win_equally_often(self):
        games = 8000
        records = play_games(Variant(), [PlayerModel.preset("average")] * 4, games, seed=7)
        summary = summarize_games(records)
        fair = (1 - summary.no_winner) / 4
        for player in summary.players:
            estimate = proportion_estimate(player.win.value * games, games, confidence=0.999)
            assert fair in estimate, player

    def test_a_strictly_better_player_wins_more(self):
        average = PlayerModel.preset("average")
        records = play_games(Variant(), [average.scaled(0.9, 0.9), average, average], 4000, seed=8)
        summary = summarize_games(records)
        better, *others = summary.players
        assert all(better.win.low > other.win.high for other in others)

    def test_the_same_seed_gives_the_same_games_and_another_seed_others(self):
        players = [PlayerModel.preset("average"), PlayerModel.preset("novice")]
        first, again = (play_games(Variant(), players, 500, seed=9) for _ in range(2))
        other = play_games(Variant(), players, 500, seed=10)
        for name in ("rounds", "outcome", "win_share", "final_gems", "grey_rounds", "lead_changes"):
            np.testing.assert_array_equal(getattr(first, name), getattr(again, name))
        assert not np.array_equal(first.rounds, other.rounds)

    def test_a_game_depends_on_the_seed_and_its_chunk_only(self, monkeypatch):
        # Every full chunk is played by its own spawned generator: asking for more games keeps them.
        monkeypatch.setattr(engine, "CHUNK_GAMES", 64)
        players = [PlayerModel.preset("average")] * 3
        fewer, more = play_games(Variant(), players, 100, seed=11), play_games(Variant(), players, 300, seed=11)
        np.testing.assert_array_equal(fewer.rounds[:64], more.rounds[:64])
        np.testing.assert_array_equal(fewer.win_share[:64], more.win_share[:64])

    def test_summary_figures_are_what_the_records_say(self):
        records = play_games(Variant(), [PlayerModel.preset("average")] * 3, 1000, seed=12)
        summary = summarize_games(records, ["a", "b", "c"])
        assert [p.name for p in summary.players] == ["a", "b", "c"]
        assert sum(p.win.value for p in summary.players) + summary.no_winner == pytest.approx(1)
        assert summary.rounds.median == np.median(records.rounds)
        assert summary.grey_share == records.grey_rounds.sum() / records.rounds.sum()
        # Each round, every player still in either keeps, gains or loses one gem: at most 3 lost a round.
        assert 0 < summary.gems_lost_per_round <= 3

    def test_per_game_records_frame(self):
        records = play_games(Variant(), [PlayerModel.preset("average")] * 2, 200, seed=13)
        frame = records_frame(records, ["ann", "bob"])
        assert list(frame.columns) == ["game", "rounds", "outcome", "winner", "grey_rounds", "gems_lost",
                                       "lead_changes", "winner_worst_deficit", "gems_1", "gems_2"]
        assert set(frame["outcome"]) <= {o.label for o in Outcome}
        won = frame["outcome"] == "winner"
        assert (frame.loc[won, "winner"].isin(["ann", "bob"])).all()
        assert frame.loc[~won, "winner_worst_deficit"].isna().all()


class TestDesign:
    def test_balance_of_equal_players_is_near_one_and_the_better_player_beats_fair_share(self):
        metrics = design_metrics(Variant(), 3, games=4000, seed=14)
        assert 1 - Z_999 * 2 * metrics.standard_error <= metrics.balance
        assert metrics.skill.win.low > metrics.skill.fair_share

    def test_skill_gap_curve_rises_with_the_gap(self):
        curve = skill_gap_curve(Variant(), 3, [1.0, 0.7], games=2000, seed=15)
        equal, better = curve.to_dict("records")
        assert better["ci95_low"] > equal["ci95_high"]

    def test_first_out_games_are_no_longer_than_last_standing_ones(self):
        table = game_length_frame(Variant(), [4], list(EndRule), games=1000, seed=16)
        lengths = dict(zip(table["end"], table["mean_rounds"]))
        assert lengths["first-out"] < lengths["last-standing"]


class TestBadInput:
    @pytest.mark.parametrize("count", [1, 7])
    def test_two_to_six_players(self, count):
        with pytest.raises(InputError, match="^players: a game needs 2 to 6 players") as error:
            play_games(Variant(), [PlayerModel.preset("average")] * count, 10)
        assert error.value.field == "players"

    def test_unknown_end_rule(self):
        with pytest.raises(InputError, match="^end: unknown end rule; allowed: last-standing, first-out, got 'sudden"):
            GameRules(end="sudden-death")


def test_the_tally_kept_chunk_by_chunk_gives_the_figures_of_all_records_at_once(monkeypatch):
    # game_report keeps only a GameTally, so memory stays flat; its figures must be those of the records.
    monkeypatch.setattr(engine, "CHUNK_GAMES", 97)
    records = play_games(Variant(), [PlayerModel.preset(n) for n in ("novice", "average", "expert")], 1000,
                         seed=21, rules=GameRules(end=EndRule.FIRST_OUT))
    tally = GameTally(3)
    for start in range(0, 1000, 97):
        part = {name: getattr(records, name)[start:start + 97] for name in engine._RECORD_COLUMNS}
        tally.add(engine.GameRecords(players=records.players, rules=records.rules,
                                     max_rounds=records.max_rounds, **part))
    summary = tally.summary(["a", "b", "c"], records.rules, records.max_rounds)
    assert summary.rounds == GameLengths(mean=pytest.approx(records.rounds.mean()),
                                         median=float(np.median(records.rounds)),
                                         p90=pytest.approx(float(np.percentile(records.rounds, 90))),
                                         max=int(records.rounds.max()))
    assert [p.win.value for p in summary.players] == pytest.approx(records.win_share.mean(axis=0))
    won = records.winner_worst_deficit[np.isfinite(records.winner_worst_deficit)]
    assert summary.drama.winner_worst_deficit == pytest.approx(won.mean())
    assert summary.drama.comeback_share == pytest.approx((won > 0).mean())
    assert summary.grey_share == pytest.approx(records.grey_rounds.sum() / records.rounds.sum())
    with pytest.raises(InputError, match="games: must be a whole number from 1 to 1,000,000,000"):
        next(engine.game_chunks(Variant(), records.players, 10**12))
