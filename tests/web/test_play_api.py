"""The Play page's API: a game against modelled players refereed by the library, the human's answers logged once."""

from __future__ import annotations

import json
import shutil
import threading

import pytest
from helpers.api import a_trial
from helpers.browser import ORIGIN
from helpers.cli import REPO
from starlette.testclient import TestClient

from diavolo_stats.analytics import roll_weak_spots
from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.log import GAME_INTERFACE, load_logs
from diavolo_stats.drill.settings import MAX_TIMEOUT_S, TIMEOUT_S
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.game import fairness
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules
from diavolo_stats.web import play
from diavolo_stats.web.app import create_app
from diavolo_stats.web.busy import HEAVY_AT_ONCE
from diavolo_stats.web.trials import ANSWER_COLUMNS, TrialStore

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


def play_to_the_end(clocked, game: dict, answer_of=lambda roll, number: "grey", latency_ms: float = 900.0):
    """Every round answered by the human as `answer_of` says, `latency_ms` after the roll appeared by the server's
    clock, until the game is over; the rounds answered."""
    client, clock = clocked
    answered = []
    while not game["over"]:
        roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
        clock.advance((roll["foreperiod_ms"] + latency_ms) / 1000)
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
def test_a_whole_game_is_refereed_by_the_library_and_the_engine_agrees(clocked, log_path, devils, end):
    client, _ = clocked
    game = new_game(client, devils=devils, end=end, opponents=["preset:novice", "preset:average", "preset:expert"])
    assert game["names"] == ["Ann", "novice", "average", "expert"] and game["gems"] == [5, 5, 5, 5]
    game, answered = play_to_the_end(clocked, game, right_answer)
    assert game["outcome"] in ("winner", "shared", "all-out")
    assert game["engine_check"] == {"rounds": len(game["rounds"]), "mismatches": []}
    # and the round log the page is given, replayed here
    assert engine_mismatches(Variant().colors, game["rounds"], GameRules(devils=devils, end=end)) == []
    # each round the human answered: their grab, at the latency they sent, refereed with every opponent's
    for roll, record in answered:
        assert record["grabs"][0] == {"seat": 0, "answer": right_answer(roll, 0), "latency_ms": 900.0}
        assert all(record["grabs"][seat]["answer"] is not None for seat in roll["seats_in"])


def test_every_human_answer_is_logged_once_as_a_game_row(clocked, log_path):
    client, _ = clocked
    game = new_game(client)
    game, answered = play_to_the_end(clocked, game, lambda roll, n: None if n == 2 else "red")
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


def answer(client, game: dict, roll: dict, latency_ms: float, answer: str | None = None) -> dict:
    reply = client.post(f"/api/play/games/{game['id']}/answer", json={
        "round": roll["round"], "answer": answer or right_answer(roll, 1), "latency_ms": latency_ms,
        "timestamp": "2026-12-01T08:00:00.000Z"})
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_an_answer_faster_than_a_person_can_give_is_logged_too_early_and_grabs_no_devil(clocked, log_path):
    client, clock = clocked
    game = new_game(client)
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    clock.advance(roll["foreperiod_ms"] / 1000 + 0.4)
    reply = answer(client, game, roll, MIN_LATENCY_MS - 1)
    assert reply["round"]["held"][0] is None and reply["round"]["gems_after"][0] == 4
    row = load_logs([log_path]).iloc[0]
    assert row["too_early"] and row["answer"] == "none" and not row["correct"]
    assert row["latency_ms"] != row["latency_ms"]  # none: NaN


def test_a_latency_of_0_is_never_logged_as_a_correct_answer(clocked, log_path):
    client, clock = clocked
    game = new_game(client)
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    clock.advance(roll["foreperiod_ms"] / 1000)  # sent the moment the roll appeared
    answer(client, game, roll, 0)
    row = load_logs([log_path]).iloc[0]
    assert row["too_early"] and not row["correct"]


def test_a_claim_is_believed_only_within_the_time_the_server_saw_pass(clocked, log_path):
    client, clock = clocked
    game = new_game(client)
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    clock.advance(roll["foreperiod_ms"] / 1000 + 3.0)  # 3 s after the roll appeared, a claim of 150 ms
    reply = answer(client, game, roll, 150)
    assert reply["round"]["grabs"][0]["latency_ms"] == 3000 - fairness.UNMEASURED_TRIP_MS
    assert load_logs([log_path])["latency_ms"].tolist() == [3000 - fairness.UNMEASURED_TRIP_MS]


