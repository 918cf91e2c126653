"""The web drill and the drill log under forged input and failure: a bad time is refused, a bad row never stops a
page, a replaced log is never appended to, and a trial is stored once by any number of servers."""

from __future__ import annotations

import threading

import pytest
from helpers.api import SESSION, a_trial
from helpers.browser import ORIGIN
from helpers.drill_logs import lock_waits
from starlette.testclient import TestClient

from diavolo_stats.drill.log import COLUMNS, load_logs
from diavolo_stats.web.app import create_app
from diavolo_stats.web.trials import TrialStore, trial_row


@pytest.mark.parametrize("timestamp", [
    "0001-01-01T00:00:00Z", "1677-09-21T00:00:00Z", "2262-04-12T00:00:00Z", "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "2099-01-01T00:00:00Z",
])
def test_a_trial_of_a_time_no_drill_has_is_refused_and_every_page_still_answers(client, log_path, timestamp):
    assert client.post("/api/trials", json=a_trial(client, 1)).status_code == 201
    response = client.post("/api/trials", json=a_trial(client, 2, timestamp=timestamp))
    assert response.status_code == 400, response.text
    assert response.json()["field"] == "timestamp"
    assert load_logs([log_path])["trial"].tolist() == [1]
    assert client.get(f"/api/sessions/{SESSION}/summary", params={"player": "Ann"}).status_code == 200
    assert client.get("/api/roll", params={"seed": 1, "trial": 3, "adaptive": "true", "player": "Ann"}
                      ).status_code == 200


def test_a_row_no_reader_can_use_stops_no_page(client, log_path):
    for number in (1, 2):
        assert client.post("/api/trials", json=a_trial(client, number)).status_code == 201
    lines = log_path.read_text(encoding="utf-8").splitlines()
    cells = lines[1].split(",")
    cells[COLUMNS.index("timestamp")] = "0001-01-01T00:00:00.000000+00:00"  # as a forged trial once stored it
    lines[1] = ",".join(cells)
    log_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with TestClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as restarted:
        summary = restarted.get(f"/api/sessions/{SESSION}/summary", params={"player": "Ann"})
        assert summary.status_code == 200
        assert restarted.get("/api/roll", params={"seed": 1, "trial": 3, "adaptive": "true", "player": "Ann"}
                             ).status_code == 200
        assert restarted.get("/report").status_code == 200
        assert restarted.get("/report", params={"player": "Ann"}).status_code == 200
        assert restarted.post("/api/trials", json=a_trial(restarted, 3)).status_code == 201


def test_a_log_replaced_under_the_server_is_never_appended_to(client, log_path, tmp_path):
    assert client.post("/api/trials", json=a_trial(client, 1)).status_code == 201
    foreign = tmp_path / "scores.csv"
    foreign.write_text("name,score\nada,3\n")
    foreign.replace(log_path)
    response = client.post("/api/trials", json=a_trial(client, 2))
    assert response.status_code == 503 and "was replaced by another file" in response.json()["error"]
    assert log_path.read_text() == "name,score\nada,3\n"


def test_two_servers_on_one_log_store_a_trial_once_even_when_both_check_at_once(client, log_path, monkeypatch):
    """The second server's check comes between the first one's check and its append: it waits for the log's
    lock, then finds the trial there."""
    first, second = TrialStore(log_path), TrialStore(log_path)
    row = trial_row(a_trial(client, 1))
    results, others = [], []
    take_token = first._take_token

    def meanwhile(session_id: str) -> None:  # the first store found the trial new and is about to write it
        take_token(session_id)
        other = threading.Thread(target=lambda: results.append(second.add(row)[0]))
        others.append(other)
        other.start()
        assert waiting.wait(60)  # it found the log locked by the first store

    waiting = lock_waits(monkeypatch)

    first._take_token = meanwhile
    assert first.add(row)[0] is True
    others[0].join(30)
    assert results == [False]
    assert load_logs([log_path])["trial"].tolist() == [1]
