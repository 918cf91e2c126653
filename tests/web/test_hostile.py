"""The API under hostile input and failure: bounded heavy work, bodies that break parsers, forged trials."""

from __future__ import annotations

import html
import json
import math
import re
import threading
from datetime import datetime, timedelta, timezone

import pytest
from helpers.api import SESSION, a_trial, logged_rows
from helpers.browser import ORIGIN
from starlette.testclient import TestClient

from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.log.schema import MAX_AHEAD
from diavolo_stats.errors import InputError
from diavolo_stats.web import api
from diavolo_stats.web.app import create_app
from diavolo_stats.web.bodies import MAX_DEPTH, message_text
from diavolo_stats.web.busy import HEAVY_AT_ONCE, RETRY_AFTER_S
from diavolo_stats.web.deals import Deals
from diavolo_stats.web.trials import MIN_LATENCY_MS


def test_heavy_requests_beyond_the_bound_get_503_with_retry_after_and_light_ones_still_pass(log_path, monkeypatch):
    gate, inside = threading.Event(), threading.Semaphore(0)
    summarize = api.summarize_session

    def held(*args, **kwargs):  # a summary that takes as long as the test wants
        inside.release()
        gate.wait(60)
        return summarize(*args, **kwargs)

    monkeypatch.setattr(api, "summarize_session", held)
    statuses: list[int] = []
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        assert client.post("/api/trials", json=a_trial(client)).status_code == 201
        summary = f"/api/sessions/{SESSION}/summary"
        running = [threading.Thread(target=lambda: statuses.append(client.get(summary).status_code))
                   for _ in range(HEAVY_AT_ONCE)]
        for thread in running:
            thread.start()
        try:
            for _ in running:
                assert inside.acquire(timeout=60), "a summary did not start"
            for path, params in ((summary, {}), ("/api/roll", {"seed": 1, "trial": 1, "adaptive": "true"}),
                                 ("/api/simulate", {"rounds": 1000, "seed": 1}), ("/report", {"player": "Ann"}),
                                 ("/report", {})):
                busy = client.get(path, params=params)
                assert busy.status_code == 503 and busy.headers["retry-after"] == str(RETRY_AFTER_S), path
                assert "busy" in busy.text, path
            assert client.get("/api/roll", params={"seed": 1, "trial": 2}).status_code == 200
            assert client.get("/api/odds").status_code == 200
            assert client.post("/api/trials", json=a_trial(client, 2)).status_code == 201
        finally:
            gate.set()
            for thread in running:
                thread.join(60)
        assert statuses == [200] * HEAVY_AT_ONCE
        assert client.get(summary).status_code == 200  # the slots are free again


# ------------------------------------------------------------------------------------------- bodies

def post_raw(client: TestClient, body: str | bytes):
    return client.post("/api/trials", content=body, headers={"Content-Type": "application/json"})


def test_deeply_nested_bodies_are_refused_before_parsing_with_400(client, log_path):
    objects = '{"a":' * 10_000 + "1" + "}" * 10_000  # 60 KB, within the size cap
    trial = json.dumps(a_trial(client))
    lists = trial.replace('"dice": {', '"dice": {"black": ' + "[" * 3000 + "1" + "]" * 3000 + ", ", 1)
    for body in (objects, lists):
        response = post_raw(client, body)
        assert response.status_code == 400, response.text
        assert f"at most {MAX_DEPTH} deep" in response.json()["error"]
    assert logged_rows(log_path) == 0


def test_a_lone_surrogate_in_any_text_is_refused_naming_its_field(client, log_path):
    for field, spelled in (("player", '"Ann\\ud800"'), ("session_id", '"\\udfff"'), ("answer", '"red\\ud83d"')):
        trial = a_trial(client)
        body = json.dumps(trial).replace(f'"{field}": {json.dumps(trial[field])}', f'"{field}": {spelled}')
        response = post_raw(client, body)
        assert response.status_code == 400, response.text
        assert response.json()["error"].startswith(f"{field}: must be text of Unicode characters"), response.json()
    assert logged_rows(log_path) == 0


def test_a_number_of_5000_digits_is_refused_by_its_field(client, log_path):
    body = json.dumps(a_trial(client)).replace('"seed": 7', '"seed": ' + "7" * 5000)
    response = post_raw(client, body)
    assert response.status_code == 400 and response.json()["field"] == "seed", response.text
    assert response.json()["error"].startswith("seed: must be a whole number")
    named = json.dumps(a_trial(client)).replace('"player": "Ann"', '"player": ' + "1" * 60)
    assert post_raw(client, named).json()["field"] == "player"  # a long number is no name either
    assert logged_rows(log_path) == 0


