"""The report folder: summary.csv, PNG charts and one self-contained report.html.

`write_report` is what `diavolo report` runs: it loads drill logs, keeps the
chosen players, summarizes them (`summaries`), names each one's weak spots
by roll type from their reading model (`roll_weak_spots`, fitted on every
player's recent answers), compares the tie odds of the games they played,
exact against simulated (`tie_frequency`: the presets, and the games of a
variant file's rules, which their rows carry), draws the charts (`charts`)
and writes everything to one folder. Rows of a game whose rules were not
logged (`custom`, written before they were) get a note instead of tie odds.
The HTML page embeds its charts as base64 PNG, so the single file can be
mailed to a friend.
"""

from __future__ import annotations

import base64
import html
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from diavolo_stats.analytics import charts, roll_weak_spots, summaries, wording
from diavolo_stats.analytics.roll_weak_spots import RECENT_ANSWERS, RollWeakSpots
from diavolo_stats.analytics.tie_frequency import load_simulation, simulation_frame, tie_frequency_frame
from diavolo_stats.core.rules import CLOSEST_JUDGING
from diavolo_stats.core.simulate import simulate
from diavolo_stats.core.variant import PRESETS, Variant
from diavolo_stats.drill.log import load_logs, missing_log_message
from diavolo_stats.drill.log.rules import UNKNOWN_RULES, played_variant, with_command_labels
from diavolo_stats.errors import InputError, about
from diavolo_stats.files import check_folder, frame_csv_text, write_folder
from diavolo_stats.plots import figure_png
from diavolo_stats.results import TextResult, render_fitted, wrap
from diavolo_stats.stats import MIN_FIT_ANSWERS

DEFAULT_OUT = Path("data") / "reports"

SUMMARY_COLUMNS = (
    "player", "command", "trials", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "median_latency_ms",
    "mean_latency_ms", "latency_iqr_ms", "exgauss_mu_ms", "exgauss_sigma_ms", "exgauss_tau_ms",
    "correct", "timeouts", "anticipations",
)
"""Columns of summary.csv, in order: the issue's seven first, then the other figures of `summaries.summarize`."""

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


WEAK_SPOTS_HEADING = f"weak spots by roll type (each player's most recent {RECENT_ANSWERS:,} answers)"
WEAK_SPOTS_EXPLAINED = ("What a near tie, a grey roll or an extra die costs each player in time and in accuracy, "
                        "from the reading model fitted to every player of the log (see diavolo players), "
                        "with 95 % intervals; a feature is named only when its whole interval is a cost.")

PRINTED_HEADERS = {"accuracy": "acc", "accuracy_ci_low": "acc_low", "accuracy_ci_high": "acc_high",
                   "median_latency_ms": "median_ms"}
"""Shorter headers (and 4 decimals) for the printed table, so that it fits 80 columns."""


@dataclass(frozen=True)
class Report(TextResult):
    """What `write_report` wrote.

    summary: one row per player and command, SUMMARY_COLUMNS (probabilities, ms).
    folder: where the files are. files: every file written, summary.csv first.
    notes: lines worth telling the reader (e.g. where the simulated odds came from).
    weak_spots: each player's weak spots by roll type (`roll_weak_spots`), by name.
    """

    summary: pd.DataFrame
    folder: Path
    files: tuple[Path, ...]
    notes: tuple[str, ...]
    weak_spots: dict[str, RollWeakSpots]

    columns = PRINTED_COLUMNS

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
        lines.append(wrap(f"wrote {len(self.files)} files to {self.folder}/ (open {self.folder / 'report.html'})"))
        return "\n".join(lines)


