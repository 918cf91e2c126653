"""How often rounds tie: exact odds and simulated frequencies side by side, as data frames.

Exact values come from `odds.exact_odds` (value commands only), simulated ones from `simulate.simulate` or a
saved `diavolo simulate` result, each with its Wilson 95 % interval so a reader sees whether the exact value
lies inside it. A `closest` tie is the table's call; the figures say that judging a player is kinder
(`rules.CLOSEST_JUDGING`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from diavolo_stats.analytics.summaries import COMMAND_ORDER
from diavolo_stats.core.odds import exact_odds, fraction_text
from diavolo_stats.core.simulate import SimulationResult, simulate
from diavolo_stats.core.variant import DEFAULT_COLORS, Command, Variant
from diavolo_stats.errors import InputError
from diavolo_stats.files import not_a_file, read_frame_csv

SIMULATION_COLUMNS = ("command", "rounds", "ties", "tie_probability", "ci95_low", "ci95_high")
"""Columns `load_simulation` needs in a saved result (a saved simulation has more)."""

FRAME_COLUMNS = ("command", "exact_tie_probability", "exact_tie_fraction", "simulated_tie_probability",
                 "ci95_low", "ci95_high", "rounds", "exact_in_interval")
"""Columns of `tie_frequency_frame`, in order."""

# Color names for variants with more than the box's three colors.
COLOR_NAMES = (*DEFAULT_COLORS, "blue", "green", "yellow", "purple", "orange")

PARAMETERS = ("dice_per_color", "sides", "colors")
"""The variant parameters `odds_by_parameter` can vary; `colors` is a number of colors."""


def load_simulation(path: str | Path) -> pd.DataFrame:
    """Saved simulation results (one row per command) from a CSV saved by the `diavolo simulate` command.

    InputError naming the file when it is missing or lacks SIMULATION_COLUMNS, and
    the line and column of a value in rounds, ties, tie_probability, ci95_low or
    ci95_high that is not a finite number.
    """
    path = Path(path)
    if not_a_file(path) is not None:
        raise InputError(f"simulation results {not_a_file(path)}; give the CSV file the simulate command saved")
    if not path.is_file():
        raise InputError(f"simulation results {str(path)!r}: no such file (save one from the simulate command)")
    try:
        # Blank lines are read as empty rows and dropped, so a row's index + 2 is its line (the header is line 1).
        saved = read_frame_csv(path, skip_blank_lines=False).dropna(how="all")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise InputError(f"simulation results {str(path)!r}: not a CSV file ({error})".splitlines()[0]) from None
    missing = [c for c in SIMULATION_COLUMNS if c not in saved.columns]
    if missing:
        raise InputError(f"simulation results {str(path)!r}: missing columns {', '.join(missing)} "
                         f"(save it from the simulate command)")
    for column in SIMULATION_COLUMNS[1:]:  # every column but command is a number
        values = pd.to_numeric(saved[column], errors="coerce")
        bad = ~np.isfinite(values)
        if bad.any():
            index = bad.idxmax()
            value = saved.at[index, column]  # NaN for an empty cell or an NA marker such as "n/a"
            raise InputError(f"simulation results {str(path)!r} line {index + 2}: {column} must be a finite number, "
                             f"got {'nothing' if pd.isna(value) else repr(str(value))}")
        saved[column] = values
    saved.attrs["source"] = str(path)
    return saved


def simulation_frame(result: SimulationResult) -> pd.DataFrame:
    """A simulation held in memory as the rows the simulate command saves (SIMULATION_COLUMNS and more)."""
    return pd.DataFrame(result.rows(), columns=list(result.columns))


def simulation_mismatch(variant: Variant, simulated: pd.DataFrame) -> str | None:
    """Why saved results were simulated for another game than `variant` (other dice, or `closest` on another table
    model), as an error says it; None when they are this game's. The dice are what the simulate command saves in
    its `dice` column (`Variant.label`); a game's value commands have the odds of its dice, whatever its rules."""
    label = variant.label
    # The saved dice are in `dice`, or in `variant`, the name some saved results give that column.
    column = "dice" if "dice" in simulated.columns else "variant"
    saved = set(simulated[column].astype(str)) if column in simulated.columns else {label}
    if saved != {label}:
        return f"simulated for {', '.join(sorted(saved))}, not for {label}"
    if "table_model" in simulated.columns:
        closest = simulated.loc[simulated["command"].astype(str) == Command.CLOSEST.value, "table_model"]
        models = set(closest.dropna().astype(str))
        if models and models != {variant.table.describe()}:
            return (f"closest was simulated with another table model ({next(iter(models))}), "
                    f"not {variant.table.describe()}")
    return None


def check_simulation_matches(variant: Variant, simulated: pd.DataFrame) -> None:
    """InputError naming the file (when known) if saved results were simulated for another game than `variant`."""
    mismatch = simulation_mismatch(variant, simulated)
    if mismatch is not None:
        raise InputError(f"{simulated.attrs.get('source', 'the simulation results')}: {mismatch}; "
                         "simulate this game and save it")