def test_a_page_reloaded_mid_round_is_timed_from_the_first_send(clocked, log_path):
    client, clock = clocked
    game = new_game(client)
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    clock.advance(2.0)  # the roll seen, then the page reloaded: it gets the same round again, its devils as now
    again = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    assert {**again, "devils_left": roll["devils_left"]} == roll
    assert again["devils_left"] == client.app.state.games.game(game["id"]).table.devils_left()
    clock.advance(roll["foreperiod_ms"] / 1000 + 0.07)
    reply = answer(client, game, roll, 70)  # 70 ms after the roll reappeared, 2,070 ms after it first appeared
    assert reply["round"]["grabs"][0]["latency_ms"] == 2070.0
    assert load_logs([log_path])["latency_ms"].tolist() == [2070.0]


def test_the_opponents_grabs_are_sent_only_as_they_happen(clocked):
    client, clock = clocked
    game = new_game(client, opponents=["preset:novice", "preset:average", "preset:expert"])
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    assert set(roll) == {"round", "command", "dice", "positions", "foreperiod_ms", "devils_per_color", "devils_left",
                         "seats_in"}
    # before any grab, every devil is on the table: the devils per color for four players in, and one grey
    assert roll["devils_left"] == {color: 3 for color in Variant().colors} | {"grey": 1}
    table = client.app.state.games.game(game["id"]).table
    first_s = table.next_reveal_s()
    assert first_s >= roll["foreperiod_ms"] / 1000  # the roll has not appeared yet
    clock.advance(first_s + 0.001)
    first = client.post(f"/api/play/games/{game['id']}/grabs", json={"round": roll["round"]}).json()
    assert len(first["grabs"]) >= 1 and first["on_table"]
    due_ms = 1000 * (first_s + 0.001) - roll["foreperiod_ms"]
    assert all(grab["latency_ms"] <= due_ms for grab in first["grabs"])
    taken = {grab["answer"] for grab in first["grabs"]}
    per_color = roll["devils_per_color"]
    assert all(first["devils_left"][color] < (1 if color == "grey" else per_color) for color in taken)
    reply = answer(client, game, roll, 5000)  # then every grab, in the round's record
    assert [grab["seat"] for grab in reply["round"]["grabs"] if grab["answer"]] == [0, 1, 2, 3]
    left = reply["round"]["devils_left"]
    held = [devil for devil in reply["round"]["held"] if devil]
    assert sum(per_color - left[color] for color in Variant().colors) + 1 - left["grey"] == len(held)


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
    ({"player": "Ann", "opponents": ["preset:average"], "timeout_s": 0}, "timeout_s"),
    ({"player": "Ann", "opponents": ["preset:average"], "timeout_s": MAX_TIMEOUT_S + 1}, "timeout_s"),
])
def test_a_bad_setup_is_refused_naming_its_field(client, body, field):
    response = client.post("/api/play/games", json=body)
    assert response.status_code == 400 and response.json()["field"] == field


def test_the_seconds_to_answer_a_roll_are_the_drills_unless_the_player_chose_others(client):
    # the page's window for each roll, from when it painted the dice; a reloaded page gets it with the game
    assert new_game(client)["timeout_s"] == TIMEOUT_S
    game = new_game(client, timeout_s=45)
    assert game["timeout_s"] == 45 and client.get(f"/api/play/games/{game['id']}").json()["timeout_s"] == 45
    page = client.get("/play").text
    assert f'name="timeout_s" type="number" required min="0.1" max="{MAX_TIMEOUT_S:.0f}"' in page


def test_the_play_page_escapes_the_drill_logs_names(client, log_path):
    game = new_game(client, player="<b>Ann</b>")
    roll = client.post(f"/api/play/games/{game['id']}/round", json={}).json()
    client.post(f"/api/play/games/{game['id']}/answer", json={
        "round": roll["round"], "answer": "red", "latency_ms": 800, "timestamp": "2026-12-01T08:00:00Z"})
    page = client.get("/play").text
    assert "&lt;b&gt;Ann&lt;/b&gt;" in page and "<b>Ann</b>" not in page


def test_opponents_fitted_from_the_drill_log_are_heavy_work_fitted_once_per_state_of_the_log(log_path, monkeypatch):
    shutil.copy(REPO / "data" / "sample_drills.csv", log_path)
    gate, asked, fitted = threading.Event(), threading.Semaphore(0), []
    fit_recent = play.fit_recent

    def held(latest):  # a fit that takes as long as the test wants
        gate.wait(60)
        fitted.append(len(latest))
        return fit_recent(latest)

    monkeypatch.setattr(play, "fit_recent", held)
    against_the_log = {"player": "Ann", "opponents": ["synthetic-novice", "preset:average"]}
    statuses: list[int] = []
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        store = client.app.state.games.store
        latest_answers = store.latest_answers

        def counted():  # a game in a heavy slot has asked for the players' latest answers, next to fit them
            try:
                return latest_answers()
            finally:
                asked.release()

        monkeypatch.setattr(store, "latest_answers", counted)
        fitting = [threading.Thread(target=lambda: statuses.append(
            client.post("/api/play/games", json=against_the_log).status_code)) for _ in range(HEAVY_AT_ONCE)]
        for thread in fitting:
            thread.start()
        for _ in fitting:
            assert asked.acquire(timeout=60)
        waiting = client.post("/api/play/games", json=against_the_log)  # every heavy slot is fitting
        assert waiting.status_code == 503 and waiting.headers["retry-after"], waiting.text
        assert client.post("/api/play/games", json={"player": "Ann", "opponents": ["preset:novice"]}).status_code \
            == 201  # a game of presets fits nobody
        gate.set()
        for thread in fitting:
            thread.join(60)
        assert statuses == [201] * HEAVY_AT_ONCE
        again = client.post("/api/play/games", json=against_the_log)
        assert again.status_code == 201 and again.json()["names"][1] == "synthetic-novice"
    # One fit for the games that asked at once and the one after: the log had no new row.
    assert len(fitted) == 1


