"""Rooms through Starlette's test client: seats, the round loop over WebSockets, the checks and the bounds."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path

import pytest
from helpers.asyncio_run import run
from helpers.browser import ORIGIN
from helpers.rooms import (
    FAST,
    WS,
    AppClient,
    join,
    open_room,
    right_answer,
    seated,
    send_answer,
    until,
    wrong_answer,
)
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from diavolo_stats.core.variant import Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.errors import InputError
from diavolo_stats.game import fairness
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import ReadingModel
from diavolo_stats.game.referee import engine_mismatches
from diavolo_stats.game.settings import GameRules
from diavolo_stats.web import rooms
from diavolo_stats.web.app import create_app
from diavolo_stats.web.security import room_pass
from diavolo_stats.web.trials import TrialStore

SAMPLE_LOG = Path(__file__).parents[2] / "data" / "sample_drills.csv"


@pytest.fixture
def client(client, monkeypatch):
    """The app's test client, its answers sent at once: the server takes any latency up to a minute more than
    it saw pass (the test that checks that bound puts it back)."""
    monkeypatch.setattr(fairness, "TOLERANCE_MS", 60_000.0)
    return client


def test_a_room_plays_a_whole_game_refereed_by_the_library_and_logs_each_answer_once(clocked, log_path):
    # The room's clock moves only as the test says: its seats' links, which answer no ping, hold a claim to what
    # that clock saw pass, whatever the pace of a busy machine.
    client, clock = clocked
    _, [(host, host_joined), (bea, _)] = seated(client, "Ann", "Bea")
    assert host_joined["host"] and host_joined["seat"] == 0
    host.send_json({"type": "start"})
    sent = {}
    while True:
        roll = until(host, "roll")
        clock.advance(0.4)
        # Ann answers right at 400 ms, Bea wrong at 300 ms: Bea loses a gem a round until she is out
        send_answer(host, roll, right_answer(roll), 0.4e3)
        bea_roll = until(bea, "roll")
        assert bea_roll == roll  # every seat gets the same roll
        send_answer(bea, roll, wrong_answer(roll), 300)
        sent[roll["round"]] = (right_answer(roll), wrong_answer(roll))
        result = until(host, "result")
        assert result["round"]["number"] == roll["round"]
        assert result["round"]["order"] == [1, 0]  # the faster latency first, whoever's message came first
        if result["round"]["gems_after"][1] == 0:
            break
    over = until(host, "over")
    assert over["winners"] == [0] and len(over["rounds"]) == len(sent) == 5
    assert over["engine_check"] == {"rounds": 5, "mismatches": []}
    assert engine_mismatches(Variant().colors, over["rounds"], GameRules()) == []
    rows = load_logs([log_path])
    assert len(rows) == 2 * len(sent) and set(rows["interface"]) == {"game"}
    for player, index in (("Ann", 0), ("Bea", 1)):
        mine = rows[rows["player"] == player]
        assert list(mine["trial"]) == sorted(sent) and mine["session_id"].nunique() == 1
        assert list(mine["answer"]) == [sent[n][index] for n in sorted(sent)]
    for socket in (host, bea):
        socket.__exit__(None, None, None)


def test_an_answer_under_the_human_floor_is_too_early_and_a_claim_is_held_to_the_time_that_passed(clocked,
                                                                                                   log_path):
    client, clock = clocked
    _, [(host, _), (bea, _), (cid, _)] = seated(client, "Ann", "Bea", "Cid", foreperiod_ms=[500, 500])
    host.send_json({"type": "start"})
    roll = until(host, "roll")
    for socket in (bea, cid):
        until(socket, "roll")
    clock.advance(0.5 + 0.4)  # the foreperiod, then 400 ms
    # Ann claims 60 ms: faster than a person, too early, whatever the time that passed
    send_answer(host, roll, right_answer(roll), 60)
    assert "too early" in until(host, "refused")["message"]
    # Bea claims 9 s when 400 ms passed: she is counted at the 400 ms the server saw, and its timers' tolerance
    send_answer(bea, roll, right_answer(roll), 9000)
    until(bea, "grabbed")  # taken before the clock moves on
    clock.advance(3.0)
    # Cid waits 3 s more and claims 150 ms: he is counted at 3.4 s less the longest trip of a link the server
    # has not measured (his page answered no ping), after Bea
    send_answer(cid, roll, right_answer(roll), 150)
    result = until(host, "result")["round"]
    assert result["held"][0] is None and result["order"] == [1, 2]
    assert [grab["latency_ms"] for grab in result["grabs"]] == [None, 400.0 + fairness.TOLERANCE_MS,
                                                          3400.0 - fairness.UNMEASURED_TRIP_MS]
    rows = load_logs([log_path]).set_index("player")
    assert bool(rows.loc["Ann", "too_early"]) and rows.loc["Ann", "answer"] == "none"
    assert not bool(rows.loc["Ann", "correct"]) and rows["latency_ms"].isna()["Ann"]
    assert rows.loc["Bea", "latency_ms"] == 425.0 and rows.loc["Cid", "latency_ms"] == 2900.0
    for socket in (host, bea, cid):
        socket.__exit__(None, None, None)


def test_a_seat_that_reloads_after_the_roll_is_timed_from_the_first_send(clocked, log_path):
    client, clock = clocked
    room, [(host, _), (bea, bea_joined)] = seated(client, "Ann", "Bea", foreperiod_ms=[500, 500])
    host.send_json({"type": "start"})
    roll = until(bea, "roll")
    clock.advance(2.0)  # Bea peeks at the roll, then reloads her page
    bea.__exit__(None, None, None)
    again, _ = join(client, room["code"], None, seat_key=bea_joined["seat_key"])
    assert until(again, "roll") == roll  # the roll on the table again
    clock.advance(0.5 + 0.07)  # its foreperiod again, then an answer 70 ms after it reappeared
    send_answer(again, roll, right_answer(roll), 70)
    send_answer(host, roll, right_answer(roll), 900)
    result = until(host, "result")["round"]
    assert result["grabs"][1]["latency_ms"] == 2070.0 and result["order"] == [0, 1]
    logged = load_logs([log_path]).set_index("player")["latency_ms"]
    assert logged["Bea"] == 2070.0  # from the first send, less the foreperiod: a reload restarts nothing
    for socket in (host, again):
        socket.__exit__(None, None, None)


def test_a_grab_is_awarded_to_every_seat_once_no_seat_still_to_answer_could_be_judged_faster(clocked):
    client, clock = clocked
    sockets = [socket for socket, _ in seated(client, "Ann", "Bea", "Cid")[1]]
    sockets[0].send_json({"type": "start"})
    roll = until(sockets[0], "roll")
    assert roll["devils_per_color"] == 2
    devils = {"black": 2, "red": 2, "white": 2, "grey": 1}
    clock.advance(0.4)
    for seat, latency_ms in ((0, 400), (1, 300)):  # both grab black, 400 ms after the roll was sent
        send_answer(sockets[seat], roll, "black", latency_ms)
        for socket in sockets:
            grabbed = until(socket, "grabbed")
            # Cid, on a link no ping measured (its longest trip UNMEASURED_TRIP_MS), could still come in faster
            assert grabbed["seat"] == seat and grabbed["devils_left"] == devils
    clock.advance(0.45)  # 850 ms: Cid can no longer be judged under 350 ms, so Bea's 300 is final
    for socket in sockets:
        assert until(socket, "devils")["devils_left"] == {**devils, "black": 1}
    send_answer(sockets[2], roll, "black", 200)
    result = until(sockets[1], "result")
    assert result["devils_left"] == {**devils, "black": 0}
    # Cid's 200 ms claim, 850 ms after the roll was sent, counts as 350 ms: before Ann's 400, not Bea's 300
    assert result["round"]["grabs"][2]["latency_ms"] == 850.0 - fairness.UNMEASURED_TRIP_MS
    assert result["round"]["held"] == [None, "black", "black"]
    assert result["round"]["grace_ms"] == fairness.UNMEASURED_TRIP_MS
    for socket in sockets:
        socket.__exit__(None, None, None)


def test_a_page_reloaded_in_mid_round_is_sent_the_devils_awarded_not_a_grab_still_to_become_final(clocked):
    client, clock = clocked
    room, seats = seated(client, "Ann", "Bea", "Cid")
    sockets = [socket for socket, _ in seats]
    sockets[0].send_json({"type": "start"})
    roll = until(sockets[0], "roll")
    full = roll["devils_left"]
    clock.advance(0.4)
    send_answer(sockets[1], roll, "black", 300)
    assert until(sockets[2], "grabbed")["devils_left"] == full  # Cid (unmeasured link) could still be faster
    sockets[2].__exit__(None, None, None)  # Cid reloads his page
    again, _ = join(client, room["code"], None, seat_key=seats[2][1]["seat_key"])
    assert until(again, "roll")["devils_left"] == full  # as everyone was told: Bea's grab is not final yet
    clock.advance(0.45)  # 850 ms: Cid can no longer be judged under 350 ms, so Bea's 300 is final
    assert until(again, "devils")["devils_left"] == {**full, "black": full["black"] - 1}
    for socket in (sockets[0], sockets[1], again):
        socket.__exit__(None, None, None)


def measure_link(socket, clock, trip_s: float, pings: int = 8) -> None:
    """The page behind `socket` answers `pings` of the server's pings `trip_s` after each was sent."""
    ping = until(socket, "ping")
    for _ in range(pings):
        clock.advance(trip_s)
        socket.send_json({"type": "pong", "id": ping["id"]})
        ping = until(socket, "ping")  # the next one, sent once the pong was taken


