"""Every limit of the command line is checked before any work, and every error of the system is one line.

Each of these once printed a traceback or allocated gigabytes before refusing.
"""

from __future__ import annotations

import errno
import os
import tempfile

import pytest
from helpers.cli import assert_one_line_error, run_diavolo

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import bidding

HUGE = "1" * 5000


def test_a_port_beyond_65535_is_refused_naming_the_range():
    assert_one_line_error(run_diavolo("serve", "--port", "65536"), "--port", "from 0 to 65,535", "got 65536")


@pytest.mark.parametrize("flag", ["--sides", "--colors-count", "--dice-per-color"])
def test_a_grid_value_of_5000_digits_is_one_line_quoting_at_most_40_characters(flag):
    result = run_diavolo("sweep", flag, HUGE)
    assert_one_line_error(result, f"{flag}: ")
    assert len(result.stderr) < 300


@pytest.mark.parametrize("flag", ["--sides", "--dice-per-color"])
def test_a_grid_range_longer_than_a_sweep_is_refused_before_it_is_listed(flag):
    assert_one_line_error(run_diavolo("sweep", flag, "2..99999999999999"), f"{flag}: ", "more than the 100,000")


@pytest.mark.parametrize("round_number", ["10000000000000000000", "1000000000"])
def test_a_minodice_round_beyond_the_game_is_refused_by_the_command_line(round_number):
    assert_one_line_error(run_diavolo("minodice", "bid", "--hand", "black", "--players", "3", "--round",
                                      round_number), "--round", "from 1 to 8")


def test_the_bid_advisor_checks_the_round_before_any_work(monkeypatch):
    def work(*args, **kwargs):
        raise AssertionError("work began before the round was checked")

    monkeypatch.setattr(bidding, "as_bag", work)
    with pytest.raises(InputError, match="round_number: a 3-player game has rounds 1 to 8, got 1000000000"):
        bidding.advise_bid("black", 10**9, 3)


def full_disk(*args):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


OUT_COMMANDS = {
    "simulate": ["simulate", "--rounds", "1000", "--seed", "1"],
    "game": ["game", "--players", "preset:novice", "preset:expert", "--games", "20", "--design-games", "0"],
    "sweep": ["sweep", "--sides", "4,6", "--commands", "most-odd"],
}


@pytest.mark.parametrize("name", OUT_COMMANDS)
def test_a_full_disk_under_out_is_one_line_and_keeps_the_old_file(tmp_path, monkeypatch, name):
    out = tmp_path / "out.csv"
    if name != "sweep":  # a sweep never writes over a file it did not start
        out.write_text("precious\n")
    monkeypatch.setattr(os, "fsync", full_disk)
    result = run_diavolo(*OUT_COMMANDS[name], "--out", str(out))
    assert_one_line_error(result, "out.csv", "No space left on device")
    if name != "sweep":
        assert out.read_text() == "precious\n"
        assert sorted(path.name for path in tmp_path.iterdir()) == ["out.csv"]


@pytest.mark.parametrize("name", OUT_COMMANDS)
def test_out_in_a_folder_this_process_may_not_write_is_one_line(tmp_path, monkeypatch, name):
    # The tests run as root, who may write anywhere: the folder's refusal is the system's answer, faked.
    def refused(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    result = run_diavolo(*OUT_COMMANDS[name], "--out", str(tmp_path / "out.csv"))
    assert_one_line_error(result, "out.csv", "Permission denied")
    assert list(tmp_path.iterdir()) == []