def test_bodies_that_break_parsers_get_4xx_never_500(client, log_path):
    trial = json.dumps(a_trial(client))
    # not UTF-8, empty, long, cut short, too large a number, NUL, an object for a text
    bodies = [b"\xff\xfe", b"", b"[]" * 30_000, b'"' + b"\\" * 60_000 + b'"', trial.encode()[:-1], b"1e999999",
              trial.replace('"trial": 1', '"trial": 1e400').encode(), trial.replace('"Ann"', '"A\\u0000"').encode(),
              trial.replace('"red"', '{"__proto__": 1}').encode()]
    for body in bodies:
        response = post_raw(client, body)
        assert 400 <= response.status_code < 500, (body[:60], response.text)
    assert logged_rows(log_path) == 0



@pytest.mark.parametrize("text", ["faces = " + "[" * 5_000 + "]" * 5_000, "wrong_grey_share = " + "7" * 5_000,
                                  'name = "x"\nbase = "average"\n' + "a" + ".a" * 5_000 + " = 1"])
def test_the_play_page_answers_a_hostile_player_file_with_400_naming_it(client, text):
    reply = client.post("/api/play/games", json={"player": "Ann", "opponents": [{"file": "carol.toml", "toml": text}]})
    assert reply.status_code == 400 and reply.json()["error"].startswith("opponents: carol.toml: "), reply.text


@pytest.mark.parametrize("path", ["/api/rooms", "/api/play/games"])
def test_a_body_of_60000_brackets_is_400_on_every_api(client, path):
    reply = client.post(path, content=b"[" * 60_000, headers={"content-type": "application/json"})
    assert reply.status_code == 400 and "nested at most" in reply.json()["error"], reply.text


@pytest.mark.parametrize("name", ["\u3164", "Ann\u202e", "\u0410nn"])
def test_play_refuses_a_name_that_looks_blank_or_spoofs_with_400(client, name):
    reply = client.post("/api/play/games", json={"player": name, "opponents": ["preset:average"]})
    assert reply.status_code == 400 and reply.json()["field"] == "player", reply.text


def test_play_seats_a_family_emoji_and_numbers_an_opponent_whose_name_looks_like_the_human(client):
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    reply = client.post("/api/play/games", json={"player": family, "opponents": ["preset:average"]})
    assert reply.status_code == 201 and reply.json()["names"][0] == family, reply.text
    reply = client.post("/api/play/games", json={"player": "AVERAGE", "opponents": ["preset:average"]})
    assert reply.status_code == 201 and reply.json()["names"] == ["AVERAGE", "average 2"], reply.text


# ------------------------------------------------------------------------------------------ forgeries


def test_a_latency_below_the_human_floor_is_refused(client, log_path):
    for latency in (0, MIN_LATENCY_MS - 1):
        response = client.post("/api/trials", json=a_trial(client, latency_ms=latency))
        assert response.status_code == 400 and response.json()["field"] == "latency_ms", response.text
    assert client.post("/api/trials", json=a_trial(client, latency_ms=MIN_LATENCY_MS)).status_code == 201
    assert logged_rows(log_path) == 1


def test_a_timestamp_far_in_the_future_or_off_the_calendar_is_refused_with_400(client, log_path):
    ahead = datetime.now(timezone.utc) + MAX_AHEAD + timedelta(hours=1)
    for stamp in ("2099-01-01T00:00:00.000Z", ahead.isoformat(), "0001-01-01T00:00:00+14:00", "1677-09-21T00:00:00Z",
                  "9999-12-31T23:59:59-14:00"):
        response = client.post("/api/trials", json=a_trial(client, timestamp=stamp))
        assert response.status_code == 400 and response.json()["field"] == "timestamp", (stamp, response.text)
    assert logged_rows(log_path) == 0


def test_dice_or_a_command_the_server_never_dealt_are_refused(client, log_path):
    trial = a_trial(client)
    forged_dice = {**trial["dice"], "black": [7 - value for value in trial["dice"]["black"]]}
    other = next(command for command in ("highest-total", "lowest-total") if command != trial["command"])
    for changes in ({"dice": forged_dice}, {"command": other}, {"seed": 8}, {"seed": None}):
        response = client.post("/api/trials", json={**trial, **changes})
        assert response.status_code == 400 and response.json()["field"] in ("dice", "seed"), (changes, response.text)
    assert client.post("/api/trials", json=trial).status_code == 201
    assert logged_rows(log_path) == 1