def test_a_seat_150_ms_further_away_wins_when_its_player_is_faster_by_more_than_the_resolution(clocked, log_path,
                                                                                                monkeypatch):
    monkeypatch.setattr(rooms, "PING_INTERVAL_S", 0.0)
    client, clock = clocked
    room = open_room(client)
    near, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    measure_link(near, clock, 0.006)  # 3 ms each way
    far, _ = join(client, room["code"], "Bea")
    measure_link(far, clock, 0.306)  # 150 ms more each way
    near.send_json({"type": "start"})
    roll = until(near, "roll")
    until(far, "roll")
    answer = right_answer(roll)
    # Bea reacts in 600 ms, Ann in 600 ms and a frame and a half: Ann's answer reaches the server first
    near_reaction_ms = 600.0 + fairness.RESOLUTION_MS + 0.5
    clock.advance((3 + near_reaction_ms + 3) / 1000)
    send_answer(near, roll, answer, near_reaction_ms)
    until(near, "grabbed")
    clock.advance((153 + 600 + 153) / 1000 - (3 + near_reaction_ms + 3) / 1000)
    send_answer(far, roll, answer, 600.0)
    record = until(near, "result")["round"]
    assert record["order"] == [1, 0]
    assert [claim["held"] for claim in record["claims"]] == [None, None]
    assert record["links"][1]["min_ms"] == 306.0 and record["grace_ms"] == 306.0 + fairness.TOLERANCE_MS
    assert load_logs([log_path]).set_index("player")["latency_ms"].to_dict() == {"Ann": round(near_reaction_ms, 1),
                                                                                 "Bea": 600.0}
    for socket in (near, far):
        socket.__exit__(None, None, None)