def write_report(log_paths: Sequence[str | Path], out_dir: str | Path = DEFAULT_OUT,
                 players: Sequence[str] | None = None, simulation_path: str | Path | None = None) -> Report:
    """Summarize the drill logs at `log_paths` for `players` (all when None) into `out_dir`.

    Writes summary.csv, accuracy.png, latency.png, learning_curve.png,
    tie_vs_non_tie.png, tie_frequency_<variant>.png per preset game played
    (`custom` trials get a note instead) and report.html, whole or not at
    all: the folder is built beside `out_dir` and swapped in
    (`files.write_folder`), after every check. `out_dir` may be new or hold
    nothing but report files (InputError otherwise). Simulated tie odds
    come from `simulation_path`; without it, from
    data/simulation_<variant>.csv when it exists, else from a fresh
    simulation of FALLBACK_ROUNDS rounds. InputError (one line) for a
    missing or malformed log, a log with no trials, an unknown player.
    """
    paths = [Path(p) for p in log_paths]
    for path in paths:
        if not path.is_file():
            raise InputError(missing_log_message(path), field="log_paths")
    # dice is read for its checks only, source and line say where each row is: they go once the weak spots have them.
    drills = load_logs(paths, columns=LOG_COLUMNS, lines=True)
    if drills.empty:
        raise InputError(f"no trials in {', '.join(map(str, paths))}; drill first", field="log_paths")
    chosen = summaries.select_players(drills[["player"]], players)["player"].astype(str).unique()
    # Every player of the log is fitted (the club the chosen borrow from); the roll's cells then go, in place.
    weak_spots = roll_weak_spots.roll_weak_spots(drills, sorted(chosen))
    for column in ("dice", "source", "line"):
        del drills[column]
    drills = with_command_labels(summaries.select_players(drills, players))
    # Every summary and chart groups by player: numbered once here, not factorized from the strings by each of them.
    drills["player"] = drills["player"].astype("category")
    summary = summaries.summarize(drills)[list(SUMMARY_COLUMNS)]
    ties = []
    games, left_out = _games_played(drills)
    for key, shown, variant in games:
        saved, note = _simulated_odds(key, shown, variant, simulation_path)
        ties.append((key, shown, tie_frequency_frame(variant, saved), note))
    notes = [note for _, _, _, note in ties] + ([CLOSEST_JUDGING] if ties else []) + left_out
    folder = Path(out_dir)
    with about("out_dir"):
        check_folder(folder, is_report_file)  # before anything is drawn or written
    figures = {
        "accuracy.png": ("Accuracy per command", charts.accuracy_chart(summary)),
        # The summary's fits are drawn; the curves' own fits would not be shown, so they are not made.
        "latency.png": ("Latency of correct answers per command", charts.latency_chart(drills, fits=summary)),
        "learning_curve.png": ("Learning curve over sessions",
                               charts.learning_curve_chart(summaries.learning_curve(drills, fit=False))),
        "tie_vs_non_tie.png": ("Tie rolls against non-tie rolls",
                               charts.tie_versus_non_tie_chart(summaries.tie_versus_non_tie(drills, fit=False))),
    }
    for key, shown, frame, _ in ties:
        title = f"Tie frequency per command, {shown} game"
        figures[f"tie_frequency_{key}.png"] = (title, charts.tie_frequency_chart(frame, title=title))
    images = {file_name: (caption, figure_png(figure)) for file_name, (caption, figure) in figures.items()}
    contents = {"summary.csv": frame_csv_text(summary).encode("utf-8")}
    contents |= {file_name: png for file_name, (_, png) in images.items()}
    contents["report.html"] = _html(summary, drills, paths, ties, images, left_out, weak_spots).encode("utf-8")
    with about("out_dir"):
        write_folder(folder, contents, is_report_file)
    files = [folder / name for name in contents]
    return Report(summary=summary, folder=folder, files=tuple(files), notes=tuple(notes), weak_spots=weak_spots)


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


def _simulated_odds(key: str, shown: str, variant: Variant,
                    simulation_path: str | Path | None) -> tuple[pd.DataFrame, str]:
    """The simulated odds of a game played (its key: a preset's name, or a logged game's): for a preset, from
    `simulation_path`, else data/simulation_<preset>.csv, else a fresh simulation; for a logged game, fresh."""
    if key in PRESETS:
        if simulation_path is not None:
            return load_simulation(simulation_path), f"simulated odds from {simulation_path}"
        saved = Path("data") / SIMULATION_FILE.format(variant=key)
        if saved.is_file():
            return load_simulation(saved), f"simulated odds from {saved}"
        missing = f" (no saved results at {saved})"
    else:
        missing = " (its rules as its trials logged them)"
    fresh = simulation_frame(simulate(variant, FALLBACK_ROUNDS, seed=FALLBACK_SEED))
    return fresh, f"simulated odds for {shown}: {FALLBACK_ROUNDS:,} rounds, seed {FALLBACK_SEED}{missing}"


def is_report_file(name: str) -> bool:
    """Whether a file of this name is one `write_report` writes (and so may replace)."""
    return name in REPORT_FILES or (name.startswith("tie_frequency_") and name.endswith(".png"))


