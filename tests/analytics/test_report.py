"""`diavolo report` as a user runs it: the files it writes, what it prints, and its one-line errors."""

from __future__ import annotations

import csv
import gc
import importlib
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import threading
import types
from concurrent.futures import Executor, Future

import pandas as pd
import pytest
from helpers.cli import REPO, assert_one_line_error, run_diavolo, run_diavolo_process
from helpers.drill_logs import answered, modelled_rows, write_log
from helpers.report_reads import SHORT_READ, read_ends

from diavolo_stats.analytics import roll_weak_spots, summaries, wording
from diavolo_stats.analytics.chart_processes import CHART_MODULES, report_worker
from diavolo_stats.analytics.report import build_report, write_report
from diavolo_stats.analytics.synthetic import write_synthetic_log
from diavolo_stats.analytics.tie_frequency import simulation_frame
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import Variant
from diavolo_stats.core.variant_file import read_variant
from diavolo_stats.drill.log import load_logs
from diavolo_stats.errors import InputError
from diavolo_stats.game.players import PlayerModel

SAMPLE = REPO / "data" / "sample_drills.csv"
PRINTED_FIRST = ["player", "command", "trials", "accuracy", "accuracy_ci_low", "accuracy_ci_high",
                 "median_latency_ms"]
CHARTS = ["accuracy.png", "latency.png", "learning_curve.png", "tie_vs_non_tie.png", "tie_frequency_standard.png"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    """`diavolo report` with no flags, in a fresh folder, the log named by $DIAVOLO_LOG, as a program of its own.

    A real process, because its stderr is what is checked: in this process the log records of matplotlib and the
    like go to pytest's log capture instead of the terminal a user sees.
    """
    folder = tmp_path_factory.mktemp("player")
    log = folder / "my drills.csv"
    shutil.copy(SAMPLE, log)
    result = run_diavolo_process("report", cwd=folder, env={"DIAVOLO_LOG": str(log)})
    return folder, result


def test_report_writes_summary_charts_and_html_without_noise(default_run):
    folder, result = default_run
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no matplotlib notices (its log records), no warnings
    reports = folder / "data" / "reports"
    for name in ["summary.csv", "report.html", *CHARTS]:
        assert (reports / name).stat().st_size > 0, name
    for name in CHARTS:
        assert (reports / name).read_bytes().startswith(PNG_MAGIC), name
    assert "simulated odds for standard: 1,000,000 rounds, seed 1" in result.stdout  # no saved results here


def test_summary_csv_has_one_row_per_player_and_command(default_run):
    folder, _ = default_run
    with open(folder / "data" / "reports" / "summary.csv", newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert list(rows[0])[:7] == PRINTED_FIRST
    expected = summaries.summarize(load_logs([SAMPLE]))
    assert len(rows) == len(expected) == 3 * 6
    saved = pd.read_csv(folder / "data" / "reports" / "summary.csv")
    for column in ["trials", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "median_latency_ms"]:
        assert saved[column].tolist() == pytest.approx(expected[column].tolist()), column


def test_summary_is_printed_as_a_table(default_run):
    _, result = default_run
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["player", "command", "trials", "acc", "acc_low", "acc_high", "median_ms"]
    assert max(len(line) for line in lines) <= 80
    printed = [line.split() for line in lines[2:2 + 18]]
    assert {row[0] for row in printed} == {"synthetic-novice", "synthetic-average", "synthetic-expert"}
    assert all(row[2].isdigit() and 0 <= float(row[3]) <= 1 for row in printed)


def test_html_is_one_self_contained_page(default_run):
    folder, _ = default_run
    page = (folder / "data" / "reports" / "report.html").read_text(encoding="utf-8")
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == len(CHARTS)
    assert all(source.startswith("data:image/png;base64,") for source in sources)
    assert "<link" not in page and "<script" not in page and "http" not in page


def test_html_says_closest_has_no_exact_value(default_run):
    folder, _ = default_run
    page = (folder / "data" / "reports" / "report.html").read_text(encoding="utf-8")
    tie_table = page[page.index("exact tie odds"):]
    row = re.search(r"<td>closest</td>\s*<td>([^<]*)</td>", tie_table)
    assert row and row.group(1) == "no exact value"
    assert "&lt;NA&gt;" not in page


def test_plain_report_in_a_fresh_clone_suggests_the_sample_log(tmp_path):
    (tmp_path / "data").mkdir()
    shutil.copy(SAMPLE, tmp_path / "data" / "sample_drills.csv")
    result = run_diavolo("report", cwd=tmp_path, env={"DIAVOLO_LOG": ""})
    assert_one_line_error(result, "--log: no drill log at 'data/drills.csv'",
                          "give the shipped sample, data/sample_drills.csv")
    assert not (tmp_path / "data" / "reports").exists()


def test_several_logs_one_player_any_name(tmp_path):
    name = "さくら <b>&"
    special = write_log(tmp_path / "sakura.csv", [
        answered(name, "s1", "highest-total", "red", 900.0 + 10 * i) for i in range(12)] + [
        answered(name, "s1", "highest-die", "black", 1500.0)], numbered=True)
    out = tmp_path / "out"
    result = run_diavolo("report", "--log", str(SAMPLE), str(special), "--player", name, "synthetic-expert",
                         "--out", str(out), "--simulation", str(REPO / "data" / "simulation_standard.csv"),
                         "--format", "json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # a name the chart font cannot draw is not a warning on stderr
    document = json.loads(result.stdout)
    players = {row["player"] for row in document["summary"]}
    assert players == {name, "synthetic-expert"}
    sakura = [row for row in document["summary"] if row["player"] == name]
    assert [(row["command"], row["trials"], row["median_latency_ms"]) for row in sakura] == [
        ("highest-total", 12, 955), ("highest-die", 1, None)]
    assert "simulation_standard.csv" in document["notes"][0]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "さくら &lt;b&gt;&amp;" in page and "<b>&" not in page


def test_the_report_command_gives_a_caller_in_its_process_the_collector_and_arrows_pool_back(tmp_path):
    # It runs with the garbage collector off and ages what it made into the old generation before turning it
    # back on: a frozen object left behind would never be collected (a leak for a caller that goes on). It
    # parses in jemalloc's pool, which keeps freed pages: a server hands its memory back, so it keeps its own.
    import pyarrow

    pool = pyarrow.default_memory_pool().backend_name
    assert gc.isenabled()
    result = run_diavolo("report", "--log", str(SAMPLE), "--out", str(tmp_path / "out"), "--simulation",
                         str(REPO / "data" / "simulation_standard.csv"), "--format", "json")
    assert result.returncode == 0, result.stderr
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert pyarrow.default_memory_pool().backend_name == pool


def test_a_pyarrow_without_jemalloc_reports_in_its_default_pool(tmp_path, monkeypatch):
    import pyarrow

    def no_jemalloc():
        raise pyarrow.ArrowNotImplementedError("this pyarrow was built without jemalloc")

    monkeypatch.setattr(pyarrow, "jemalloc_memory_pool", no_jemalloc)
    result = run_diavolo("report", "--log", str(SAMPLE), "--out", str(tmp_path / "out"), "--simulation",
                         str(REPO / "data" / "simulation_standard.csv"), "--format", "json")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "report.html").is_file()


def test_a_report_is_built_in_memory_and_written_whole_as_built(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    simulation = REPO / "data" / "simulation_standard.csv"
    report = build_report([SAMPLE], players=["synthetic-expert"], simulation_path=simulation)
    assert list(tmp_path.iterdir()) == [] and report.folder is None and report.files == ()
    assert list(report.contents()) == ["summary.csv", *CHARTS, "report.html"]
    written = write_report([SAMPLE], tmp_path / "out", players=["synthetic-expert"], simulation_path=simulation)
    assert {path.name: path.read_bytes() for path in written.files} == report.contents()
    assert written.page == report.page and "wrote 7 files" in written.text() and "wrote" not in report.text()


class _Recording(Executor):
    """A report's worker that records, in `sent`, each call's function (for a chart, its name, and "handed: " before
    it for one the worker hands its drawer; its arguments go to `charts` too)."""

    def __init__(self, worker: Executor, sent: list[str], charts: list | None = None):
        self.worker, self.sent, self.charts = worker, sent, charts

    def submit(self, function, *args, **kwargs):
        name = getattr(function, "func", function).__name__
        chart_args = {"report_chart_png": args, "hand_over": args[1:]}.get(name)
        self.sent.append({"report_chart_png": "", "hand_over": "handed: "}.get(name, name) + (chart_args or [""])[0])
        if chart_args is not None and self.charts is not None:
            self.charts.append((chart_args, kwargs))
        return self.worker.submit(function, *args, **kwargs)


@pytest.mark.parametrize("read, calls", [
    # Long: the fit, then each chart as soon as its figures are worked out, the summary's (with its fits) last; the
    # latency chart, which reads every row, is drawn in this process.
    ("long", ["fitted_weak_spots", "tie_frequency_chart", "learning_curve_chart", "tie_versus_non_tie_chart",
              "accuracy_chart"]),
    # Short: every chart, the latency chart from its figures, about half of them handed to the worker's own drawer;
    # the weak spots are fitted here.
    ("short", ["fork_drawer", "handed: tie_frequency_chart", "handed: learning_curve_chart",
               "tie_versus_non_tie_chart", "handed: accuracy_chart", "latency_figures_chart", "handed_over"]),
])
def test_a_report_sends_its_worker_what_it_can_take_and_is_the_same_as_without(monkeypatch, read, calls):
    simulation = REPO / "data" / "simulation_standard.csv"
    alone = build_report([SAMPLE], simulation_path=simulation)
    sent = []  # what the worker was given after its imports
    read_ends(monkeypatch, read)
    with report_worker() as worker:
        beside = build_report([SAMPLE], simulation_path=simulation, worker=_Recording(worker, sent))
    assert sent == calls
    assert beside.weak_spots == alone.weak_spots and any(spots.costs for spots in alone.weak_spots.values())
    assert beside.contents() == alone.contents()


def test_a_short_report_s_own_process_never_imports_matplotlib():
    """Where the worker draws every chart, this process leaves matplotlib (a third of a second) to it: the charts'
    imports beside the read, queued behind scipy's and Jinja's, are called off, and no chart is taken back."""
    code = SHORT_READ + f"""
from diavolo_stats.analytics.chart_processes import report_worker
with report_worker() as worker:
    report.build_report([{str(SAMPLE)!r}], simulation_path={str(REPO / "data" / "simulation_standard.csv")!r},
                        worker=worker)
print(building.is_set(), sorted(name for name in sys.modules if name.split(".")[0] == "matplotlib"))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "[]"]


def test_the_report_command_forks_its_worker_before_it_imports_pandas(tmp_path):
    """`diavolo report` forks the report's worker first, so that the worker imports pandas and the charts on the
    other core while the command's process imports pandas and the report: forked from a process that had pandas,
    it would import only the charts, and only from then on."""
    code = f"""
import os, sys
from diavolo_stats.cli import main
command = os.getpid()

def forked():
    if os.getppid() == command:  # the report's worker (its own drawer is forked by the worker)
        print("worker forked, pandas", "pandas" in sys.modules, "matplotlib", "matplotlib" in sys.modules, flush=True)

os.register_at_fork(after_in_child=forked)
sys.exit(main(["report", "--log", {str(SAMPLE)!r}, "--out", {str(tmp_path / "out")!r}, "--format", "json"]))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "worker forked, pandas False matplotlib False"
    assert json.loads("\n".join(result.stdout.splitlines()[1:]))["files"]


def test_the_worker_draws_the_charts_it_is_sent_without_scipy(monkeypatch, tmp_path):
    """The latency chart's figures, its fits' curves included, are worked out here (`latency_figures`): the worker
    draws every chart from what it is sent without importing scipy (scipy.special, for a fit's density)."""
    sent, calls = [], []
    read_ends(monkeypatch, "short")
    with report_worker() as worker:
        build_report([SAMPLE], simulation_path=REPO / "data" / "simulation_standard.csv",
                     worker=_Recording(worker, sent, calls))
    assert [args[0] for args, _ in calls] == [name.removeprefix("handed: ") for name in sent[1:-1]]
    assert "latency_figures_chart" in sent
    (tmp_path / "calls.pickle").write_bytes(pickle.dumps(calls))
    code = f"""
import pickle, sys
from diavolo_stats.analytics.chart_processes import report_chart_png
for args, kwargs in pickle.loads(open({str(tmp_path / "calls.pickle")!r}, "rb").read()):
    assert report_chart_png(*args, **kwargs).startswith({PNG_MAGIC!r})
print(sorted(name for name in sys.modules if name.split(".")[0] == "scipy"))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]"]


def test_the_report_s_module_leaves_jinja_to_the_imports_beside_the_read():
    """Jinja is imported on the thread beside the read (`report.AFTER_THE_READ`), not with the report's module."""
    code = "import sys, diavolo_stats.analytics.report\nprint('jinja2' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False"]


def test_after_a_long_read_the_worker_is_sent_the_fit_before_the_imports_beside_the_read_end(monkeypatch):
    """A read that ends once the imports beside it have reached the charts: the weak spots are sent to the worker
    as soon as their rows are taken, not once this process's imports are done."""
    import diavolo_stats.analytics.report as report

    events = []
    charts_importing, fit_sent = threading.Event(), threading.Event()

    class Worker(_Recording):
        def submit(self, function, *args, **kwargs):
            future = super().submit(function, *args, **kwargs)
            if self.sent[-1] == "fitted_weak_spots":
                events.append("fit sent")
                fit_sent.set()
            return future

    def read(*args, **kwargs):
        assert charts_importing.wait(timeout=60), "the imports beside the read never reached the charts"
        events.append("read")
        return load_logs(*args, **kwargs)

    def beside(module):  # the charts' import ends only once the fit is sent (or a minute has passed)
        if module == CHART_MODULES[0]:
            charts_importing.set()
            events.append(f"charts imported: {fit_sent.wait(timeout=60)}")
        return importlib.import_module(module)

    monkeypatch.setattr(report, "load_logs", read)
    monkeypatch.setattr(report, "importlib", types.SimpleNamespace(import_module=beside))
    with report_worker() as worker:
        build_report([SAMPLE], simulation_path=REPO / "data" / "simulation_standard.csv",
                     worker=Worker(worker, []))
    assert events == ["read", "fit sent", "charts imported: True"]


def test_a_report_s_worker_fits_the_weak_spots_without_reading_a_line_of_the_log(monkeypatch):
    """The weak spots' rows are read again where the read left the log's line marks (a forked worker has none and
    would count a large log's line ends from its header): the worker is sent the rows, not their lines."""
    simulation = REPO / "data" / "simulation_standard.csv"
    alone = build_report([SAMPLE], simulation_path=simulation)
    here = os.getpid()
    load_rows = roll_weak_spots.load_rows

    def only_here(*args, **kwargs):
        if os.getpid() != here:
            raise InputError("read a line of the log in the worker")
        return load_rows(*args, **kwargs)

    monkeypatch.setattr(roll_weak_spots, "load_rows", only_here)
    read_ends(monkeypatch, "long")
    with report_worker() as worker:
        beside = build_report([SAMPLE], simulation_path=simulation, worker=_Recording(worker, sent := []))
    assert "fitted_weak_spots" in sent
    assert beside.weak_spots == alone.weak_spots and any(spots.costs for spots in alone.weak_spots.values())


class _StalledWorker(Executor):
    """A worker that runs the first `started` calls it is sent at once, then never starts anything else."""

    def __init__(self, started: int):
        self.started = started
        self.sent = []

    def submit(self, function, *args, **kwargs):
        future = _NeverWaitedFor()
        if len(self.sent) < self.started:
            future.set_result(function(*args, **kwargs))
        self.sent.append(future)
        return future


class _NeverWaitedFor(Future):
    def result(self, timeout=None):
        assert self.done(), "waited for a chart the worker never started"
        return super().result(timeout)


def test_a_report_draws_here_the_charts_its_worker_has_not_started(monkeypatch):
    simulation = REPO / "data" / "simulation_standard.csv"
    alone = build_report([SAMPLE], simulation_path=simulation)
    worker = _StalledWorker(started=1)
    read_ends(monkeypatch, "long")
    beside = build_report([SAMPLE], simulation_path=simulation, worker=worker)
    assert [future.cancelled() for future in worker.sent] == [False, True, True, True, True]  # the fit, 4 charts
    # (the latency chart is drawn here)
    assert beside.contents() == alone.contents()


def test_missing_log_is_one_line(tmp_path):
    result = run_diavolo("report", "--log", str(tmp_path / "nowhere.csv"), "--out", str(tmp_path / "out"))
    assert_one_line_error(result, "--log", "nowhere.csv")
    assert not (tmp_path / "out").exists()


def test_empty_log_is_one_line(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text(SAMPLE.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    result = run_diavolo("report", "--log", str(empty), "--out", str(tmp_path / "out"))
    assert_one_line_error(result, "no trials", "empty.csv")
    assert not (tmp_path / "out").exists()


def test_unknown_player_is_one_line(tmp_path):
    result = run_diavolo("report", "--log", str(SAMPLE), "--player", "zoe", "--out", str(tmp_path / "out"))
    assert_one_line_error(result, "--player", "'zoe'", "synthetic-expert")
    assert not (tmp_path / "out").exists()


def test_foreign_file_is_one_line_and_untouched(tmp_path):
    foreign = tmp_path / "scores.csv"
    foreign.write_text("name,score\nann,3\n", encoding="utf-8")
    result = run_diavolo("report", "--log", str(foreign), "--out", str(tmp_path / "out"))
    assert_one_line_error(result, "scores.csv", "line 1")
    assert foreign.read_text(encoding="utf-8") == "name,score\nann,3\n"


def test_text_in_a_saved_simulation_is_one_line_naming_file_line_and_column(tmp_path):
    saved = pd.read_csv(REPO / "data" / "simulation_standard.csv", dtype=str, keep_default_na=False)
    saved.loc[0, "ci95_low"] = "low"  # the first row: line 2, after the header
    bad = tmp_path / "bad.csv"
    saved.to_csv(bad, index=False)
    out = tmp_path / "out"
    result = run_diavolo("report", "--log", str(SAMPLE), "--simulation", str(bad), "--out", str(out))
    assert_one_line_error(result, "bad.csv", "line 2", "ci95_low must be a finite number, got 'low'")
    assert not out.exists()


@pytest.fixture(scope="module")
def standard_and_kids_log(tmp_path_factory):
    """A log of both presets, session by session, and saved results of each: the box's and a kids game's."""
    folder = tmp_path_factory.mktemp("two_games")
    write_synthetic_log(folder / "log.csv", ["preset:average"], sessions=2, trials=30,
                        variant_names=("standard", "kids"))
    kids = simulation_frame(simulate(Variant.preset("kids"), 10_000, seed=1))
    kids.to_csv(folder / "kids.csv", index=False)
    return folder / "log.csv", {"standard": REPO / "data" / "simulation_standard.csv", "kids": folder / "kids.csv"}


def test_saved_results_without_a_games_command_are_passed_over_for_that_game_saying_which(tmp_path, monkeypatch):
    # The box's saved results have the sixes game's dice but no row for its own command, most-sixes: that game is
    # simulated afresh, while the box's game of the same log takes them.
    sixes = read_variant(REPO / "examples" / "variants" / "sixes.toml")
    log = write_log(tmp_path / "log.csv", modelled_rows("ann", PlayerModel.preset("average"), 40, 3, variant=sixes)
                    + modelled_rows("bo", PlayerModel.preset("expert"), 40, 4))
    box = REPO / "data" / "simulation_standard.csv"
    monkeypatch.chdir(tmp_path)
    report = build_report([log], simulation_path=box)
    ties = [note for note in report.notes if note.startswith("simulated odds")]
    assert sorted(ties) == [f"simulated odds for sixes: 1,000,000 rounds, seed 1 (its rules as its trials logged "
                            f"them; {box}: no results for most-sixes)", f"simulated odds from {box}"]
    assert "tie_frequency_sixes.png" in report.charts and ties[0] in report.page


def test_saved_results_of_some_commands_alone_are_refused_in_one_line_naming_those_missing(tmp_path):
    result = run_diavolo("simulate", "--rounds", "1000", "--seed", "1", "--commands", "highest-total,closest",
                         "--out", str(tmp_path / "some.csv"))
    assert result.returncode == 0, result.stderr
    result = run_diavolo("report", "--log", str(SAMPLE), "--simulation", str(tmp_path / "some.csv"), "--out",
                         str(tmp_path / "out"))
    assert_one_line_error(result, f"diavolo: error: --simulation: {tmp_path / 'some.csv'} is for none of the games "
                                  "the log played (standard: no results for lowest-total, largest-spread, most-odd, "
                                  "highest-die); simulate one of them and save it")
    assert not (tmp_path / "out").exists()


DICE = {"standard": "black,red,white;3d6", "kids": "black,red,white;2d6"}  # each preset's `dice` column


@pytest.mark.parametrize("given, other", [("standard", "kids"), ("kids", "standard")])
def test_saved_results_are_set_against_the_game_they_were_simulated_for_alone(standard_and_kids_log, tmp_path,
                                                                              monkeypatch, given, other):
    log, saved = standard_and_kids_log
    monkeypatch.chdir(tmp_path)  # no data/simulation_<preset>.csv here: the other game is simulated afresh
    report = build_report([log], simulation_path=saved[given])
    assert set(report.charts) >= {"tie_frequency_standard.png", "tie_frequency_kids.png"}
    ties = [note for note in report.notes if note.startswith("simulated odds")]
    assert sorted(ties) == sorted([
        f"simulated odds from {saved[given]}",
        f"simulated odds for {other}: 1,000,000 rounds, seed 1 (no saved results at data/simulation_{other}.csv; "
        f"{saved[given]}: simulated for {DICE[given]}, not for {DICE[other]})"])
    page = report.page
    assert f"simulated odds from {saved[given]}" in page and f"{saved[given]}: simulated for {DICE[given]}" in page


def test_saved_results_of_no_game_the_log_played_are_refused_in_one_line_naming_each(standard_and_kids_log,
                                                                                      tmp_path):
    one_die = simulation_frame(simulate(Variant(dice_per_color=1), 1_000, seed=1))
    one_die.to_csv(tmp_path / "one_die.csv", index=False)
    log, _ = standard_and_kids_log
    result = run_diavolo("report", "--log", str(log), "--simulation", str(tmp_path / "one_die.csv"), "--out",
                         str(tmp_path / "out"))
    assert_one_line_error(result, f"diavolo: error: --simulation: {tmp_path / 'one_die.csv'} is for none of the "
                                  "games the log played (kids: simulated for black,red,white;1d6, not for "
                                  "black,red,white;2d6; standard: simulated for black,red,white;1d6, not for "
                                  "black,red,white;3d6); simulate one of them and save it")
    assert not (tmp_path / "out").exists()


def test_a_missing_simulation_file_is_refused_before_the_logs_are_read(tmp_path, monkeypatch):
    read = []
    monkeypatch.setattr("diavolo_stats.analytics.report.load_logs", lambda *args, **kwargs: read.append(args))
    with pytest.raises(InputError, match="no such file"):
        build_report([SAMPLE], simulation_path=tmp_path / "missing.csv")
    assert read == []  # a log of a million rows takes seconds to read before such an error


def test_a_custom_games_trials_get_a_note_instead_of_another_games_tie_odds(tmp_path):
    custom = [answered("ann", "c1", "highest-total", "red", 900.0, variant="custom") for _ in range(3)]
    mixed = write_log(tmp_path / "mixed.csv", [answered("ann", "s1", "highest-total", "red", 800.0)] + custom,
                      numbered=True)
    only_custom = write_log(tmp_path / "custom.csv", custom, numbered=True)
    note = "no tie frequency for the 3 trials of a game whose rules the log does not hold"
    for log, standard_odds in ((mixed, True), (only_custom, False)):
        out = tmp_path / f"out-{log.stem}"
        report = write_report([log], out, simulation_path=REPO / "data" / "simulation_standard.csv")
        names = [path.name for path in report.files]
        assert ("tie_frequency_standard.png" in names) is standard_odds
        assert not [name for name in names if name.startswith("tie_frequency_") and "standard" not in name]
        assert [line for line in report.notes if line.startswith(note)] == [report.notes[-1]]
        assert note in (out / "report.html").read_text(encoding="utf-8")


def test_html_counts_agree_and_its_headings_are_words(tmp_path):
    # ann: 10 answers, one timeout and 2 keys pressed before the roll: 11 trials, 2 anticipations apart.
    trials = [answered("ann", "s1", "highest-total", "red", 800.0 + 10 * i) for i in range(10)]
    trials += [answered("ann", "s1", "highest-total", "none", None)]
    trials += [answered("ann", "s1", "highest-die", "none", None, too_early=True) for _ in range(2)]
    out = tmp_path / "out"
    report = write_report([write_log(tmp_path / "log.csv", trials, numbered=True)], out,
                          simulation_path=REPO / "data" / "simulation_standard.csv")
    page = (out / "report.html").read_text(encoding="utf-8")
    header = re.search(r"ann: (\d+) trials in 1 session, and (\d+) keys pressed before the roll", page)
    assert header and int(header.group(1)) == report.summary["trials"].sum() == 11
    assert int(header.group(2)) == report.summary["anticipations"].sum() == 2
    assert "the <em>pressed too early</em> column counts it" in page
    headings = re.findall(r"<th>([^<]*)</th>", page)
    assert "pressed too early" in headings and "median time (ms)" in headings
    assert not [heading for heading in headings if "_" in heading]
    assert re.search(r"<td>\d+ % \(\d+-\d+ %\)</td>", page)  # accuracy with its interval in one cell
    assert page.count('<div class="scroll"><table') == 2  # the summary and the tie odds scroll in their box


def test_the_report_names_each_players_weak_spots_by_roll_type_in_words(tmp_path):
    from diavolo_stats.analytics.roll_weak_spots import COLUMNS, roll_weak_spots

    report = write_report([SAMPLE], tmp_path / "out", players=["synthetic-novice", "synthetic-expert"],
                          simulation_path=REPO / "data" / "simulation_standard.csv")
    # Each chosen player's, fitted with every player of the log: the same as the library gives.
    expected = roll_weak_spots(load_logs([SAMPLE], columns=COLUMNS, lines=True),
                               ["synthetic-expert", "synthetic-novice"])
    assert report.weak_spots == expected
    document = report.document()["weak_spots"]
    assert list(document) == ["synthetic-expert", "synthetic-novice"]
    novice = expected["synthetic-novice"]
    assert novice.costs and [spot["sentence"] for spot in document["synthetic-novice"]["weak_spots"]] == [
        cost.sentence for cost in novice.costs]
    assert document["synthetic-novice"]["answers"] == 360
    text = " ".join(report.text().split())
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    for cost in novice.costs:
        assert " ".join(cost.sentence.split()) in text
        assert f"<li>{wording.sentence(cost.sentence)}</li>" in page


def test_a_player_with_too_few_answers_gets_a_report_saying_why_no_weak_spot_by_roll_type(tmp_path):
    log = write_log(tmp_path / "ann.csv", [answered("ann", "s1", "highest-total", "red", 900.0) for _ in range(12)],
                    numbered=True)
    report = write_report([log], tmp_path / "out", simulation_path=REPO / "data" / "simulation_standard.csv")
    assert report.weak_spots["ann"].costs == ()
    why = "no weak spot by roll type: no player of the drill log has the 30 answers a fit needs (most: 12)"
    assert report.weak_spots["ann"].note == why
    assert why in " ".join(report.text().split())
    assert wording.sentence(why) in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
