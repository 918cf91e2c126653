"""The drill log: what is written is what `load_logs` gives back, and nothing a person does corrupts a log."""

from __future__ import annotations

import csv
import dataclasses
import errno
import json
import multiprocessing
import os
import re
import warnings
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers.drill_logs import appended, trial_row

from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.table_model import TableModel
from diavolo_stats.core.variant import Command, Variant
from diavolo_stats.drill.log import (
    COLUMNS,
    COLUMNS_V1,
    LOADED_COLUMNS,
    SCHEMA_VERSION,
    DrillLog,
    SkippedRowsWarning,
    TruncatedLogWarning,
    default_log_path,
    load_logs,
    load_rows,
    logged_positions,
)
from diavolo_stats.errors import InputError

FIRST_SCHEMA_COLUMNS = ("schema_version, session_id, player, trial, timestamp, variant, dice_per_color, command_first, "
                 "command, dice, positions, expected, answer, correct, latency_ms, too_early, timed_out, "
                 "foreperiod_ms, seed, app_version")


def test_columns_are_the_first_twenty_then_interface_and_accepted():
    assert COLUMNS == tuple(FIRST_SCHEMA_COLUMNS.split(", ")) + ("interface", "accepted")
    assert COLUMNS_V1 == tuple(FIRST_SCHEMA_COLUMNS.split(", "))
    assert SCHEMA_VERSION == 2


def test_a_new_log_starts_with_the_header_and_each_append_adds_one_line(tmp_path):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    assert path.read_text() == ",".join(COLUMNS) + "\n"
    log.append(trial_row(1))
    log.append(trial_row(2))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    assert next(csv.reader([lines[1]]))[:4] == ["2", "session-a", "Ana", "1"]


def test_a_folder_is_created_for_a_new_log(tmp_path):
    DrillLog(tmp_path / "data" / "drills.csv")
    assert (tmp_path / "data" / "drills.csv").is_file()


def test_load_logs_gives_back_every_value_with_the_documented_dtypes(tmp_path):
    path = tmp_path / "drills.csv"
    appended(path, trial_row(1), trial_row(2, answer="none", correct=False, latency_ms=None, timed_out=True,
                                          seed=None, expected="grey", command_first=True))
    frame = load_logs([path])
    assert tuple(frame.columns) == LOADED_COLUMNS
    assert str(frame["timestamp"].dtype) == "datetime64[ns, UTC]"
    for column in ("variant", "app_version", "interface"):
        assert isinstance(frame[column].dtype, pd.StringDtype), column
    for column in ("session_id", "player", "command", "expected", "answer", "source"):
        assert isinstance(frame[column].dtype, pd.CategoricalDtype), column
    assert list(frame["source"].cat.categories) == [str(path)]
    assert list(frame["command"].cat.categories) == [c.value for c in Command]
    for column in ("correct", "too_early", "timed_out", "command_first", "is_tie"):
        assert frame[column].dtype == bool, column
    for column in ("latency_ms", "foreperiod_ms"):
        assert frame[column].dtype == np.float64, column
    for column in ("trial", "dice_per_color", "schema_version"):
        assert frame[column].dtype == np.int64, column
    assert str(frame["seed"].dtype) == "Int64"
    first, second = frame.iloc[0], frame.iloc[1]
    assert first["timestamp"] == pd.Timestamp("2024-05-01T12:00:01.123456Z")
    assert first["latency_ms"] == 812.25 and np.isnan(second["latency_ms"])
    assert first["seed"] == 7 and pd.isna(second["seed"])
    assert json.loads(first["dice"]) == trial_row().dice
    assert json.loads(first["positions"]) == trial_row().positions
    assert [json.loads(cell) for cell in frame["accepted"]] == [["red"], ["grey"]]
    assert list(frame["is_tie"]) == [False, True]
    assert list(frame["timed_out"]) == [False, True]
    assert list(frame["command_first"]) == [False, True]
    assert set(frame["source"]) == {str(path)}