def _scrolling_html(frame: pd.DataFrame, digits: int = 0) -> str:
    """A table for people (`wording.readable`: headings in words, intervals "82 % (74-88 %)") in a box that
    scrolls sideways on its own when it is wider than the screen, never the page."""
    table = wording.readable(frame, digits).to_html(index=False, na_rep="", border=0, classes="summary")
    return f'<div class="scroll">{table}</div>'


def _tie_frequency_html(frame: pd.DataFrame) -> str:
    """The tie-frequency table; a command with no exact odds (closest) says "no exact value"."""
    shown = frame.astype({"exact_tie_probability": object, "exact_in_interval": object})
    missing = frame["exact_tie_probability"].isna().to_numpy()
    shown["exact_tie_probability"] = [
        "no exact value" if absent else wording.percent(value, 2)
        for absent, value in zip(missing, frame["exact_tie_probability"])]
    shown["exact_in_interval"] = ["" if absent else ("yes" if inside else "no")
                                  for absent, inside in zip(missing, frame["exact_in_interval"])]
    shown["rounds"] = [f"{rounds:,}" for rounds in frame["rounds"]]
    return _scrolling_html(shown, digits=2)


def _weak_spots_html(weak_spots: dict[str, RollWeakSpots]) -> str:
    """Each player's weak spots by roll type as a list, or the sentence saying why there are none."""
    parts = [f"<h2>{html.escape(WEAK_SPOTS_HEADING.capitalize())}</h2>",
             f"<p>{html.escape(WEAK_SPOTS_EXPLAINED)}</p>"]
    for player, spots in weak_spots.items():
        parts.append(f"<h3>{html.escape(player)}</h3>")
        if spots.note:
            parts.append(f'<p class="note">{html.escape(wording.sentence(spots.note))}</p>')
        if spots.costs:
            items = "".join(f"<li>{html.escape(wording.sentence(cost.sentence))}</li>" for cost in spots.costs)
            parts.append(f'<ul class="weak-spots">{items}</ul>')
    return "\n".join(parts)


def _html(summary: pd.DataFrame, drills: pd.DataFrame, paths: Sequence[Path],
          ties: list[tuple[str, str, pd.DataFrame, str]], images: dict[str, tuple[str, bytes]],
          notes: Sequence[str], weak_spots: dict[str, RollWeakSpots]) -> str:
    players = ", ".join(sorted(str(player) for player in drills["player"].unique()))
    sessions = drills["session_id"].nunique()
    # The header counts what the table counts: trials are answers and timeouts, anticipations apart.
    trials, early = int(summary["trials"].sum()), int(summary["anticipations"].sum())
    anticipations = (f", and {early} key{'s' if early != 1 else ''} pressed before the roll appeared (not trials)"
                     if early else "")
    sections = [
        "<h1>Diavolo drill report</h1>",
        f"<p>{html.escape(players)}: {trials} trials in {sessions} session{'s' if sessions != 1 else ''}"
        f"{anticipations}, from "
        f"{html.escape(', '.join(map(str, paths)))}.</p>",
        "<p>Accuracy is correct answers over trials, with a Wilson 95&nbsp;% interval; a timeout counts as "
        "wrong. A key pressed before the roll appeared answers no roll: it is not a trial, and the "
        "<em>pressed too early</em> column counts it. Times are over correct answers, in ms; the spread "
        "is the middle half of them (the interquartile range); the ex-Gaussian fit (mu, sigma, tau) needs at "
        f"least {MIN_FIT_ANSWERS} correct answers.</p>",
        "<h2>Summary</h2>",
        _scrolling_html(summary),
        _weak_spots_html(weak_spots),
    ]
    for file_name, (caption, png) in images.items():
        encoded = base64.b64encode(png).decode("ascii")
        sections.append(f"<h2>{html.escape(caption)}</h2>"
                        f'<img alt="{html.escape(caption)}" src="data:image/png;base64,{encoded}">')
        for key, _, frame, note in ties:
            if file_name == f"tie_frequency_{key}.png":
                sections.append(f"<p>{html.escape(note)}.</p>")
                sections.append(_tie_frequency_html(frame))
    sections.extend(f"<p>{html.escape(note)}.</p>" for note in notes)
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
             ".scroll{overflow-x:auto;max-width:100%}"
             "table.summary{border-collapse:collapse;font-size:0.9em}"
             "table.summary td,table.summary th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
             "table.summary td{white-space:nowrap}table.summary th{vertical-align:bottom}"
             "img{max-width:100%;height:auto}")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Diavolo drill report: {html.escape(players)}</title><style>{style}</style></head>"
            f"<body>\n{chr(10).join(sections)}\n</body></html>\n")