def test_a_roll_dealt_before_a_restart_or_adaptively_still_lands(client, log_path):
    kept = a_trial(client)  # dealt by this server; the page keeps it while the server restarts
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as restarted:
        assert restarted.post("/api/trials", json=kept).status_code == 201
    adaptive = client.get("/api/roll", params={"seed": 7, "trial": 2, "adaptive": "true", "player": "Ann"}).json()
    trial = a_trial(client, 2, command=adaptive["command"], dice=adaptive["dice"], positions=adaptive["positions"])
    assert client.post("/api/trials", json=trial).status_code == 201
    assert logged_rows(log_path) == 2


def test_a_trial_sent_again_with_another_answer_gets_the_stored_verdict(client, log_path):
    first = client.post("/api/trials", json=a_trial(client)).json()
    wrong = next(color for color in ("black", "red", "white", "grey") if color not in first["accepted"])
    right = first["accepted"][0]
    for answer in (wrong, right):
        again = client.post("/api/trials", json=a_trial(client, answer=answer))
        assert again.status_code == 200 and again.json()["stored"] is False
        assert {key: again.json()[key] for key in ("expected", "accepted", "correct")} == {
            key: first[key] for key in ("expected", "accepted", "correct")}
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as restarted:
        after = restarted.post("/api/trials", json=a_trial(restarted, answer=wrong if first["correct"] else right))
        assert after.json()["correct"] is first["correct"]  # read back from the log
    row = load_logs([log_path]).iloc[0]
    assert (row["answer"], bool(row["correct"])) == ("red", first["correct"])


def test_query_numbers_are_ascii_digits_as_on_the_command_line(client):
    for path, params, field in (("/api/odds", {"scatter_mm": "1_000"}, "scatter_mm"),
                                ("/api/odds", {"tolerance": "٠.١"}, "tolerance"),
                                ("/api/odds", {"die_mm": "١٦"}, "die_mm"),
                                ("/api/simulate", {"rounds": "１０００"}, "rounds"),
                                ("/api/roll", {"seed": "١", "trial": "1"}, "seed"),
                                ("/api/roll", {"seed": "1", "trial": "1_0"}, "trial")):
        response = client.get(path, params=params)
        assert response.status_code == 400 and response.json()["field"] == field, (params, response.text)
    assert client.get("/api/odds", params={"scatter_mm": "1000", "tolerance": "0.1"}).status_code == 200


def test_the_server_remembers_a_bounded_number_of_deals_the_oldest_forgotten_first():
    deals = Deals(remembered=3)
    rolls = {trial: {"command": "closest", "dice": {"black": [trial]}, "positions": {"command": [1.0, 2.0]}}
             for trial in range(1, 6)}
    for trial, roll in rolls.items():
        deals.deal(7, trial, roll)
    never = {"command": "most-odd", "dice": {}, "positions": {}}  # what dealing again from the seed gives

    def check(trial: int) -> None:
        roll = rolls[trial]
        deals.check(7, trial, roll["command"], roll["dice"], roll["positions"], lambda *asked: never)

    for trial in (3, 4, 5):
        check(trial)
    with pytest.raises(InputError, match="dealt no such roll"):
        check(1)


def test_a_heavy_request_hands_back_the_unused_pages_of_the_log_parsers_pool(client, log_path, monkeypatch):
    from helpers.drill_logs import appended, trial_row

    from diavolo_stats.web import busy

    released = []

    class Pool:
        def release_unused(self) -> None:
            released.append(True)

    appended(log_path, trial_row(1), trial_row(2))
    monkeypatch.setattr(busy, "parse_pool", Pool)
    assert not released
    assert client.get("/me").status_code == 200
    assert released == [True]


# ------------------------------------------------------------------------- every JSON endpoint, a table