def test_the_reader_parses_in_its_pool_jemallocs_where_pyarrow_has_it(tmp_path, monkeypatch):
    import pyarrow as pa

    from diavolo_stats.drill.log import reader

    try:
        assert reader.parse_pool().backend_name == pa.jemalloc_memory_pool().backend_name == "jemalloc"
    except NotImplementedError:  # a pyarrow without it: Arrow's default
        assert reader.parse_pool().backend_name == pa.default_memory_pool().backend_name
    counted = pa.proxy_memory_pool(reader.parse_pool())  # what the parse takes from it, counted apart
    monkeypatch.setattr(reader, "parse_pool", lambda: counted)
    path = tmp_path / "drills.csv"
    appended(path, trial_row(1), trial_row(2))
    assert counted.max_memory() == 0
    assert len(load_logs([path])) == 2
    assert counted.max_memory() > 0


def test_load_logs_of_no_files_is_an_empty_frame_with_the_same_columns_and_dtypes(tmp_path):
    path = tmp_path / "drills.csv"
    DrillLog(path).append(trial_row())
    empty, full = load_logs([]), load_logs([path])
    assert len(empty) == 0
    assert empty.dtypes.astype(str).to_dict() == full.dtypes.astype(str).to_dict()


@pytest.mark.parametrize("read", [lambda: load_logs([], lines=True),
                                  lambda: load_rows(load_logs([], ["session_id", "trial"], lines=True), COLUMNS)])
def test_rows_of_no_files_come_from_no_source(tmp_path, read):
    path = tmp_path / "drills.csv"
    DrillLog(path).append(trial_row())
    sources, theirs = read()["source"].cat.categories, load_logs([path])["source"].cat.categories
    assert list(sources) == [] and sources.dtype == theirs.dtype


def test_load_logs_joins_several_files_and_names_the_source_of_each_row(tmp_path):
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for number, path in enumerate(paths, start=1):
        log = DrillLog(path)
        for trial in range(1, number + 1):
            log.append(trial_row(trial))
    frame = load_logs(paths)
    assert list(frame["source"]) == [str(paths[0])] + [str(paths[1])] * 2
    assert list(frame["source"].cat.categories) == [str(path) for path in paths]
    assert list(frame.index) == [0, 1, 2]
    assert list(load_logs(paths[::-1])["source"].cat.categories) == [str(path) for path in paths[::-1]]


@pytest.mark.parametrize("name", ["Ana Maria", "Σοφία", "Дмитрий", "=cmd|' /C calc'!A0", "+1", "-2", "@SUM(A1)",
                                  "'quoted", "../x", "../../etc/passwd", "a/b\\c", "名前 😀"])
def test_any_player_name_round_trips_and_never_leaves_the_logs_folder(tmp_path, name):
    folder = tmp_path / "logs"
    path = folder / "drills.csv"
    DrillLog(path).append(trial_row(player=name))
    assert load_logs([path])["player"].tolist() == [name]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["drills.csv", "logs"]  # no lock file either


@pytest.mark.parametrize("name", ["=cmd", "+1", "-2", "@SUM(A1)"])
def test_a_name_a_spreadsheet_would_run_as_a_formula_is_stored_as_text(tmp_path, name):
    path = tmp_path / "drills.csv"
    DrillLog(path).append(trial_row(player=name))
    stored = next(csv.reader([path.read_text(encoding="utf-8").splitlines()[1]]))[COLUMNS.index("player")]
    assert stored == "'" + name


@pytest.mark.parametrize("name", ["", "   ", "tab\there", "line\nbreak", "x" * 101])
def test_names_that_would_break_a_row_are_refused_naming_the_field(tmp_path, name):
    log = DrillLog(tmp_path / "drills.csv")
    with pytest.raises(InputError, match="^player: "):
        log.append(trial_row(player=name))
    assert len((tmp_path / "drills.csv").read_text().splitlines()) == 1


