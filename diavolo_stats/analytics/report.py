"""The report of drill logs, built in memory, then written as a folder or served as one page.

`build_report` loads the logs, keeps the chosen players, summarizes them (`summaries`), names their weak spots by
roll type (`roll_weak_spots`), sets the tie odds of the games they played, exact against simulated
(`tie_frequency`), draws the charts (`charts`) as PNG bytes and renders the page (`report_page`). `write_report`
writes it all as one folder, whole or not at all; the browser's `/report` serves the page alone. A game whose
rules were not logged (`custom`) gets a note instead of tie odds.
"""

from __future__ import annotations

import importlib
import itertools
import re
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import pandas as pd

from diavolo_stats.analytics import roll_weak_spots, summaries
from diavolo_stats.analytics.chart_data import frame_columns
from diavolo_stats.analytics.chart_processes import CHART_MODULES, fork_drawer, hand_over, handed_over, report_chart_png
from diavolo_stats.analytics.latency_figures import latency_figures
from diavolo_stats.analytics.report_page import WEAK_SPOTS_HEADING, render_page
from diavolo_stats.analytics.roll_weak_spots import RollWeakSpots
from diavolo_stats.analytics.tie_frequency import (
    load_simulation,
    simulation_frame,
    simulation_mismatch,
    tie_frequency_frame,
)
from diavolo_stats.core.rules import CLOSEST_JUDGING
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import PRESETS, Variant
from diavolo_stats.drill.log import load_logs, missing_log_message
from diavolo_stats.drill.log.rules import UNKNOWN_RULES, played_variant, with_command_labels
from diavolo_stats.errors import InputError, about
from diavolo_stats.files import check_folder, frame_csv_text, not_a_file, write_folder
from diavolo_stats.results import TextResult, render_fitted, wrap

DEFAULT_OUT = Path("data") / "reports"

SUMMARY_COLUMNS = (
    "player", "command", "trials", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "median_latency_ms",
    "mean_latency_ms", "latency_iqr_ms", "exgauss_mu_ms", "exgauss_sigma_ms", "exgauss_tau_ms",
    "correct", "timeouts", "anticipations",
)
"""Columns of summary.csv, in order: the printed table's seven first, then the other figures of
`summaries.summarize`."""

PRINTED_COLUMNS = ("player", "command", "trials", "accuracy", "accuracy_ci_low", "accuracy_ci_high",
                   "median_latency_ms")

LOG_COLUMNS = tuple(dict.fromkeys(("session_id", "player", "timestamp", "variant", "dice_per_color", "command",
                                   "dice", "expected", "answer", "correct", "latency_ms", "too_early", "timed_out")
                                  + roll_weak_spots.COLUMNS))
"""The drill log columns a report reads (and checks): a million-row log is read in a fraction of the memory.
The weak spots' fit reads the roll's cells of each player's recent answers only (`roll_weak_spots`)."""

REPORT_FILES = ("summary.csv", "accuracy.png", "latency.png", "learning_curve.png", "tie_vs_non_tie.png",
                "report.html")
"""What a report folder holds, with one tie_frequency_<variant>.png per preset game played."""

SIMULATION_FILE = "simulation_{variant}.csv"
"""Saved results looked for next to the default report folder (data/) when no file is given."""

MAX_LOGGED_GAMES = 4
"""At most this many games of the log's own rules (variant files) get their tie frequency, the most played first:
each is simulated afresh."""

FALLBACK_ROUNDS = 1_000_000
FALLBACK_SEED = 1
"""Without saved results the report simulates this many rounds itself: about 0.2 s, intervals near ±0.1 %."""


AFTER_THE_READ = ("scipy.optimize", "jinja2", *CHART_MODULES)
"""What a report needs once its logs are read, not before: the summary's fits (scipy.optimize, a quarter of a
second of mostly Python to import), the page's templates (Jinja, a few hundredths) and the charts (matplotlib, a
third). `build_report` imports them on a thread beside the read, whose parsing and checks run in Arrow and numpy
with the GIL released. The charts come last: a read that ends before they are reached is short, and the worker
draws them all; they are not imported here."""


WORKER_S_OWN = ("tie_vs_non_tie.png", "latency.png")
"""The charts the worker draws itself when it draws them all; its drawer (`chart_processes.fork_drawer`) draws the
others. The latency chart, the last sent and the costliest (about a third of the drawing), and the tie rolls, sent
before the accuracy: each process draws about half, and the worker hands the accuracy chart over before it starts
the latency chart."""