def tie_frequency_frame(variant: Variant, simulated: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per command of `variant`: the exact tie probability and the simulated one with its 95 % interval.

    Columns FRAME_COLUMNS. `exact_*` are empty (NaN, "") for `closest`, which has no exact value; the simulated columns
    are NaN for commands missing from `simulated` (or all of them when it is None). InputError if `simulated` was run
    for another game (see `check_simulation_matches`). `exact_in_interval` says whether the exact value lies in the
    simulated interval (NA when either is missing).
    """
    if simulated is not None:
        check_simulation_matches(variant, simulated)
    exact = exact_odds(variant).tie_probability
    saved = {} if simulated is None else {str(row.command): row for row in simulated.itertuples(index=False)}
    rows = []
    for command in variant.commands:
        exact_value = float(exact[command]) if command in exact else math.nan
        row = saved.get(command.value)
        low = float(row.ci95_low) if row is not None else math.nan
        high = float(row.ci95_high) if row is not None else math.nan
        known = math.isfinite(exact_value) and math.isfinite(low)
        rows.append({
            "command": command.value,
            "exact_tie_probability": exact_value,
            "exact_tie_fraction": fraction_text(exact[command]) if command in exact else "",
            "simulated_tie_probability": float(row.tie_probability) if row is not None else math.nan,
            "ci95_low": low,
            "ci95_high": high,
            "rounds": int(row.rounds) if row is not None else pd.NA,
            "exact_in_interval": (low <= exact_value <= high) if known else pd.NA,
        })
    frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    own = [command.value for command in variant.commands if not command.builtin]  # a variant file's, after the box's
    frame["command"] = pd.Categorical(frame["command"], categories=[*COMMAND_ORDER, *own])
    frame["rounds"] = frame["rounds"].astype("Int64")
    frame["exact_in_interval"] = frame["exact_in_interval"].astype("boolean")
    return frame


def convergence(variant: Variant, rounds: Sequence[int], seed: int) -> pd.DataFrame:
    """Simulated tie probability (95 % interval) per command as the number of rounds grows.

    One row per rounds value and command: `rounds`, then the FRAME_COLUMNS
    figures. Every run uses the same seed, so the whole frame can be repeated.
    """
    frames = [tie_frequency_frame(variant, simulation_frame(simulate(variant, int(count), seed=seed)))
              for count in sorted(set(rounds))]
    return pd.concat(frames, ignore_index=True)


def with_parameter(base: Variant, parameter: str, value: int) -> Variant:
    """`base` with one parameter changed; for `colors`, `value` is how many colors (named from COLOR_NAMES)."""
    if parameter not in PARAMETERS:
        raise InputError(f"must be one of {', '.join(PARAMETERS)}, got {parameter!r}", field="parameter")
    if parameter == "colors":
        if not 2 <= value <= len(COLOR_NAMES):
            raise InputError(f"from 2 to {len(COLOR_NAMES)} colors, got {value}", field="colors")
        return dataclasses.replace(base, colors=COLOR_NAMES[:value])
    return dataclasses.replace(base, **{parameter: value})


def odds_by_parameter(parameter: str, values: Sequence[int], base: Variant | None = None) -> pd.DataFrame:
    """Exact tie probability of each value command as one parameter of `base` (default: the box) varies.

    Columns: `parameter` (the value), command, exact_tie_probability, exact_tie_fraction.
    """
    base = base or Variant()
    rows = []
    for value in values:
        for command, tie in exact_odds(with_parameter(base, parameter, value)).tie_probability.items():
            rows.append({parameter: value, "command": command.value,
                         "exact_tie_probability": float(tie), "exact_tie_fraction": fraction_text(tie)})
    odds = pd.DataFrame(rows, columns=[parameter, "command", "exact_tie_probability", "exact_tie_fraction"])
    odds["command"] = pd.Categorical(odds["command"], categories=COMMAND_ORDER)
    return odds


def closest_by_tolerance(tolerances: Sequence[float], rounds: int, seed: int,
                         base: Variant | None = None) -> pd.DataFrame:
    """Simulated `closest` tie probability (95 % interval) for each perception tolerance (a fraction).

    Columns: tolerance, simulated_tie_probability, ci95_low, ci95_high, rounds.
    Each tolerance gets the same seed, so the dice land the same way and only
    the judging changes: the curve cannot dip by chance as tolerance grows.
    """
    base = base or Variant()
    rows = []
    for tolerance in tolerances:
        variant = dataclasses.replace(base, commands=(Command.CLOSEST,),
                                      table=dataclasses.replace(base.table, tolerance=float(tolerance)))
        result = simulate(variant, rounds, seed=seed)
        estimate = result.ci95(Command.CLOSEST)
        rows.append({"tolerance": float(tolerance), "simulated_tie_probability": estimate.value,
                     "ci95_low": estimate.low, "ci95_high": estimate.high, "rounds": rounds})
    return pd.DataFrame(rows)

