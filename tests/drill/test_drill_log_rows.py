"""No row can stop a reader: the timestamps the writer and the reader allow, and rows skipped with one warning."""

from __future__ import annotations

import re
import warnings
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest
from helpers.drill_logs import trial_row

from diavolo_stats.core import workers
from diavolo_stats.drill.log import COLUMNS, DrillLog, FollowedLog, SkippedRowsWarning, load_logs, reader
from diavolo_stats.drill.log.schema import EARLIEST, LATEST, MAX_AHEAD
from diavolo_stats.errors import InputError

TIMESTAMP = COLUMNS.index("timestamp")

# Times no drill has, each of which stopped every reader of the log (OutOfBoundsDatetime, OverflowError).
OUT_OF_RANGE = ["0001-01-01T00:00:00.000000+00:00", "1677-09-21T00:00:00.000000+00:00",
                "2262-04-12T00:00:00.000000+00:00", "9999-12-31T23:59:59.999999+00:00",
                "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "1999-12-31T23:59:59.999999+00:00"]


def log_with_timestamp(path, cell: str):
    """A log of trials 1 to 3 whose trial 2 has `cell` for its timestamp (as a hand or a bug would write it)."""
    log = DrillLog(path)
    for trial in (1, 2, 3):
        log.append(trial_row(trial))
    lines = path.read_text(encoding="utf-8").splitlines()
    cells = lines[2].split(",")
    cells[TIMESTAMP] = cell
    lines[2] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("cell", OUT_OF_RANGE)
def test_a_row_of_a_time_no_drill_has_is_skipped_with_a_warning_naming_its_line(tmp_path, cell):
    path = log_with_timestamp(tmp_path / "drills.csv", cell)
    with pytest.warns(SkippedRowsWarning, match=f"^{re.escape(str(path))}: skipped 1 row .*line 3: timestamp must "
                                                r"be an ISO 8601 time with its zone from 2000-01-01 to 2199-12-31"):
        frame = load_logs([path])
    assert frame["trial"].tolist() == [1, 3]
    assert str(frame["timestamp"].dtype) == "datetime64[ns, UTC]"


def test_the_first_and_last_moments_of_the_range_are_read(tmp_path):
    first, last = EARLIEST, LATEST - timedelta(microseconds=1)
    for moment in (first, last):
        path = log_with_timestamp(tmp_path / f"{moment.year}.csv", moment.isoformat(timespec="microseconds"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frame = load_logs([path])
        assert frame.loc[frame["trial"] == 2, "timestamp"].iloc[0] == moment


def test_an_offset_is_read_as_the_utc_time_it_is(tmp_path):
    path = log_with_timestamp(tmp_path / "drills.csv", "2024-05-01T23:30:00.000000+14:00")
    frame = load_logs([path])
    assert frame.loc[frame["trial"] == 2, "timestamp"].iloc[0] == datetime(2024, 5, 1, 9, 30, tzinfo=timezone.utc)


def test_several_bad_rows_give_one_warning_naming_each_line(tmp_path):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    for trial in range(1, 9):
        log.append(trial_row(trial))
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace(",true,", ",yes,", 1)                 # line 3: correct
    lines[4] = lines[4].rsplit(",", 1)[0]                               # line 5: a cell short
    lines[7] = lines[7].replace("2024-05-01T", "0001-01-01T")            # line 8: a time no drill has
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = load_logs([path])
    skipped = [warning for warning in caught if issubclass(warning.category, SkippedRowsWarning)]
    assert len(skipped) == 1, [str(warning.message) for warning in caught]
    message = str(skipped[0].message)
    assert "skipped 3 rows" in message
    assert re.search(r"line 3: correct must be true or false.*line 5: 21 cells.*line 8: timestamp must be", message)
    assert frame["trial"].tolist() == [1, 3, 5, 6, 8]


@pytest.mark.timeout(60, method="thread")  # a deadlock would hang the pool's exit: end the process
def test_rows_the_dice_refuse_are_the_same_read_on_one_thread_as_on_several(tmp_path, monkeypatch):
    # The dice's checks take the answers' encodings from the reader's other threads; on one thread (in a worker
    # process) the dice's read comes first and encodes them itself, and does not wait for a thread that will not come.
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    for trial in range(1, 7):
        log.append(trial_row(trial))
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace(",red,red,true,", ",red,green,false,", 1)  # line 3: an answer of no die's color
    lines[4] = lines[4].replace('""black"": [', '""black"": [7, ', 1)  # line 5: a 7 on a die of six faces
    lines[6] = lines[6].replace('"[""red""]"', '"[""grey""]"', 1)  # line 7: accepted without the expected answer
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reads = []
    for one_thread in (False, True):
        monkeypatch.setattr(workers, "_in_a_worker", one_thread)
        assert workers.threads() == (1 if one_thread else workers.CORES)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = load_logs([path])
        reads.append((frame, [str(warning.message) for warning in caught]))
    (frame, said), (alone, said_alone) = reads
    assert frame["trial"].tolist() == [1, 3, 5]
    assert re.search(r"skipped 3 rows .*line 3: answer .*line 5: dice .*line 7: accepted", said[0])
    pd.testing.assert_frame_equal(alone, frame)
    assert said_alone == said


@pytest.mark.timeout(60, method="thread")  # a hung read would hang the pool's exit: end the process
def test_an_interrupt_while_the_reader_queues_its_encodings_ends_the_read(tmp_path, monkeypatch):
    # The dice's read takes the encodings queued after it: a Ctrl-C while they are queued must not leave it waiting.
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    for trial in range(1, 4):
        log.append(trial_row(trial))

    class Interrupted(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            if isinstance(fn, reader._Encodings):
                raise KeyboardInterrupt
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(reader, "ThreadPoolExecutor", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        load_logs([path])


def test_a_log_of_only_bad_rows_reads_as_no_rows(tmp_path):
    path = log_with_timestamp(tmp_path / "drills.csv", OUT_OF_RANGE[0])
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0], lines[2]]) + "\n", encoding="utf-8")
    with pytest.warns(SkippedRowsWarning, match="line 2: timestamp"):
        assert len(load_logs([path])) == 0


@pytest.mark.parametrize("moment", [
    datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),              # before the first day Python holds in UTC
    datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-14))),    # after the last
    datetime(1999, 12, 31, 23, 59, tzinfo=timezone.utc),                  # before EARLIEST
    "0001-01-01T00:00:00Z",
])
def test_the_writer_refuses_a_time_outside_the_range_naming_the_field(moment):
    with pytest.raises(InputError, match="^timestamp: must be an ISO 8601 time with its zone from 2000-01-01"):
        trial_row(timestamp=moment)