WHOLE_BODIES = {  # a body that is no request of any endpoint
    "empty": b"", "not UTF-8": b"\xff\xfe", "not JSON": b"{'a': 1}", "cut short": b'{"a": ',
    "a list": b"[]", "a text": b'"x"', "a number": b"1", "null": b"null", "true": b"true",
    "too large": b'{"a": "' + b"x" * 70_000 + b'"}', "nested 10,000 deep": b"[" * 10_000 + b"]" * 10_000,
    "a number past a float": b"1e999999", "a number of 5,000 digits": b"7" * 5000,
    "a key twice": b'{"a": 1, "a": 2}',
}
REFUSED_AT_THE_PARSE = {
    **{constant: f"must be one JSON object, and {constant} is not a JSON number"
       for constant in ("NaN", "Infinity", "-Infinity")},
    **{number: f"{number} is past the largest number a body may hold, about 1.8e+308"
       for number in ("1e999", "-1e999")},
}
"""What Python's json module reads as NaN or an infinity (constants JSON has not, numbers past a float), as a whole
body or in a field (in a list too): refused at the parse with 400, the error ending as given."""
FIELD_VALUES = {  # JSON text put in place of one field of a valid body, or added under a key no endpoint has
    "null": "null", "true": "true", "a list": "[]", "an object": "{}", "empty text": '""',
    "10,000 characters": '"' + "x" * 10_000 + '"', "minus one": "-1", "10**30": "1" + "0" * 30,
    "nested 40 deep": "[" * 40 + "]" * 40,
    "a NUL character": '"\\u0000"', "a lone surrogate": '"\\ud800"', "a number of 5,000 digits": "7" * 5000,
}


def valid_bodies(client: TestClient) -> dict[str, dict]:
    """Every endpoint that reads a JSON body, with a body it accepts (a game started for the play routes; its
    /round reads none)."""
    game = client.post("/api/play/games", json={"player": "Ann", "opponents": ["preset:average"]}).json()["id"]
    assert client.post(f"/api/play/games/{game}/round", json={}).status_code == 200
    return {
        "/api/trials": a_trial(client),
        "/api/explore": {},
        "/api/play/games": {"player": "Bea", "opponents": ["preset:average"]},
        f"/api/play/games/{game}/grabs": {"round": 1},
        f"/api/play/games/{game}/answer": {"round": 1, "answer": "grey", "latency_ms": 900.0,
                                           "timestamp": "2026-12-01T08:00:00.000Z"},
        "/api/rooms": {"foreperiod_ms": [0, 0], "feedback_ms": 0},
    }


def with_field(body: dict, key: str, text: str) -> bytes:
    """`body` as JSON with the value of `key` (added if it has none) written as the JSON text `text`."""
    marker = "\x01MARK\x01"
    return json.dumps({**body, key: marker}).replace(json.dumps(marker), text).encode()


def test_every_json_endpoint_answers_every_hostile_body_and_field_with_4xx_and_a_message_never_500(log_path):
    failures, sent = [], 0
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN},
                    raise_server_exceptions=False) as client:
        bodies = valid_bodies(client)
        for path, body in bodies.items():
            hostile = {name: (raw, True, None) for name, raw in WHOLE_BODIES.items()}
            hostile |= {f"{key} {name}": (with_field(body, key, text), False, None)
                        for key in [*body, "bogus"] for name, text in FIELD_VALUES.items()}
            for value, error in REFUSED_AT_THE_PARSE.items():
                hostile |= {value: (value.encode(), True, error)}
                hostile |= {f"{key} {where}{value}": (with_field(body, key, text), True, error)
                            for key in [*body, "bogus"] for where, text in (("", value), ("[1, x] ", f"[1, {value}]"))}
            for name, (raw, refused, error) in hostile.items():
                reply = client.post(path, content=raw, headers={"content-type": "application/json"})
                sent += 1
                said = reply.json().get("error") if reply.headers.get("content-type") == "application/json" else None
                if reply.status_code >= 500 or (refused and reply.status_code < 400) or \
                        (reply.status_code >= 400 and not said):
                    failures.append(f"{path} {name}: {reply.status_code} {reply.text[:200]!r}")
                elif error and (reply.status_code != 400 or not said.endswith(error)):
                    failures.append(f"{path} {name}: not refused at the parse: {reply.status_code} {said!r}")
    assert sent == sum(len(WHOLE_BODIES) + (len(body) + 1) * len(FIELD_VALUES)
                       + len(REFUSED_AT_THE_PARSE) * (1 + 2 * (len(body) + 1)) for body in bodies.values())
    assert not failures, "\n".join(failures)


QUERY_TEXTS = {
    "empty": "", "blank": " ", "a comma": ",", "an empty item": "a,,b", "minus one": "-1", "zero": "0", "nan": "nan",
    "inf": "inf", "past a float": "1e309", "10,000 characters": "x" * 10_000, "a NUL character": "a\x00b",
    "the parent folder": "..", "a list": "[]", "5,000 digits": "7" * 5000,
}