def test_one_grab_per_player_and_a_reload_takes_its_seat_back(client):
    room, [(host, _), (bea, bea_joined)] = seated(client, "Ann", "Bea")
    host.send_json({"type": "start"})
    roll = until(bea, "roll")
    send_answer(bea, roll, "red", 300)
    send_answer(bea, roll, "black", 320)
    assert "no swapping" in until(bea, "error")["message"]
    bea.__exit__(None, None, None)  # Bea's phone drops
    state = until(host, "state")
    while len(state["seats"]) < 2 or not state["seats"][1]["away"]:
        state = until(host, "state")
    again, rejoined = join(client, room["code"], None, seat_key=bea_joined["seat_key"])
    assert rejoined["seat"] == 1 and not until(again, "state")["seats"][1]["away"]
    for socket in (host, again):
        socket.__exit__(None, None, None)


def test_rooms_are_isolated_and_names_are_checked(client):
    first, second = open_room(client), open_room(client)
    assert first["code"] != second["code"] and len(first["code"]) == rooms.CODE_LENGTH
    ann, _ = join(client, first["code"], "Ann", host_key=first["host_key"])
    # the other room's host key is no key here: a player without a name cannot watch
    with pytest.raises(WebSocketDisconnect):
        stranger, _ = join(client, first["code"], None, host_key=second["host_key"])
    with pytest.raises(WebSocketDisconnect):
        join(client, first["code"], "ann")  # one name per room
    with pytest.raises(WebSocketDisconnect):
        join(client, first["code"], "tab\there")  # the drill log's name rule
    cid, _ = join(client, second["code"], "Cid", host_key=second["host_key"])
    assert [s["name"] for s in until(cid, "state")["seats"]] == ["Cid"]
    for socket in (ann, cid):
        socket.__exit__(None, None, None)


