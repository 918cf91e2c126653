"""The browser drill of the game the server holds (`diavolo serve --variant FILE`, `app.state.variant`): its rolls
carry its commands' words and the rules' reason, its trials are judged by its rules and logged with them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.browser import ORIGIN
from starlette.testclient import TestClient

from diavolo_stats.core.rules import resolve
from diavolo_stats.core.variant import Variant
from diavolo_stats.core.variant_file import read_variant, variant_named
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.log.rules import played_variant
from diavolo_stats.drill.scheduler import variant_cells
from diavolo_stats.web.app import create_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
DRILLABLE = sorted(path.stem for path in EXAMPLES.glob("*.toml") if path.stem not in ("broken", "box"))
SESSION = "0b7e5c1a-2f4d-4e6b-9a1c-3d5e7f9a1b2c"


def holding(log: Path, variant: Variant) -> TestClient:
    app = create_app(log)
    app.state.variant = variant  # what `diavolo serve --variant FILE` holds
    return TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN})


def posted(client: TestClient, number: int, roll: dict, answer: str = "grey") -> dict:
    return {"session_id": SESSION, "trial": number, "player": "Ann", "variant": "served", "command_first": False,
            "command": roll["command"], "dice": roll["dice"], "positions": roll["positions"], "answer": answer,
            "latency_ms": 640.5, "too_early": False, "timed_out": False, "foreperiod_ms": roll["foreperiod_ms"],
            "seed": 3, "timestamp": "2026-11-30T12:00:00.000Z"}


@pytest.mark.parametrize("name", DRILLABLE)
def test_the_served_files_trials_are_judged_by_its_rules_and_logged_with_them(tmp_path, name):
    variant = read_variant(EXAMPLES / f"{name}.toml")
    log = tmp_path / "drills.csv"
    with holding(log, variant) as client:
        rolls = [client.get("/api/roll", params={"variant": "served", "seed": 3, "trial": n}).json()
                 for n in range(1, 13)]
        for number, roll in enumerate(rolls, start=1):
            command = variant.command(roll["command"])
            assert roll["commands"][command.value]["label"] == command.label
            assert roll["commands"][command.value]["rule"] == command.rule
            assert roll["reason"] == resolve(variant, command, roll["dice"], roll["positions"]).reason
            response = client.post("/api/trials", json=posted(client, number, roll))
            assert response.status_code == 201, response.json()
            assert response.json()["expected"] == roll["expected"]
    frame = load_logs([log])
    assert frame["command"].astype(str).tolist() == [roll["command"] for roll in rolls]
    assert [json.loads(cell) for cell in frame["dice"]] == [roll["dice"] for roll in rolls]
    assert {played_variant(cell) for cell in frame["variant"]} == {variant}
    assert (frame["interface"] == "browser").all()


def test_a_roll_of_the_served_file_shows_its_own_command_by_its_code_and_numerals_for_a_face_of_zero(tmp_path):
    variant = read_variant(EXAMPLES / "uneven-colors.toml")  # white: faces 0 to 3
    with holding(tmp_path / "drills.csv", variant) as client:
        roll = client.get("/api/roll", params={"variant": "served", "seed": 3, "trial": 1}).json()
        assert roll["pips"] is False and len(roll["dice"]["white"]) == 4
        sixes = read_variant(EXAMPLES / "sixes.toml")
    with holding(tmp_path / "other.csv", sixes) as client:
        roll = client.get("/api/roll", params={"variant": "served", "seed": 3, "trial": 1}).json()
        assert roll["pips"] is True and roll["commands"]["most-sixes"]["code"] == "MS"
        page = client.get("/drill").text
        assert '<option value="served" selected>sixes (the server&#39;s)</option>' in page
        assert "the color with the most sixes wins; a tie is broken by the lowest total" in page


def test_served_is_refused_by_name_when_the_server_holds_a_preset(tmp_path):
    with holding(tmp_path / "drills.csv", Variant()) as client:
        response = client.get("/api/roll", params={"variant": "served", "seed": 3, "trial": 1})
        assert response.status_code == 400 and response.json()["field"] == "variant"
        assert "served" not in client.get("/drill").text.split('name="variant"')[1].split("</select>")[0]


def test_the_drills_setup_offers_the_game_the_server_holds_first(tmp_path):
    def chosen(variant: Variant | None) -> list[str]:
        app = create_app(tmp_path / "drills.csv")
        if variant is not None:
            app.state.variant = variant
        with TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN}) as client:
            select = client.get("/drill").text.split('name="variant"')[1].split("</select>")[0]
        return [option.split('"')[1] for option in select.split("<option")[1:] if " selected>" in option]

    assert chosen(read_variant(EXAMPLES / "sixes.toml")) == ["served"]
    assert chosen(variant_named("kids")) == ["kids"]
    assert chosen(None) == ["standard"]


def test_a_trial_claiming_a_command_the_served_game_has_not_is_refused_and_not_logged(tmp_path):
    log = tmp_path / "drills.csv"
    with holding(log, read_variant(EXAMPLES / "sixes.toml")) as client:
        roll = client.get("/api/roll", params={"variant": "served", "seed": 3, "trial": 1}).json()
        response = client.post("/api/trials", json={**posted(client, 1, roll), "command": "most-alike"})
        assert response.status_code == 400 and response.json()["field"] == "command"
    assert not log.exists() or len(load_logs([log])) == 0


@pytest.mark.parametrize("name", DRILLABLE)
def test_adaptive_rolls_of_the_served_file_are_of_the_type_of_roll_the_scheduler_names(tmp_path, name):
    variant = read_variant(EXAMPLES / f"{name}.toml")
    cells = variant_cells(variant)
    with holding(tmp_path / "drills.csv", variant) as client:
        for number in range(1, 7):  # a history of the player's, judged by the file's rules
            roll = client.get("/api/roll", params={"variant": "served", "seed": 3, "trial": number}).json()
            assert client.post("/api/trials", json=posted(client, number, roll)).status_code == 201
        for number in range(7, 19):
            roll = client.get("/api/roll", params={"variant": "served", "seed": 3, "trial": number,
                                                   "adaptive": "true", "player": "Ann"}).json()
            kind, command = roll["roll_type"]["kind"], variant.command(roll["command"])
            assert roll["roll_type"]["of_kind"] and (command, kind) in cells
            assert (roll["expected"] == "grey") is (kind == "grey")
