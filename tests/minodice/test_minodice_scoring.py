"""Round scoring and the score sheet."""

import itertools
import json

import numpy as np
import pytest
from minodice_reference import reference_score

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import score_round, score_sheet
from diavolo_stats.minodice.options import rounds_for_players


@pytest.mark.parametrize("bid, tricks, round_number, griffins, minotaurs, points", [
    (3, 3, 5, 0, 0, 60),      # exact bid: 20 per trick
    (2, 4, 5, 0, 0, -20),     # missed by 2 (too many): -10 per trick of difference
    (4, 1, 5, 0, 0, -30),     # missed by 3 (too few)
    (0, 0, 5, 0, 0, 50),      # zero bid made: 10 x round
    (0, 1, 5, 0, 0, -50),     # zero bid missed: -10 x round, however many tricks
    (0, 3, 7, 0, 0, -70),
    (2, 2, 4, 1, 1, 120),     # bonuses when the bid is met: +30 per griffin, +50 per minotaur
    (1, 2, 4, 2, 1, -10),     # no bonus when the bid is missed
])
def test_a_round_scores_as_the_rules_say(bid, tricks, round_number, griffins, minotaurs, points):
    assert score_round(bid, tricks, round_number, griffins, minotaurs) == points


def test_arrays_score_like_single_rounds():
    cases = list(itertools.product(range(4), range(4), (3, 8), range(2), range(2)))
    bid, tricks, round_number, griffins, minotaurs = (np.array(column) for column in zip(*cases))
    assert score_round(bid, tricks, round_number, griffins, minotaurs).tolist() == [
        reference_score(*case) for case in cases]


def test_negative_inputs_are_refused_by_name():
    with pytest.raises(InputError, match="tricks: must be 0 or more"):
        score_round(1, -1, 3)


HEADER = "round,player,bid,tricks,griffins_beaten,minotaurs_beaten\n"
TWO_ROUNDS = HEADER + """1,Ann,1,1,0,0
1,Bea,0,0,0,0
1,Cid,1,0,0,0
2,Ann,1,0,0,0
2,Bea,2,2,1,0
2,Cid,0,0,0,0
"""


def sheet(tmp_path, text):
    path = tmp_path / "sheet.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_sheet_gives_round_scores_running_totals_and_the_winner(tmp_path):
    game = score_sheet(sheet(tmp_path, TWO_ROUNDS))
    assert game.to_json() == {
        "players": {"Ann": {"total": 10, "rounds": [20, -10]},
                    "Bea": {"total": 80, "rounds": [10, 70]},
                    "Cid": {"total": 10, "rounds": [-10, 20]}},
        "winner": ["Bea"],
    }
    assert [(row["player"], row["score"], row["total"]) for row in game.table_rows()][3:] == [
        ("Ann", -10, 10), ("Bea", 70, 80), ("Cid", 20, 10)]
    assert (game.rounds_played, game.rounds_in_game) == (2, 8)
    json.dumps(game.to_json())


def test_players_can_share_first_place(tmp_path):
    text = HEADER + "1,Ann,0,0,0,0\n1,Bea,0,0,0,0\n1,Cid,0,1,0,0\n1,Dan,1,0,0,0\n"
    game = score_sheet(sheet(tmp_path, text))
    assert game.to_json()["winner"] == ["Ann", "Bea"]
    assert game.notes() == ["leading (shared): Ann, Bea with 10 points after round 1 of 8"]


def test_a_full_game_ends_after_the_rounds_of_its_player_count(tmp_path):
    players = ["A", "B", "C", "D", "E"]
    rows = [f"{r},{p},0,{r if p == 'A' else 0},0,0" for r in range(1, rounds_for_players(5) + 1) for p in players]
    game = score_sheet(sheet(tmp_path, HEADER + "\n".join(rows) + "\n"))
    assert game.rounds_played == game.rounds_in_game == 7
    assert game.notes() == [f"winners (shared first place): B, C, D, E with {10 * sum(range(1, 8))} points"]
    assert game.totals["B"] == 10 * sum(range(1, 8)) and game.totals["A"] == -10 * sum(range(1, 8))


def test_a_sheet_saved_by_a_spreadsheet_with_a_byte_order_mark_reads(tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_text(TWO_ROUNDS, encoding="utf-8-sig")
    assert score_sheet(path).totals == {"Ann": 10, "Bea": 80, "Cid": 10}


def test_a_trick_winner_can_beat_every_other_players_die(tmp_path):
    # Bea won 2 tricks of 3 players: at most 2 x 2 dice beaten, griffins and minotaurs together.
    game = score_sheet(sheet(tmp_path, TWO_ROUNDS.replace("2,Bea,2,2,1,0", "2,Bea,2,2,3,1")))
    assert game.totals["Bea"] == 10 + 2 * 20 + 3 * 30 + 1 * 50


@pytest.mark.parametrize("change, message", [
    (("2,Bea,2,2,1,0", "2,Bea,3,2,1,0"), "line 6: bid 3 is above the 2 tricks of round 2"),
    (("2,Cid,0,0,0,0", "2,Cid,0,1,0,0"), "round 2 (lines 5, 6, 7): tricks add up to 3, but round 2 has 2 tricks"),
    (("2,Cid,0,0,0,0\n", ""), "no row for Cid in round 2"),
    (("2,Cid,0,0,0,0", "2,Ann,0,0,0,0"), "line 7: a second row for Ann in round 2 (the first is line 5)"),
    (("2,Cid,0,0,0,0", "9,Cid,0,0,0,0"), "line 7: round 9, but a 3-player game has 8 rounds"),
    (("1,Cid,1,0,0,0", "1,Cid,1,0,1,0"), "line 4: griffins_beaten + minotaurs_beaten = 1, above tricks 0 x 2 "
                                          "other players = 0; only a trick's winner beats dice"),
    (("2,Bea,2,2,1,0", "2,Bea,2,2,3,2"), "line 6: griffins_beaten + minotaurs_beaten = 5, above tricks 2 x 2"),
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
