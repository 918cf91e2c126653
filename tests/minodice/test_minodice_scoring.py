"""Round scoring and the score sheet."""

import itertools
import json

import numpy as np
import pytest
from helpers.minodice_reference import reference_score

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import Rules, score_round, score_sheet
from diavolo_stats.minodice.options import WRONG_BID, rounds_for_players


@pytest.mark.parametrize("bid, tricks, round_number, griffins, minotaurs, points", [
    (3, 3, 5, 0, 0, 60),      # exact bid: 20 per trick
    (2, 4, 5, 0, 0, -20),     # missed by 2 (too many): -10 per trick of difference
    (4, 1, 5, 0, 0, -30),     # missed by 3 (too few)
    (0, 0, 5, 0, 0, 50),      # zero bid made: 10 x round
    (0, 1, 5, 0, 0, -50),     # zero bid missed: -10 x round, however many tricks
    (0, 3, 7, 0, 0, -70),
    (2, 2, 4, 1, 1, 120),     # bonuses when the bid is met: +30 per griffin, +50 per mermaid bonus
    (1, 2, 4, 2, 1, -10),     # no bonus when the bid is missed
])
def test_a_round_scores_as_the_rules_say(bid, tricks, round_number, griffins, minotaurs, points):
    assert score_round(bid, tricks, round_number, griffins, minotaurs) == points


def test_a_missed_bid_costs_10_per_trick_of_difference_by_default_and_10_once_when_flat():
    # «потеряйте 10 очков за каждую неверную ставку»: "lose 10 points for each wrong bid".
    # Hand-scored: bid 4 in round 5, won 1 trick, missed by 3.
    assert score_round(4, 1, 5) == -30
    assert score_round(4, 1, 5, rules=Rules(wrong_bid="per-trick")) == -30
    assert score_round(4, 1, 5, rules=Rules(wrong_bid="flat")) == -10
    # a missed bid of 1 costs the same under both; a missed zero bid is scored by the round either way
    assert score_round(2, 1, 5, rules=Rules(wrong_bid="flat")) == score_round(2, 1, 5) == -10
    assert score_round(0, 3, 5, rules=Rules(wrong_bid="flat")) == score_round(0, 3, 5) == -50


def test_the_mermaid_bonus_pays_once_per_trick_by_default_and_per_minotaur_as_an_option():
    # «Если ваша русалка победила минотавра, вы получаете 50 очков»: "if your mermaid beat a minotaur,
    # you get 50 points" (the griffin bonus says "for each", this one does not).
    # Hand-scored: 4 players, round 3, Ann bid 2 and won 2 tricks: in one, her mermaid beat two minotaurs;
    # the other she won with a 7. So 1 mermaid trick, 2 minotaurs beaten.
    per_trick, per_minotaur = Rules(mermaid_bonus="per-trick"), Rules(mermaid_bonus="per-minotaur")
    assert score_round(2, 2, 3, 0, 1, per_trick) == 2 * 20 + 50 == 90
    assert score_round(2, 2, 3, 0, 2, per_minotaur) == 2 * 20 + 2 * 50 == 140
    assert score_round(2, 2, 3, 0, 1) == 90  # per-trick is the default
    assert score_round(2, 1, 3, 0, 1, per_trick) == score_round(2, 1, 3, 0, 2, per_minotaur) == -10  # bid missed


@pytest.mark.parametrize("wrong_bid", WRONG_BID)
def test_arrays_score_like_single_rounds(wrong_bid):
    cases = list(itertools.product(range(4), range(4), (3, 8), range(2), range(2)))
    bid, tricks, round_number, griffins, mermaid = (np.array(column) for column in zip(*cases))
    assert score_round(bid, tricks, round_number, griffins, mermaid, Rules(wrong_bid=wrong_bid)).tolist() == [
        reference_score(*case, wrong_bid=wrong_bid) for case in cases]


def test_negative_inputs_are_refused_by_name():
    with pytest.raises(InputError, match="tricks: must be 0 or more"):
        score_round(1, -1, 3)


def sheet_text(*rounds: dict[str, tuple[int, ...]], last_column: str = "mermaid_tricks") -> str:
    """A score sheet's text, a round a mapping of each player to their (bid, tricks, griffins_beaten, `last_column`);
    the counts left out are 0."""
    rows = [f"{number},{player}," + ",".join(str(count) for count in (*counts, 0, 0, 0, 0)[:4])
            for number, players in enumerate(rounds, 1) for player, counts in players.items()]
    return "".join(f"{line}\n" for line in [f"round,player,bid,tricks,griffins_beaten,{last_column}", *rows])


TWO_ROUNDS = sheet_text({"Ann": (1, 1), "Bea": (0, 0), "Cid": (1, 0)}, {"Ann": (1, 0), "Bea": (2, 2, 1), "Cid": (0, 0)})


