"""The drill page's requests, made by the tests through Starlette's test client."""

from __future__ import annotations

from starlette.testclient import TestClient

from diavolo_stats.drill.log import load_logs

SESSION = "0b7e5c1a-2f4d-4e6b-9a1c-3d5e7f9a1b2c"


SEED = 7


def a_trial(client: TestClient, number: int = 1, **changes) -> dict:
    """Trial `number` as the drill page sends it: the server's roll for it (seed 7), answered red in 512.3 ms,
    with `changes` made to its fields."""
    return trial_body(client.get("/api/roll", params={"seed": SEED, "trial": number}).json(), number, **changes)


def trial_body(roll: dict, number: int, **changes) -> dict:
    """The body the drill page posts for trial `number` of `roll` (what /api/roll gave for seed 7)."""
    body = {"session_id": SESSION, "trial": number, "player": "Ann", "variant": "standard",
            "command_first": False, "command": roll["command"], "dice": roll["dice"],
            "positions": roll["positions"], "answer": "red", "latency_ms": 512.34, "too_early": False,
            "timed_out": False, "foreperiod_ms": roll["foreperiod_ms"], "seed": SEED,
            "timestamp": "2026-11-30T12:00:00.000Z"}
    return {**body, **changes}


def logged_rows(log_path) -> int:
    return len(load_logs([log_path])) if log_path.exists() else 0

