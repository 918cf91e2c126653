"""The report's charts in worker processes: a worker's imports without the 3D axes or pandas, what it is sent, and
its drawer's charts."""

from __future__ import annotations

import hashlib
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from helpers.chart_cases import chart_calls
from helpers.cli import REPO
from helpers.report_reads import SHORT_READ

from diavolo_stats.analytics import chart_processes
from diavolo_stats.analytics.chart_data import frame_columns
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


def test_a_worker_draws_what_a_report_sends_it_where_pandas_pyarrow_and_scipy_cannot_be_imported(tmp_path,
                                                                                               monkeypatch):
    """What the report sends its worker to draw (frames as their columns, the latency chart's figures), drawn in a
    fresh process that imports the charts as a worker does with pandas, pyarrow and scipy made unimportable: the
    same PNG bytes as here. Would catch a chart module that imports pandas, or a frame sent with a pandas object."""
    calls = []
    for case in ("sample", "14 players", "sixes"):
        folder = tmp_path / case.replace(" ", "-")
        folder.mkdir()
        calls += chart_calls(case, folder, monkeypatch)
    sent = tmp_path / "sent.pickle"
    sent.write_bytes(pickle.dumps(calls))
    printed = _run(f"""
import hashlib, pickle, sys
sys.modules.update(dict.fromkeys(("pandas", "pyarrow", "scipy")))  # None: an import of any of them fails
from diavolo_stats.analytics.chart_processes import import_charts, report_chart_png
import_charts()
for chart, args, kwargs in pickle.loads(open({str(sent)!r}, "rb").read()):
    print(chart, hashlib.sha256(report_chart_png(chart, *args, **kwargs)).hexdigest())
""")
    assert len(calls) == 16 and printed == [
        word for chart, args, kwargs in calls
        for word in (chart, hashlib.sha256(report_chart_png(chart, *args, **kwargs)).hexdigest())]


def test_a_frame_goes_as_its_columns_of_numbers_and_text_which_unpickle_without_pandas():
    frame = pd.DataFrame({"ms": [1.5, np.nan], "count": [1, 2], "player": pd.Categorical(["ann", "bo"]),
                          "command": ["closest", "highest-die"],
                          "start": pd.to_datetime(["2026-01-01", "2026-01-02"], utc=True),
                          "in_interval": pd.array([True, None], dtype="boolean")})
    columns = frame_columns(frame)
    assert list(columns) == ["ms", "count", "player", "command"]
    assert columns["player"].tolist() == ["ann", "bo"] and np.isnan(columns["ms"][1])
    assert b"pandas" not in pickle.dumps(columns) and b"pandas" in pickle.dumps(frame["start"].to_numpy())


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
