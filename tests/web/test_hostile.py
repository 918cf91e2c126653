"""The API under hostile input and failure: bounded heavy work, bodies that break parsers, forged trials."""

from __future__ import annotations

import json
import threading

from starlette.testclient import TestClient

from diavolo_stats.web import api
from diavolo_stats.web.app import create_app
from diavolo_stats.web.bodies import MAX_DEPTH
from diavolo_stats.web.busy import HEAVY_AT_ONCE, RETRY_AFTER_S
from web.browser_harness import ORIGIN
from web.test_api import SESSION, a_trial, logged_rows


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
