"""The writer re-checks the log before each append and stores a trial once, under its lock, across programs."""

from __future__ import annotations

import multiprocessing
import threading

import pytest
from helpers.drill_logs import appended, lock_waits, trial_row

from diavolo_stats.drill.log import COLUMNS, DrillLog, load_logs
from diavolo_stats.errors import InputError


def another_log_moved_over(path):
    other = path.with_name("other.csv")
    DrillLog(other).append(trial_row(5, session_id="someone-else"))
    other.replace(path)  # a log of the same schema, but another file


def a_foreign_csv_moved_over(path):
    foreign = path.with_name("scores.csv")
    foreign.write_text("name,score\nada,3\n")
    foreign.replace(path)


def its_header_changed_in_place(path):
    with open(path, "r+b") as file:  # the same file (inode), its header overwritten
        file.write(b"name")


@pytest.mark.parametrize("change, refusal", [
    (another_log_moved_over, "^log: {path} was replaced by another file since this program opened it"),
    (a_foreign_csv_moved_over, "^log: "),
    (its_header_changed_in_place, "is not a drill log of schema 2"),
], ids=["another log moved over", "a foreign csv moved over", "header changed in place"])
def test_a_log_changed_under_its_open_writer_is_refused_and_left_as_it_was(tmp_path, change, refusal):
    path = tmp_path / "drills.csv"
    log = appended(path, trial_row(1))
    change(path)
    before = path.read_bytes()
    with pytest.raises(InputError, match=refusal.format(path=path)):
        log.append(trial_row(2))
    assert path.read_bytes() == before


def test_a_deleted_log_is_started_again_with_its_header(tmp_path):
    path = tmp_path / "drills.csv"
    log = appended(path, trial_row(1))
    path.unlink()
    log.append(trial_row(2))
    assert path.read_text(encoding="utf-8").splitlines()[0] == ",".join(COLUMNS)
    assert load_logs([path])["trial"].tolist() == [2]


def test_append_once_stores_a_trial_once_and_reads_what_other_writers_stored(tmp_path):
    path = tmp_path / "drills.csv"
    first, second = DrillLog(path), DrillLog(path)
    assert first.append_once(trial_row(1)) == (True, ("red", ("red",), True))
    again = trial_row(1, answer="white", correct=False)  # sent again with another answer
    assert first.append_once(again) == (False, ("red", ("red",), True))  # the first one stands
    assert second.append_once(again) == (False, ("red", ("red",), True))  # stored by another writer
    second.append(trial_row(2, expected="grey", accepted=("grey", "red"), answer="red"))  # a terminal drill's row
    assert first.append_once(trial_row(2)) == (False, ("grey", ("grey", "red"), True))
    assert first.stored("session-a", 2) == ("grey", ("grey", "red"), True)
    assert first.stored("session-a", 3) is None
    assert first.append_once(trial_row(2, session_id="other"))[0] is True
    assert sorted(zip(*load_logs([path])[["session_id", "trial"]].to_numpy().T)) == [
        ("other", 2), ("session-a", 1), ("session-a", 2)]


def test_the_once_only_check_and_the_append_are_one_step_under_the_lock(tmp_path, monkeypatch):
    """Another writer that tries to store the same trial between this one's check and its append waits for the
    lock, then finds the trial stored: it is never written twice."""
    path = tmp_path / "drills.csv"
    first, second = DrillLog(path), DrillLog(path)
    second_result, others = [], []

    def meanwhile() -> None:  # called by `first` once it found the trial new, before it writes
        other = threading.Thread(target=lambda: second_result.append(second.append_once(trial_row(1))[0]))
        others.append(other)
        other.start()
        assert waiting.wait(60)  # it found the log locked by `first`

    waiting = lock_waits(monkeypatch)

    assert first.append_once(trial_row(1), before_append=meanwhile)[0] is True
    others[0].join(30)
    assert second_result == [False]
    assert load_logs([path])["trial"].tolist() == [1]


def test_a_refusal_before_the_append_writes_nothing(tmp_path):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)

    def refuse() -> None:
        raise InputError("too fast", field="trial")

    with pytest.raises(InputError, match="too fast"):
        log.append_once(trial_row(1), before_append=refuse)
    assert len(load_logs([path])) == 0
    assert log.append_once(trial_row(1))[0] is True


def _store_all(path: str, start, count: int) -> None:
    log = DrillLog(path)
    start.wait(60)
    for trial in range(1, count + 1):
        log.append_once(trial_row(trial))


@pytest.mark.slow  # two processes
def test_two_programs_storing_the_same_trials_at_once_store_each_once(tmp_path):
    path = tmp_path / "drills.csv"
    DrillLog(path)
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    writers = [context.Process(target=_store_all, args=(str(path), start, 200)) for _ in range(2)]
    for writer in writers:
        writer.start()
    start.set()
    for writer in writers:
        writer.join(120)
        assert writer.exitcode == 0
    assert sorted(load_logs([path])["trial"]) == list(range(1, 201))


def test_a_row_is_formatted_once_when_made_and_written_as_formatted(tmp_path, monkeypatch):
    from diavolo_stats.drill.log import schema

    formatted = []
    real = schema.format_row
    monkeypatch.setattr(schema, "format_row", lambda row: formatted.append(row) or real(row))
    rows = [trial_row(trial) for trial in (1, 2)]
    assert len(formatted) == 2  # the schema's checks, when each row is made
    DrillLog(tmp_path / "drills.csv").append_rows(rows)
    assert len(formatted) == 2  # written as they were formatted then
    written = (tmp_path / "drills.csv").read_text(encoding="utf-8").split("\n", 1)[1]
    assert written == "".join(schema.csv_line(real({name: getattr(row, name) for name in row.__dataclass_fields__}))
                              for row in rows)
