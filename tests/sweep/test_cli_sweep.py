"""`diavolo sweep` as a user runs it: formats, targets, heatmaps, and bad input (one line, exit 2, nothing written)."""

from __future__ import annotations

import csv
import io
import json
import socket
import sys

import pexpect
import pytest
from helpers.cli import REPO, assert_one_line_error, run_diavolo, run_diavolo_process

from diavolo_stats.sweep import COLUMNS

SMALL = ["sweep", "--dice-per-color", "2,3", "--sides", "4,6", "--rounds", "20000"]


def test_csv_on_stdout_is_the_tidy_table():
    result = run_diavolo(*SMALL, "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar when output is piped
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert tuple(rows[0]) == COLUMNS
    assert len(rows) == 4 * (6 + 1)  # six commands and the overall grey rate per variant
    closest = [row for row in rows if row["command"] == "closest"]
    assert all(row["rounds"] == "20000" and row["exact_tie_probability"] == "" for row in closest)
    exact = [row for row in rows if row["command"] not in ("closest", "overall")]
    assert all(row["rounds"] == "0" and row["tie_probability"] == row["exact_tie_probability"] for row in exact)


def test_target_keeps_the_variants_in_range_nearest_first():
    everything = json.loads(run_diavolo(*SMALL, "--format", "json").stdout)["rows"]
    result = run_diavolo(*SMALL, "--target", "highest-total=0.12..0.2,closest=..0.2", "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    kept = document["rows"]
    by_variant = {}
    for row in everything:
        by_variant.setdefault((row["dice_per_color"], row["sides"]), {})[row["command"]] = row
    meeting = [key for key, rows in by_variant.items()
               if 0.12 <= rows["highest-total"]["tie_probability"] <= 0.2 and rows["closest"]["ci95_high"] <= 0.2]
    assert 0 < len(meeting) < len(by_variant)  # the target splits this grid
    assert {(row["dice_per_color"], row["sides"]) for row in kept} == set(meeting)
    distances = [row["target_distance"] for row in kept]
    assert distances == sorted(distances)
    assert document["target"] == "highest-total 0.12..0.2, closest 0..0.2"


def test_one_variant_is_counted_as_one():
    result = run_diavolo("sweep", "--commands", "highest-total", "--target", "highest-total=0..1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Sweep: 1 variant: colors 3,") and "1 of 1 variant, nearest first" in result.stdout


@pytest.mark.parametrize("colors, said", [
    ("2..3", "each color must be a color name (lowercase letters, digits, _; grey is for ties), got '2..3'"),
    ("red", "need 2 to 8 colors, got 1"),
])
def test_fixed_colors_are_refused_as_given_in_a_variant_s_words(colors, said):
    result = run_diavolo("sweep", "--colors", colors, "--commands", "highest-total")
    assert_one_line_error(result)
    assert result.stderr.strip() == f"diavolo: error: --colors: {said}"


def test_a_target_nothing_meets_says_so():
    result = run_diavolo(*SMALL, "--target", "most-odd=0.99..1")
    assert result.returncode == 0, result.stderr
    assert "no variant meets the target" in result.stdout


def test_plot_writes_one_titled_heatmap_per_command(tmp_path):
    folder = tmp_path / "plots"
    result = run_diavolo(*SMALL, "--commands", "highest-total,closest", "--plot", str(folder))
    assert result.returncode == 0, result.stderr
    names = sorted(path.name for path in folder.iterdir())
    assert names == ["tie_closest.png", "tie_highest-total.png", "tie_overall.png"]
    assert all((folder / name).read_bytes().startswith(b"\x89PNG") for name in names)


def test_a_plot_folder_holding_other_files_is_refused(tmp_path):
    folder = tmp_path / "plots"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    result = run_diavolo(*SMALL, "--plot", str(folder), "--out", str(tmp_path / "sweep.csv"))
    assert_one_line_error(result, "--plot", "notes.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plots"]
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_plot_replaces_its_own_heatmaps(tmp_path):
    folder = tmp_path / "plots"
    first = run_diavolo(*SMALL, "--commands", "most-odd,closest", "--plot", str(folder))
    assert first.returncode == 0, first.stderr
    again = run_diavolo(*SMALL, "--commands", "highest-die", "--plot", str(folder))
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["tie_highest-die.png", "tie_overall.png"]


def test_out_exists_without_resume_is_refused(tmp_path):
    out = tmp_path / "sweep.csv"
    out.write_text("precious\n")
    result = run_diavolo(*SMALL, "--out", str(out))
    assert_one_line_error(result, "--out", "exists")
    assert out.read_text() == "precious\n"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("flags, fragments", [
    (["--sides", ""], ["--sides", "empty list"]),
    (["--sides", "4.."], ["--sides", "empty range"]),
    (["--sides", "6..2"], ["--sides", "reversed range"]),
    (["--dice-per-color", "\u0663"], ["--dice-per-color", "not a value"]),
    (["--tolerance", "1.5"], ["--tolerance", "from 0 to 1"]),
    (["--tolerance", "0.1..0.3"], ["--tolerance", "needs a step"]),
    (["--commands", "highest-totl"], ["--commands: each command must be one of highest-total", "got 'highest-totl'"]),
    (["--colors-count", "2..8", "--dice-per-color", "1..12", "--sides", "2..100", "--tolerance", "0..1:0.1",
      "--die-mm", "10,12"], ["grid", "more than the 100,000", "split it"]),
    (["--workers", "1000"], ["--workers", "from 1 to"]),
    (["--workers", "2", "--scheduler", "local:2"], ["--workers", "not both"]),
    (["--scheduler", "local:0"], ["--scheduler", "local:N needs N from 1"]),
    (["--out", "sweep.txt"], ["--out", "must end in .csv or .parquet"]),
    (["--out", ".csv"], ["--out: '.csv': the file name needs a name before .csv or .parquet (sweep.csv)"]),
    (["--out", "x/.PARQUET"], ["--out: 'x/.PARQUET': the file name needs a name before .csv or .parquet"]),
    (["--target", "closest=0.3..0.1"], ["--target", "smaller end first"]),
    (["--target", "most-odd=0.1..0.2", "--commands", "closest"], ["--target", "not among the sweep's commands"]),
    (["--plot-axes", "sides,weight"], ["--plot-axes", "two or three different parameters"]),
    (["--plot-axes", "sides,dice_per_color", "--tolerance", "0.05,0.1"], ["--plot-axes", "also varies tolerance"]),
    (["--resume"], ["--resume", "needs a file"]),
    (["--scheduler", "somewhere"], ["--scheduler", "not a scheduler address"]),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, flags, fragments):
    out, plots = tmp_path / "sweep.csv", tmp_path / "plots"
    extra = [] if "--resume" in flags or "--out" in flags else ["--out", str(out)]
    flags = [str(tmp_path / flag) if flag.endswith(".txt") else flag for flag in flags]
    plot = ["--plot", str(plots)] if "--plot-axes" in flags else []
    result = run_diavolo(*SMALL, *flags, *extra, *plot)
    assert_one_line_error(result, *fragments)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # Dask, in a real process
def test_an_unreachable_scheduler_is_named_in_one_line(tmp_path):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_free_port()}"  # nothing listens there
    result = run_diavolo_process(*SMALL, "--scheduler", address, "--out", str(tmp_path / "sweep.csv"), timeout=60)
    assert_one_line_error(result, "--scheduler", f"cannot reach the Dask scheduler at {address}")
    assert list(tmp_path.iterdir()) == []


def test_without_dask_the_scheduler_names_the_extra(monkeypatch):
    # A `distributed` that cannot be imported, as on a machine without the cluster extra.
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = run_diavolo(*SMALL, "--scheduler", "local:2")
    assert_one_line_error(result, "--scheduler", "pip install -e '.[cluster]'")


@pytest.mark.parametrize("change", [["--seed", "2"], ["--sides", "4,8"], ["--rounds", "30000"]])
def test_resume_on_a_file_of_another_grid_or_seed_is_refused(tmp_path, change):
    out = tmp_path / "sweep.csv"
    first = run_diavolo(*SMALL, "--seed", "1", "--out", str(out))
    assert first.returncode == 0, first.stderr
    saved = out.read_bytes()
    flags = [*SMALL, "--seed", "1", *change] if change[0] != "--seed" else [*SMALL, *change]
    result = run_diavolo(*flags, "--out", str(out), "--resume")
    assert_one_line_error(result, "--out", "another grid or seed")
    assert out.read_bytes() == saved
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sweep.csv"]


def test_csv_text_cells_are_guarded_and_read_back(tmp_path):
    from diavolo_stats.sweep import SweepGrid, sweep
    from diavolo_stats.sweep.results_file import ResultsFile

    grid = SweepGrid(commands=("most-odd",))
    row = dict(sweep(grid).rows()[0])
    # No real cell starts like a formula; a made-up one shows the guard on the way out and off on the way in.
    row["color_names"] = "=HYPERLINK(1)"
    out = tmp_path / "sweep.csv"
    with ResultsFile(out, row["sweep_id"], 1, resume=False) as results:
        results.append([row])
    assert "'=HYPERLINK(1)" in out.read_text()
    with ResultsFile(out, row["sweep_id"], 1, resume=True) as again:
        assert list(again.done.values()) == [[row]]


@pytest.mark.slow  # a terminal (pty)
def test_progress_on_a_terminal_counts_whole_variants():
    # A sweep far longer than the second the bar waits to appear; once it has shown a count, Ctrl-C ends it.
    child = pexpect.spawn(sys.executable, ["-m", "diavolo_stats", "sweep", "--dice-per-color", "2..5",
                                           "--tolerance", "0.05..0.2:0.05", "--commands", "closest",
                                           "--rounds", "4000000"],
                          cwd=str(REPO), encoding="utf-8", timeout=300, dimensions=(24, 100))
    child.expect(r"(\d+(?:\.\d+)?)/16 \[.*variants/s")
    assert child.match.group(1).isdigit(), child.match.group(0)  # 3/16, never 3.0/16
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "diavolo: interrupted" in child.before, child.before
