"""Every command's library function returns a Result: one document, rows for CSV, text for people."""

from __future__ import annotations

import csv
import io
import json

import pytest

from diavolo_stats import Variant, exact_odds, game_report, simulate
from diavolo_stats.analytics.synthetic import write_synthetic_log
from diavolo_stats.drill.log import DrillLog, load_logs
from diavolo_stats.drill.summary import summarize_session
from diavolo_stats.minodice import advise_bid, die_odds, score_sheet
from diavolo_stats.results import TEXT_WIDTH, Result, render

SHEET = "round,player,bid,tricks,griffins_beaten,mermaid_tricks\n1,Ann,1,1,0,0\n1,Bea,0,0,0,0\n1,Cid,1,0,0,0\n"


def odds():
    return exact_odds(Variant())


def many_colors():
    return exact_odds(Variant(colors=("black", "red", "white", "blue", "green", "yellow", "purple", "orange")))


def simulation():
    return simulate(Variant(), 20_000, seed=3)


def drill_summary(tmp_path):
    log = DrillLog(tmp_path / "d.csv")
    return summarize_session(load_logs([log.path]), "none", log.path, "Ana")


def synthetic(tmp_path):
    return write_synthetic_log(tmp_path / "s.csv", ["preset:novice"], sessions=1, trials=3)


def games():
    return game_report(["preset:novice", "preset:expert"], games=200, seed=1, design_games=50)


def minodice_odds():
    return die_odds(against=(1,), method="exact")


def bid():
    return advise_bid("black,mermaid", 2, 3, simulations=200, seed=1)


def sheet(tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_text(SHEET, encoding="utf-8")
    return score_sheet(path)


MAKERS = [odds, many_colors, simulation, drill_summary, synthetic, games, minodice_odds, bid, sheet]


@pytest.mark.parametrize("make", MAKERS, ids=[make.__name__ for make in MAKERS])
def test_each_result_has_the_three_faces(make, tmp_path):
    result = make(tmp_path) if "tmp_path" in make.__code__.co_varnames else make()
    assert isinstance(result, Result)
    # JSON: a document plain enough to dump.
    assert json.loads(render(result, "json")) == json.loads(json.dumps(result.document()))
    # CSV: the header is `columns`, one line per row, and every row key is a column.
    rows = list(csv.DictReader(io.StringIO(render(result, "csv"))))
    assert len(rows) == len(result.rows())
    assert all(set(row) <= set(result.columns) for row in result.rows())
    # Text: what print() shows, within 80 columns.
    assert str(result) == result.text() == render(result, "table")
    assert max(len(line) for line in result.text().splitlines()) <= TEXT_WIDTH


def test_a_table_too_wide_says_which_columns_it_left_out():
    lines = many_colors().text().splitlines()
    header = next(line for line in lines if line.startswith("command"))
    assert "p_black" in header and "p_orange" not in header
    prose = " ".join(lines)
    assert "not shown, too wide:" in prose and "p_orange" in prose and "print as csv or json" in prose
