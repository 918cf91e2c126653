"""Whole games between reading models: the roll's difficulty moves who wins, and the design metrics show it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from helpers.cli import REPO

from diavolo_stats.core.variant import ALL_COMMANDS, Variant
from diavolo_stats.game.design import reading_per_command
from diavolo_stats.game.engine import play_games
from diavolo_stats.game.players import PlayerModel
from diavolo_stats.game.reading import COEFFICIENTS, reading_of
from diavolo_stats.game.report import game_report
from diavolo_stats.stats import proportion_estimate

AVERAGE = reading_of(PlayerModel.preset("average"))


def with_dice_effect(name: str, speed: float, per_die: float):
    """The average player `speed` faster on the box (log scale), each extra die multiplying the reading by
    exp(per_die)."""
    time = np.array(AVERAGE.time)
    time[: len(ALL_COMMANDS)] -= speed
    time[COEFFICIENTS.index("per_extra_die")] = per_die
    return replace(AVERAGE, name=name, time=tuple(time.tolist()))


def test_fast_on_few_dice_but_steep_wins_on_the_kids_game_and_loses_on_four_dice_per_color():
    steep = with_dice_effect("steep", speed=0.35, per_die=0.2)
    flat = with_dice_effect("flat", speed=0.0, per_die=0.0)
    games = 4000
    for variant, steep_wins in ((Variant.preset("kids"), True), (Variant(dice_per_color=4), False)):
        records = play_games(variant, [steep, flat], games, seed=5)
        win = proportion_estimate(float(records.win_share[:, 0].sum()), games)
        if steep_wins:
            assert win.low > 0.6, (variant.label, win)
        else:
            assert win.high < 0.4, (variant.label, win)


def test_a_harder_variant_reads_slower_and_worse_for_every_command():
    box = {r.command: r for r in reading_per_command(Variant(), 30_000, seed=1)}
    big = {r.command: r for r in reading_per_command(Variant(colors=tuple("abcdefgh"), dice_per_color=6,
                                                             sides=20), 30_000, seed=1)}
    for command, reading in box.items():
        assert big[command].answer_ms.low > reading.answer_ms.high, command
        assert big[command].error_rate.low > reading.error_rate.high, command


def test_the_game_report_gives_each_command_s_mean_answer_time_and_error_rate(tmp_path):
    report = game_report(["preset:average", str(REPO / "examples" / "carol.toml")], games=200, seed=3,
                         design_games=2000)
    document = report.document()
    readings = document["design"]["reading"]
    assert [r["command"] for r in readings] == [c.value for c in ALL_COMMANDS]
    assert sum(r["rolls"] for r in readings) == 2000
    for reading in readings:
        low, high = reading["mean_answer_ms_ci95"]
        assert low < reading["mean_answer_ms"] < high
        assert 0 < reading["error_rate"] < 1
    text = report.text()
    assert "reading, an average player on this variant's rolls:" in text
    assert "highest-total" in text.split("reading, an average player")[1]


def test_a_player_from_the_log_on_more_dice_than_it_holds_is_said_to_be_extrapolated_and_how_far(tmp_path):
    from diavolo_stats.analytics.synthetic import write_synthetic_log

    log = tmp_path / "drills.csv"
    write_synthetic_log(log, ["preset:average"], sessions=1, trials=60, seed=2)  # the box's 9 dice only
    players = ["synthetic-average", "preset:novice"]
    bigger = game_report(players, games=50, seed=1, variant=Variant(dice_per_color=4), log_path=log,
                         design_games=0)
    note = ("synthetic-average: this variant's 12 dice are 3 more than the most of any roll of the drill log "
            "(9); the reading of its rolls is extrapolated that far from the fitted per-die effect")
    assert bigger.notes == (note,) and bigger.document()["notes"] == [note]
    assert note in " ".join(bigger.text().split())
    kids = game_report(players, games=50, seed=1, variant=Variant.preset("kids"), log_path=log, design_games=0)
    assert kids.notes[0].startswith("synthetic-average: this variant's 6 dice are 3 fewer than the fewest")
    # Within the log's dice, and for presets and files, nothing is extrapolated.
    assert game_report(players, games=50, seed=1, log_path=log, design_games=0).notes == ()
    assert game_report(["preset:average", "preset:novice"], games=50, seed=1, variant=Variant(dice_per_color=4),
                       design_games=0).notes == ()
