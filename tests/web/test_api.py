"""The web app's API through Starlette's test client: trials checked and logged once, odds as the CLI's."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest
from helpers.api import SESSION, a_trial, logged_rows
from helpers.browser import ORIGIN
from starlette.testclient import TestClient

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill import DEFAULT_TRIALS, MAX_TRIALS_PER_SESSION
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.settings import FEEDBACK_MS, TIMEOUT_S, DrillSettings
from diavolo_stats.drill.summary import SUMMARY_HEADINGS, SUMMARY_TEXT_COLUMNS, summarize_session
from diavolo_stats.drill.trial import judged_trial
from diavolo_stats.errors import InputError
from diavolo_stats.web.app import create_app
from diavolo_stats.web.security import MAX_BODY_BYTES
from diavolo_stats.web.trials import BROWSER_VARIANTS, TRIAL_BURST, TRIALS_PER_SECOND


def test_a_trial_is_logged_with_the_answer_the_rules_give(client, log_path):
    trial = a_trial(client)
    response = client.post("/api/trials", json=trial)
    assert response.status_code == 201, response.text
    row = load_logs([log_path]).iloc[0]
    resolution = resolve(Variant(), Command(trial["command"]), trial["dice"], trial["positions"])
    assert row["expected"] == resolution.answer == response.json()["expected"]
    assert response.json()["accepted"] == list(resolution.accepted)
    assert bool(row["correct"]) is ("red" in resolution.accepted) is response.json()["correct"]
    assert row["interface"] == "browser"
    assert (row["session_id"], row["trial"], row["player"], row["answer"]) == (SESSION, 1, "Ann", "red")
    assert row["latency_ms"] == pytest.approx(512.3)  # logged to 0.1 ms
    assert json.loads(row["positions"])["scatter_mm"] == Variant().table.scatter_mm


def test_the_same_roll_comes_back_for_the_same_seed_and_trial(client):
    first, again = (client.get("/api/roll", params={"seed": 3, "trial": 4}).json() for _ in range(2))
    other = client.get("/api/roll", params={"seed": 3, "trial": 5}).json()
    assert first == again
    assert (first["dice"], first["positions"]) != (other["dice"], other["positions"])
    assert first["expected"] == resolve(Variant(), Command(first["command"]), first["dice"], first["positions"]).answer


def test_a_trial_sent_twice_is_stored_once_even_by_a_restarted_server(client, log_path):
    trial = a_trial(client)
    assert client.post("/api/trials", json=trial).status_code == 201
    again = client.post("/api/trials", json=trial)
    assert again.status_code == 200 and again.json()["stored"] is False
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as restarted:
        assert restarted.post("/api/trials", json=trial).status_code == 200
        assert restarted.post("/api/trials", json=a_trial(restarted, 2)).status_code == 201
    frame = load_logs([log_path])
    assert sorted(frame["trial"]) == [1, 2]


def test_a_trial_another_writer_logged_meanwhile_is_not_logged_again(client, log_path):
    trial = a_trial(client)
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as other_server:
        assert other_server.post("/api/trials", json=trial).status_code == 201
    assert client.post("/api/trials", json=trial).status_code == 200
    assert logged_rows(log_path) == 1


BAD_FIELDS = [
    ("session_id", "not-a-uuid"),
    ("trial", 0),
    ("trial", 1.5),
    ("trial", True),
    ("player", ""),
    ("player", "tab\there"),
    ("player", "x" * 101),
    ("variant", "giant"),
    ("command_first", "yes"),
    ("command", "loudest"),
    ("dice", {"black": [1, 2, 3], "red": [1, 2, 3]}),
    ("dice", {"black": [1, 2, 7], "red": [1, 2, 3], "white": [1, 2, 3]}),
    ("dice", {"black": [1, 2], "red": [1, 2, 3], "white": [1, 2, 3]}),
    ("dice", {"black": [1, 2, 0], "red": [1, 2, 3], "white": [1, 2, 3]}),
    ("dice", {"black": [1, 2, True], "red": [1, 2, 3], "white": [1, 2, 3]}),
    ("answer", "purple"),
    ("answer", "none"),
    ("latency_ms", -1),
    ("latency_ms", None),
    ("latency_ms", "fast"),
    ("too_early", "no"),
    ("timed_out", 0),
    ("foreperiod_ms", -5),
    ("seed", -1),
    ("seed", 2**63),
    ("timestamp", "yesterday"),
    ("timestamp", "2026-11-30T12:00:00"),
    ("expected", "red"),
    ("correct", True),
    ("session_id", 5),
    ("latency_ms", True),
    ("foreperiod_ms", True),
    ("foreperiod_ms", 60_001),
    ("seed", True),
    ("dice", [1, 2, 3]),
    ("positions", "on the table"),
]


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS)
def test_a_bad_field_is_refused_by_name_and_nothing_is_written(client, log_path, field, value):
    response = client.post("/api/trials", json=a_trial(client, **{field: value}))
    assert response.status_code == 400, response.text
    assert response.json()["error"].startswith(f"{field}: "), response.json()
    assert response.json()["field"] == field
    assert logged_rows(log_path) == 0


def test_a_missing_field_is_named(client, log_path):
    trial = a_trial(client)
    del trial["seed"]
    response = client.post("/api/trials", json=trial)
    assert response.status_code == 400 and response.json()["field"] == "seed"
    assert response.json()["error"].startswith("seed: missing")
    assert logged_rows(log_path) == 0


def test_errors_about_a_body_speak_json_and_quote_at_most_40_characters(client, log_path):
    as_json = {"command_first": ("yes", 'must be true or false, got "yes"'), "trial": (True, "got true"),
               "seed": ("x" * 5000, 'got "' + "x" * 39 + "...")}
    for field, (value, words) in as_json.items():
        error = client.post("/api/trials", json=a_trial(client, **{field: value})).json()["error"]
        assert error.startswith(f"{field}: ") and error.endswith(words), error
    assert logged_rows(log_path) == 0


@pytest.mark.parametrize("constant", ["Infinity", "NaN"])
def test_a_latency_of_infinity_or_nan_is_refused_at_the_parse_as_no_json(client, log_path, constant):
    body = json.dumps(a_trial(client)).replace('"latency_ms": 512.34', f'"latency_ms": {constant}')
    response = client.post("/api/trials", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"] == f"trial: the body must be one JSON object, and {constant} is not a JSON number"
    assert logged_rows(log_path) == 0


def test_positions_off_the_table_or_overlapping_are_refused(client, log_path):
    trial = a_trial(client)
    off = json.loads(json.dumps(trial["positions"]))
    off["black"][0] = [299.0, 150.0]  # a 16 mm die centered 1 mm from the edge hangs off it
    overlapping = json.loads(json.dumps(trial["positions"]))
    overlapping["red"][1] = [overlapping["red"][0][0] + 5, overlapping["red"][0][1]]
    other_table = {**trial["positions"], "tolerance": 0.5}
    for positions, words in ((off, "not wholly on the table"), (overlapping, "overlap"),
                             (other_table, "tolerance")):
        response = client.post("/api/trials", json={**trial, "positions": positions})
        assert response.status_code == 400 and response.json()["field"] == "positions", response.text
        assert words in response.json()["error"]
    assert logged_rows(log_path) == 0


def test_no_answer_needs_too_early_or_timeout_and_no_latency(client, log_path):
    early = a_trial(client, answer="none", latency_ms=None, too_early=True)
    assert client.post("/api/trials", json=early).status_code == 201
    both = a_trial(client, 2, answer="none", latency_ms=None, too_early=True, timed_out=True)
    assert client.post("/api/trials", json=both).json()["field"] == "timed_out"
    with_latency = a_trial(client, 2, answer="none", latency_ms=300.0, timed_out=True)
    assert client.post("/api/trials", json=with_latency).json()["field"] == "latency_ms"
    row = load_logs([log_path]).iloc[0]
    assert (row["answer"], bool(row["too_early"]), bool(row["correct"])) == ("none", True, False)
    assert logged_rows(log_path) == 1


@pytest.mark.slow  # scale: 240 requests
def test_the_server_works_out_a_timeout_as_the_terminal_drill_does(client, log_path):
    # A page need not say a trial timed out: no answer and not too early is a timeout, as judged_trial has it.
    trial = {key: value for key, value in a_trial(client, answer="none", latency_ms=None).items()
             if key != "timed_out"}
    assert client.post("/api/trials", json=trial).status_code == 201
    row = load_logs([log_path]).iloc[0]
    assert (row["answer"], bool(row["timed_out"]), bool(row["too_early"])) == ("none", True, False)
    overlapping = a_trial(client, 2)
    overlapping["positions"]["red"][1] = [overlapping["positions"]["red"][0][0] + 5,
                                          overlapping["positions"]["red"][0][1]]
    refused = client.post("/api/trials", json=overlapping).json()
    with pytest.raises(InputError) as terminal:  # the terminal drill's gate says the same, quoting Python
        judged_trial(Variant(), overlapping["command"], overlapping["dice"], overlapping["positions"], "red", 500.0,
                     interface="terminal", player="Ann", session_id="s", trial=1, timestamp=datetime.now(timezone.utc))
    assert refused["field"] == terminal.value.field == "positions"
    assert refused["error"].split(", got ")[0] == str(terminal.value).split(", got ")[0]


def test_adaptive_rolls_favour_the_command_the_player_gets_wrong(client):
    # Ann answers 120 rolls through the API: every one right, except most-odd, always wrong.
    for session in range(3):
        session_id = f"0b7e5c1a-2f4d-4e6b-9a1c-3d5e7f9a1b{session:02d}"
        for number in range(1, 41):
            roll = client.get("/api/roll", params={"seed": session, "trial": number}).json()
            wrong = next(color for color in ("black", "red", "white", "grey") if color not in roll["accepted"])
            answer = wrong if roll["command"] == Command.MOST_ODD.value else roll["expected"]
            trial = {"session_id": session_id, "trial": number, "player": "Ann", "variant": "standard",
                     "command_first": False, "command": roll["command"], "dice": roll["dice"],
                     "positions": roll["positions"], "answer": answer, "latency_ms": 500.0, "too_early": False,
                     "timed_out": False, "foreperiod_ms": roll["foreperiod_ms"], "seed": session,
                     "timestamp": f"2026-11-30T12:{session:02d}:{number:02d}.000Z"}
            assert client.post("/api/trials", json=trial).status_code == 201
    commands = [client.get("/api/roll", params={"seed": 99, "trial": number, "adaptive": "true",
                                                "player": "Ann"}).json()["command"] for number in range(1, 101)]
    # The scheduler (drill.scheduler) gives most-odd about three quarters of the rolls; without the
    # player's rows it would get a sixth. Another player, with no rows, still gets every command.
    assert commands.count(Command.MOST_ODD.value) > 50, commands
    fresh = [client.get("/api/roll", params={"seed": 99, "trial": number, "adaptive": "true",
                                             "player": "Bo"}).json()["command"] for number in range(1, 101)]
    assert fresh.count(Command.MOST_ODD.value) < 35 and len(set(fresh)) == 6, fresh



@pytest.mark.parametrize(("query", "field", "words"), [
    ({"trial": "1"}, "seed", "missing"),
    ({"seed": "7"}, "trial", "missing"),
    ({"seed": "7", "trial": "1", "sead": "8"}, "sead", "unknown parameter; allowed: variant, command_first"),
    ({"seed": "seven", "trial": "1"}, "seed", 'must be a whole number from 0 to'),
    ({"seed": "7", "trial": "0"}, "trial", "must be a whole number from 1 to 10,000"),
    ({"seed": "7", "trial": "1", "adaptive": "yes"}, "adaptive", 'must be true or false, got "yes"'),
    ({"seed": "7", "trial": "1", "variant": "giant"}, "variant", "must be one of standard, kids"),
    ({"seed": "7", "trial": "1", "foreperiod_ms": "900,600"}, "foreperiod_ms", "MIN <= MAX"),
    ({"seed": "7", "trial": "1", "foreperiod_ms": "600,60001"}, "foreperiod_ms", "from 0 to 60,000"),
    ({"seed": "7", "trial": "1", "foreperiod_ms": "-1"}, "foreperiod_ms", "from 0 to 60,000"),
    ({"seed": "7", "trial": "1", "foreperiod_ms": "1,2,3"}, "foreperiod_ms", "need 1 or 2 bounds (one wait"),
    ({"seed": "7", "trial": "1", "foreperiod_ms": "soon"}, "foreperiod_ms", "must be a whole number ms"),
])
def test_a_bad_roll_query_is_refused_naming_the_parameter(client, query, field, words):
    response = client.get("/api/roll", params=query)
    assert response.status_code == 400
    assert response.json()["field"] == field and response.json()["error"].startswith(f"{field}: ")
    assert words in response.json()["error"], response.json()


def test_the_foreperiod_is_drawn_from_the_range_asked_for(client):
    def foreperiod(text: str, trial: int) -> int:
        query = {"seed": 7, "trial": trial, "foreperiod_ms": text}
        return client.get("/api/roll", params=query).json()["foreperiod_ms"]

    assert [foreperiod("800", trial) for trial in (1, 2, 3)] == [800] * 3
    assert all(300 <= foreperiod("300,310", trial) <= 310 for trial in range(1, 20))


def test_a_body_that_is_not_a_json_object_is_refused(client, log_path):
    for content in (b"[1, 2]", b"{not json", b""):
        response = client.post("/api/trials", content=content, headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and "error" in response.json()
    assert logged_rows(log_path) == 0


def test_a_post_from_another_origin_or_none_is_refused(client, log_path):
    trial = a_trial(client)
    for origin in ("http://evil.example", "null", None):
        headers = {"Origin": origin} if origin else {}
        with TestClient(client.app, base_url=ORIGIN, headers=headers) as foreign:
            response = foreign.post("/api/trials", json=trial)
        assert response.status_code == 403 and "origin" in response.json()["error"]
    assert logged_rows(log_path) == 0


def test_a_host_name_other_than_loopback_gets_no_answer(client):
    # A page of another site whose name points at 127.0.0.1 (DNS rebinding) reaches nothing.
    assert client.get("/api/odds", headers={"Host": "evil.example:8765"}).status_code == 400


def test_a_body_over_the_cap_is_refused_unread(client, log_path):
    padded = {**a_trial(client), "player": "A" * (MAX_BODY_BYTES + 10)}
    response = client.post("/api/trials", json=padded)
    assert response.status_code == 413 and "body" in response.json()["error"]

    def chunks():  # no Content-Length: the cap applies while reading
        for _ in range(MAX_BODY_BYTES // 1000 + 2):
            yield b" " * 1000

    response = client.post("/api/trials", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert logged_rows(log_path) == 0


def test_one_session_posting_faster_than_a_person_is_slowed_down(client, log_path, monkeypatch):
    from diavolo_stats.web import trials

    clock = [1000.0]
    monkeypatch.setattr(trials.time, "monotonic", lambda: clock[0])  # the clock stands still meanwhile
    bodies = [a_trial(client, n) for n in range(1, TRIAL_BURST + 3)]
    statuses = [client.post("/api/trials", json=body).status_code for body in bodies]
    assert statuses == [201] * TRIAL_BURST + [429, 429]
    assert "trials a second" in client.post("/api/trials", json=bodies[-1]).json()["error"]
    clock[0] += 1.5 / TRIALS_PER_SECOND  # room for one more, not two
    assert [client.post("/api/trials", json=body).status_code for body in bodies[-2:]] == [201, 429]
    assert logged_rows(log_path) == TRIAL_BURST + 1


def test_every_answer_carries_a_policy_that_allows_only_the_apps_own_scripts(client):
    for path in ("/", "/drill", "/explore", "/me", "/report", "/api/odds", "/static/drill.js", "/nowhere"):
        policy = client.get(path).headers["content-security-policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["script-src"] == "'self'" and directives["default-src"] == "'self'", (path, policy)
        assert directives["connect-src"] == "'self'" and directives["frame-ancestors"] == "'none'"


def test_pages_load_no_script_or_style_from_elsewhere(client):
    for path in ("/", "/drill", "/explore", "/me", "/report"):
        page = client.get(path).text
        assert "<script>" not in page and "style=" not in page and "http://" not in page and "https://" not in page


def test_errors_never_show_a_traceback(log_path, monkeypatch):
    from diavolo_stats.web import api

    def broken(*args, **kwargs):
        raise RuntimeError("boom in the library")

    monkeypatch.setattr(api, "exact_odds", broken)
    with TestClient(create_app(log_path), base_url=ORIGIN, raise_server_exceptions=False) as test_client:
        response = test_client.get("/api/odds")
    assert response.status_code == 500
    assert "boom" not in response.text and "Traceback" not in response.text and "error" in response.json()


# ------------------------------------------------------------------------------------------- odds

@pytest.mark.parametrize("query", [
    {},
    {"dice_per_color": "2", "sides": "6", "colors": "black,red,white"},
    {"colors": "black,red,white,blue", "sides": "8", "commands": "highest-total,most-odd,closest"},
    {"dice_per_color": "4", "sides": "4", "commands": "largest-spread", "tolerance": "0.2"},
])
def test_odds_are_exactly_what_the_command_line_prints(client, diavolo, query):
    flags = [item for name, value in query.items() for item in (f"--{name.replace('_', '-')}", value)]
    printed = diavolo("odds", "--format", "json", *flags)
    assert printed.returncode == 0, printed.stderr
    response = client.get("/api/odds", params=query)
    assert response.status_code == 200
    assert response.json() == json.loads(printed.stdout)


@pytest.mark.parametrize(("query", "field"), [
    ({"dice_per_color": "0"}, "dice_per_color"),
    ({"dice_per_color": "two"}, "dice_per_color"),
    ({"sides": "1"}, "sides"),
    ({"colors": "black"}, "colors"),
    ({"commands": "loudest"}, "commands"),
    ({"tolerance": "-1"}, "tolerance"),
    ({"tolerance": "nan"}, "tolerance"),
    ({"dice": "3"}, "dice"),
    ({"die_mm": "true"}, "die_mm"),
    ({"colors": ",".join(f"color{n}" for n in range(200))}, "colors"),
])
def test_a_bad_variant_is_refused_naming_the_field(client, query, field):
    for endpoint in ("/api/odds", "/api/simulate"):
        response = client.get(endpoint, params=query)
        assert response.status_code == 400
        assert response.json()["error"].startswith(f"{field}: "), response.json()
        assert response.json()["field"] == field
        assert len(response.json()["error"].partition(", got ")[2]) <= 45  # a quote of at most 40 characters


def test_simulated_closest_has_an_interval_and_a_capped_number_of_rounds(client):
    document = client.get("/api/simulate", params={"rounds": 5000, "seed": 1}).json()
    closest = document["commands"]["closest"]
    assert closest["rounds"] == 5000 and closest["ci95"][0] <= closest["tie_probability"] <= closest["ci95"][1]
    exact = document["commands"]["most-odd"]
    assert exact["ci95"][0] <= exact["exact"] <= exact["ci95"][1]
    too_many = client.get("/api/simulate", params={"rounds": 10**7})
    assert too_many.status_code == 400 and too_many.json()["field"] == "rounds"
    for query, field in (({"seed": "-1"}, "seed"), ({"rounds": "1e3"}, "rounds"), ({"trial": "1"}, "trial")):
        refused = client.get("/api/simulate", params=query)
        assert refused.status_code == 400 and refused.json()["field"] == field, refused.json()


# ------------------------------------------------------------------------------------- token, names

def test_with_a_token_every_page_and_call_needs_it(log_path):
    with TestClient(create_app(log_path, token="s3cret"), base_url=ORIGIN, headers={"Origin": ORIGIN}) as anyone:
        for path in ("/", "/drill", "/api/odds", "/static/drill.js"):
            assert anyone.get(path).status_code == 401
        assert anyone.get("/?token=wrong").status_code == 401
    with TestClient(create_app(log_path, token="s3cret"), base_url=ORIGIN, headers={"Origin": ORIGIN}) as holder:
        first = holder.get("/?token=s3cret")
        assert first.status_code == 200 and "HttpOnly" in first.headers["set-cookie"]
        assert holder.get("/api/odds").status_code == 200  # the cookie carries it from now on
        assert holder.post("/api/trials", json=a_trial(holder)).status_code == 201


def test_only_loopback_addresses_go_without_a_token():
    from diavolo_stats.web.app import is_loopback

    assert all(is_loopback(host) for host in ("127.0.0.1", "127.8.0.1", "localhost", "::1", "[::1]"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "192.168.1.20", "::", "example.org"))


HOSTILE = '<script>f()</script>&"B"'  # a name is at most 24 characters


def test_names_are_escaped_on_every_page(client, log_path):
    assert client.post("/api/trials", json=a_trial(client, player=HOSTILE)).status_code == 201
    players = client.get("/report")
    assert HOSTILE not in players.text and "&lt;script&gt;f()&lt;/script&gt;" in players.text
    report = client.get("/report", params={"player": HOSTILE})
    assert report.status_code == 200, report.text[:300]
    assert HOSTILE not in report.text and "&lt;script&gt;" in report.text
    unknown = client.get("/report", params={"player": "<b>nobody</b>"})
    assert unknown.status_code == 400 and "<b>nobody</b>" not in unknown.text
    progress = client.get("/me", params={"player": HOSTILE})
    assert progress.status_code == 200 and HOSTILE not in progress.text and "&lt;script&gt;" in progress.text


def test_the_report_page_is_served_from_memory_and_writes_nothing(client, log_path, monkeypatch):
    import tempfile

    from diavolo_stats.analytics import report

    def refused(*args, **kwargs):
        raise AssertionError("the report page wrote a folder")

    assert client.post("/api/trials", json=a_trial(client, player="ann")).status_code == 201
    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    monkeypatch.setattr(report, "write_folder", refused)
    page = client.get("/report", params={"player": "ann"})
    assert page.status_code == 200 and "Diavolo drill report" in page.text and "data:image/png;base64," in page.text


def test_an_ambiguous_closest_accepts_the_nearest_color_and_grey(client, log_path, monkeypatch):
    # red's nearest die 100 mm from the command die, black's 108 mm: within the 10 % tolerance.
    positions = {"command": [150, 150], "black": [[150, 258], [20, 280], [40, 280]],
                 "red": [[250, 150], [280, 20], [280, 40]], "white": [[20, 20], [40, 20], [60, 20]]}
    dice = {"black": [1, 2, 3], "red": [4, 5, 6], "white": [1, 1, 1]}
    from diavolo_stats.core.rules import Roll
    from diavolo_stats.drill import deal

    # The server deals this roll (it refuses a trial on a roll it never dealt).
    monkeypatch.setattr(deal, "roll", lambda variant, rng: Roll(Command.CLOSEST, dice, positions))
    answers = {}
    for number, answer in enumerate(("red", "grey", "black"), start=1):
        trial = a_trial(client, number, command="closest", dice=dice, positions=positions, answer=answer)
        response = client.post("/api/trials", json=trial)
        assert response.status_code == 201, response.text
        answers[answer] = response.json()["correct"]
        assert response.json()["expected"] == "grey" and sorted(response.json()["accepted"]) == ["grey", "red"]
    assert answers == {"red": True, "grey": True, "black": False}
    assert list(load_logs([log_path])["correct"]) == [True, True, False]


def test_the_session_summary_leads_with_the_librarys_sentences(client, log_path):
    for number in (1, 2):
        assert client.post("/api/trials", json=a_trial(client, number)).status_code == 201
    summary = client.get(f"/api/sessions/{SESSION}/summary", params={"player": "Ann"}).json()
    library = summarize_session(load_logs([log_path]), SESSION)
    assert summary["sentences"] == library.sentences() and summary["rows"] == library.rows()
    assert summary["sentences"][1].startswith("Accuracy: ") and "of 2 right" in summary["sentences"][1]
    # The table's headings are words, the library's own (the page shows them; the rows keep field names).
    assert summary["headings"] == {column: SUMMARY_HEADINGS[column] for column in SUMMARY_TEXT_COLUMNS}
    assert "accuracy_pct" not in summary["headings"].values() and "median_ms" in summary["rows"][0]


def test_the_drill_page_takes_its_limits_and_defaults_from_the_library(client):
    page = client.get("/drill").text
    served = json.loads(re.search(r'<script type="application/json" id="drill-settings">(.*?)</script>', page,
                                  re.DOTALL).group(1))
    assert served["trials"] == {"default": DEFAULT_TRIALS, "least": 1, "most": MAX_TRIALS_PER_SESSION}
    assert served["timeout_s"]["default"] == TIMEOUT_S and served["feedback_ms"]["default"] == FEEDBACK_MS
    # The keys of each game offered (the server holds the box's): its colors and grey, as the terminal's.
    assert served["keys"] == {name: DrillSettings(player="Ann", variant=Variant.preset(name)).keys
                              for name in BROWSER_VARIANTS}
    assert f'max="{MAX_TRIALS_PER_SESSION}"' in page


def test_every_bad_parameter_is_named_at_once(client):
    # A script sees every field that is wrong, so the answer names them all, not the first alone.
    answer = client.get("/api/odds", params={"dice_per_color": "0", "sides": "1", "tolerance": "-1"})
    assert answer.status_code == 400 and answer.json()["field"] == "dice_per_color"
    named = [part.split(":")[0] for part in answer.json()["error"].split("; ")]
    assert named == ["dice_per_color", "sides", "tolerance"]


def test_a_served_game_of_more_colors_gets_keys_for_each_and_a_color_the_drill_cannot_paint_is_refused(log_path):
    four = Variant(colors=("black", "red", "white", "green"))
    with TestClient(create_app(log_path, variant=four), base_url=ORIGIN) as client:
        page = client.get("/drill").text
    served = json.loads(re.search(r'id="drill-settings">(.*?)</script>', page, re.DOTALL).group(1))
    assert served["keys"]["served"] == {"black": "b", "red": "r", "white": "w", "green": "e", "grey": "g"}
    assert 'name="key_served_green"' in page  # a field for green's key, the served game's
    with pytest.raises(InputError, match="^colors: the drill has no screen color for teal; it knows black, red"):
        create_app(log_path, variant=Variant(colors=("black", "red", "teal")))


def test_every_color_the_drill_paints_has_its_look_in_the_pages_stylesheet(client):
    from diavolo_stats.drill.looks import COMMAND_DIE_LOOK, DIE_LOOKS, css_color

    answer = client.get("/looks.css")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/css")
    for color, look in {**DIE_LOOKS, "grey": COMMAND_DIE_LOOK}.items():
        assert f".die-{color} .face {{ fill: {css_color(look.background)};" in answer.text
        assert f".answer-{color}, .grab-{color}, .devil-{color} {{ background: {css_color(look.background)}; " \
               f"color: {css_color(look.digit)};" in answer.text
    assert '<link rel="stylesheet" href="/looks.css">' in client.get("/drill").text


def test_an_answer_is_any_color_of_the_trials_game_and_no_other(log_path):
    four = Variant(colors=("black", "red", "white", "green"))
    with TestClient(create_app(log_path, variant=four), base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
        roll = client.get("/api/roll", params={"seed": 7, "trial": 1, "variant": "served"}).json()
        served = a_trial(client, variant="served", command=roll["command"], dice=roll["dice"],
                         positions=roll["positions"], foreperiod_ms=roll["foreperiod_ms"], answer="green")
        assert client.post("/api/trials", json=served).status_code == 201
        box = client.post("/api/trials", json=a_trial(client, 2, answer="green"))
        assert box.status_code == 400 and box.json()["field"] == "answer"
        assert "must be one of black, red, white, grey" in box.json()["error"]
    assert load_logs([log_path])["answer"].tolist() == ["green"]


def test_the_game_forms_say_each_reading_of_the_rules_in_the_librarys_words(client, monkeypatch):
    # The pages state no rule of their own (the devils' cap, who wins): what the library says, they show.
    from diavolo_stats.game.settings import DEVILS, DEVILS_WORDS, END_WORDS, EndRule

    monkeypatch.setitem(DEVILS_WORDS, "rulebook", "a cap the test chose")
    monkeypatch.setitem(END_WORDS, EndRule.FIRST_OUT, "an end the test chose")
    for path in ("/play", "/room"):
        page = client.get(path).text
        shown = dict(re.findall(r'<option value="([a-z-]+)">\1: ([^<]*)</option>', page))
        assert {name: shown[name] for name in DEVILS} == DEVILS_WORDS, path
        assert {EndRule(name): shown[name] for name in (rule.value for rule in EndRule)} == END_WORDS, path
        assert shown["rulebook"] == "a cap the test chose" and shown["first-out"] == "an end the test chose"


def test_every_pages_name_field_lets_in_what_the_library_says_a_log_may_hold(client, monkeypatch):
    from diavolo_stats.names import MAX_PLAYER_LENGTH
    from diavolo_stats.web.templating import templates

    assert templates.env.globals["max_player_length"] == MAX_PLAYER_LENGTH
    monkeypatch.setitem(templates.env.globals, "max_player_length", 7)  # the pages say the library's, not their own
    fields = {path: re.findall(r'<input name="(?:player|name)"[^>]*maxlength="([^"]*)"', client.get(path).text)
              for path in ("/drill", "/play", "/room")}
    assert fields == {"/drill": ["7"], "/play": ["7"], "/room": ["7", "7"]}


def test_the_drills_help_names_the_ties_answer_and_its_key_as_the_library_does(client, monkeypatch):
    from diavolo_stats.core.variant import GREY
    from diavolo_stats.drill.settings import answer_keys
    from diavolo_stats.web.templating import templates

    keys = answer_keys(Variant(), {})
    assert templates.env.globals["grey"] == GREY
    assert f"<kbd>{keys[GREY]}</kbd> for {GREY}," in client.get("/drill").text
    monkeypatch.setitem(templates.env.globals, "grey", "black")  # the page says the library's name, not its own
    assert f"<kbd>{keys['black']}</kbd> for black," in client.get("/drill").text


def test_the_page_scripts_name_no_built_in_command_and_the_play_pages_serve_the_librarys_table(client):
    from pathlib import Path

    from diavolo_stats.game import live
    from diavolo_stats.game.engine import MAX_GEMS

    scripts = Path(__file__).parents[2] / "diavolo_stats" / "web" / "static"
    # The scripts that draw a table (the explorer's edits a variant's commands, and asks for closest's simulation).
    for script in set(scripts.glob("*.js")) - {scripts / "explore.js"}:
        text = script.read_text(encoding="utf-8")
        for command in Command:  # the words come with each roll, or in the page: never from the script
            assert f'"{command.value}"' not in text and f"{command.value}:" not in text, (script.name, command)
        # nor the devils on the table (each roll and grab carries them) or a live round's result time (the game's)
        for typed in ("grey: 1", f"{live.RESULT_MS}", "devils_per_color"):
            assert typed not in text, (script.name, typed)
    for path in ("/play", "/room"):
        page = client.get(path).text
        served = re.search(r'<script type="application/json" id="play-settings">(.*?)</script>', page, re.S)
        assert json.loads(served.group(1)) == {"max_gems": MAX_GEMS}
