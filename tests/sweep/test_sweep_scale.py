"""Same grid and seed, same output: one process, two, a local Dask cluster; killed and resumed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from helpers.cli import REPO, run_diavolo, run_diavolo_process

from diavolo_stats.sweep import SweepGrid, sweep
from diavolo_stats.sweep.results_file import JOURNAL_SUFFIX

GRID = SweepGrid(colors_count=(2, 3), dice_per_color=(1, 3), sides=(4, 6), tolerance=(0.05, 0.15), rounds=30_000,
                 seed=11)


@pytest.mark.slow  # a Dask cluster
def test_identical_output_with_one_and_two_workers_and_on_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    one = sweep(GRID, workers=1, out=tmp_path / "one.csv")
    two = sweep(GRID, workers=2, out=tmp_path / "two.csv")
    # A cluster of two worker processes on loopback, started and closed here.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        on_dask = sweep(GRID, scheduler=cluster.scheduler_address, out=tmp_path / "dask.csv")
    assert one.rows() == two.rows() == on_dask.rows()
    assert len(one.rows()) == GRID.size * (len(GRID.commands) + 1)  # and the overall grey rate
    first = (tmp_path / "one.csv").read_bytes()
    assert first == (tmp_path / "two.csv").read_bytes() == (tmp_path / "dask.csv").read_bytes()


@pytest.mark.slow  # a Dask cluster
def test_local_dask_cluster_from_the_command_line(tmp_path):
    pytest.importorskip("distributed")
    flags = ["sweep", "--colors-count", "2,3", "--dice-per-color", "1,3", "--sides", "4,6", "--tolerance",
             "0.05,0.15", "--rounds", "30000", "--seed", "11", "--format", "csv"]
    on_dask = run_diavolo_process(*flags, "--scheduler", "local:2")
    assert on_dask.returncode == 0, on_dask.stderr
    here = run_diavolo(*flags)
    assert on_dask.stdout == here.stdout and here.stdout.count("\n") == 1 + GRID.size * (len(GRID.commands) + 1)


# Enough variants, each long enough, that a kill lands midway.
KILL_FLAGS = ["sweep", "--colors-count", "2..4", "--dice-per-color", "1..4", "--sides", "6", "--commands",
              "highest-total,closest", "--rounds", "400000", "--seed", "3", "--format", "csv"]
KILL_VARIANTS = 12
ROWS_PER_VARIANT = 3  # a row per command, then the variant's overall grey rate


@pytest.mark.slow  # a real sweep with workers, killed midway
def test_killed_midway_then_resumed_equals_an_uninterrupted_run(tmp_path):
    killed = tmp_path / "killed.csv"
    process = subprocess.Popen([sys.executable, "-m", "diavolo_stats", *KILL_FLAGS, "--out", str(killed),
                                "--workers", "2"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + 240
    try:
        # Wait for a few variants (after the header) to be written, then kill without warning.
        while _lines(killed) < 1 + ROWS_PER_VARIANT * 3 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert process.poll() is None, "the sweep finished before it could be killed"
        os.killpg(process.pid, signal.SIGKILL)  # the sweep and its worker processes, without warning
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    text = killed.read_text()
    assert text.endswith("\n")  # no cut row
    written = pd.read_csv(killed)
    assert 3 <= len(written) // ROWS_PER_VARIANT < KILL_VARIANTS and len(written) % ROWS_PER_VARIANT == 0
    assert set(written["command"]) == {"highest-total", "closest", "overall"}
    resumed = run_diavolo(*KILL_FLAGS, "--out", str(killed), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    whole = tmp_path / "whole.csv"
    uninterrupted = run_diavolo(*KILL_FLAGS, "--out", str(whole))
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    assert killed.read_bytes() == whole.read_bytes()
    assert resumed.stdout == uninterrupted.stdout


@pytest.mark.slow  # a real sweep with workers, killed midway
def test_ctrl_c_keeps_the_finished_variants_and_resume_completes(tmp_path):
    stopped = tmp_path / "stopped.csv"
    process = subprocess.Popen([sys.executable, "-m", "diavolo_stats", *KILL_FLAGS, "--out", str(stopped),
                                "--workers", "2"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    deadline = time.monotonic() + 240
    try:
        while _lines(stopped) < 1 + 2 * 3 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert process.poll() is None, "the sweep finished before it could be stopped"
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130 and stderr.strip() == "diavolo: interrupted"
    assert stopped.read_text().endswith("\n") and len(pd.read_csv(stopped)) >= 4
    resumed = run_diavolo(*KILL_FLAGS, "--out", str(stopped), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    whole = run_diavolo(*KILL_FLAGS)
    assert resumed.stdout == whole.stdout


def test_resume_drops_a_cut_last_row_and_finishes_the_sweep(tmp_path):
    grid = SweepGrid(dice_per_color=(2, 3), sides=(4, 6), rounds=20_000)
    whole = tmp_path / "whole.csv"
    sweep(grid, out=whole)
    lines = whole.read_text().splitlines(keepends=True)
    # Two whole variants (six rows each), then half of the next variant's first row: as a power cut would leave it.
    cut = tmp_path / "cut.csv"
    cut.write_text("".join(lines[:13]) + lines[13][:20])
    resumed = sweep(grid, out=cut, resume=True)
    assert cut.read_bytes() == whole.read_bytes()
    assert resumed.rows() == sweep(grid).rows()


def test_resume_skips_the_variants_already_done(tmp_path, monkeypatch):
    grid = SweepGrid(dice_per_color=(2, 3), sides=(4, 6), rounds=20_000)
    out = tmp_path / "sweep.csv"
    expected = sweep(grid, out=out).rows()
    from diavolo_stats.sweep import run as running

    def refuse(*args):
        raise AssertionError("a finished variant was simulated again")

    monkeypatch.setattr(running, "closest_ties", refuse)
    assert sweep(grid, out=out, resume=True).rows() == expected


def test_parquet_is_written_whole_at_the_end_and_resumes_from_its_journal(tmp_path):
    grid = SweepGrid(dice_per_color=(2, 3), sides=(4, 6), rounds=20_000)
    out = tmp_path / "sweep.parquet"
    result = sweep(grid, out=out)
    assert not (tmp_path / ("sweep.parquet" + JOURNAL_SUFFIX)).exists()
    pd.testing.assert_frame_equal(pd.read_parquet(out), result.frame())
    # A run stopped early leaves only the journal: resuming finishes the Parquet file from it.
    journal = tmp_path / ("again.parquet" + JOURNAL_SUFFIX)
    csv_out = tmp_path / "as.csv"
    sweep(grid, out=csv_out)
    journal.write_text("".join(csv_out.read_text().splitlines(keepends=True)[:7]))
    resumed = sweep(grid, out=tmp_path / "again.parquet", resume=True)
    assert not journal.exists()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "again.parquet"), resumed.frame())
    assert resumed.rows() == result.rows()


def _lines(path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0
