"""The synthetic drill log: seeded, a valid drill log, players who improve, and the shipped sample."""

from __future__ import annotations

import dataclasses
import json

import pytest
from helpers.cli import REPO, assert_one_line_error, run_diavolo

from diavolo_stats.analytics.synthetic import PRACTICE_ERRORS, PRACTICE_SLOWDOWN, practised, write_synthetic_log
from diavolo_stats.core.rules import resolve
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.drill.settings import FOREPERIOD_MS
from diavolo_stats.errors import InputError
from diavolo_stats.game.players import PlayerModel

SAMPLE = REPO / "data" / "sample_drills.csv"
# The command the manual (docs/guides/report.md) gives for the shipped sample.
SAMPLE_COMMAND = ("synth-log", "--sessions", "6", "--trials", "60", "--seed", "7")


def test_same_seed_writes_the_same_log(tmp_path):
    first = write_synthetic_log(tmp_path / "a.csv", ["preset:expert"], sessions=2, trials=10, seed=3)
    second = write_synthetic_log(tmp_path / "b.csv", ["preset:expert"], sessions=2, trials=10, seed=3)
    other = write_synthetic_log(tmp_path / "c.csv", ["preset:expert"], sessions=2, trials=10, seed=4)
    assert first.trials == 20
    assert first.path.read_bytes() == second.path.read_bytes() != other.path.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.csv", "c.csv"]  # no drafts or locks left


def test_rows_are_real_rolls_resolved_by_the_rules(tmp_path):
    path = write_synthetic_log(tmp_path / "s.csv", ["preset:novice", "preset:average"], sessions=2, trials=15,
                               seed=1).path
    drills = load_logs([path])
    assert len(drills) == 60
    assert set(drills["player"]) == {"synthetic-novice", "synthetic-average"}
    assert drills.groupby("player")["session_id"].nunique().tolist() == [2, 2]
    for row in drills.itertuples():
        positions = json.loads(row.positions)
        variant = Variant(table=TableModel(tolerance=positions["tolerance"]))
        assert resolve(variant, Command(row.command), json.loads(row.dice), positions).answer == row.expected
        assert row.correct == (row.answer == row.expected)
        assert row.timed_out == (row.answer == "none")


def test_rows_carry_what_a_drill_row_carries(tmp_path):
    path = write_synthetic_log(tmp_path / "s.csv", ["preset:average"], sessions=1, trials=100, seed=2).path
    drills = load_logs([path])
    assert drills["foreperiod_ms"].between(*FOREPERIOD_MS).all()  # the drill's random wait
    table_fields = [field.name for field in dataclasses.fields(TableModel)]
    for text in drills["positions"]:
        positions = json.loads(text)
        # The dice's places, then the whole table model, in the drill's keys: a row alone gives its answer.
        assert list(positions) == ["command", *Variant().colors, *table_fields]
        assert TableModel(**{name: positions[name] for name in table_fields}) == Variant().table


def test_players_improve_with_practice():
    expert = PlayerModel.preset("expert")
    first, sixth, late = (practised(expert, n) for n in (1, 6, 1000))
    key = (Command.HIGHEST_TOTAL, False)
    assert first.skills[key].mean_ms == pytest.approx(expert.skills[key].mean_ms * (1 + PRACTICE_SLOWDOWN))
    assert 1 - first.skills[key].accuracy == pytest.approx((1 - expert.skills[key].accuracy) * (1 + PRACTICE_ERRORS))
    for cell in expert.skills:
        assert first.skills[cell].mean_ms > sixth.skills[cell].mean_ms > late.skills[cell].mean_ms
        assert first.skills[cell].accuracy <= sixth.skills[cell].accuracy <= expert.skills[cell].accuracy
    assert late.skills[key].mean_ms == pytest.approx(expert.skills[key].mean_ms, rel=0.01)


def test_an_existing_file_is_never_overwritten_by_accident(tmp_path):
    path = tmp_path / "drills.csv"
    path.write_text("my real log\n", encoding="utf-8")
    with pytest.raises(InputError, match="exists; a synthetic log writes over a file only with replace"):
        write_synthetic_log(path, ["preset:expert"], sessions=1, trials=2)
    assert path.read_text(encoding="utf-8") == "my real log\n"
    # --replace writes over a drill log only: a file of the user's own stays as it is.
    with pytest.raises(InputError, match="path: .* is not a drill log; replace only writes over a drill log"):
        write_synthetic_log(path, ["preset:expert"], sessions=1, trials=2, replace=True)
    assert path.read_text(encoding="utf-8") == "my real log\n"
    path.unlink()
    write_synthetic_log(path, ["preset:novice"], sessions=1, trials=3)
    write_synthetic_log(path, ["preset:expert"], sessions=1, trials=2, replace=True)
    assert len(load_logs([path])) == 2


def test_shipped_sample_is_what_the_documented_command_writes(tmp_path):
    result = run_diavolo(*SAMPLE_COMMAND, "--log", str(tmp_path / "sample.csv"))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "wrote 1080 synthetic trials" in result.stdout
    assert (tmp_path / "sample.csv").read_bytes() == SAMPLE.read_bytes(), (
        "data/sample_drills.csv is stale (the rolls or the player models changed): regenerate it with "
        f"diavolo {' '.join(SAMPLE_COMMAND)} --log data/sample_drills.csv --replace")
    assert set(load_logs([SAMPLE])["player"]) == {"synthetic-novice", "synthetic-average", "synthetic-expert"}


@pytest.mark.parametrize("args, fragment", [
    (["--players", "alice"], "--players: 'alice'"),
    (["--players", "preset:wizard"], "wizard"),
    (["--trials", "0"], "--trials"),
])
def test_bad_input_is_one_line(tmp_path, args, fragment):
    result = run_diavolo("synth-log", "--log", str(tmp_path / "x.csv"), *args)
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "x.csv").exists()
