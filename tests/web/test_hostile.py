"""The API under hostile input and failure: bounded heavy work, storage failures the page retries."""

from __future__ import annotations

import threading

from starlette.testclient import TestClient

from diavolo_stats.web import api
from diavolo_stats.web.app import create_app
from diavolo_stats.web.busy import HEAVY_AT_ONCE, RETRY_AFTER_S
from web.browser_harness import ORIGIN
from web.test_api import SESSION, a_trial


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