def sheet(tmp_path, text):
    path = tmp_path / "sheet.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_sheet_gives_round_scores_running_totals_and_the_winner(tmp_path):
    game = score_sheet(sheet(tmp_path, TWO_ROUNDS))
    assert game.document() == {
        "players": {"Ann": {"total": 10, "rounds": [20, -10]},
                    "Bea": {"total": 80, "rounds": [10, 70]},
                    "Cid": {"total": 10, "rounds": [-10, 20]}},
        "winner": ["Bea"],
    }
    assert [(row["player"], row["score"], row["total"]) for row in game.rows()][3:] == [
        ("Ann", -10, 10), ("Bea", 70, 80), ("Cid", 20, 10)]
    assert (game.rounds_played, game.rounds_in_game) == (2, 8)
    json.dumps(game.document())


def test_players_can_share_first_place(tmp_path):
    text = sheet_text({"Ann": (0, 0), "Bea": (0, 0), "Cid": (0, 1), "Dan": (1, 0)})
    game = score_sheet(sheet(tmp_path, text))
    assert game.document()["winner"] == ["Ann", "Bea"]
    assert game.notes() == ["leading (shared): Ann, Bea with 10 points after round 1 of 8"]


def test_a_full_game_ends_after_the_rounds_of_its_player_count(tmp_path):
    players = ["A", "B", "C", "D", "E"]
    rounds = [{p: (0, r if p == "A" else 0) for p in players} for r in range(1, rounds_for_players(5) + 1)]
    game = score_sheet(sheet(tmp_path, sheet_text(*rounds)))
    assert game.rounds_played == game.rounds_in_game == 7
    assert game.notes() == [f"winners (shared first place): B, C, D, E with {10 * sum(range(1, 8))} points"]
    assert game.totals["B"] == 10 * sum(range(1, 8)) and game.totals["A"] == -10 * sum(range(1, 8))


