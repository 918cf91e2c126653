"""What a sweep answers: one tidy row per variant and command, and the result that holds them.

The columns are `COLUMNS`, in order: the variant's dice and table model, the command, its tie probability and
95 % interval (an exact value is its own interval), the exact value, the rounds, ties and seed of a simulation,
and the `sweep_id`. The last row of each variant is `overall`, the grey rate over the command die's faces. What
each column holds: docs/guides/sweep.md, "What comes out".
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from diavolo_stats.core.odds import exact_odds
from diavolo_stats.core.variant import Variant
from diavolo_stats.results import counted
from diavolo_stats.stats import Estimate, proportion_estimate
from diavolo_stats.sweep.targets import OVERALL, Target, near_misses, select

COLUMNS = ("colors", "dice_per_color", "sides", "tolerance", "scatter_mm", "die_mm", "command",
           "tie_probability", "ci95_low", "ci95_high", "exact_tie_probability", "rounds", "ties", "seed",
           "color_names", "sweep_id")

INTEGER_COLUMNS = ("colors", "dice_per_color", "sides", "rounds", "ties", "seed")
FLOAT_COLUMNS = ("tolerance", "scatter_mm", "die_mm", "tie_probability", "ci95_low", "ci95_high",
                 "exact_tie_probability")
TEXT_COLUMNS = ("command", "color_names", "sweep_id")


def variant_rows(variant: Variant, sweep_id: str, simulated: tuple[int, int, int] | None) -> list[dict[str, Any]]:
    """The rows of one variant, in the order of its commands.

    simulated: (ties, rounds, seed) of its `closest` simulation, or None when
    `closest` is not among its commands.
    """
    exact = exact_odds(variant).tie_probability
    fields = variant_fields(variant)
    common = {column: fields[column] for column in COLUMNS[:6]}
    rows = []
    for command in variant.commands:
        if command in exact:
            estimate = Estimate.exact(float(exact[command]))
            counts = {"exact_tie_probability": estimate.value, "rounds": 0, "ties": None, "seed": None}
        else:
            ties, rounds, seed = simulated
            estimate = proportion_estimate(ties, rounds)
            counts = {"exact_tie_probability": None, "rounds": rounds, "ties": ties, "seed": seed}
        numbers = {"tie_probability": estimate.value, "ci95_low": estimate.low, "ci95_high": estimate.high,
                   **counts}
        rows.append({**common, "command": command.value, **numbers, "color_names": fields["color_names"],
                     "sweep_id": sweep_id})
    rows.append({**common, "command": OVERALL, **_overall(variant, rows), "color_names": fields["color_names"],
                 "sweep_id": sweep_id})
    return rows


def _overall(variant: Variant, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The overall grey rate from a variant's command rows: the mean over the die's faces (repeats counted).
    The exact faces are constants, so the simulated faces' interval, scaled by their share of the die, is its
    interval."""
    by_command = {row["command"]: row for row in rows}
    faces = [by_command[str(c)] for c in variant.die]
    numbers = {key: sum(row[key] for row in faces) / len(faces)
               for key in ("tie_probability", "ci95_low", "ci95_high")}
    simulated = [row for row in faces if row["rounds"]]
    exact = numbers["tie_probability"] if not simulated else None
    counts = ({"rounds": simulated[0]["rounds"], "ties": None, "seed": simulated[0]["seed"]} if simulated
              else {"rounds": 0, "ties": None, "seed": None})
    return {**numbers, "exact_tie_probability": exact, **counts}


def resume_problem(rows: Sequence[dict[str, Any]], variant: Variant, sweep_id: str,
                   simulated: tuple[int, int] | None) -> str | None:
    """Why `rows`, read back from a sweep's file, are not what this sweep writes for `variant`; None when they are.

    simulated: (rounds, seed) of its `closest` simulation, None without one. Every cell is checked, down to a
    simulated row's value and interval being exactly those its ties give, so a row edited by hand or corrupted
    does not land in the result: its variant is computed again. An exact value changed consistently in all four
    of its cells is not detected: that would take computing it again.
    """
    fields = {**variant_fields(variant), "sweep_id": sweep_id}
    if [row["command"] for row in rows] != [command.value for command in variant.commands] + [OVERALL]:
        return "its commands differ"
    for row in rows:
        command = row["command"]
        changed = next((column for column, value in fields.items() if row[column] != value), None)
        if changed:
            return f"{command}: {changed} is not the variant's"
        probabilities = [row[column] for column in ("tie_probability", "ci95_low", "ci95_high")]
        if not all(isinstance(p, float) and 0.0 <= p <= 1.0 for p in probabilities):  # NaN fails too
            return f"{command}: a probability outside [0, 1]"
        if command == OVERALL:
            if {key: row[key] for key in _overall(variant, rows[:-1])} != _overall(variant, rows[:-1]):
                return "overall: not the mean of its commands' rows over the command die"
            continue
        if variant.command(command).depends_on_values:
            exact = row["exact_tie_probability"]
            if (row["rounds"], row["ties"], row["seed"]) != (0, None, None) or probabilities != [exact] * 3:
                return f"{command}: an exact value that is not its own interval"
            continue
        ties = row["ties"]
        if simulated is None or (row["rounds"], row["seed"]) != simulated or row["exact_tie_probability"] is not None:
            return f"{command}: rounds or seed not this sweep's"
        if not isinstance(ties, int) or not 0 <= ties <= row["rounds"]:
            return f"{command}: ties outside 0 to rounds"
        estimate = proportion_estimate(ties, row["rounds"])
        if probabilities != [estimate.value, estimate.low, estimate.high]:
            return f"{command}: a value or interval that its ties and rounds do not give"
    return None