def test_the_writer_refuses_a_time_far_ahead_of_its_clock_but_not_a_little():
    now = datetime.now(timezone.utc)
    trial_row(timestamp=now + MAX_AHEAD - timedelta(minutes=5))
    with pytest.raises(InputError, match="^timestamp: .* is more than 1 day ahead of this computer's clock$"):
        trial_row(timestamp=now + MAX_AHEAD + timedelta(minutes=5))
    with pytest.raises(InputError, match="^timestamp: "):
        trial_row(timestamp=datetime(2099, 1, 1, tzinfo=timezone.utc))


def test_a_followed_log_reads_only_what_was_appended_and_starts_over_when_replaced(tmp_path):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    log.append(trial_row(1))
    followed = FollowedLog(path, ["session_id", "trial"])
    rows, restarted = followed.new_rows()
    assert rows["trial"].tolist() == [1] and restarted
    log.append_rows([trial_row(2), trial_row(3)])
    rows, restarted = followed.new_rows()
    assert rows["trial"].tolist() == [2, 3] and not restarted
    assert followed.new_rows()[0].empty
    other = tmp_path / "other.csv"
    DrillLog(other).append(trial_row(7))
    other.replace(path)  # another log moved over this one
    rows, restarted = followed.new_rows()
    assert rows["trial"].tolist() == [7] and restarted


def test_a_followed_frame_is_what_load_logs_gives(tmp_path):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    log.append(trial_row(1))
    followed = FollowedLog(path)
    followed.frame()
    log.append(trial_row(2, expected="grey", accepted=("grey",), answer="grey"))
    log.append(trial_row(3, answer="none", correct=False, latency_ms=None, timed_out=True))
    frame, loaded = followed.frame(), load_logs([path])
    assert frame.dtypes.astype(str).to_dict() == loaded.dtypes.astype(str).to_dict()
    assert frame.astype(str).equals(loaded.astype(str))
    assert list(frame["answer"].cat.categories) == list(loaded["answer"].cat.categories)


def test_a_followed_frame_keeps_the_names_sorted_as_sessions_and_players_come(tmp_path):
    """Sessions and players are categories in their sorted order, as a groupby of their text orders them: a name
    that sorts before those read so far, appended, takes its place among them, the rows keeping their own."""
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    log.append(trial_row(1, session_id="session-b", player="Mia"))
    followed = FollowedLog(path)
    followed.frame()
    log.append_rows([trial_row(2, session_id="session-a", player="Ana"),
                     trial_row(3, session_id="session-c", player="Mia")])
    frame, loaded = followed.frame(), load_logs([path])
    for column, names in (("session_id", ["session-a", "session-b", "session-c"]), ("player", ["Ana", "Mia"])):
        assert list(frame[column].cat.categories) == list(loaded[column].cat.categories) == names
    assert frame["player"].tolist() == loaded["player"].tolist() == ["Mia", "Ana", "Mia"]
    assert frame["session_id"].tolist() == ["session-b", "session-a", "session-c"]
    assert frame.groupby("player", observed=True).size().tolist() == [1, 2]


def test_a_name_guarded_and_the_same_name_unguarded_are_one_player(tmp_path):
    """A player's name is read unguarded (`files.guard_cell`): a log holding "'=x" (as the writer guards it) and
    "=x" (written by hand) has one player, "=x"."""
    path = tmp_path / "drills.csv"
    DrillLog(path).append_rows([trial_row(1, player="=x"), trial_row(2, player="Bo")])
    with open(path, "a", encoding="utf-8") as log:
        log.write(path.read_text(encoding="utf-8").splitlines()[1].replace("'=x", "=x").replace(",1,", ",3,", 1)
                  + "\n")
    loaded = load_logs([path])
    assert loaded["player"].tolist() == ["=x", "Bo", "=x"]
    assert list(loaded["player"].cat.categories) == ["=x", "Bo"]
