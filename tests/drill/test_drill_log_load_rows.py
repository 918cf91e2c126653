"""`load_rows` reads rows again by their line: the rows a full read gives at those lines, whatever lies around them
in the file, and never another trial's (a log replaced between the two reads is named)."""

from __future__ import annotations

import csv
import io
import os
import warnings
from unittest import mock

import pandas as pd
import pytest
from helpers.drill_logs import trial_row, write_log, write_v1_log

from diavolo_stats.drill.log import (
    COLUMNS,
    FIGURE_COLUMNS,
    DrillLog,
    FollowedLog,
    SkippedRowsWarning,
    TruncatedLogWarning,
    line_marks,
    load_logs,
    load_rows,
    reader,
    upgrade_log,
)
from diavolo_stats.errors import InputError

BLACK_WINS = {"dice": {"black": [6, 6, 5], "red": [1, 2, 1], "white": [2, 3, 2]}, "expected": "black",
              "answer": "black"}


@pytest.fixture(autouse=True, params=[reader.BLOCK_BYTES, 700])  # one block for each log, or one a line or so
def blocks(request, monkeypatch):
    """Every test with Arrow parsing the logs in blocks of `param` bytes (the reader marks where each starts, and
    `load_rows` counts from the marks), and with no marks from other tests."""
    monkeypatch.setattr(reader, "BLOCK_BYTES", request.param)
    monkeypatch.setattr(line_marks, "MARKS", line_marks.LineMarks())


def read_from(read) -> tuple[object, int]:
    """(`read()`, the first byte it read of a log past the first 100, where `_opened` reads the header)."""
    with mock.patch.object(os, "pread", wraps=os.pread) as pread:
        got = read()
    return got, min(offset for _, _, offset in (call.args for call in pread.call_args_list) if offset > 100)


def log_of(path, trials, **changes):
    """A log at `path` of the default row at each trial number in `trials`, with `changes`."""
    return write_log(path, [trial_row(trial, **changes) for trial in trials])


def with_lines(path, edit):
    """Rewrite the log at `path` line by line: `edit(lines)` gets and returns its lines (bytes, with line ends)."""
    path.write_bytes(b"".join(edit(path.read_bytes().splitlines(keepends=True))))


