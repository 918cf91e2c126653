"""Nothing lost, nothing escapes: guarded CSV cells, whole-or-nothing outputs, no writes through links."""

from __future__ import annotations

import csv
import fcntl
import io
import os
import re
import threading
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers.drill_logs import trial_row

from diavolo_stats.analytics.report import write_report
from diavolo_stats.drill.log import DrillLog, SkippedRowsWarning, TrialRow, load_logs
from diavolo_stats.drill.log import writer as log_writer
from diavolo_stats.errors import InputError
from diavolo_stats.files import (
    atomic_file,
    csv_text,
    frame_csv_text,
    read_frame_csv,
    write_atomically,
    write_folder,
)
from diavolo_stats.game import engine
from diavolo_stats.game import report as game_module
from diavolo_stats.game.report import game_report

REPO = Path(__file__).resolve().parent.parent
SIMULATION = REPO / "data" / "simulation_standard.csv"
RISKY_NAMES = ['=HYPERLINK("http://x","y")', "+1", "-1", "@SUM(A1)", "'quoted", "\tTab first"]


def drill_row(player: str, trial: int, correct: bool) -> TrialRow:
    return trial_row(trial, session_id=f"s-{player}", player=player, answer="red" if correct else "black",
                     correct=correct, latency_ms=700.0 + trial, seed=1,
                     timestamp=datetime(2024, 5, 1, 12, 0, trial % 60, tzinfo=timezone.utc))


def risky_log(path: Path) -> Path:
    log = DrillLog(path)
    for name in RISKY_NAMES[:4]:
        for trial in range(1, 4):
            log.append(drill_row(name, trial, trial != 2))
    return path


# -- one CSV writer, one reader ---------------------------------------------------------------------


def test_every_text_cell_a_spreadsheet_would_run_is_guarded_and_numbers_stay_numbers():
    text = csv_text([{"name": name, "score": -1, "share": -0.5} for name in RISKY_NAMES], ["name", "score", "share"])
    rows = list(csv.reader(io.StringIO(text)))
    assert [row[0] for row in rows[1:]] == ["'" + name for name in RISKY_NAMES]
    assert {(row[1], row[2]) for row in rows[1:]} == {("-1", "-0.5")}
    frame = pd.DataFrame({"name": RISKY_NAMES + ["plain"], "score": np.arange(-3, 4)})
    assert read_frame_csv(io.StringIO(frame_csv_text(frame)), keep_default_na=False).equals(frame)


def test_the_report_summary_guards_player_names_and_reads_back_as_typed(tmp_path):
    log = risky_log(tmp_path / "drills.csv")
    write_report([log], tmp_path / "report", simulation_path=SIMULATION)
    lines = (tmp_path / "report" / "summary.csv").read_text(encoding="utf-8").splitlines()
    stored = {next(csv.reader([line]))[0] for line in lines[1:]}
    assert stored == {"'" + name for name in RISKY_NAMES[:4]}
    assert set(read_frame_csv(tmp_path / "report" / "summary.csv")["player"]) == set(RISKY_NAMES[:4])


def test_game_out_guards_the_winner_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    specs = ["=HYPERLINK(1).toml", "+1.toml"]
    for spec in specs:
        Path(spec).write_text('base = "average"\n')
    game_report(specs, games=200, seed=3, design_games=0, out="games.csv")
    winners = {row["winner"] for row in csv.DictReader(open("games.csv", encoding="utf-8"))} - {""}
    assert winners and all(winner.startswith("'") for winner in winners)
    assert set(read_frame_csv("games.csv", keep_default_na=False)["winner"]) - {""} <= set(specs)


# -- whole or not at all ------------------------------------------------------------------------------


def test_an_interrupted_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "keep.csv"
    path.write_text("precious\n")
    with pytest.raises(KeyboardInterrupt), atomic_file(path) as stream:
        stream.write("half of a new ")
        raise KeyboardInterrupt
    assert path.read_text() == "precious\n"
    assert os.listdir(tmp_path) == ["keep.csv"]