PRINTED_HEADERS = {"accuracy": "acc", "accuracy_ci_low": "acc_low", "accuracy_ci_high": "acc_high",
                   "median_latency_ms": "median_ms"}
"""Shorter headers (and 4 decimals) for the printed table, so that it fits 80 columns."""


@dataclass(frozen=True)
class Report(TextResult):
    """A report in memory, and where it was written once it is.

    summary: one row per player and command, SUMMARY_COLUMNS (probabilities, ms).
    weak_spots: each player's weak spots by roll type (`roll_weak_spots`), by name.
    notes: lines worth telling the reader (e.g. where the simulated odds came from).
    charts: each chart's file name -> (caption, PNG bytes), in the page's order.
    page: report.html's text. folder, files: where `write_report` wrote it (None and () before).
    """

    summary: pd.DataFrame
    weak_spots: dict[str, RollWeakSpots]
    notes: tuple[str, ...]
    charts: dict[str, tuple[str, bytes]]
    page: str
    folder: Path | None = None
    files: tuple[Path, ...] = ()

    columns = PRINTED_COLUMNS

    def contents(self) -> dict[str, bytes]:
        """Every file of the report folder by name, summary.csv first, report.html last."""
        return {"summary.csv": frame_csv_text(self.summary).encode("utf-8"),
                **{name: png for name, (_, png) in self.charts.items()}, "report.html": self.page.encode("utf-8")}

    def rows(self) -> list[dict]:
        """The summary as printable rows of PRINTED_COLUMNS: latency rounded to whole ms, None when missing."""
        rows = []
        for record in self.summary[list(PRINTED_COLUMNS)].to_dict("records"):
            latency = record["median_latency_ms"]
            record["median_latency_ms"] = None if pd.isna(latency) else int(round(latency))
            rows.append(record)
        return rows

    def document(self) -> dict:
        """Keys `summary` (the rows), `weak_spots` (by player), `files` (paths written) and `notes`."""
        return {"summary": self.rows(),
                "weak_spots": {player: spots.as_dict() for player, spots in self.weak_spots.items()},
                "files": [str(path) for path in self.files], "notes": list(self.notes)}

    def text(self) -> str:
        """The summary table, each player's weak spots by roll type, the notes and where the files are."""
        lines = [render_fitted(self.rows(), PRINTED_COLUMNS, keep=4, headers=PRINTED_HEADERS, digits=4), "",
                 wrap(WEAK_SPOTS_HEADING + ":")]
        for player, spots in self.weak_spots.items():
            lines += [wrap(f"  {player}: {spots.note}", "    ")] if spots.note else [f"  {player}:"]
            lines += [wrap(f"    {cost.sentence}", "      ") for cost in spots.costs]
        lines.append("")
        lines += [wrap(note) for note in self.notes]
        if self.folder is not None:
            lines.append(wrap(f"wrote {len(self.files)} files to {self.folder}/ (open {self.folder / 'report.html'})"))
        return "\n".join(lines)


def write_report(log_paths: Sequence[str | Path], out_dir: str | Path = DEFAULT_OUT,
                 players: Sequence[str] | None = None, simulation_path: str | Path | None = None,
                 worker: Executor | None = None) -> Report:
    """`build_report` of the drill logs at `log_paths` for `players` (all when None), with `worker`, written
    into `out_dir`.

    Writes summary.csv, accuracy.png, latency.png, learning_curve.png,
    tie_vs_non_tie.png, tie_frequency_<game>.png per game whose rules are
    known and report.html, whole or not at all: the folder is built beside
    `out_dir` and swapped in (`files.write_folder`). `out_dir` may be new or
    hold nothing but report files (InputError otherwise, before anything is
    read or drawn). Returns the report with its folder and files.
    """
    folder = Path(out_dir)
    with about("out_dir"):
        check_folder(folder, is_report_file)
    report = build_report(log_paths, players, simulation_path, worker)
    contents = report.contents()
    with about("out_dir"):
        write_folder(folder, contents, is_report_file)
    return replace(report, folder=folder, files=tuple(folder / name for name in contents))


