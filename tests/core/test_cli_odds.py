"""`diavolo odds` through its command line: the JSON contract, the formats, bad input."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from fractions import Fraction
from math import gcd

import pytest
from helpers.cli import run_diavolo

from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.variant import GREY, Command, Variant


def diavolo_odds(*args: str) -> subprocess.CompletedProcess:
    return run_diavolo("odds", *args)


@pytest.fixture(scope="module")
def standard_json() -> dict:
    result = diavolo_odds("--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_json_maps_every_value_command_to_its_tie_probability_and_fraction(standard_json):
    assert list(standard_json["commands"]) == [
        "highest-total", "lowest-total", "largest-spread", "most-odd", "highest-die"]
    for entry in standard_json["commands"].values():
        assert isinstance(entry["tie_probability"], float)
        numerator, denominator = (int(part) for part in entry["tie_fraction"].split("/"))
        assert gcd(numerator, denominator) == 1
        assert float(Fraction(numerator, denominator)) == entry["tie_probability"]


def test_json_gives_each_answer_exactly_and_as_a_float(standard_json):
    for entry in standard_json["commands"].values():
        assert set(entry["answer_probability"]) == set(entry["answer_fraction"]) == {"black", "red", "white", GREY}
        exact = {answer: Fraction(text) for answer, text in entry["answer_fraction"].items()}
        assert sum(exact.values()) == 1
        assert exact[GREY] == Fraction(entry["tie_fraction"])
        assert entry["answer_probability"] == {answer: float(p) for answer, p in exact.items()}


def test_json_values_are_the_library_exact_odds(standard_json):
    odds = exact_odds(Variant())
    for command, tie in odds.tie_probability.items():
        assert Fraction(standard_json["commands"][command.value]["tie_fraction"]) == tie


def test_json_describes_the_variant(standard_json):
    variant = standard_json["variant"]
    assert variant["description"] == Variant().describe()
    assert (variant["colors"], variant["dice_per_color"], variant["sides"]) == (["black", "red", "white"], 3, 6)
    assert "closest" in variant["commands"]


def test_json_says_closest_has_no_exact_value_outside_commands(standard_json):
    assert "closest" not in standard_json["commands"]
    assert standard_json["closest"]["exact"] is None
    assert "diavolo simulate" in standard_json["closest"]["note"]


def test_json_has_no_closest_note_when_closest_is_not_played():
    result = diavolo_odds("--format", "json", "--commands", "most-odd,highest-die")
    document = json.loads(result.stdout)
    assert list(document["commands"]) == ["most-odd", "highest-die"]
    assert "closest" not in document


def test_variant_flags_change_the_odds():
    result = diavolo_odds("--format", "json", "--variant", "kids", "--colors", "black,red,white,blue", "--sides", "8")
    document = json.loads(result.stdout)
    odds = exact_odds(Variant(colors=("black", "red", "white", "blue"), dice_per_color=2, sides=8))
    assert document["variant"]["dice_per_color"] == 2
    for command, by_answer in odds.answer_probability.items():
        assert {a: Fraction(t) for a, t in document["commands"][command.value]["answer_fraction"].items()} == by_answer


def test_table_states_the_variant_each_tie_and_the_closest_note():
    result = diavolo_odds()
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("command"))
    assert " ".join(" ".join(lines[:header]).split()) == f"Exact odds: {Variant().describe()}"
    assert lines[header].split() == ["command", "tie_fraction", "tie_probability", "p_black", "p_red", "p_white"]
    most_odd = next(line for line in lines if line.startswith("most-odd"))
    assert most_odd.split()[1:3] == ["53/128", "0.414062"]
    note = " ".join(lines[lines.index(most_odd) + 2:])
    assert "no exact value" in note and "diavolo simulate" in note
    assert max(len(line) for line in lines) <= 80


def test_csv_has_one_row_per_command_with_the_closest_note():
    result = diavolo_odds("--format", "csv", "--variant", "kids")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [row["command"] for row in rows] == [
        "highest-total", "lowest-total", "largest-spread", "most-odd", "highest-die", "closest"]
    kids = exact_odds(Variant.preset("kids"))
    for row in rows[:-1]:
        assert Fraction(row["tie_fraction"]) == kids.tie_probability[Command(row["command"])]
        assert row["note"] == ""
    assert rows[-1]["tie_probability"] == "" and "diavolo simulate" in rows[-1]["note"]


@pytest.mark.parametrize("args, flag", [
    (["--sides", "1"], "--sides"),
    (["--dice-per-color", "0"], "--dice-per-color"),
    (["--colors", "black"], "--colors"),
    (["--colors", "black,black"], "--colors"),
    (["--colors", "black,grey"], "--colors"),
    (["--commands", "nope"], "--commands"),
    (["--format", "xml"], "--format"),
])
def test_bad_input_is_one_line_naming_the_flag_with_status_2(args, flag):
    result = diavolo_odds(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert flag in result.stderr
    assert "Traceback" not in result.stderr
