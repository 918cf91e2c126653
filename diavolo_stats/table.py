"""Where the dice land: the table model behind the `closest` command.

The model: all dice (the command die first, then each color's dice in order)
land uniformly at random inside a square scatter area of `scatter_mm` on a
side. A die is an axis-aligned square of `die_mm`; dice never overlap, so a
die that would land on another is thrown again (the others stay put).
Distances are measured center to center, in millimetres.

A person cannot tell two distances apart when they differ by less than the
perception `tolerance`, a fraction of the shorter one (a Weber fraction):
colors whose nearest die is within `(1 + tolerance)` times the nearest
distance of all tie with it.

Defaults, and why:
- `die_mm = 16`: the common 16 mm six-sided die.
- `scatter_mm = 300`: ten dice thrown from one hand spread over about a
  forearm's length; 30 cm keeps them in reach of every player.
- `tolerance = 0.10`: the Weber fraction for comparing two lengths side by
  side is about 3 to 5 %; distances that point in different directions,
  judged at a glance and in a hurry, are judged about twice as coarsely.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from diavolo_stats.errors import InputError

# A scatter area more crowded than this would make re-throws run long.
MAX_FILL = 0.25


@dataclass(frozen=True)
class TableModel:
    """How dice land (`scatter_mm`, `die_mm`) and how finely a person sees (`tolerance`)."""

    scatter_mm: float = 300.0
    die_mm: float = 16.0
    tolerance: float = 0.10

    def __post_init__(self) -> None:
        for name in ("scatter_mm", "die_mm", "tolerance"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
                raise InputError(f"{name}: must be a finite number, got {value!r}")
        if self.die_mm <= 0:
            raise InputError(f"die_mm: must be above 0 mm, got {self.die_mm}")
        if self.scatter_mm <= self.die_mm:
            raise InputError(f"scatter_mm: must be larger than the die ({self.die_mm} mm), got {self.scatter_mm}")
        if self.tolerance < 0:
            raise InputError(f"tolerance: must be 0 or more (a fraction of the shorter distance), got {self.tolerance}")

    def check_fits(self, dice_count: int) -> None:
        """Raise InputError if `dice_count` dice cannot land comfortably in the scatter area."""
        if dice_count * self.die_mm**2 > MAX_FILL * self.scatter_mm**2:
            largest = int(MAX_FILL * self.scatter_mm**2 / self.die_mm**2)
            raise InputError(
                f"scatter_mm: {dice_count} dice of {self.die_mm:g} mm do not fit a {self.scatter_mm:g} mm "
                f"scatter area (at most {largest}); use a larger scatter")

    def describe(self) -> str:
        """One line stating the model, printed with every `closest` figure."""
        return (f"table model: {self.die_mm:g} mm dice scattered without overlap over a "
                f"{self.scatter_mm:g} mm square; distances center to center; colors tie when "
                f"within {self.tolerance:.0%} of the nearest distance")


def throw(model: TableModel, dice_count: int, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """Positions of `dice_count` dice (the command die first) for `rounds` throws, in mm.

    Returns a (rounds, dice_count, 2) float32 array of die centers.
    """
    # returns: (rounds, dice_count, 2) float32
    low = model.die_mm / 2
    span = model.scatter_mm - model.die_mm
    positions = np.empty((rounds, dice_count, 2), dtype=np.float32)
    positions[:, 0] = low + span * rng.random((rounds, 2), dtype=np.float32)
    for die in range(1, dice_count):
        pending = np.arange(rounds)
        while pending.size:
            landed = low + span * rng.random((pending.size, 2), dtype=np.float32)
            positions[pending, die] = landed
            gaps = np.abs(positions[pending, :die] - landed[:, None, :])  # (pending, die, 2)
            overlaps = (gaps < model.die_mm).all(axis=2).any(axis=1)
            pending = pending[overlaps]
    return positions


def nearest_distances(positions: np.ndarray, color_count: int, dice_per_color: int) -> np.ndarray:
    """Distance from the command die to each color's nearest die, in mm: (rounds, colors) float32."""
    # positions: (rounds, 1 + colors * dice_per_color, 2) float32
    offsets = positions[:, 1:, :] - positions[:, :1, :]
    squared = np.einsum("rdk,rdk->rd", offsets, offsets).reshape(len(positions), color_count, dice_per_color)
    return np.sqrt(squared.min(axis=2))


def positions_to_mapping(colors: Sequence[str], dice_per_color: int, positions: np.ndarray) -> dict:
    """One throw as `{"command": [x, y], color: [[x, y], ...]}`, in mm rounded to 0.1 mm."""
    # positions: (1 + colors * dice_per_color, 2)
    rounded = np.round(np.asarray(positions, dtype=np.float64), 1).tolist()
    mapping: dict = {"command": rounded[0]}
    for index, color in enumerate(colors):
        mapping[color] = rounded[1 + index * dice_per_color: 1 + (index + 1) * dice_per_color]
    return mapping


def positions_from_mapping(colors: Sequence[str], dice_per_color: int, mapping: Mapping) -> np.ndarray:
    """The inverse of `positions_to_mapping`: a (1 + colors * dice_per_color, 2) float64 array in mm."""
    try:
        points = [mapping["command"]] + [point for color in colors for point in mapping[color]]
        array = np.array(points, dtype=np.float64)
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"positions: need 'command' and one [x, y] per die of each color ({error})") from None
    if array.shape != (1 + len(colors) * dice_per_color, 2):
        raise InputError(f"positions: need 1 + {len(colors)} x {dice_per_color} points [x, y], got shape {array.shape}")
    return array
