"""The report's charts in worker processes: a worker's imports without the 3D axes, and its drawer's charts."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers.cli import REPO
from helpers.report_reads import SHORT_READ

from diavolo_stats.analytics import chart_processes
from diavolo_stats.analytics.chart_processes import fork_drawer, hand_over, handed_over, import_charts, report_chart_png
from diavolo_stats.analytics.report import build_report
from diavolo_stats.core.workers import worker_pool

SAMPLE = REPO / "data" / "sample_drills.csv"


def _run(code: str) -> list[str]:
    """What `code` prints, run in a fresh interpreter where any warning is an error."""
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_a_worker_imports_the_charts_without_the_3d_axes_silently_and_can_import_them_after():
    """matplotlib registers its 3D axes only if it can import them: a worker's `import_charts` has it go on without
    them (no warning), and leaves nothing in the way of a later import. Would catch a matplotlib that imports them
    some other way, or no longer goes on without them."""
    printed = _run("""
import sys
from diavolo_stats.analytics.chart_processes import UNUSED_IN_A_WORKER, import_charts
import_charts()
from matplotlib import projections
print(all(module not in sys.modules for module in UNUSED_IN_A_WORKER), "3d" in projections.get_projection_names())
import mpl_toolkits.mplot3d
print(all(module in sys.modules for module in UNUSED_IN_A_WORKER))
""")
    assert printed == ["True", "False", "True"]


def test_importing_the_report_and_its_charts_leaves_a_user_s_matplotlib_its_3d_axes():
    printed = _run("""
import diavolo_stats.analytics.report, diavolo_stats.analytics.charts
from matplotlib import projections
print("3d" in projections.get_projection_names())
""")
    assert printed == ["True"]


def test_the_drawer_draws_what_it_is_handed_as_the_worker_would_and_says_what_failed():
    """A worker that has imported the charts forks its drawer; the charts handed to it come back as the same PNG
    bytes as drawn here, and a chart that fails is the error of `handed_over`, after which the worker goes on."""
    report = build_report([SAMPLE], simulation_path=REPO / "data" / "simulation_standard.csv")
    with worker_pool(1) as worker:
        worker.submit(import_charts).result()
        worker.submit(fork_drawer).result()
        worker.submit(hand_over, "accuracy.png", "accuracy_chart", report.summary).result()
        worker.submit(hand_over, "bad.png", "accuracy_chart", "not a summary").result()
        with pytest.raises(TypeError):
            worker.submit(handed_over).result()
        worker.submit(fork_drawer).result()
        worker.submit(hand_over, "accuracy.png", "accuracy_chart", report.summary).result()
        assert worker.submit(handed_over).result() == {"accuracy.png": report.charts["accuracy.png"][1]}
    assert report_chart_png("accuracy_chart", report.summary) == report.charts["accuracy.png"][1]
    assert chart_processes._drawer is None  # this process forked none


def test_a_worker_that_ends_before_taking_its_drawer_s_charts_back_ends_with_its_drawer():
    """A report that fails once its worker has forked its drawer (an error after the charts were handed over) ends
    its worker, which shuts its drawer down as it ends: multiprocessing would otherwise wait for the drawer before
    the drawer's pool is told to end, and the report would never end."""
    printed = _run(f"""
from diavolo_stats.analytics.chart_processes import fork_drawer, hand_over, import_charts
from diavolo_stats.analytics.report import build_report
from diavolo_stats.core.workers import worker_pool
report = build_report([{str(SAMPLE)!r}], simulation_path={str(REPO / "data" / "simulation_standard.csv")!r})
with worker_pool(1) as worker:
    worker.submit(import_charts).result()
    worker.submit(fork_drawer).result()
    worker.submit(hand_over, "accuracy.png", "accuracy_chart", report.summary).result()
    ended = worker._processes.copy()
print([process.exitcode for process in ended.values()])
""")
    assert printed == ["[0]"]


def test_a_short_report_refused_after_its_worker_forked_its_drawer_ends_in_one_line(tmp_path):
    """A short read (the worker forks its drawer), then the saved results given are refused: one line, exit status 2,
    and every process ends."""
    some = tmp_path / "some.csv"
    code = SHORT_READ + f"""
from diavolo_stats.cli import main
main(["simulate", "--rounds", "1000", "--seed", "1", "--commands", "highest-total,closest", "--out", {str(some)!r}])
sys.exit(main(["report", "--log", {str(SAMPLE)!r}, "--simulation", {str(some)!r}, "--out", {str(tmp_path / "out")!r}]))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.startswith(f"diavolo: error: --simulation: {some} is for none")
    assert len(result.stderr.splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_report_refused_after_its_worker_was_forked_ends_it_without_waiting_for_its_imports(tmp_path):
    """`diavolo report` forks its worker first; a report refused after that (here, a log that is not there) ends the
    worker at once, whatever it is doing: the one-line error does not wait for its imports (which here never end)."""
    code = f"""
import sys, threading
from diavolo_stats.analytics import chart_processes
from diavolo_stats.cli import main

def importing_for_ever():
    threading.Event().wait()

chart_processes.import_charts = importing_for_ever
sys.exit(main(["report", "--log", {str(tmp_path / "none.csv")!r}, "--out", {str(tmp_path / "out")!r}]))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.startswith("diavolo: error: --log: no drill log at")
    assert len(result.stderr.splitlines()) == 1