def test_the_play_page_lists_the_logs_players_and_each_new_one_once_logged(client, log_path):
    assert 'label="players of the drill log' not in client.get("/play").text  # no log yet
    shutil.copy(REPO / "data" / "sample_drills.csv", log_path)
    page = client.get("/play").text
    for name in ("synthetic-novice", "synthetic-average", "synthetic-expert"):
        assert f'<option value="{name}">' in page
    assert client.post("/api/trials", json=a_trial(client, player="Zoë")).status_code == 201
    assert '<option value="Zoë">' in client.get("/play").text


def test_a_client_address_holds_a_bounded_number_of_games_its_own_oldest_making_way(clocked, monkeypatch):
    client, clock = clocked
    games = client.app.state.games
    setup = {"player": "Ann", "opponents": ["preset:average"]}
    other = games.new_game(setup, "10.0.0.2")["id"]
    mine = [games.new_game(setup, "10.0.0.1")["id"] for _ in range(play.MAX_GAMES_PER_ADDRESS)]
    clock.advance(1)
    games.game(mine[0])  # asked about last: the second is now the one left alone longest
    newest = games.new_game(setup, "10.0.0.1")["id"]
    held = {key for key in (other, *mine, newest) if client.get(f"/api/play/games/{key}").status_code == 200}
    assert held == {other, mine[0], *mine[2:], newest}


def test_a_game_in_progress_is_never_dropped_for_others_new_games(clocked, monkeypatch):
    client, clock = clocked
    games = client.app.state.games
    monkeypatch.setattr(play, "MAX_GAMES_HELD", 3)
    setup = {"player": "Ann", "opponents": ["preset:average"]}
    playing = games.new_game(setup, "10.0.0.1")["id"]
    others = [games.new_game(setup, f"10.0.1.{n}")["id"] for n in range(2)]
    flood = client.post("/api/play/games", json=setup)  # 200 games from one script once evicted this one
    assert flood.status_code == 503 and flood.headers["retry-after"], flood.text
    clock.advance(play.ABANDONED_S - 1)
    assert client.post(f"/api/play/games/{playing}/round", json={}).status_code == 200  # still being played
    clock.advance(2)  # the two others are abandoned now, the game being played is not
    assert client.post("/api/play/games", json=setup).status_code == 201
    assert client.get(f"/api/play/games/{playing}").status_code == 200
    assert client.get(f"/api/play/games/{others[0]}").status_code == 400


def test_the_players_latest_answers_read_as_the_log_grows_are_those_of_the_whole_log(log_path, monkeypatch):
    monkeypatch.setattr(roll_weak_spots, "RECENT_ANSWERS", 50)  # each player's 50 latest: most rows are dropped
    shutil.copy(REPO / "data" / "sample_drills.csv", log_path)
    store = TrialStore(log_path)
    assert len(store.latest_answers()) == 50 * 3
    kept = load_logs([REPO / "data" / "sample_drills.csv"]).iloc[[0, -1]]
    for number, (moment, player) in enumerate([("2026-11-30T10:00:00Z", "synthetic-expert"),
                                               ("2020-01-01T00:00:00Z", "synthetic-novice"),  # older than all
                                               ("2026-11-30T10:00:01Z", "Zoë")], start=1):
        rolled = kept.iloc[0]
        store.add_rows([judged_trial(Variant(), rolled["command"], json.loads(rolled["dice"]),
                                     json.loads(rolled["positions"]), "grey", 900.0, interface="terminal",
                                     player=player, session_id="later", trial=number, timestamp=moment)])
        whole = roll_weak_spots.recent_answers(load_logs([log_path], columns=ANSWER_COLUMNS, lines=True))
        latest = store.latest_answers()
        assert latest["line"].tolist() == whole["line"].tolist(), number
        assert latest["player"].astype(str).tolist() == whole["player"].astype(str).tolist()