def build_report(log_paths: Sequence[str | Path], players: Sequence[str] | None = None,
                 simulation_path: str | Path | None = None, worker: Executor | None = None) -> Report:
    """The report of the drill logs at `log_paths` for `players` (all when None), in memory; nothing is written.

    Simulated tie odds come from `simulation_path`; without it, from
    data/simulation_<variant>.csv when it exists, else from a fresh
    simulation of FALLBACK_ROUNDS rounds. `worker` (a
    `chart_processes.report_worker`) shares the work on a second core: the
    same report, sooner (how: docs/architecture.md, "Worker processes"). A
    server passes none: a fork would not carry its threads. InputError (one
    line) for a missing or malformed log, a log with no trials, an unknown
    player, a missing or malformed `simulation_path` (before the logs are read).
    """
    paths = [Path(p) for p in log_paths]
    for path in paths:
        if not path.is_file():
            raise InputError(not_a_file(path) or missing_log_message(path), field="log_paths")
    with about("simulation_path"):
        given = None if simulation_path is None else (load_simulation(simulation_path),
                                                      f"simulated odds from {simulation_path}")
    with ThreadPoolExecutor(max_workers=1) as aside:
        imports = {module: aside.submit(importlib.import_module, module) for module in AFTER_THE_READ}
        with about("log_paths"):  # the reader names the file and line; the flag comes first
            drills = load_logs(paths, columns=LOG_COLUMNS, lines=True)
        if drills.empty:
            raise InputError(f"no trials in {', '.join(map(str, paths))}; drill first", field="log_paths")
        if players:
            summaries.check_players(drills, players)
        chosen = sorted(set(players)) if players else summaries.players_in(drills)
        # Every player of the log is fitted (the club the chosen borrow from), from their recent answers, read
        # again here, where the read left the log's line marks (the worker has none). Their rows are taken from
        # their own columns: the first take of a million-row text column (the dice's above all) costs more than
        # the take of the rest.
        fitted = roll_weak_spots.weak_spots_to_fit(drills, chosen)
        # The dice are read for their checks only, the dice's numbers are no figure's, and where each row is
        # (source, line) is the weak spots' alone.
        drills = drills.drop(columns=["dice", "color_dice", "dice_values", "source", "line"])
        if worker is not None and imports[CHART_MODULES[0]].cancel():
            # A short read, ended before the imports beside it reached the charts: the worker draws them all, and
            # this process fits the weak spots once it has sent them, with no matplotlib of its own.
            for module in CHART_MODULES[1:]:
                imports[module].cancel()
            return _built(drills, players, paths, given, fitted, worker, drawing_here=False)
        # A long read (or no worker): the worker fits them meanwhile (sent before the imports beside are waited
        # for), and this process draws the latency chart, which reads every row.
        weak_spots = _weak_spots_later(fitted, worker)
    return _built(drills, players, paths, given, weak_spots, worker, drawing_here=True)


def _weak_spots_later(fitted: Callable[[], dict[str, RollWeakSpots]],
                      pool: Executor | None) -> Callable[[], dict[str, RollWeakSpots]]:
    """The weak spots `fitted` gives, as a call that gives them: fitted now without a pool, else in the pool's
    worker meanwhile (only the recent answers are sent to it)."""
    if pool is None:
        spots = fitted()
        return lambda: spots
    return pool.submit(fitted).result