@pytest.mark.slow  # 406 requests (29 parameters x 14), about 16 s: the accepted ones simulate, roll and draw
def test_every_query_parameter_answers_every_hostile_text_with_4xx_and_a_message_never_500(log_path):
    # Each endpoint's parameters from its own Record (a new one is covered at once), beside a cheap valid query.
    queries = {
        "/api/odds": ({}, list(api.ODDS_QUERY.rules)),
        "/api/simulate": ({"rounds": "1000", "seed": "1"}, list(api.SIMULATE_QUERY.rules)),
        "/api/roll": ({"seed": "1", "trial": "1"}, list(api.ROLL_QUERY.rules)),
        f"/api/sessions/{SESSION}/summary": ({}, ["player"]),
        "/me": ({}, ["player"]),
        "/me/chart.png": ({}, ["player", "layout"]),
        "/report": ({}, ["player"]),
    }
    failures, sent = [], 0
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN},
                    raise_server_exceptions=False) as client:
        assert client.post("/api/trials", json=a_trial(client)).status_code == 201  # a log to read
        for path, (valid, names) in queries.items():
            for name in names:
                for what, text in QUERY_TEXTS.items():
                    reply = client.get(path, params={**valid, name: text})
                    sent += 1
                    if reply.status_code >= 500 or (reply.status_code >= 400 and not reply.text.strip()):
                        failures.append(f"{path} {name}={what}: {reply.status_code} {reply.text[:200]!r}")
    assert sent == len(QUERY_TEXTS) * sum(len(names) for _, names in queries.values())
    assert not failures, "\n".join(failures)


def test_the_report_page_says_why_the_servers_log_gives_no_report_in_a_visitors_words(log_path):
    # The visitor named a player, never the log (the server's) nor the report's fields (log_paths, players).
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        assert client.post("/api/trials", json=a_trial(client)).status_code == 201  # Ann's
        header = log_path.read_text(encoding="utf-8").splitlines()[0]
        said = {"nobody": _error_said(client.get("/report", params={"player": "nobody"}))}
        log_path.write_text(header + "\n", encoding="utf-8")
        said["no trials"] = _error_said(client.get("/report", params={"player": "Ann"}))
        log_path.write_text("name,score\nada,3\n", encoding="utf-8")
        said["not a drill log"] = _error_said(client.get("/report", params={"player": "Ann"}))
    assert said == {
        "nobody": "player: no trials for 'nobody'; players in the log: Ann",
        "no trials": f"no report from this server's drill log: no trials in {log_path}; drill first",
        "not a drill log": f"no report from this server's drill log: {log_path}: line 1: not a drill log of schema 2 "
                           "or 1 (the header must be schema_version,session_id,...,accepted)",
    }


def _error_said(page) -> str:
    """The sentence of an error page, as the visitor reads it."""
    assert page.status_code == 400, page.text[:300]
    return html.unescape(re.search(r'<p class="error">(.*?)</p>', page.text, re.DOTALL)[1])


def test_a_figure_that_is_no_number_is_written_null_never_nan_which_json_has_not(client, monkeypatch):
    class Odds:  # a result whose figures came out NaN or infinite (no such figure is known: the server's guard)
        def document(self) -> dict:
            return {"p": math.nan, "odds": [math.inf, -math.inf, 0.25], "row": {"x": (math.nan, 1)}, "n": 3}

    monkeypatch.setattr(api, "exact_odds", lambda variant: Odds())
    reply = client.get("/api/odds")
    assert reply.status_code == 200
    assert reply.text == '{"p":null,"odds":[null,null,0.25],"row":{"x":[null,1]},"n":3}'


def test_a_room_message_is_strict_json_too():
    """What a room sends its screens (`room_game`) is written as a response is: a figure that is no number null."""
    message = {"type": "result", "p": math.nan, "odds": [math.inf, -math.inf, 0.25], "row": {"x": (math.nan, 1)}}
    assert message_text(message) == '{"type": "result", "p": null, "odds": [null, null, 0.25], "row": {"x": [null, 1]}}'
    assert message_text({"type": "roll", "at": 1.5, "name": "Zoë"}) == json.dumps({"type": "roll", "at": 1.5,
                                                                                    "name": "Zoë"})