def quietly(read):
    """`read()` with every warning an error: load_rows warns about nothing (load_logs did)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read()


def assert_same_rows(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, expected.reset_index(drop=True))


def test_the_line_column_is_each_rows_line_in_its_file_and_only_when_asked(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 4))
    with_lines(path, lambda lines: lines[:2] + [b"not,a,row\n", b"\xff\xfe\n"] + lines[2:])  # lines 3 and 4
    with pytest.warns(SkippedRowsWarning, match="line 3: .*line 4: not UTF-8"):
        frame = load_logs([path], lines=True)
    assert frame["trial"].tolist() == [1, 2, 3]
    assert frame["line"].tolist() == [2, 5, 6]
    assert str(frame["line"].dtype) == "int64"
    with pytest.warns(SkippedRowsWarning):
        assert "line" not in load_logs([path]).columns
    followed = FollowedLog(path, ["trial"], lines=True)
    with pytest.warns(SkippedRowsWarning):
        assert followed.frame()["line"].tolist() == [2, 5, 6]
    DrillLog(path).append(trial_row(4))
    assert followed.frame()["line"].tolist() == [2, 5, 6, 7]


@pytest.mark.parametrize("block", [1, 7, 700, 1 << 20])  # a byte, part of a line, a line or two, the whole file
def test_load_rows_gives_the_rows_at_those_lines_as_load_logs_types_them_whatever_the_block(tmp_path, monkeypatch,
                                                                                            block):
    path = log_of(tmp_path / "drills.csv", range(1, 40))
    every = load_logs([path], lines=True)
    wanted = every[every["trial"].isin([1, 5, 6, 7, 17, 39])]  # the first line, a run of three, the last line
    monkeypatch.setattr(line_marks, "SCAN_BYTES", block)
    got = quietly(lambda: load_rows(wanted[["session_id", "trial", "source", "line"]], COLUMNS))
    assert_same_rows(got, wanted)
    assert got["line"].tolist() == [2, 6, 7, 8, 18, 40]


def test_load_rows_reads_only_the_columns_asked_for_with_source_and_line(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 6))
    first = load_logs([path], columns=["session_id", "trial", "player"], lines=True)
    got = load_rows(first.iloc[[1, 3]], ["dice", "expected"])
    assert list(got.columns) == ["dice", "expected", "source", "is_tie", "color_dice", "dice_values", "line"]
    assert_same_rows(got, load_logs([path], columns=["dice", "expected"], lines=True).iloc[[1, 3]])


def test_malformed_lines_before_and_between_the_wanted_ones_do_not_shift_them(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 8))
    broken = [b"not,a,row\n", b"\xff\xfe\n", b"\n", b'2,"an open quote\n']
    with_lines(path, lambda lines: lines[:2] + broken + lines[2:5] + broken + lines[5:])
    with pytest.warns(SkippedRowsWarning):
        every = load_logs([path], lines=True)
    assert every["trial"].tolist() == list(range(1, 8))
    wanted = every[every["trial"].isin([2, 3, 5, 7])]
    assert_same_rows(quietly(lambda: load_rows(wanted, COLUMNS)), wanted)


def test_a_log_with_crlf_line_ends_gives_the_same_rows(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 6))
    with_lines(path, lambda lines: [line.replace(b"\n", b"\r\n") for line in lines])
    every = load_logs([path], lines=True)
    assert every["trial"].tolist() == [1, 2, 3, 4, 5]
    wanted = every.iloc[[0, 2, 3]]
    assert_same_rows(quietly(lambda: load_rows(wanted, COLUMNS)), wanted)


def test_a_row_refused_for_a_cell_the_first_read_did_not_read_is_left_out_without_a_warning(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 5))

    def break_positions(lines):
        cells = next(csv.reader([lines[2].decode()]))
        cells[COLUMNS.index("positions")] = "not a table"
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerow(cells)
        return lines[:2] + [text.getvalue().encode()] + lines[3:]

    with_lines(path, break_positions)  # trial 2
    first = load_logs([path], columns=FIGURE_COLUMNS, lines=True)
    assert first["trial"].tolist() == [1, 2, 3, 4]
    got = quietly(lambda: load_rows(first, COLUMNS))
    assert got["trial"].tolist() == [1, 3, 4]


def test_rows_of_one_session_and_trial_in_two_logs_are_each_read_from_their_own(tmp_path):
    box = log_of(tmp_path / "box.csv", range(1, 4))
    copy = log_of(tmp_path / "copy.csv", range(1, 4), **BLACK_WINS)  # the same session and trials, other rolls
    every = load_logs([box, copy], lines=True)
    wanted = every.iloc[[1, 3, 5]]  # the box's trial 2, the copy's trials 1 and 3
    got = quietly(lambda: load_rows(wanted, COLUMNS))
    assert_same_rows(got, wanted)
    assert got["expected"].tolist() == ["red", "black", "black"]
    assert got["source"].tolist() == [str(box), str(copy), str(copy)]


def test_rows_appended_and_a_row_cut_mid_write_after_the_first_read_change_nothing(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 5))
    every = load_logs([path], lines=True)
    wanted = every.iloc[[1, 3]]  # trial 4 is the file's last line
    DrillLog(path).append_rows([trial_row(5), trial_row(6)])
    with open(path, "ab") as file:
        file.write(b"2,session-a,Ana,7,2024-05")  # a crash mid-row
    assert_same_rows(quietly(lambda: load_rows(wanted, COLUMNS)), wanted)


def test_the_last_whole_line_before_a_row_cut_mid_write_is_read(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 4))
    with open(path, "ab") as file:
        file.write(b"2,session-a,Ana,4,2024-05")
    with pytest.warns(TruncatedLogWarning):
        every = load_logs([path], lines=True)
    wanted = every.iloc[[2]]
    assert_same_rows(quietly(lambda: load_rows(wanted, COLUMNS)), wanted)


def test_a_log_replaced_by_another_or_cut_between_the_reads_is_named_and_no_row_of_it_given(tmp_path):
    path = log_of(tmp_path / "drills.csv", range(1, 6))
    every = load_logs([path], columns=FIGURE_COLUMNS, lines=True)
    other = log_of(tmp_path / "other.csv", range(1, 9), session_id="session-b")
    os.replace(other, path)  # the same lines now hold another session's trials
    with pytest.raises(InputError, match=r"drills.csv: line 2 no longer holds the trial read there: the drill log "
                                         r"was replaced or rewritten while it was read; read it again$"):
        load_rows(every, COLUMNS)
    log_of(tmp_path / "other.csv", range(3, 12)).replace(path)  # the same session, other trials at each line
    with pytest.raises(InputError, match="line 4 no longer holds the trial read there"):
        load_rows(every.iloc[[2]], COLUMNS)
    log_of(tmp_path / "short.csv", range(1, 3)).replace(path)
    with pytest.raises(InputError, match=r"drills.csv: the drill log ends before line 6, read before: it was "
                                         r"replaced or cut while it was read; read it again$"):
        load_rows(every, COLUMNS)
    path.write_bytes(b"")  # cut to nothing
    with pytest.raises(InputError, match="ends before line 6"):
        load_rows(every, COLUMNS)


def test_a_log_upgraded_between_the_reads_gives_the_same_trials_from_its_new_lines(tmp_path):
    path = tmp_path / "old.csv"
    write_v1_log(path, [trial_row(trial) for trial in range(1, 6)])
    first = load_logs([path], columns=FIGURE_COLUMNS, lines=True)
    upgrade_log(path)  # schema 2, the same trials on the same lines, the file replaced
    got = quietly(lambda: load_rows(first.iloc[[1, 4]], COLUMNS))
    assert got["trial"].tolist() == [2, 5]
    assert got["schema_version"].tolist() == [2, 2]
    assert_same_rows(got, load_logs([path], lines=True).iloc[[1, 4]])


def test_no_rows_to_read_again_reads_no_file_and_gives_the_columns_asked_for(tmp_path):
    path = log_of(tmp_path / "drills.csv", [1])
    first = load_logs([path], lines=True)
    path.unlink()
    got = load_rows(first.iloc[:0], COLUMNS)
    assert got.empty
    assert list(got.columns) == list(first.columns)


def test_rows_read_without_their_lines_are_refused_saying_how_to_read_them(tmp_path):
    first = load_logs([log_of(tmp_path / "drills.csv", [1, 2])], columns=FIGURE_COLUMNS)
    with pytest.raises(InputError, match=r"^rows: load_rows needs each row's line: read the rows with "
                                         r"load_logs\(\.\.\., lines=True\) and their session_id and trial$"):
        load_rows(first, COLUMNS)


def test_load_rows_counts_line_ends_from_the_reads_marks_near_its_lines_and_finds_the_same_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(line_marks, "SCAN_BYTES", 512)
    path = log_of(tmp_path / "drills.csv", range(1, 301))
    every = load_logs([path], columns=FIGURE_COLUMNS, lines=True)
    wanted = every.iloc[[240, 296, 297, 299]]
    marked, start = read_from(lambda: quietly(lambda: load_rows(wanted, COLUMNS)))
    assert start > path.stat().st_size * 3 // 4  # the file's first three quarters are never read
    monkeypatch.setattr(line_marks, "MARKS", line_marks.LineMarks())  # no marks: counted from the header
    counted, start = read_from(lambda: quietly(lambda: load_rows(wanted, COLUMNS)))
    assert start < 4096
    assert_same_rows(marked, counted)
    assert_same_rows(marked, load_logs([path], lines=True).iloc[[240, 296, 297, 299]])


def test_a_log_grown_since_its_first_read_is_marked_as_it_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "BLOCK_BYTES", 4096)
    path = log_of(tmp_path / "drills.csv", range(1, 101))
    followed = FollowedLog(path, FIGURE_COLUMNS, lines=True)
    assert len(followed.frame()) == 100
    DrillLog(path).append_rows([trial_row(trial) for trial in range(101, 201)])
    grown = followed.frame()  # the appended rows only: their marks join the first read's
    wanted = grown.iloc[[5, 99, 100, 180, 199]]  # from both reads
    got, _ = read_from(lambda: quietly(lambda: load_rows(wanted, COLUMNS)))
    assert_same_rows(got, load_logs([path], lines=True).iloc[[5, 99, 100, 180, 199]])
    late, start = read_from(lambda: quietly(lambda: load_rows(grown.iloc[[190]], COLUMNS)))
    assert start > path.stat().st_size // 2  # counted from a mark of the second read
    assert late["trial"].tolist() == [191]


def test_a_log_rewritten_in_place_since_its_read_is_named_whatever_its_marks_say(tmp_path, monkeypatch):
    monkeypatch.setattr(line_marks, "SCAN_BYTES", 256)  # counted from the mark before each line wanted
    path = log_of(tmp_path / "drills.csv", range(1, 60))
    every = load_logs([path], columns=FIGURE_COLUMNS, lines=True)
    other = log_of(tmp_path / "other.csv", range(1, 80), session_id="session-b", player="Bartholomew",
                   seed=10**15).read_bytes()  # longer lines
    with open(path, "r+b") as file:  # the same file (device and inode), other bytes: the marks no longer hold
        file.write(other)
    with pytest.raises(InputError, match="no longer holds the trial read there"):
        load_rows(every.iloc[[3, 50, 58]], COLUMNS)
    with open(path, "r+b") as file:
        file.truncate(other.index(b"\n", len(other) // 3) + 1)  # a third of its lines
    with pytest.raises(InputError, match="ends before line 60"):
        load_rows(every.iloc[[58]], COLUMNS)
    DrillLog(path).append_rows([trial_row(trial, session_id="session-c", player="Bo") for trial in range(1, 40)])
    again = load_logs([path], columns=FIGURE_COLUMNS, lines=True)  # read from the start: its marks replace those
    wanted = again.iloc[::7]
    assert_same_rows(quietly(lambda: load_rows(wanted, COLUMNS)), load_logs([path], lines=True).iloc[::7])