def _built(drills: pd.DataFrame, players: Sequence[str] | None, paths: list[Path],
           given: tuple[pd.DataFrame, str] | None, weak_spots: Callable[[], dict[str, RollWeakSpots]],
           pool: Executor | None, drawing_here: bool) -> Report:
    """The report of the rows read (`build_report`): summaries, charts, tie odds and the page. With a `pool`, its
    worker draws the charts but, when `drawing_here`, the latency chart, which this process draws before it takes
    back the charts still queued; otherwise (without matplotlib, importing it would cost more than the worker's
    last chart) it hands all but WORKER_S_OWN to its drawer. `weak_spots` is called once every chart is sent or
    drawn here."""
    drills = with_command_labels(summaries.select_players(drills, players))
    figures = {}  # file name -> (caption, the call that draws the chart's PNG)
    sent = {}  # file name -> the PNG bytes the worker will send back (None: its drawer's, sent by `handed_over`)
    handing = pool is not None and not drawing_here  # the worker draws them all: with a drawer of its own
    if handing:
        pool.submit(fork_drawer)

    def to_draw(name: str, caption: str, chart: str, *args, **kwargs) -> None:
        # Sent as soon as what it draws is worked out: the worker goes on from what it was doing to a chart. Frames
        # go as their columns (`frame_columns`): the worker has no pandas to unpickle a DataFrame with.
        figures[name] = (caption, partial(report_chart_png, chart, *args, **kwargs))
        if handing and name not in WORKER_S_OWN:
            sent[name] = pool.submit(hand_over, name, chart, *args, **kwargs)
        elif pool is not None and not (drawing_here and name == "latency.png"):
            sent[name] = pool.submit(report_chart_png, chart, *args, **kwargs)

    # The charts needing the least work first: the tie odds, the learning curve and the tie rolls, then the accuracy,
    # after the summary's fits, and the latency chart, which needs the fits and reads every row.
    ties = {}  # chart file name -> (note, tie frequency frame)
    games, left_out = _games_played(drills)
    if given is not None:
        _check_given_simulation(given[0], games)
    for key, shown, variant in games:
        saved, note = _simulated_odds(key, shown, variant, given)
        frame = tie_frequency_frame(variant, saved)
        title = f"Tie frequency per command, {shown} game"
        to_draw(f"tie_frequency_{key}.png", title, "tie_frequency_chart", frame_columns(frame), title=title)
        ties[f"tie_frequency_{key}.png"] = (note, frame)
    to_draw("learning_curve.png", "Learning curve over sessions", "learning_curve_chart",
            frame_columns(summaries.learning_curve(drills, fit=False)))
    to_draw("tie_vs_non_tie.png", "Tie rolls against non-tie rolls", "tie_versus_non_tie_chart",
            frame_columns(summaries.tie_versus_non_tie(drills, fit=False)))
    summary = summaries.summarize(drills)[list(SUMMARY_COLUMNS)]
    to_draw("accuracy.png", "Accuracy per command", "accuracy_chart", frame_columns(summary))
    # The summary's fits are drawn; the curves' own fits would not be shown, so they are not made.
    to_draw("latency.png", "Latency of correct answers per command", "latency_figures_chart",
            latency_figures(drills, summaries.summary_fits(summary)))
    handed = pool.submit(handed_over) if handing else None
    drawn = _drawn_here(figures, sent, take_back=drawing_here)
    spots = weak_spots()
    if handed is not None:
        drawn.update(handed.result())
    order = ["accuracy.png", "latency.png", "learning_curve.png", "tie_vs_non_tie.png", *ties]  # the page's
    images = {name: (figures[name][0], drawn[name] if name in drawn else sent[name].result()) for name in order}
    notes = [note for note, _ in ties.values()] + ([CLOSEST_JUDGING] if ties else []) + left_out
    page = render_page(summary, drills, paths, images, ties, left_out, spots)
    return Report(summary=summary, weak_spots=spots, notes=tuple(notes), charts=images, page=page)


def _drawn_here(figures: dict[str, tuple[str, Callable[[], bytes]]], sent: dict[str, Future],
                take_back: bool) -> dict[str, bytes]:
    """The PNG bytes of each chart of `figures` drawn in this process: those not `sent` to the worker, then, to
    `take_back`, each sent chart still queued, the last sent first (rather than wait for a worker still busy). The
    worker sends back the same PNG bytes as drawn here."""
    drawn = {name: draw() for name, (_, draw) in figures.items() if name not in sent}
    for name in reversed(sent) if take_back else ():
        if sent[name].cancel():
            drawn[name] = figures[name][1]()
    return drawn