def variant_fields(variant: Variant) -> dict[str, Any]:
    """The columns that name a variant: its dice, and its table model when it reports `closest`."""
    has_table = any(not c.depends_on_values for c in variant.commands)
    return {"colors": len(variant.colors), "dice_per_color": variant.dice_per_color, "sides": variant.sides,
            "tolerance": variant.table.tolerance if has_table else None,
            "scatter_mm": variant.table.scatter_mm if has_table else None,
            "die_mm": variant.table.die_mm if has_table else None,
            "color_names": ",".join(variant.colors)}


def variant_key(row: dict) -> tuple:
    """What names a row's variant: its colors, dice, sides and table model."""
    return (row["color_names"], row["dice_per_color"], row["sides"], row["tolerance"], row["scatter_mm"],
            row["die_mm"])


@dataclass(frozen=True)
class SweepResult:
    """The answers of a sweep (a `diavolo_stats.results.Result`).

    records: the rows, one per variant and command, in grid order (or, with a
    target, only the variants meeting it, nearest first, with `target_distance`).
    near_misses: True when none met the target and `records` are the variants nearest it instead.
    """

    description: str
    sweep_id: str
    variants: int
    records: tuple[dict[str, Any], ...]
    target: str | None = None
    near_misses: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        return COLUMNS + (("target_distance",) if self.target is not None else ())

    def rows(self) -> list[dict[str, Any]]:
        return [dict(row) for row in self.records]

    def meeting(self, target: Target, nearest: int = 0) -> SweepResult:
        """The variants meeting `target` (see `targets`), nearest its centers first; when none does and
        `nearest` is above 0, the `nearest` variants closest to it instead, with their distance."""
        kept = select(self.records, target, variant_key)
        missed = not kept and nearest > 0
        if missed:
            kept = near_misses(self.records, target, variant_key, nearest)
        return dataclasses.replace(self, records=tuple(kept), target=target.describe(), near_misses=missed)

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (nullable integer columns where a cell can be empty)."""
        frame = pd.DataFrame(self.rows(), columns=list(self.columns))
        for column in ("ties", "seed"):
            frame[column] = frame[column].astype("Int64")
        return frame

    def document(self) -> dict[str, Any]:
        return {"sweep": self.description, "sweep_id": self.sweep_id, "variants": self.variants,
                "target": self.target, "near_misses": self.near_misses, "rows": self.rows()}

    def text(self) -> str:
        lines = textwrap.wrap(f"Sweep: {self.description}", 80, subsequent_indent="  ", break_on_hyphens=False)
        if self.target is not None:
            matched = len({variant_key(row) for row in self.records})
            found = (f"no variant meets it; the {matched} nearest of {self.variants} (dist: how far outside the "
                     f"ranges)" if self.near_misses else
                     f"{matched} of {counted(self.variants, 'variant')}, nearest first (dist: distance from the "
                     f"ranges' centers)")
            lines += textwrap.wrap(f"Target: {self.target}: {found}", 80, subsequent_indent="  ",
                                   break_on_hyphens=False)
        if not self.records:
            lines.append("no variant meets the target" if self.target is not None else "no variants")
            return "\n".join(lines)
        lines.append(_aligned_text(self.records))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


def _aligned_text(rows: Sequence[dict]) -> str:
    """The rows for people: the dice, the table model where it varies, the tie probability in percent."""
    frame = pd.DataFrame(list(rows))
    shown = pd.DataFrame({"colors": frame["colors"], "dice": frame["dice_per_color"], "sides": frame["sides"]})
    for column, title in (("tolerance", "tol"), ("scatter_mm", "scatter"), ("die_mm", "die")):
        if frame[column].nunique(dropna=True) > 1:
            shown[title] = frame[column].map(lambda value: f"{value:g}")
    shown["command"] = frame["command"]
    shown["tie %"] = frame["tie_probability"].map(lambda value: f"{100 * value:.2f}")
    shown["95 % CI"] = [
        "exact" if rounds == 0 else f"{100 * low:.2f}..{100 * high:.2f}"
        for low, high, rounds in zip(frame["ci95_low"], frame["ci95_high"], frame["rounds"])]
    if "target_distance" in frame:
        shown["dist"] = frame["target_distance"].map(lambda value: f"{value:.4f}")
    return shown.to_string(index=False)
