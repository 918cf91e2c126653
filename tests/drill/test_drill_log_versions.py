"""Drill logs of schema 1 still load, are never appended to, and `diavolo log upgrade` turns them into
schema 2 losing nothing."""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone

import pytest
from helpers.cli import assert_one_line_error
from helpers.drill_logs import trial_row, v1_line, write_v1_log

from diavolo_stats.drill.log import (
    COLUMNS,
    DrillLog,
    TrialRow,
    TruncatedLogWarning,
    load_logs,
    upgrade_log,
)
from diavolo_stats.errors import InputError


def v2_row(trial: int, expected: str = "red", answer: str = "red") -> TrialRow:
    return trial_row(trial, session_id="old-session", player="=Ana", command="highest-die",
                     timestamp=datetime(2024, 5, 1, 12, 0, trial, tzinfo=timezone.utc),
                     positions={"command": [150.0, 150.0], "tolerance": 0.1}, expected=expected, answer=answer,
                     correct=answer == expected, latency_ms=700.5 + trial, foreperiod_ms=800.0, seed=3,
                     app_version="0.9.0")


def test_a_version_1_log_loads_as_terminal_rows_accepting_their_expected_answer(tmp_path):
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    write_v1_log(old, [v2_row(1), v2_row(2, expected="grey", answer="red")])
    DrillLog(new).append(v2_row(3))
    frame = load_logs([old, new])
    assert frame["schema_version"].tolist() == [1, 1, 2]
    assert frame["interface"].tolist() == ["terminal"] * 3
    assert [json.loads(cell) for cell in frame["accepted"]] == [["red"], ["grey"], ["red"]]
    assert frame["correct"].tolist() == [True, False, True]
    assert frame["player"].tolist() == ["=Ana"] * 3


def test_the_drill_never_appends_to_a_version_1_log_and_names_the_upgrade_command(tmp_path):
    path = tmp_path / "drills.csv"
    original = write_v1_log(path, [v2_row(1)])
    with pytest.raises(InputError) as refused:
        DrillLog(path)
    message = str(refused.value)
    assert "\n" not in message and f"diavolo log upgrade {path}" in message and "schema 1" in message
    assert path.read_bytes() == original
    assert list(tmp_path.iterdir()) == [path]


def test_upgrade_keeps_every_version_1_row_byte_for_byte_and_the_original_as_a_backup(tmp_path):
    path = tmp_path / "drills.csv"
    rows = [v2_row(1), v2_row(2, expected="grey", answer="grey"), v2_row(3, answer="white")]
    original = write_v1_log(path, rows, crlf_row=2)
    result = upgrade_log(path)

    backup = tmp_path / "drills.csv.schema1.bak"
    assert (result.log, result.backup, result.row_count) == (path, backup, 3)
    assert backup.read_bytes() == original
    old_lines = original.split(b"\n")
    new_lines = path.read_bytes().split(b"\n")
    assert len(new_lines) == len(old_lines)
    assert new_lines[0] == ",".join(COLUMNS).encode()
    for old, new, row in zip(old_lines[1:-1], new_lines[1:-1], rows):
        # Every byte of the v1 row after its version, then the two new cells (before a CR line end).
        body, cr = (old[:-1], b"\r") if old.endswith(b"\r") else (old, b"")
        added = f',terminal,"[""{row.expected}""]"'.encode()
        assert new == b"2" + body[1:] + added + cr
    assert old_lines[-1] == new_lines[-1] == b""

    before, after = load_logs([backup.rename(tmp_path / "backup.csv")]), load_logs([path])
    same = [c for c in before.columns if c not in ("schema_version", "source")]
    assert before[same].equals(after[same])
    assert after["schema_version"].tolist() == [2, 2, 2]
    DrillLog(path).append(v2_row(4))
    assert len(load_logs([path])) == 4


def test_upgrade_carries_a_row_without_its_line_end_over_as_the_cut_row_it_is(tmp_path):
    # Rows are written with their line end in one write: a last row without one was cut, even where
    # the cut fell after its last cell; it is carried over as it is, for the next drill to move aside.
    for name, tail in (("cut.csv", v1_line(v2_row(2))[:40]), ("whole.csv", v1_line(v2_row(2))[:-1])):
        path = tmp_path / name
        write_v1_log(path, [v2_row(1)], tail=tail)
        upgrade_log(path)
        assert path.read_text(encoding="utf-8").endswith("\n" + tail)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert len(load_logs([path])) == 1
        assert [w.category for w in caught] == [TruncatedLogWarning]


@pytest.mark.parametrize("content, message", [
    (None, "already a drill log of schema 2"),
    (b"name,score\nada,3\n", "line 1: not a drill log"),
])
def test_upgrade_refuses_what_is_not_a_version_1_log_and_writes_nothing(tmp_path, content, message):
    path = tmp_path / "drills.csv"
    if content is None:
        DrillLog(path).append(v2_row(1))
    else:
        path.write_bytes(content)
    before = sorted(tmp_path.iterdir())
    data = path.read_bytes()
    with pytest.raises(InputError, match=message):
        upgrade_log(path)
    assert path.read_bytes() == data and sorted(tmp_path.iterdir()) == before


def test_upgrade_never_overwrites_an_earlier_backup(tmp_path):
    path = tmp_path / "drills.csv"
    original = write_v1_log(path, [v2_row(1)])
    (tmp_path / "drills.csv.schema1.bak").write_bytes(b"an earlier backup")
    with pytest.raises(InputError, match="schema1.bak exists"):
        upgrade_log(path)
    assert path.read_bytes() == original
    assert (tmp_path / "drills.csv.schema1.bak").read_bytes() == b"an earlier backup"


def test_diavolo_log_upgrade_says_what_it_did_and_errors_are_one_line(tmp_path, diavolo):
    path = tmp_path / "drills.csv"
    write_v1_log(path, [v2_row(1), v2_row(2)])
    result = diavolo("log", "upgrade", str(path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (f"upgraded {path} to drill log schema 2 (2 rows); "
                                     f"the original is kept as {path}.schema1.bak")
    one = tmp_path / "one.csv"
    write_v1_log(one, [v2_row(1)])
    assert diavolo("log", "upgrade", str(one), cwd=tmp_path).stdout.startswith(
        f"upgraded {one} to drill log schema 2 (1 row); ")
    assert_one_line_error(diavolo("log", "upgrade", str(path), cwd=tmp_path), "already a drill log of schema 2")
    assert_one_line_error(diavolo("log", "upgrade", str(tmp_path / "none.csv"), cwd=tmp_path), "no such drill log")
    for folder in (".", "/"):  # a folder with no name of its own, which no backup's name can be made from
        assert_one_line_error(diavolo("log", "upgrade", folder, cwd=tmp_path), "is a folder, not a file")
    assert_one_line_error(diavolo("log", "upgrade", "", cwd=tmp_path), "FILE: must be a file path, got ''")
