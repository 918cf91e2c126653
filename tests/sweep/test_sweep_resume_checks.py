"""`sweep --resume` checks the rows it keeps: a tampered or corrupted variant is computed again, never kept."""

from __future__ import annotations

import csv
import io

import pytest
from helpers.cli import run_diavolo

from diavolo_stats.sweep import SweepGrid, sweep
from diavolo_stats.sweep.result import COLUMNS

GRID = SweepGrid(dice_per_color=(2, 3), sides=(4, 6), rounds=20_000)


def tampered(text: str, change) -> str:
    """`text` (a sweep CSV) with `change(row)` applied to the first variant's closest row."""
    rows = list(csv.reader(io.StringIO(text)))
    target = next(row for row in rows[1:] if row[COLUMNS.index("command")] == "closest")
    change(dict(zip(COLUMNS, target)), target)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def setter(**cells):
    def change(named, row):
        for column, value in cells.items():
            row[COLUMNS.index(column)] = value(named) if callable(value) else value
    return change


TAMPERINGS = {
    "ties raised by 1,000": setter(ties=lambda row: str(int(row["ties"]) + 1000)),
    "ties above rounds": setter(ties="30000"),
    "tie_probability nan": setter(tie_probability="nan"),
    "tie_probability inf": setter(tie_probability="inf"),
    "tie_probability 5.0": setter(tie_probability="5.0"),
    "rounds -5": setter(rounds="-5"),
    "an interval widened": setter(ci95_high=lambda row: repr(float(row["ci95_high"]) + 0.01)),
    "another seed": setter(seed="12345"),
}


@pytest.mark.parametrize("change", TAMPERINGS.values(), ids=TAMPERINGS.keys())
def test_a_tampered_row_is_computed_again_and_never_lands_in_the_result(tmp_path, change):
    whole = tmp_path / "whole.csv"
    expected = sweep(GRID, out=whole).rows()
    out = tmp_path / "tampered.csv"
    out.write_text(tampered(whole.read_text(), change))
    with pytest.warns(UserWarning, match=r"1 variant\(s\) whose rows do not check are computed again"):
        resumed = sweep(GRID, out=out, resume=True)
    assert resumed.rows() == expected
    assert out.read_bytes() == whole.read_bytes()


def test_an_exact_row_that_is_not_its_own_interval_is_computed_again(tmp_path):
    whole = tmp_path / "whole.csv"
    sweep(GRID, out=whole)
    out = tmp_path / "tampered.csv"
    rows = list(csv.reader(io.StringIO(whole.read_text())))
    rows[1][COLUMNS.index("tie_probability")] = "0.5"  # the first row: an exact command
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    out.write_text(buffer.getvalue())
    with pytest.warns(UserWarning, match="an exact value that is not its own interval"):
        sweep(GRID, out=out, resume=True)
    assert out.read_bytes() == whole.read_bytes()


def test_the_command_line_resumes_a_tampered_file_into_the_true_one(tmp_path):
    flags = ["sweep", "--dice-per-color", "2,3", "--sides", "4,6", "--rounds", "20000", "--format", "csv"]
    whole = tmp_path / "whole.csv"
    assert run_diavolo(*flags, "--out", str(whole)).returncode == 0
    out = tmp_path / "tampered.csv"
    out.write_text(tampered(whole.read_text(), TAMPERINGS["ties raised by 1,000"]))
    result = run_diavolo(*flags, "--out", str(out), "--resume")
    assert result.returncode == 0, result.stderr
    assert "computed again" in result.stderr
    assert out.read_bytes() == whole.read_bytes()
