"""Where the dice land: the table model behind the `closest` command.

All dice (the command die first, then each color's in order) land uniformly inside a square scatter area of
`scatter_mm` a side, as axis-aligned squares of `die_mm` that never overlap (a die that would land on another
lands again). Distances are center to center, in millimetres. The defaults and the perception tolerance:
docs/architecture.md, "The table model".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from diavolo_stats.errors import InputError
from diavolo_stats.validation import Configuration, Number, setting

# A scatter area more crowded than this would make re-throws run long.
MAX_FILL = 0.25
MAX_SCATTER_MM = 10_000.0
MAX_TOLERANCE = 1.0
"""The widest perception tolerance: 1 calls colors tied up to twice the nearest distance, already far beyond
what people judge as equal (the Weber fraction for lengths is about 0.1)."""


@dataclass(frozen=True)
class TableModel(Configuration):
    """How dice land (`scatter_mm`, `die_mm`) and how finely a person sees (`tolerance`, a fraction)."""

    scatter_mm: float = setting(300.0, Number(above=0, at_most=MAX_SCATTER_MM, unit="mm"))
    die_mm: float = setting(16.0, Number(above=0, unit="mm"))
    tolerance: float = setting(0.10, Number(at_least=0, at_most=MAX_TOLERANCE))

    def check(self) -> None:
        if not self.die_mm < self.scatter_mm:
            raise InputError(f"must be larger than the die ({self.die_mm:g} mm) and at most "
                             f"{MAX_SCATTER_MM:g} mm, got {self.scatter_mm:g}", field="scatter_mm")

    def check_fits(self, dice_count: int) -> None:
        """Raise InputError if `dice_count` dice cannot land comfortably in the scatter area."""
        if dice_count * self.die_mm**2 > MAX_FILL * self.scatter_mm**2:
            largest = int(MAX_FILL * self.scatter_mm**2 / self.die_mm**2)
            raise InputError(
                f"{dice_count} dice of {self.die_mm:g} mm do not fit a {self.scatter_mm:g} mm "
                f"scatter area (at most {largest}); use a larger scatter", field="scatter_mm")

    def describe(self) -> str:
        """One line stating the model, printed with every `closest` figure."""
        return (f"table model: {self.die_mm:g} mm dice scattered without overlap over a "
                f"{self.scatter_mm:g} mm square; distances center to center; colors tie when "
                f"within {self.tolerance:.0%} of the nearest distance")


TABLE_FIELDS = tuple(field.name for field in dataclasses.fields(TableModel))
"""The table's fields in their order: how a drill log's positions cell ends (`schema.logged_positions`)."""

GRID_STEPS = 1 << 15
"""Dice land on a grid of GRID_STEPS x GRID_STEPS points (under 0.01 mm apart with the defaults)."""


def throw(model: TableModel, dice_count: int, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """Where `dice_count` dice (the command die first) land in each of `rounds` throws.

    Returns die centers in mm as a (dice_count, 2, rounds) float32 array:
    coordinate-major, so that per-die columns are contiguous for speed.
    """
    # returns: (dice_count, 2, rounds) float32, mm
    positions = throw_on_grid(model, dice_count, rounds, rng).astype(np.float32)
    positions *= np.float32(grid_step_mm(model))
    positions += np.float32(model.die_mm / 2)
    return positions


def grid_step_mm(model: TableModel) -> float:
    """Distance between neighbouring grid points, in mm."""
    return (model.scatter_mm - model.die_mm) / (GRID_STEPS - 1)


def throw_on_grid(model: TableModel, dice_count: int, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """`throw` in grid steps from the lowest allowed center: (dice_count, 2, rounds) uint16.

    Distances in grid steps are proportional to distances in mm, so this is all
    that deciding `closest` needs; the simulator skips the conversion.
    """
    # returns: (dice_count, 2, rounds) uint16, each below GRID_STEPS
    model.check_fits(dice_count)  # a crowded table would re-land dice for ever
    # Two dice overlap when both center offsets are under one die edge: in grid steps, under die_steps.
    die_steps = min(int(np.ceil(model.die_mm / grid_step_mm(model))), GRID_STEPS)
    grid = _grid_points(rng, dice_count * rounds).reshape(dice_count, 2, rounds)
    for die in range(1, dice_count):
        pending = np.flatnonzero(_overlaps(grid[:die], grid[die], die_steps))
        while pending.size:
            # Land each pending die RETRIES more times at once and keep the first landing clear
            # of the dice already down: the same as landing again until clear, in fewer passes.
            earlier = np.take(grid[:die], pending, axis=2)  # (die, 2, pending)
            attempts = _grid_points(rng, RETRIES * pending.size).reshape(RETRIES, 2, pending.size)
            landing = np.empty((2, pending.size), dtype=np.uint16)
            placed = np.zeros(pending.size, dtype=bool)
            for attempt in attempts:
                clear = ~_overlaps(earlier, attempt, die_steps) & ~placed
                np.copyto(landing, attempt, where=clear)
                placed |= clear
            settled = pending[placed]
            for axis in range(2):
                grid[die, axis, settled] = landing[axis, placed]
            pending = pending[~placed]
    return grid


RETRIES = 2


def _grid_points(rng: np.random.Generator, count: int) -> np.ndarray:
    """`count` uniform grid points, x then y: (2 * count,) uint16 below GRID_STEPS."""
    # Raw 64-bit draws cut into 16-bit halves cost a quarter of bounded integers, and a
    # power-of-two grid keeps them exactly uniform.
    points = rng.bit_generator.random_raw((count + 1) // 2).view(np.uint16)[: 2 * count]
    points >>= 1
    return points


def _overlaps(earlier: np.ndarray, landed: np.ndarray, die_steps: int) -> np.ndarray:
    """Which throws have the `landed` die on top of an earlier one: (throws,) bool."""
    # earlier: (dice, 2, throws) uint16; landed: (2, throws) uint16, all below 2**15.
    # |a - b| < die_steps  <=>  (a + die_steps - 1 - b) mod 2**16 < 2 * die_steps - 1, with no
    # aliasing because coordinates use 15 bits: one wrapping subtraction and one compare per axis.
    shifted = landed + np.uint16(die_steps - 1)
    width = np.uint16(2 * die_steps - 1)
    overlap = np.zeros(landed.shape[1], dtype=bool)
    gap = np.empty(landed.shape, dtype=np.uint16)
    close = np.empty(landed.shape, dtype=bool)
    for other in earlier:
        np.less(np.subtract(shifted, other, out=gap), width, out=close)
        overlap |= np.logical_and(close[0], close[1], out=close[0])
    return overlap


def color_of_dice(dice_per_color: int | Sequence[int], color_count: int) -> list[int]:
    """The color index of each colored die in throw order: `dice_per_color` dice per color, or each color's own
    count."""
    counts = [dice_per_color] * color_count if isinstance(dice_per_color, int) else list(dice_per_color)
    return [color for color, count in enumerate(counts) for _ in range(count)]


def nearest_distances(positions: np.ndarray, color_count: int, dice_per_color: int | Sequence[int]) -> np.ndarray:
    """Distance from the command die to each color's nearest die: (colors, rounds) float32.

    In the positions' unit: mm from `throw`, grid steps from `throw_on_grid`. dice_per_color: dice in each
    color, or each color's own count, in order.
    """
    # positions: (1 + dice, 2, rounds) float32 mm or uint16 grid steps, command die first, colors in order
    # Grid steps stay integers (a squared 15-bit distance fits int32, and integer math is faster).
    # One die at a time through small reused buffers, which stay in cache.
    exact = np.int32 if np.issubdtype(positions.dtype, np.integer) else np.float32
    rounds = positions.shape[2]
    command = positions[0].astype(exact)
    nearest = np.empty((color_count, rounds), dtype=exact)
    offset = np.empty((2, rounds), dtype=exact)
    owners = color_of_dice(dice_per_color, color_count)
    for die, landed in enumerate(positions[1:]):
        np.subtract(landed, command, out=offset, dtype=exact)
        offset *= offset
        color = owners[die]
        if die == 0 or owners[die - 1] != color:
            np.add(offset[0], offset[1], out=nearest[color])
        else:
            offset[0] += offset[1]
            np.minimum(nearest[color], offset[0], out=nearest[color])
    return np.sqrt(nearest, dtype=np.float32)


def positions_to_mapping(colors: Sequence[str], dice_per_color: int | Sequence[int], positions: np.ndarray) -> dict:
    """One throw as `{"command": [x, y], color: [[x, y], ...]}`, in mm rounded to 0.1 mm."""
    # positions: (1 + dice, 2) mm, one throw
    rounded = np.round(np.asarray(positions, dtype=np.float64), 1).tolist()
    mapping: dict = {"command": rounded[0], **{color: [] for color in colors}}
    for point, color in zip(rounded[1:], color_of_dice(dice_per_color, len(colors))):
        mapping[colors[color]].append(point)
    return mapping


def positions_from_mapping(colors: Sequence[str], dice_per_color: int | Sequence[int], mapping: Mapping) -> np.ndarray:
    """The inverse of `positions_to_mapping`: a (1 + dice, 2) float32 array in mm."""
    dice = len(color_of_dice(dice_per_color, len(colors)))
    try:
        points = [mapping["command"]] + [point for color in colors for point in mapping[color]]
        array = np.array(points, dtype=np.float32)
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"need 'command' and one [x, y] per die of each color ({error})", field="positions") from None
    if array.shape != (1 + dice, 2):
        counts = [dice_per_color] * len(colors) if isinstance(dice_per_color, int) else list(dice_per_color)
        shown = f"{len(colors)} x {counts[0]}" if len(set(counts)) == 1 else " + ".join(map(str, counts))
        raise InputError(f"need 1 + {shown} points [x, y], got shape {array.shape}", field="positions")
    return array


def check_landed(model: TableModel, points: np.ndarray, rounding_mm: float = 0.1) -> None:
    """InputError (field `positions`) unless every die center lies where `throw` can put it: the whole die
    inside the scatter area and no two dice overlapping, allowing for centers rounded to `rounding_mm`."""
    # points: (dice, 2) float mm, the command die first
    points = np.asarray(points, dtype=np.float64)
    slack = rounding_mm / 2
    low, high = model.die_mm / 2 - slack, model.scatter_mm - model.die_mm / 2 + slack
    outside = np.flatnonzero(~np.all((points >= low) & (points <= high), axis=1))
    if outside.size:
        x, y = points[outside[0]]
        raise InputError(f"die {outside[0]} at ({x:g}, {y:g}) mm is not wholly on the table: centers run from "
                         f"{low + slack:g} to {high - slack:g} mm", field="positions")
    gaps = np.abs(points[:, None, :] - points[None, :, :]).max(axis=2)  # (dice, dice) mm, Chebyshev distance
    np.fill_diagonal(gaps, np.inf)
    first, second = np.unravel_index(np.argmin(gaps), gaps.shape)
    if gaps[first, second] < model.die_mm - rounding_mm:
        raise InputError(f"dice {min(first, second)} and {max(first, second)} overlap: square dice of "
                         f"{model.die_mm:g} mm need centers at least that far apart along x or y",
                         field="positions")