@pytest.mark.parametrize("changes, field", [
    ({"trial": 0}, "trial"), ({"correct": "yes"}, "correct"), ({"latency_ms": -1.0}, "latency_ms"),
    ({"latency_ms": float("nan")}, "latency_ms"), ({"expected": "none"}, "expected"),
    ({"answer": "blue"}, "answer"), ({"command": "fastest"}, "command"),
    ({"timestamp": datetime(2024, 5, 1)}, "timestamp"), ({"seed": 2**63}, "seed"),
    ({"dice": {"black": ["six"]}}, "dice"),
])
def test_a_value_outside_the_schema_is_refused_before_anything_is_written(tmp_path, changes, field):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    with pytest.raises(InputError, match=f"^{field}: "):
        log.append(trial_row(**changes))
    assert path.read_text() == ",".join(COLUMNS) + "\n"


def test_only_a_typed_row_is_appended(tmp_path):
    row = dataclasses.asdict(trial_row())
    with pytest.raises(InputError, match="^row: must be a TrialRow, got dict"):
        DrillLog(tmp_path / "drills.csv").append(row)


@pytest.mark.parametrize("changes, field", [
    ({"answer": "white"}, "correct"),                       # correct must be: answer in accepted
    ({"accepted": ("red", "grey"), "answer": "grey", "correct": False}, "correct"),
    ({"accepted": ("grey", "red")}, "accepted"),            # expected first
    ({"accepted": ("red", "blue")}, "accepted"),            # a color of the dice or grey
    ({"accepted": ("red", "red")}, "accepted"),
    ({"accepted": "red"}, "accepted"),
    ({"interface": "phone"}, "interface"),
    ({"too_early": True}, "answer"),                         # a too-early key is no answer
    ({"answer": "none", "correct": False, "latency_ms": None}, "answer"),  # no answer: too early or timed out
    ({"answer": "none", "correct": False, "timed_out": True}, "latency_ms"),
])
def test_a_row_whose_verdict_does_not_follow_from_its_answer_is_refused(changes, field):
    with pytest.raises(InputError, match=f"^{field}: "):
        trial_row(**changes)


def test_correct_is_true_for_any_accepted_answer(tmp_path):
    path = tmp_path / "drills.csv"
    appended(path, trial_row(1, expected="grey", accepted=("grey", "red"), answer="red", correct=True),
             trial_row(2, expected="grey", accepted=("grey", "red"), answer="grey", correct=True))
    frame = load_logs([path])
    assert frame["correct"].tolist() == [True, True]
    assert [json.loads(cell) for cell in frame["accepted"]] == [["grey", "red"], ["grey", "red"]]
    assert frame["interface"].tolist() == ["terminal", "terminal"]


def test_a_foreign_file_is_never_appended_to_and_left_byte_for_byte(tmp_path):
    path = tmp_path / "drills.csv"
    original = b"name,score\r\nada,3\n\xff binary tail"
    path.write_bytes(original)
    with pytest.raises(InputError, match=str(path)):
        DrillLog(path)
    assert path.read_bytes() == original
    assert list(tmp_path.iterdir()) == [path]  # not even a lock file beside it


