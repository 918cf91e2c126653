"""The Play page's API: a game against modelled players refereed by the library, the human's answers logged once."""

from __future__ import annotations

import pytest

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules
from diavolo_stats.web.play import GAME_INTERFACE, MIN_ANSWER_MS

PLAYER_FILE = """name = "Quick Carol"
base = "expert"
[non-tie.highest-die]
accuracy = 0.99
mu_ms = 300.0
sigma_ms = 30.0
tau_ms = 60.0
"""


def new_game(client, **changes) -> dict:
    body = {"player": "Ann", "opponents": ["preset:average", "preset:expert"], **changes}
    response = client.post("/api/play/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def play_to_the_end(client, game: dict, answer_of=lambda roll, number: "grey", latency_ms: float = 900.0):
    """Every round answered by the human as `answer_of` says, until the game is over; the rounds answered."""
    answered = []
    while not game["over"]:
        roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
        answer = answer_of(roll, roll["round"])
        reply = client.post(f"/api/play/games/{game['id']}/answer", json={
            "round": roll["round"], "answer": answer, "latency_ms": None if answer is None else latency_ms,
            "timestamp": "2026-12-01T08:00:00.000Z"})
        assert reply.status_code == 200, reply.text
        answered.append((roll, reply.json()["round"]))
        game = reply.json()["game"]
    return game, answered


def right_answer(roll, number):
    return resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).answer


@pytest.mark.parametrize("devils,end", [("rulebook", "last-standing"), ("review", "first-out")])
def test_a_whole_game_is_refereed_by_the_library_and_the_engine_agrees(client, log_path, devils, end):
    game = new_game(client, devils=devils, end=end, opponents=["preset:novice", "preset:average", "preset:expert"])
    assert game["names"] == ["Ann", "novice", "average", "expert"] and game["gems"] == [5, 5, 5, 5]
    game, answered = play_to_the_end(client, game, right_answer)
    assert game["outcome"] in ("winner", "shared", "all-out")
    assert game["engine_check"] == {"rounds": len(game["rounds"]), "mismatches": []}
    # and the round log the page is given, replayed here
    assert engine_mismatches(Variant().colors, game["rounds"], GameRules(devils=devils, end=end)) == []
    # each round the human answered: their grab, at the latency they sent, refereed with the opponents'
    for roll, record in answered:
        assert record["grabs"][0] == {"seat": 0, "answer": right_answer(roll, 0), "latency_ms": 900.0}
        assert [g for g in record["grabs"][1:] if g["answer"] is not None] == roll["opponents"]


def test_every_human_answer_is_logged_once_as_a_game_row(client, log_path):
    game = new_game(client)
    game, answered = play_to_the_end(client, game, lambda roll, n: None if n == 2 else "red")
    # the last answer sent again (the page never heard the reply): the same round back, no second row
    roll, record = answered[-1]
    again = client.post(f"/api/play/games/{game['id']}/answer", json={
        "round": roll["round"], "answer": "red", "latency_ms": 900.0, "timestamp": "2026-12-01T08:00:00.000Z"})
    assert again.json()["round"] == record
    rows = load_logs([log_path])
    assert list(rows["trial"]) == [roll["round"] for roll, _ in answered]
    assert set(rows["interface"]) == {GAME_INTERFACE} and set(rows["session_id"]) == {game["id"]}
    assert set(rows["player"]) == {"Ann"}
    second = rows[rows["trial"] == 2].iloc[0]
    assert second["timed_out"] and second["answer"] == "none"
    for (roll, _), (_, row) in zip(answered, rows.iterrows()):
        assert row["command"] == roll["command"]
        assert row["expected"] == right_answer(roll, 0)


def test_an_answer_faster_than_a_person_can_give_is_logged_but_grabs_no_devil(client, log_path):
    game = new_game(client)
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    reply = client.post(f"/api/play/games/{game['id']}/answer", json={
        "round": roll["round"], "answer": right_answer(roll, 1), "latency_ms": MIN_ANSWER_MS - 1,
        "timestamp": "2026-12-01T08:00:00.000Z"}).json()
    assert reply["round"]["held"][0] is None and reply["round"]["gems_after"][0] == 4
    assert load_logs([log_path])["latency_ms"].tolist() == [MIN_ANSWER_MS - 1]


def test_the_round_on_the_table_is_the_same_until_it_is_answered(client):
    game = new_game(client)
    first = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    assert client.post(f"/api/play/games/{game['id']}/round", json={}).json() == first
    wrong = client.post(f"/api/play/games/{game['id']}/answer", json={
        "round": first["round"] + 1, "answer": "red", "latency_ms": 500, "timestamp": "2026-12-01T08:00:00Z"})
    assert wrong.status_code == 400 and wrong.json()["field"] == "round"


def test_opponents_from_a_player_file_and_from_the_drill_log(client, log_path):
    game = new_game(client, opponents=[{"file": "carol.toml", "toml": PLAYER_FILE}, "preset:novice"])
    assert game["names"][1] == "Quick Carol"
    missing = client.post("/api/play/games", json={"player": "Ann", "opponents": ["Bea"]})
    assert missing.status_code == 400 and "drill" in missing.json()["error"]
    bad = client.post("/api/play/games", json={"player": "Ann", "opponents": [
        {"file": "carol.toml", "toml": "name = \"x\"\nbase = \"genius\""}]})
    assert bad.status_code == 400 and "carol.toml" in bad.json()["error"] and "genius" in bad.json()["error"]


@pytest.mark.parametrize("body,field", [
    ({"player": "Ann", "opponents": []}, "opponents"),
    ({"player": "Ann", "opponents": ["preset:average"] * 6}, "opponents"),
    ({"player": "Ann", "opponents": ["preset:genius"]}, "opponents"),
    ({"player": "", "opponents": ["preset:average"]}, "player"),
    ({"player": "Ann", "opponents": ["preset:average"], "devils": "lots"}, "devils"),
    ({"player": "Ann", "opponents": [{"file": "../../etc/passwd", "toml": ""}]}, "opponents"),
])
def test_a_bad_setup_is_refused_naming_its_field(client, body, field):
    response = client.post("/api/play/games", json=body)
    assert response.status_code == 400 and response.json()["field"] == field


def test_the_play_page_escapes_the_drill_logs_names(client, log_path):
    game = new_game(client, player="<b>Ann</b>")
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    client.post(f"/api/play/games/{game['id']}/answer", json={
        "round": roll["round"], "answer": "red", "latency_ms": 800, "timestamp": "2026-12-01T08:00:00Z"})
    page = client.get("/play").text
    assert "&lt;b&gt;Ann&lt;/b&gt;" in page and "<b>Ann</b>" not in page