def test_game_out_interrupted_between_chunks_leaves_the_old_file(tmp_path, monkeypatch):
    out = tmp_path / "games.csv"
    out.write_text("precious\n")
    monkeypatch.setattr(engine, "CHUNK_GAMES", 50)
    real = game_module.records_frame

    def interrupted(records, names=None, first_game=0):
        if first_game:
            raise KeyboardInterrupt  # Ctrl-C while the second chunk is written
        return real(records, names, first_game)

    monkeypatch.setattr(game_module, "records_frame", interrupted)
    with pytest.raises(KeyboardInterrupt):
        game_report(["preset:novice", "preset:expert"], games=200, seed=1, design_games=0, out=out)
    assert out.read_text() == "precious\n"
    assert os.listdir(tmp_path) == ["games.csv"]


def test_game_out_in_chunks_is_the_whole_record_with_game_numbers_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "CHUNK_GAMES", 64)
    game_report(["preset:novice", "preset:expert"], games=200, seed=1, design_games=0, out=tmp_path / "g.csv")
    saved = pd.read_csv(tmp_path / "g.csv")
    assert saved["game"].tolist() == list(range(200))


def test_a_report_replaces_the_old_one_whole(tmp_path):
    log = risky_log(tmp_path / "drills.csv")
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "summary.csv").write_text("old\n")
    (folder / "tie_frequency_kids.png").write_bytes(b"old png")
    write_report([log], folder, simulation_path=SIMULATION)
    names = sorted(os.listdir(folder))
    assert "tie_frequency_kids.png" not in names  # the old report's files are gone with it
    assert names == sorted(["summary.csv", "accuracy.png", "latency.png", "learning_curve.png",
                            "tie_vs_non_tie.png", "tie_frequency_standard.png", "report.html"])
    assert sorted(os.listdir(tmp_path)) == ["drills.csv", "report"]  # no draft left beside it


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names an open file through /proc")
def test_a_folder_s_files_are_fsynced_whole_all_at_once_before_it_is_swapped_in(tmp_path, monkeypatch):
    """Each file's fsync is under way at once (one thread each: the file system commits them together) and each
    file is whole when it is fsynced, in the draft folder, before the folder takes its place."""
    contents = {f"chart_{number}.png": bytes([number]) * 1000 for number in range(6)}
    together = threading.Barrier(len(contents), timeout=60)  # broken, failing the write, if they come one by one
    synced, fsync = [], os.fsync

    def all_at_once(descriptor):
        path = Path(os.readlink(f"/proc/self/fd/{descriptor}"))
        if path.is_file():
            together.wait()
            synced.append((path.name, path.read_bytes(), path.parent.name))
        fsync(descriptor)

    monkeypatch.setattr(os, "fsync", all_at_once)
    write_folder(tmp_path / "out", contents, lambda name: True)
    assert sorted((name, data) for name, data, _ in synced) == sorted(contents.items())
    assert all(folder.startswith(".out.") for _, _, folder in synced)
    assert {path.name: path.read_bytes() for path in (tmp_path / "out").iterdir()} == contents


@pytest.mark.parametrize("make, message", [
    (lambda folder: (folder / "report.html").mkdir(), "is not a regular file"),
    (lambda folder: (folder / "notes.txt").write_text("mine"), "holds 'notes.txt', which is not a report file"),
    (lambda folder: (folder / "summary.csv").symlink_to(folder.parent / "outside.csv"), "is a symbolic link"),
])
def test_a_report_folder_that_is_not_only_a_report_is_refused_before_anything_is_written(tmp_path, make, message):
    log = risky_log(tmp_path / "drills.csv")
    outside = tmp_path / "outside.csv"
    outside.write_text("someone else's\n")
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "accuracy.png").write_bytes(b"old png")
    make(folder)
    before = sorted(os.listdir(folder))
    with pytest.raises(InputError, match=message) as raised:
        write_report([log], folder, simulation_path=SIMULATION)
    assert raised.value.field == "out_dir"
    assert sorted(os.listdir(folder)) == before
    assert (folder / "accuracy.png").read_bytes() == b"old png"
    assert outside.read_text() == "someone else's\n"
    assert sorted(os.listdir(tmp_path)) == ["drills.csv", "outside.csv", "report"]