def test_load_logs_names_the_file_of_a_foreign_header(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("name,score\nada,3\n")
    with pytest.raises(InputError, match=f"^{path}: line 1: "):
        load_logs([path])


def test_load_logs_names_a_missing_file(tmp_path):
    with pytest.raises(InputError, match=f"^{tmp_path / 'nope.csv'}: no such drill log"):
        load_logs([tmp_path / "nope.csv"])


def test_a_truncated_last_row_is_skipped_with_a_warning_naming_file_and_line(tmp_path):
    path = tmp_path / "drills.csv"
    appended(path, trial_row(1), trial_row(2))
    data = path.read_bytes()
    path.write_bytes(data[:-25])  # a crash in the middle of writing row 2
    with pytest.warns(TruncatedLogWarning, match=f"{path}: line 3 "):
        frame = load_logs([path])
    assert frame["trial"].tolist() == [1]


def test_appending_after_a_crash_mid_row_moves_the_partial_row_aside_and_keeps_the_log_loadable(tmp_path):
    path = tmp_path / "drills.csv"
    partial = tmp_path / "drills.csv.partial"
    log = appended(path, trial_row(1))
    for crashed in ("1,session-a,Ana,2,2024-05", "1,session-a,Ana,4,"):
        with open(path, "a") as file:
            file.write(crashed)
        with pytest.warns(TruncatedLogWarning, match=re.escape(f"moved to {partial}")):
            log.append(trial_row(3))
    assert load_logs([path])["trial"].tolist() == [1, 3, 3]
    # Nothing a person produced is thrown away: each fragment is kept, one per line.
    assert partial.read_text() == "1,session-a,Ana,2,2024-05\n1,session-a,Ana,4,\n"


def test_a_last_row_without_its_line_end_is_moved_aside_even_when_it_looks_whole(tmp_path):
    # The writer writes each row with its line end in one write: a row without one was cut, even where
    # the cut fell after its last cell (app_version "0.1.0" cut to "0.1" still parses).
    path = tmp_path / "drills.csv"
    log = appended(path, trial_row(1), trial_row(2))
    whole = path.read_bytes()
    path.write_bytes(whole.removesuffix(b"\n")[:-2])
    with pytest.warns(TruncatedLogWarning, match=re.escape(f"{path}: line 3 is incomplete")):
        assert load_logs([path])["trial"].tolist() == [1]
    with pytest.warns(TruncatedLogWarning, match=re.escape(f"moved to {path}.partial")):
        log.append(trial_row(3))
    assert load_logs([path])["trial"].tolist() == [1, 3]
    assert (tmp_path / "drills.csv.partial").read_bytes() == whole.splitlines(keepends=True)[2][:-3] + b"\n"


@pytest.mark.parametrize("content", ["", "schema_version", "schema_version,session_id,pla", ",".join(COLUMNS),
                                     ",".join(COLUMNS) + "\r"])
def test_a_log_holding_only_the_start_of_its_header_is_a_new_empty_log(tmp_path, content):
    path = tmp_path / "drills.csv"
    path.write_text(content)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_logs([path]).empty
        DrillLog(path).append(trial_row(1))
    assert load_logs([path])["trial"].tolist() == [1]
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)


def test_each_append_fsyncs_the_log_with_its_row_before_returning(tmp_path, monkeypatch):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    synced = []  # (inode, size) of every file fsynced, when it was fsynced
    real_fsync = os.fsync

    def recording_fsync(descriptor):
        real_fsync(descriptor)
        status = os.fstat(descriptor)
        synced.append((status.st_ino, status.st_size))

    monkeypatch.setattr(os, "fsync", recording_fsync)
    for trial in (1, 2, 3):
        synced.clear()
        log.append(trial_row(trial))
        status = path.stat()
        assert (status.st_ino, status.st_size) in synced, trial


def refuse_writing(monkeypatch, path: Path, error_number: int) -> None:
    """Make opening `path` for writing fail as it would on a read-only file or a full disk (tests run as root,
    where permission bits do not stop a write)."""
    real_open = os.open

    def open_refusing(file, flags, *args, **kwargs):
        if Path(file) == path and flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(error_number, os.strerror(error_number), str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_refusing)


def test_a_log_that_cannot_be_appended_to_is_refused_before_the_first_trial(tmp_path, monkeypatch):
    path = tmp_path / "drills.csv"
    DrillLog(path).append(trial_row(1))
    before = path.read_bytes()
    refuse_writing(monkeypatch, path, errno.EACCES)
    with pytest.raises(InputError, match=re.escape(f"log: cannot open {str(path)!r} (Permission denied)")):
        DrillLog(path)
    assert path.read_bytes() == before


def test_a_log_that_becomes_unwritable_mid_session_is_an_input_error_naming_it(tmp_path, monkeypatch):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    refuse_writing(monkeypatch, path, errno.EROFS)
    with pytest.raises(InputError, match=re.escape(f"log: cannot open {str(path)!r} (Read-only")):
        log.append(trial_row(1))
    monkeypatch.undo()
    folder = tmp_path / "logs"
    moved = DrillLog(folder / "drills.csv")
    folder.rename(tmp_path / "elsewhere")
    folder.write_text("a file where the log's folder was")
    with pytest.raises(InputError, match=re.escape(str(folder / "drills.csv"))):
        moved.append(trial_row(1))


