"""`diavolo simulate` as a user runs it: formats, the JSON contract, --out, bad input, Ctrl-C."""

from __future__ import annotations

import csv
import json
import os
import sys

import pexpect
import pytest
from helpers.cli import REPO, assert_one_line_error, run_diavolo

from diavolo_stats.core.rules import CLOSEST_JUDGING


def test_json_contract():
    result = run_diavolo("simulate", "--rounds", "200000", "--seed", "4", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar when output is piped
    document = json.loads(result.stdout)
    assert set(document["commands"]) == {"highest-total", "lowest-total", "largest-spread", "most-odd",
                                          "highest-die", "closest"}
    for name, entry in document["commands"].items():
        assert isinstance(entry["tie_probability"], float)
        assert entry["rounds"] == 200000 and isinstance(entry["ties"], int)
        assert entry["tie_probability"] == entry["ties"] / entry["rounds"]
        low, high = entry["ci95"]
        assert low <= entry["tie_probability"] <= high
        assert ("exact" in entry) == (name != "closest")
    assert document["seed"] == 4 and document["rounds"] == 200000
    assert "table_model" in document


def test_table_output_names_the_variant_and_the_table_model():
    result = run_diavolo("simulate", "--rounds", "100000", "--seed", "1", "--variant", "kids")
    assert result.returncode == 0, result.stderr
    assert "2d6 per color" in result.stdout
    assert "closest: table model: 16 mm dice" in result.stdout
    assert CLOSEST_JUDGING in result.stdout  # the tie figure is the table's call, and it says so
    assert "exact" in result.stdout.split() and "z_score" in result.stdout.split()
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_variant_flags_reach_the_simulator():
    result = run_diavolo("simulate", "--rounds", "70000", "--seed", "1", "--colors", "black,red,white,blue",
                         "--sides", "8", "--dice-per-color", "2", "--commands", "highest-total,most-odd",
                         "--format", "json")
    document = json.loads(result.stdout)
    assert set(document["commands"]) == {"highest-total", "most-odd"}
    assert document["variant"]["colors"] == ["black", "red", "white", "blue"]
    assert set(document["commands"]["most-odd"]["answer_shares"]) == {"black", "red", "white", "blue", "grey"}


def test_out_saves_the_result_table(tmp_path):
    out = tmp_path / "result.csv"
    result = run_diavolo("simulate", "--rounds", "100000", "--seed", "9", "--out", str(out), "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(out.open()))
    assert [r["command"] for r in rows] == ["highest-total", "lowest-total", "largest-spread", "most-odd",
                                            "highest-die", "closest"]
    document = json.loads(result.stdout)
    for row in rows:
        assert int(row["ties"]) == document["commands"][row["command"]]["ties"]
    assert rows[-1]["exact_tie_probability"] == "" and "16 mm" in rows[-1]["table_model"]


def test_same_seed_same_output_with_any_workers():
    one = run_diavolo("simulate", "--rounds", "300000", "--seed", "5", "--format", "csv")
    two = run_diavolo("simulate", "--rounds", "300000", "--seed", "5", "--format", "csv", "--workers", "2",
                      "--chunk-rounds", "70000")
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout


@pytest.mark.parametrize("args, fragments", [
    (["--rounds", "0"], ["--rounds", "from 1 to"]),
    (["--rounds", "-5"], ["--rounds"]),
    (["--rounds", "lots"], ["--rounds", "whole number"]),
    (["--dice-per-color", "0"], ["--dice-per-color", "from 1 to 12"]),
    (["--sides", "1"], ["--sides", "from 2 to 100"]),
    (["--colors", "black"], ["--colors", "2 to 8"]),
    (["--colors", "black,red,black"], ["--colors", "repeated"]),
    (["--colors", "black,grey"], ["--colors", "grey"]),
    (["--colors", "black,Red!"], ["--colors", "must be a color name"]),
    (["--commands", "highest-total,tallest"], ["--commands", "tallest", "must be one of highest-total"]),
    (["--workers", "0"], ["--workers", "from 1 to"]),
    (["--tolerance", "-0.1"], ["--tolerance", "from 0 to 1"]),
    (["--out", "/nonexistent-folder/x.csv"], ["--out", "does not exist"]),
    (["--out", "."], ["--out", "folder"]),
    (["--variant", "giant"], ["--variant", "unknown variant", "standard, kids"]),
])
def test_bad_input_is_one_line_and_exit_2(args, fragments):
    assert_one_line_error(run_diavolo("simulate", *args), *fragments)


def test_a_bad_out_leaves_an_existing_file_untouched(tmp_path):
    out = tmp_path / "keep.csv"
    out.write_text("precious\n")
    assert_one_line_error(run_diavolo("simulate", "--rounds", "0", "--out", str(out)), "--rounds")
    assert out.read_text() == "precious\n"


@pytest.mark.slow  # a terminal (pty)
def test_progress_bar_on_a_terminal_for_a_long_run():
    child = pexpect.spawn(sys.executable, ["-m", "diavolo_stats", "simulate", "--rounds", "40000000",
                                           "--seed", "1"], cwd=str(REPO), env={**os.environ, "COLUMNS": "100"},
                          encoding="utf-8", timeout=120, dimensions=(24, 100))
    # A run far longer than the second the bar waits to appear; once it has shown, Ctrl-C ends it.
    child.expect(r"rounds/s")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "diavolo: interrupted" in child.before, child.before