def test_a_report_folder_that_is_a_link_is_refused(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(InputError, match="symbolic link"):
        write_folder(tmp_path / "link", {"a.txt": b"x"}, lambda name: True)
    assert os.listdir(tmp_path / "real") == []


# -- never through a link, never into a device ------------------------------------------------------


def test_an_atomic_write_refuses_a_link_and_a_fifo(tmp_path):
    target = tmp_path / "target.csv"
    target.write_text("kept\n")
    (tmp_path / "link.csv").symlink_to(target)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(InputError, match="symbolic link"):
        write_atomically(tmp_path / "link.csv", "x")
    with pytest.raises(InputError, match="not a regular file"):
        write_atomically(tmp_path / "fifo", "x")
    assert target.read_text() == "kept\n"
    assert (tmp_path / "link.csv").is_symlink()


def test_the_drill_log_is_never_written_through_a_link(tmp_path):
    real = tmp_path / "real.csv"
    DrillLog(real)
    before = real.read_bytes()
    (tmp_path / "drills.csv").symlink_to(real)
    with pytest.raises(InputError, match="symbolic link"):
        DrillLog(tmp_path / "drills.csv")
    assert real.read_bytes() == before


def test_a_linked_partial_file_never_receives_the_cut_row(tmp_path):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    log.append(drill_row("Ana", 1, True))
    with open(path, "a") as file:
        file.write("1,s-Ana,Ana,2,2024")  # a crash mid-row
    cut = path.read_bytes()
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("mine\n")
    (tmp_path / "drills.csv.partial").symlink_to(elsewhere)
    with pytest.raises(InputError, match="partial' is a symbolic link"):
        log.append(drill_row("Ana", 3, True))
    assert elsewhere.read_text() == "mine\n"
    assert path.read_bytes() == cut  # the cut row is still in the log, not lost


def test_a_log_in_proc_says_what_is_wrong_with_the_path_at_once(tmp_path):
    with pytest.raises(InputError, match=r"log: cannot write to /proc/version \(Input/output error\)"):
        DrillLog("/proc/version")


def test_two_sessions_lock_the_log_itself(tmp_path, monkeypatch):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    monkeypatch.setattr(log_writer, "LOCK_TIMEOUT_S", 0.1)
    with open(path, "rb") as other:
        fcntl.flock(other, fcntl.LOCK_EX)  # another session in the middle of writing its row
        with pytest.raises(InputError, match="stayed locked"):
            log.append(drill_row("Ana", 1, True))
    log.append(drill_row("Ana", 1, True))
    assert os.listdir(tmp_path) == ["drills.csv"]


# -- the reader applies the writer's name rules -------------------------------------------------------


@pytest.mark.parametrize("name, shown", [
    ("nul\x00byte", "U+0000"), ("tab\there", "U+0009"), ("abc\u202edcba", "U+202E"), ("zero\u200bwidth", "U+200B"),
    ("x" * 101, "at most 100 characters"),
])
def test_a_log_row_whose_player_the_writer_would_refuse_is_skipped_naming_its_line(tmp_path, name, shown):
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    log.append(drill_row("Ana", 1, True))
    log.append(drill_row("Ana", 2, True))
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2].replace(",Ana,", "," + next(iter(csv_text([{"p": name}], ["p"]).splitlines()[1:])) + ",")
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.warns(SkippedRowsWarning, match=f"skipped 1 row .*line 3: player: .*{re.escape(shown)}"):
        frame = load_logs([path])
    assert frame["trial"].tolist() == [1]


@pytest.mark.slow  # scale: fifty players' charts
def test_a_report_on_fifty_players_draws_without_a_warning(tmp_path):
    # With more players than colors a reader tells apart, the charts change form instead of piling up series.
    specs = []
    for number in range(1, 51):
        spec = tmp_path / f"p{number:02d}.toml"
        spec.write_text(f'name = "player-{number:02d}"\nbase = "average"\n')
        specs.append(str(spec))
    from diavolo_stats.analytics.synthetic import write_synthetic_log

    log = write_synthetic_log(tmp_path / "fifty.csv", specs, sessions=2, trials=30).path
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = write_report([log], tmp_path / "report", simulation_path=SIMULATION)
    assert report.summary["player"].nunique() == 50
    assert (tmp_path / "report" / "accuracy.png").stat().st_size > 0


def test_every_latency_histogram_fits_inside_its_panel():
    from diavolo_stats.analytics.charts import latency_chart

    drills = load_logs([REPO / "data" / "sample_drills.csv"])
    figure = latency_chart(drills)
    for axes in figure.axes:
        tallest = max((patch.get_path().get_extents().y1 for patch in axes.patches), default=0.0)
        assert axes.get_ylim()[1] >= tallest > 0, axes.get_title()