def test_a_round_no_one_answers_ends_once_the_seconds_the_host_chose_have_passed(client, log_path):
    room = open_room(client, timeout_s=0.5)
    ann, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    assert until(ann, "state")["timeout_s"] == 0.5
    bea, _ = join(client, room["code"], "Bea")
    ann.send_json({"type": "start"})
    roll = until(ann, "roll")
    sent = time.monotonic()
    result = until(ann, "result")  # within MESSAGE_WAIT_S: the default ten seconds would pass too
    assert time.monotonic() - sent >= 0.5  # the window, then the grace of links no ping measured
    assert result["round"]["number"] == roll["round"] and result["round"]["held"] == [None, None]
    assert list(load_logs([log_path])["answer"]) == ["none", "none"]
    for socket in (ann, bea):
        socket.__exit__(None, None, None)


def test_a_message_too_large_or_too_many_close_the_connection(client):
    room = open_room(client)
    socket, _ = join(client, room["code"], "Ann", host_key=room["host_key"])
    socket.send_text(json.dumps({"type": "answer", "pad": "x" * rooms.MAX_MESSAGE_BYTES}))
    assert "at most" in until(socket, "closed")["message"]
    with pytest.raises(WebSocketDisconnect):
        socket.receive_json()
    socket.__exit__(None, None, None)
    socket, _ = join(client, room["code"], "Bea")
    for _ in range(rooms.MESSAGE_BURST + 5):
        socket.send_json({"type": "ping"})
    assert "messages a second" in until(socket, "closed")["message"]
    with pytest.raises(WebSocketDisconnect):
        socket.receive_json()
    socket.__exit__(None, None, None)


def test_a_room_needs_the_servers_own_origin_and_the_token(log_path):
    app = create_app(log_path, token="sesame")
    with AppClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        code = client.post("/api/rooms?token=sesame", json=FAST).json()["code"]
        client.cookies.clear()  # the token's cookie that answer set: each attempt below carries only its own
        for headers, path in (({"Origin": "http://evil.example"}, f"{WS}/ws/rooms/{code}?token=sesame"),
                              ({"Origin": ORIGIN}, f"{WS}/ws/rooms/{code}")):
            socket = client.websocket_connect(path, headers=headers)
            with pytest.raises(WebSocketDisconnect):
                socket.__enter__()  # refused before it is accepted
        with client.websocket_connect(f"{WS}/ws/rooms/{code}?token=sesame", headers={"Origin": ORIGIN}) as socket:
            socket.send_json({"type": "join", "name": "Ann"})
            assert until(socket, "joined")["seat"] == 0


def test_the_number_of_rooms_is_bounded(client, monkeypatch):
    monkeypatch.setattr(rooms, "MAX_ROOMS", 2)
    open_room(client), open_room(client)
    refused = client.post("/api/rooms", json=FAST)
    assert refused.status_code == 400 and refused.json()["field"] == "room"


def test_the_hosts_screen_gets_the_join_link_as_a_qr_code_of_the_address_it_was_opened_at(client, log_path):
    import base64
    import urllib.parse

    room = open_room(client)
    assert room["join"] == f"/room?code={room['code']}"
    assert room["join_qr"] == rooms.join_qr(f"{ORIGIN}{room['join']}")  # the host's address, the room's link
    prefix = "data:image/svg+xml"
    assert room["join_qr"].startswith(prefix)
    svg = room["join_qr"].split(",", 1)[1]
    svg = base64.b64decode(svg).decode() if ";base64" in room["join_qr"].split(",", 1)[0] else urllib.parse.unquote(svg)
    assert svg.lstrip().startswith(("<?xml", "<svg")) and "</svg>" in svg
    # Behind a token (a server on a network), the link and its code carry the room's pass (test_room_pass.py).
    with TestClient(create_app(log_path, token="s3cret", hosts=["192.168.1.20"]), base_url="http://192.168.1.20:8000",
                    headers={"Origin": "http://192.168.1.20:8000"}, cookies={"diavolo_token": "s3cret"}) as guarded:
        reply = guarded.post("/api/rooms", json=FAST).json()
    assert reply["join"] == f"/room?code={reply['code']}&pass={room_pass('s3cret', reply['code'])}"
    assert reply["join_qr"] == rooms.join_qr(f"http://192.168.1.20:8000{reply['join']}")