def test_a_full_disk_while_writing_a_row_is_an_input_error_and_the_log_recovers(tmp_path, monkeypatch):
    path = tmp_path / "drills.csv"
    log = appended(path, trial_row(1))
    real_write = os.write
    calls = []

    def write_half_then_fail(descriptor, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(descriptor, data[:len(data) // 2])

    monkeypatch.setattr(os, "write", write_half_then_fail)
    with pytest.raises(InputError, match=re.escape(f"log: cannot write to {path} (No space left on device)")):
        log.append(trial_row(2))
    monkeypatch.undo()
    with pytest.warns(TruncatedLogWarning):
        log.append(trial_row(3))  # space freed: the half row is moved aside, the log goes on
    assert load_logs([path])["trial"].tolist() == [1, 3]


def test_a_failing_fsync_is_an_input_error_naming_the_log(tmp_path, monkeypatch):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)

    def failing_fsync(descriptor):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(InputError, match=re.escape(f"log: cannot save {path} to disk (fsync) (Input/output error)")):
        log.append(trial_row(1))


def test_load_logs_names_a_file_it_cannot_read(tmp_path, monkeypatch):
    path = tmp_path / "drills.csv"
    DrillLog(path).append(trial_row(1))

    real_open = open

    def unreadable(file, *args, **kwargs):
        if Path(file) == path:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", unreadable)
    with pytest.raises(InputError, match=re.escape(f"{path}: cannot read the drill log (Permission denied)")):
        load_logs([path])


def test_logged_positions_carry_the_whole_table_so_a_row_alone_gives_its_answer():
    variant = Variant(table=TableModel(scatter_mm=400.0, die_mm=12.0, tolerance=0.3))
    rolled = roll(variant, np.random.default_rng(5))
    positions = json.loads(json.dumps(logged_positions(rolled.positions, variant.table)))
    table = TableModel(**{f.name: positions[f.name] for f in dataclasses.fields(TableModel)})
    assert table == variant.table
    assert set(positions) == set(rolled.positions) | {f.name for f in dataclasses.fields(TableModel)}
    from_row = resolve(Variant(table=table), Command.CLOSEST, rolled.dice, positions)
    assert from_row == resolve(variant, Command.CLOSEST, rolled.dice, rolled.positions)


@pytest.mark.parametrize("edit, message", [
    (lambda line: line.replace(",true,", ",yes,", 1), "line 2: correct must be true or false"),
    (lambda line: line.rsplit(",", 1)[0], "line 2: 21 cells, the schema has 22"),
    (lambda line: line.split(",", 1)[0], "line 2: 1 cell, the schema has 22"),
    (lambda line: line.replace("highest-total", "fastest"), "line 2: command must be one of highest-total, "),
    (lambda line: line.replace("812.250", "fast"), "line 2: latency_ms must be"),
    (lambda line: line.replace("2024-05-01T", "yesterday "), "line 2: timestamp must be"),
    (lambda line: line.replace(",red,red,", ",red,blue,"), "line 2: answer must be"),
    # The reader's shortcuts: a whole number without a regex (a digit beyond ASCII is none), the dice by shape,
    # a name checked once per distinct name.
    (lambda line: line.replace("highest-total", "Highest-Total"), "line 2: command must be a command's name"),
    (lambda line: line.replace(",Ana,1,", ",Ana,\u0661,", 1), "line 2: trial must be a whole number"),
    (lambda line: line.replace("[2, 3, 6]", "[2, 3, 6", 1), "line 2: dice must be a JSON object"),
    (lambda line: line.replace("[2, 3, 6]", "[2, 3, 06]", 1).replace('"red"', '"re[1]d"', 1),
     "line 2: dice must be a JSON object"),
    # A JSON object that is no roll's dice: the writer never writes it, and the rolls' arrays could not hold it.
    (lambda line: line.replace("[2, 3, 6]", "6", 1), "line 2: dice must be a JSON object of color names, each with"),
    (lambda line: line.replace("[2, 3, 6]", "[]", 1), "line 2: dice must be a JSON object of color names, each with"),
    (lambda line: line.replace("[2, 3, 6]", "[2.5]", 1), "line 2: dice must be a JSON object of color names, each"),
    # A control character, plain ASCII or not, in a text cell and in a name (the reader's two ways of finding one).
    (lambda line: line.replace("session-a", "session\x1b[2Ja", 1), "line 2: session_id must be non-empty text"),
    (lambda line: line.replace("session-a", "session\x7fa", 1), "line 2: session_id must be non-empty text"),
    (lambda line: line.replace("session-a", "session\u2028a", 1), "line 2: session_id must be non-empty text"),
    (lambda line: line.replace(",Ana,", ",A\x07na,", 1), "line 2: player: "),
    (lambda line: line.replace(",Ana,", ",A\u200bna,", 1), "line 2: player: "),
])
def test_a_malformed_complete_row_is_skipped_with_a_warning_naming_file_and_line(tmp_path, edit, message):
    path = tmp_path / "drills.csv"
    appended(path, trial_row(1), trial_row(2))
    header, first, second = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([header, edit(first), second]) + "\n", encoding="utf-8")
    with pytest.warns(SkippedRowsWarning, match=f"^{re.escape(str(path))}: skipped 1 row .*: {message}"):
        frame = load_logs([path])
    assert frame["trial"].tolist() == [2]


def test_default_log_is_data_drills_csv_unless_diavolo_log_is_set(monkeypatch, tmp_path):
    monkeypatch.delenv("DIAVOLO_LOG", raising=False)
    assert default_log_path() == Path("data") / "drills.csv"
    monkeypatch.setenv("DIAVOLO_LOG", str(tmp_path / "mine.csv"))
    assert default_log_path() == tmp_path / "mine.csv"
    for blank in ("", "  "):  # an empty variable is unset, as a shell's convention has it; not the folder ''
        monkeypatch.setenv("DIAVOLO_LOG", blank)
        assert default_log_path() == Path("data") / "drills.csv"


def _append_many(path: str, session: str, count: int) -> None:
    log = DrillLog(path)
    for trial in range(1, count + 1):
        log.append(trial_row(trial, session_id=session, player=session * 40))


@pytest.mark.slow  # two real processes
def test_two_processes_appending_at_once_never_interleave_rows(tmp_path):
    path = tmp_path / "drills.csv"
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_append_many, args=(str(path), name, 150)) for name in ("a", "b")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
        assert writer.exitcode == 0
    frame = load_logs([path])
    assert len(frame) == 300
    for name in ("a", "b"):
        rows = frame.loc[frame["session_id"] == name]
        assert rows["trial"].tolist() == list(range(1, 151))
        assert (rows["player"] == name * 40).all()
    assert path.read_text(encoding="utf-8").count("\n") == 301  # one header, no torn or merged lines


def test_kept_rows_are_the_frames_rows_as_a_mask_gives_them_from_columns_of_several_chunks(tmp_path):
    # A large log's columns come in many Arrow chunks (one a megabyte parsed): every column type of the frame (text,
    # categories, times, numbers, flags, the dice's lists) keeps its rows, types and index labels.
    from diavolo_stats.drill.log import kept_rows

    log = DrillLog(tmp_path / "drills.csv")
    log.append_rows([trial_row(trial, player=("Ana", "Bo")[trial % 2]) for trial in range(1, 31)])
    drills = load_logs([log.path], lines=True)
    chunked = pd.concat([drills.iloc[:10], drills.iloc[10:20], drills.iloc[20:]])
    assert chunked["variant"].array._pa_array.num_chunks == 3
    kept = (chunked["player"] == "Bo").to_numpy()
    pd.testing.assert_frame_equal(kept_rows(chunked, kept), chunked[kept])
    pd.testing.assert_frame_equal(kept_rows(chunked, np.zeros(len(chunked), dtype=bool)), chunked.iloc[:0])