def test_a_sheet_saved_by_a_spreadsheet_with_a_byte_order_mark_reads(tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_text(TWO_ROUNDS, encoding="utf-8-sig")
    assert score_sheet(path).totals == {"Ann": 10, "Bea": 80, "Cid": 10}


def test_a_trick_winner_can_beat_every_other_players_die(tmp_path):
    # Bea won 2 tricks of 3 players: at most 2 x 2 dice beaten, griffins and minotaurs together.
    per_minotaur = Rules(mermaid_bonus="per-minotaur")
    text = TWO_ROUNDS.replace("2,Bea,2,2,1,0", "2,Bea,2,2,3,1").replace("mermaid_tricks", "minotaurs_beaten")
    assert score_sheet(sheet(tmp_path, text), per_minotaur).totals["Bea"] == 10 + 2 * 20 + 3 * 30 + 1 * 50
    # Per trick: one mermaid trick leaves one minotaur trick, which beats at most 2 griffins.
    game = score_sheet(sheet(tmp_path, TWO_ROUNDS.replace("2,Bea,2,2,1,0", "2,Bea,2,2,2,1")))
    assert game.totals["Bea"] == 10 + 2 * 20 + 2 * 30 + 1 * 50


def mermaid_sheet(column: str, count: int) -> str:
    """Four players' two rounds, `count` in `column` for Dan's round 2. Hand-scored: in round 2 Dan's mermaid beat
    the minotaurs of Ann and Bea in one trick and he won the other with a number: mermaid_tricks 1,
    minotaurs_beaten 2."""
    return sheet_text({"Ann": (1, 1), "Bea": (0, 0), "Cid": (0, 0), "Dan": (0, 0)},
                      {"Ann": (0, 0), "Bea": (0, 0), "Cid": (0, 0), "Dan": (2, 2, 0, count)}, last_column=column)


@pytest.mark.parametrize("rules, column, count, dan", [
    (Rules(), "mermaid_tricks", 1, 10 + 40 + 50),
    (Rules(mermaid_bonus="per-minotaur"), "minotaurs_beaten", 2, 10 + 40 + 100),
])
def test_a_sheet_records_the_count_its_mermaid_reading_needs(tmp_path, rules, column, count, dan):
    game = score_sheet(sheet(tmp_path, mermaid_sheet(column, count)), rules)
    assert game.totals == {"Ann": 20 + 20, "Bea": 10 + 20, "Cid": 10 + 20, "Dan": dan}
    assert game.columns[:6] == ("round", "player", "bid", "tricks", "griffins_beaten", column)
    assert game.rows()[-1][column] == count


@pytest.mark.parametrize("rules, column, lacking", [
    (Rules(), "minotaurs_beaten", "mermaid_tricks"),
    (Rules(mermaid_bonus="per-minotaur"), "mermaid_tricks", "minotaurs_beaten"),
])
def test_a_sheet_for_the_other_mermaid_reading_is_refused_naming_the_column_it_lacks(tmp_path, rules, column,
                                                                                      lacking):
    path = sheet(tmp_path, mermaid_sheet(column, 1))
    with pytest.raises(InputError, match=f"missing column '{lacking}'.*{column} is the count of the"):
        score_sheet(path, rules)


def test_a_mermaid_trick_is_one_of_the_tricks_won(tmp_path):
    with pytest.raises(InputError, match="line 9: mermaid_tricks 3 is above tricks 2"):
        score_sheet(sheet(tmp_path, mermaid_sheet("mermaid_tricks", 3)))


FLAG_SHEET = sheet_text({"Ann": (1, 1), "Bea": (0, 0), "Cid": (0, 0)}, {"Ann": (1, 1), "Bea": (1, 0), "Cid": (0, 0)})
# Hand-scored: in round 2 every die of one trick showed a flag and nobody took it.


def test_a_sheet_may_record_fewer_tricks_than_dice_only_when_nobody_takes_a_trick_of_flags(tmp_path):
    path = sheet(tmp_path, FLAG_SHEET)
    game = score_sheet(path, Rules(all_flags="nobody"))
    assert game.document()["players"] == {"Ann": {"total": 40, "rounds": [20, 20]},
                                         "Bea": {"total": 0, "rounds": [10, -10]},
                                         "Cid": {"total": 30, "rounds": [10, 20]}}
    for default in (Rules(), Rules(all_flags="leader"), Rules(all_flags="last")):
        with pytest.raises(InputError, match="round 2 .*tricks add up to 1, but round 2 has 2 tricks$"):
            score_sheet(path, default)
    with pytest.raises(InputError, match="tricks add up to 3, but round 2 has 2 tricks .fewer only when nobody"):
        score_sheet(sheet(tmp_path, FLAG_SHEET.replace("2,Cid,0,0", "2,Cid,0,2")), Rules(all_flags="nobody"))


def test_a_round_of_one_trick_is_said_in_the_singular(tmp_path):
    with pytest.raises(InputError, match=r"round 1 \(lines 2, 3, 4\): tricks add up to 2, but round 1 has 1 trick$"):
        score_sheet(sheet(tmp_path, TWO_ROUNDS.replace("1,Cid,1,0,0,0", "1,Cid,1,1,0,0")))


@pytest.mark.parametrize("change, message", [
    (("2,Bea,2,2,1,0", "2,Bea,3,2,1,0"), "line 6: bid 3 is above the 2 tricks of round 2"),
    (("1,Cid,1,0,0,0", "1,Cid,2,0,0,0"), "line 4: bid 2 is above the 1 trick of round 1"),
    (("2,Cid,0,0,0,0", "2,Cid,0,1,0,0"), "round 2 (lines 5, 6, 7): tricks add up to 3, but round 2 has 2 tricks"),
    (("2,Cid,0,0,0,0\n", ""), "no row for Cid in round 2"),
    (("2,Cid,0,0,0,0", "2,Ann,0,0,0,0"), "line 7: a second row for Ann in round 2 (the first is line 5)"),
    (("2,Cid,0,0,0,0", "9,Cid,0,0,0,0"), "line 7: round 9, but a 3-player game has 8 rounds"),
    (("1,Cid,1,0,0,0", "1,Cid,1,0,1,0"), "line 4: griffins_beaten = 1, above (tricks 0 - mermaid_tricks 0) x 2 "
                                          "other players = 0; only a trick's winner beats dice"),
    (("2,Bea,2,2,1,0", "2,Bea,2,2,3,2"), "line 6: griffins_beaten = 3, above (tricks 2 - mermaid_tricks 2) x 2"),
    (("1,Cid,1,0,0,0", "1,Cid,²,0,0,0"), "line 4: bid must be a whole number of 0 or more, got '²'"),
    (("1,Cid,1,0,0,0", "1,Cid,1,٣,0,0"), "line 4: tricks must be a whole number of 0 or more, got '٣'"),
    (("1,Cid,1,0,0,0", "1,Cid,one,0,0,0"), "line 4: bid must be a whole number of 0 or more, got 'one'"),
    (("1,Cid,1,0,0,0", "0,Cid,1,0,0,0"), "line 4: round must be a whole number of 1 or more"),
    (("1,Cid,1,0,0,0", "1,Cid,1,0,0"), "line 4: expected 6 values"),
    (("griffins_beaten,", "griffins,"), "missing column 'griffins_beaten'"),
    (("Cid", "Ann"), "2 players (Ann, Bea); Minodice is for 3 to 6"),  # every Cid row becomes Ann's
])
def test_a_bad_sheet_is_one_error_naming_the_row(tmp_path, change, message):
    old, new = change
    assert old in TWO_ROUNDS
    path = sheet(tmp_path, TWO_ROUNDS.replace(old, new))
    with pytest.raises(InputError) as error:
        score_sheet(path)
    assert message in str(error.value) and str(path) in str(error.value) and "\n" not in str(error.value)


def test_fully_empty_rows_a_spreadsheet_saves_below_the_table_are_skipped(tmp_path):
    with_empty_rows = TWO_ROUNDS.rstrip("\n") + "\n,,,,,\n , , ,,,\n,,\n"
    with_rows, without = score_sheet(sheet(tmp_path, with_empty_rows)), score_sheet(sheet(tmp_path, TWO_ROUNDS))
    assert with_rows.document() == without.document()