def test_a_claim_faster_than_the_players_own_drill_log_makes_plausible_is_flagged_in_the_result(clocked, log_path):
    shutil.copy(SAMPLE_LOG, log_path)  # the sample log's players, each with hundreds of answers
    client, clock = clocked
    _, [(host, _), (bea, _)] = seated(client, "synthetic-average", "Bea")
    host.send_json({"type": "start"})
    roll = until(host, "roll")
    state = until(host, "state")
    while not state["seats"][0]["fitted"]:  # fitted from the log as the game started, the rounds not held up
        state = until(host, "state")
    assert not state["seats"][1]["fitted"]  # no answers of Bea's in the log
    clock.advance(0.105)
    send_answer(host, roll, right_answer(roll), 105)
    send_answer(bea, roll, right_answer(roll), 105)
    record = until(host, "result")["round"]
    assert record["flagged"] == [0] and record["claims"][0]["implausible"]  # Bea has no model to ask
    assert record["grabs"][0]["latency_ms"] == 105.0  # flagged, not refused
    for socket in (host, bea):
        socket.__exit__(None, None, None)


def test_a_players_own_model_is_fitted_once_for_games_started_again_and_again(log_path, monkeypatch):
    fits = []
    monkeypatch.setattr(rooms, "fit_named", lambda path, names: fits.append(list(names)) or {"Ann": "Ann's model"})
    open_rooms = rooms.Rooms(TrialStore(log_path))

    async def two_games() -> list[dict]:
        return [await open_rooms.fitted(["Ann", "Bea"]), await open_rooms.fitted(["Bea", "Ann"])]

    assert run(two_games()) == [{"Ann": "Ann's model"}] * 2
    assert fits == [["Ann", "Bea"]]  # not once a game: a log's fit takes seconds of CPU


@pytest.mark.parametrize("fails", [False, True], ids=["Bea has no model", "the fit fails"])
def test_a_room_says_whose_times_no_model_of_their_own_checks_once_the_fit_is_done(log_path, capsys, fails):
    ann = ReadingModel.from_player(PlayerModel.preset("average"))

    async def fit(names: list[str]) -> dict:
        assert names == ["Ann", "Bea"]
        if fails:
            raise InputError("drills.csv: not a drill log")
        return {"Ann": ann}

    async def game() -> tuple[list[bool], list[bool]]:
        room = rooms.Rooms(TrialStore(log_path)).create(FAST)
        for name in ("Ann", "Bea"):
            room.join({"name": name, "seat_key": None, "host_key": None}, object())
        room.start(fit)
        before = [seat["unchecked"] for seat in room.seat_states()]
        await room.fitting
        room.task.cancel()
        return before, [seat["unchecked"] for seat in room.seat_states()]

    before, after = run(game())
    assert before == [False, False]  # not known until the fit is done
    assert after == ([True, True] if fails else [False, True])
    assert ("InputError: drills.csv: not a drill log" in capsys.readouterr().err) == fails  # the server's log


def test_a_room_dropped_as_idle_leaves_neither_its_game_nor_its_fit_running(log_path):
    async def fit_never_done(names: list[str]) -> dict:
        await asyncio.Event().wait()  # a fit of a large log still running when the room is dropped
        return {}

    async def drop() -> tuple[bool, bool, bool]:
        open_rooms = rooms.Rooms(TrialStore(log_path))
        room = open_rooms.create(FAST)
        sockets = {"Ann": object(), "Bea": object()}
        for name, socket in sockets.items():
            room.join({"name": name, "seat_key": None, "host_key": None}, socket)
        room.start(fit_never_done)
        for socket in sockets.values():
            room.leave(socket)
        room.last_seen -= rooms.ROOM_IDLE_S + 1  # nobody connected for longer than a room is kept
        open_rooms.create(FAST)  # a room created drops the idle ones
        await asyncio.sleep(0)  # one turn of the loop: the cancelled tasks take their cancellation
        # Looked at here: the loop's end would cancel whatever is left.
        return room.code in open_rooms.rooms, room.task.cancelled(), room.fitting.cancelled()

    assert run(drop()) == (False, True, True)  # dropped, its game and its fit cancelled with it


def test_the_room_page_says_which_log_the_answers_go_to_when_rooms_are_shared_by_several_servers(log_path):
    app = create_app(log_path)

    def page() -> str:
        return " ".join(TestClient(app, base_url=ORIGIN).get("/room").text.split())

    assert f"Every answer is written to <code>{log_path}</code>." in page()
    app.state.rooms.relay = lambda socket, code: None  # as `shared_rooms.SharedRooms` sets it
    assert (f"Every answer is written to the drill log of the server the room was opened on, which referees it; "
            f"this server's is <code>{log_path}</code>." in page())