def _games_played(drills: pd.DataFrame) -> tuple[list[tuple[str, str, Variant]], list[str]]:
    """The games of the log whose rules are known, as (file key, name shown, Variant): the presets played by
    name, then the games whose rules their rows carry (a variant file's), the most played first, at most
    MAX_LOGGED_GAMES, by their `name` (`game` without one); and the notes for the trials left out: `custom`
    rows, whose rules were not logged, a preset's rows whose dice per color are not its own, and the games
    past MAX_LOGGED_GAMES."""
    games, logged, unknown = [], {}, 0  # logged: the trials of each rules cell that carries a game's rules
    for (cell, dice_per_color), trials in drills.groupby(["variant", "dice_per_color"], observed=True).size().items():
        if cell in PRESETS and Variant.preset(cell).dice_per_color == dice_per_color:
            games.append((cell, cell, Variant.preset(cell)))
        elif cell in PRESETS or cell == UNKNOWN_RULES:
            unknown += int(trials)
        else:
            logged[cell] = logged.get(cell, 0) + int(trials)
    most_played = sorted(logged, key=lambda cell: -logged[cell])  # stable: the log's order between equals
    keys = set(PRESETS)
    for cell in most_played[:MAX_LOGGED_GAMES]:
        variant = played_variant(cell)  # the reader has checked the cell
        shown = variant.name or "game"
        key = base = re.sub(r"[^a-z0-9]+", "-", shown.lower()).strip("-") or "game"  # a file name's part
        for number_taken in itertools.count(2):
            if key not in keys:
                break
            key = f"{base}-{number_taken}"
        keys.add(key)
        games.append((key, shown, variant))
    past = sum(logged[cell] for cell in most_played[MAX_LOGGED_GAMES:])
    notes = []
    if unknown:
        notes.append(f"no tie frequency for the {unknown} trials of a game whose rules the log does not hold")
    if past:
        more = len(most_played) - MAX_LOGGED_GAMES
        notes.append(f"no tie frequency for the {past} trials of {more} more game{'s' if more > 1 else ''} of "
                     f"rules of their own, past the {MAX_LOGGED_GAMES} most played (the exact odds of their variant "
                     "files give them)")
    return games, notes


def _check_given_simulation(simulated: pd.DataFrame, games: list[tuple[str, str, Variant]]) -> None:
    """InputError (`simulation_path`) when the log played games whose rules it holds and the saved results given were
    simulated for none of them (a log of none, `custom` trials alone, has no odds to set them against: a note)."""
    mismatches = [(shown, _not_for(variant, simulated)) for _, shown, variant in games]
    if mismatches and all(mismatch is not None for _, mismatch in mismatches):
        why = "; ".join(f"{shown}: {mismatch}" for shown, mismatch in mismatches)
        raise InputError(f"{simulated.attrs['source']} is for none of the games the log played ({why}); simulate one "
                         "of them and save it", field="simulation_path")


def _not_for(variant: Variant, simulated: pd.DataFrame) -> str | None:
    """Why saved results cannot serve as `variant`'s simulated odds: simulated for another game
    (`simulation_mismatch`), or without a row for one of its commands (results of some commands only, or a variant's
    own command); None when they can."""
    mismatch = simulation_mismatch(variant, simulated)
    if mismatch is not None:
        return mismatch
    saved = set(simulated["command"].astype(str))
    missing = [command.value for command in variant.commands if command.value not in saved]
    return f"no results for {', '.join(missing)}" if missing else None


def _simulated_odds(key: str, shown: str, variant: Variant,
                    given: tuple[pd.DataFrame, str] | None) -> tuple[pd.DataFrame, str]:
    """The simulated odds of a game played (its key: a preset's name, or a logged game's) and where they come from:
    those `given` (`simulation_path`'s, with its note) if they hold this game's (`_not_for`), else for a preset
    data/simulation_<preset>.csv if it does, else a fresh simulation, whose note says why the others were not used."""
    reasons = []
    if given is not None:
        why_not = _not_for(variant, given[0])
        if why_not is None:
            return given
        reasons.append(f"{given[0].attrs['source']}: {why_not}")
    saved = Path("data") / SIMULATION_FILE.format(variant=key)
    if key not in PRESETS:
        reasons.insert(0, "its rules as its trials logged them")
    elif not saved.is_file():
        reasons.insert(0, f"no saved results at {saved}")
    else:
        simulated = load_simulation(saved)
        why_not = _not_for(variant, simulated)
        if why_not is None:
            return simulated, f"simulated odds from {saved}" + "".join(f" ({why})" for why in reasons)
        reasons.insert(0, f"{saved}: {why_not}")
    fresh = simulation_frame(simulate(variant, FALLBACK_ROUNDS, seed=FALLBACK_SEED))
    return fresh, (f"simulated odds for {shown}: {FALLBACK_ROUNDS:,} rounds, seed {FALLBACK_SEED} "
                   f"({'; '.join(reasons)})")


def is_report_file(name: str) -> bool:
    """Whether a file of this name is one `write_report` writes (and so may replace)."""
    return name in REPORT_FILES or (name.startswith("tie_frequency_") and name.endswith(".png"))
