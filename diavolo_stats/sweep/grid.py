"""The grid of a sweep: which variants, how their values are written, and each variant's seed.

A grid is a list of values per parameter (colors, dice per color, sides, and for `closest` the table model);
its variants are every combination. Values are written as a list (`4,6,8`), a range (`2..6`), a range with a
step (`0.05..0.20:0.05`) or a mix (`2..4,8`). A grid varies a base variant (the standard game or a variant
file's): a parameter left out keeps the base's value. Why: docs/architecture.md, "Sweep grids".
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from diavolo_stats.core.simulate import MAX_ROUNDS
from diavolo_stats.core.table_model import MAX_TOLERANCE, TableModel
from diavolo_stats.core.variant import (
    COMMANDS_RULE,
    DEFAULT_COLORS,
    MAX_COLORS,
    MAX_DICE_PER_COLOR,
    MAX_SIDES,
    Command,
    Variant,
)
from diavolo_stats.errors import InputError
from diavolo_stats.results import counted
from diavolo_stats.validation import (
    Configuration,
    Instance,
    Maybe,
    Number,
    Rule,
    Several,
    Whole,
    declared,
    empty_item,
    setting,
    shown,
)

PALETTE = DEFAULT_COLORS + ("blue", "green", "yellow", "purple", "orange")
"""Color names of a grid over the number of colors: n colors are the first n of these."""

MAX_VARIANTS = 100_000
"""Largest grid one sweep runs; split a larger one along one parameter into several sweeps."""

_INTEGER = r"[0-9]{1,20}"
_DECIMAL = r"[0-9]{1,20}(?:\.[0-9]{1,20})?"
# At most 20 digits either side of the point: far beyond every limit, and short enough to convert at once.


def parse_values(text: str, field: str, integer: bool) -> tuple:
    """The values a grid flag lists: `4,6,8`, `2..6`, `0.05..0.2:0.05`, or a mix, in the order given.

    Only ASCII digits count, at most 20 either side of the point. Raises
    InputError (naming `field`) for an empty list, value or range, a reversed range, a
    range of decimals without a step, a range whose end is not reached by
    whole steps, a range of more than MAX_VARIANTS values, or a value given twice.
    """
    number = _INTEGER if integer else _DECIMAL
    convert = int if integer else float
    items = [item.strip() for item in text.split(",")]
    if not text.strip():
        raise InputError(f"empty list in {shown(text)}; give values like 4,6,8 or a range like 2..6", field=field)
    problem = empty_item(items, "value")
    if problem is not None:
        raise InputError(f"{problem}, got {shown(text)}; give values like 4,6,8 or a range like 2..6", field=field)
    values: list = []
    for item in items:
        if re.fullmatch(number, item, flags=re.ASCII):
            values.append(convert(item))
            continue
        match = re.fullmatch(rf"({number})?\.\.({number})?(?::({_DECIMAL}))?", item, flags=re.ASCII)
        if match is None:
            kind = "whole numbers" if integer else "numbers"
            raise InputError(f"{shown(item)} is not a value or a range; give {kind} like 4,6,8 or a range like 2..6",
                             field=field)
        start, end, step = match.groups()
        if start is None or end is None:
            raise InputError(f"empty range {shown(item)}; give both ends, e.g. 2..6", field=field)
        values.extend(_range_values(item, convert(start), convert(end), step, integer, field))
    repeated = sorted({value for value in values if values.count(value) > 1})
    if repeated:
        raise InputError(f"{', '.join(f'{v:g}' for v in repeated)} given twice; each value once", field=field)
    return tuple(values)


def _range_values(item: str, start, end, step_text: str | None, integer: bool, field: str) -> list:
    if end < start:
        raise InputError(f"reversed range {shown(item)}; write the smaller end first", field=field)
    if integer:
        if step_text is not None and not re.fullmatch(_INTEGER, step_text, flags=re.ASCII):
            raise InputError(f"the step of {shown(item)} must be a whole number", field=field)
        step = int(step_text) if step_text is not None else 1
        if step < 1:
            raise InputError(f"empty range {shown(item)}: the step must be at least 1", field=field)
        if (end - start) % step:
            raise InputError(f"range {shown(item)} does not reach its end in whole steps", field=field)
        _check_range_size(item, (end - start) // step + 1, field)
        return list(range(start, end + 1, step))
    if step_text is None:
        if start != end:
            raise InputError(f"a range of decimals needs a step, e.g. {start:g}..{end:g}:0.05", field=field)
        return [start]
    step = float(step_text)
    if step <= 0:
        raise InputError(f"empty range {shown(item)}: the step must be above 0", field=field)
    steps = round((end - start) / step)
    if abs(start + steps * step - end) > 1e-9 * max(1.0, abs(end)):
        raise InputError(f"range {shown(item)} does not reach its end in whole steps", field=field)
    _check_range_size(item, steps + 1, field)
    # Rounded so that 0.1 + 2 * 0.05 is written 0.2, as a person would.
    return [round(start + index * step, 12) for index in range(steps + 1)]


def _check_range_size(item: str, size: int, field: str) -> None:
    if size > MAX_VARIANTS:  # refused before a list of them is built
        raise InputError(f"range {shown(item)} holds {size:,} values, more than the {MAX_VARIANTS:,} variants "
                         "one sweep runs", field=field)


def _listed(rule: Rule) -> Several:
    """A grid parameter's rule: one value or more, each allowed by `rule`, none twice."""
    return Several(rule, noun="value")


@dataclass(frozen=True)
class SweepGrid(Configuration):
    """Every combination of the listed values, and how each variant is answered.

    base: the variant the grid varies (default the standard game).
    colors_count: numbers of colors, named from PALETTE; or `colors`, one fixed
    set of color names (then `colors_count` is its length).
    commands: the commands reported, among the base's; value commands are exact, `closest` is
    simulated for `rounds` rounds with a seed from `seed` and the variant.
    tolerance, scatter_mm, die_mm: the table model's values, for `closest` only.
    Each list holds every value once; one left as None keeps the base's value. `colors` is checked as a
    Variant's colors are (names, 2 to MAX_COLORS of them) when given: no variant could take other colors. A
    variant's own limits (the dice fitting on the table) are checked as its variants are built.
    """

    colors_count: tuple[int, ...] | None = setting(None, Maybe(_listed(Whole(2, MAX_COLORS))))
    dice_per_color: tuple[int, ...] | None = setting(None, Maybe(_listed(Whole(1, MAX_DICE_PER_COLOR))))
    sides: tuple[int, ...] | None = setting(None, Maybe(_listed(Whole(2, MAX_SIDES))))
    commands: tuple[Command, ...] | None = setting(None, Maybe(COMMANDS_RULE))
    tolerance: tuple[float, ...] | None = setting(None, Maybe(_listed(Number(at_least=0, at_most=MAX_TOLERANCE))))
    scatter_mm: tuple[float, ...] | None = setting(None, Maybe(_listed(Number(above=0, unit="mm"))))
    die_mm: tuple[float, ...] | None = setting(None, Maybe(_listed(Number(above=0, unit="mm"))))
    rounds: int = setting(1_000_000, Whole(1, MAX_ROUNDS))
    seed: int = setting(0, Whole(0))
    colors: tuple[str, ...] | None = setting(None, Maybe(declared(Variant, ("colors",))[0]["colors"]))
    base: Variant = setting(default_factory=Variant, rule=Instance(Variant))
    variants: tuple[Variant, ...] = field(init=False, repr=False, compare=False)
    keeps_faces: bool = field(init=False, repr=False, compare=False)

    def check(self) -> None:
        base = self.base
        # A parameter left out is the base's; sides given replace a file's faces.
        object.__setattr__(self, "keeps_faces", self.sides is None)
        for name, value in (("colors_count", (len(base.colors),)), ("dice_per_color", (base.dice_per_color,)),
                            ("sides", (base.sides,)), ("commands", base.commands),
                            ("tolerance", (base.table.tolerance,)), ("scatter_mm", (base.table.scatter_mm,)),
                            ("die_mm", (base.table.die_mm,))):
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        if self.colors is not None:
            object.__setattr__(self, "colors_count", (len(self.colors),))
        for name in ("tolerance", "scatter_mm", "die_mm"):
            if len(getattr(self, name)) > 1 and not self.simulated:
                raise InputError("applies to closest only; add closest to the commands or give one value",
                                 field=name)
        size = self.size
        if size > MAX_VARIANTS:
            raise InputError(f"{size:,} variants, more than the {MAX_VARIANTS:,} one sweep runs; "
                             f"split it along one parameter (e.g. a few sides at a time) into several sweeps",
                             field="grid")
        object.__setattr__(self, "variants", tuple(self._build_variants()))

    @property
    def size(self) -> int:
        """Number of variants in the grid."""
        table_axes = (len(self.tolerance) * len(self.scatter_mm) * len(self.die_mm)
                      if self.simulated else 1)
        return len(self.colors_count) * len(self.dice_per_color) * len(self.sides) * table_axes

    @property
    def simulated(self) -> bool:
        """True when the grid reports `closest` (a command decided by distances), which is simulated."""
        return any(not c.depends_on_values for c in self.commands)

    def _build_variants(self):
        tables = [TableModel()]
        if self.simulated:
            tables = []
            for tolerance, scatter_mm, die_mm in itertools.product(self.tolerance, self.scatter_mm, self.die_mm):
                with _naming(f"tolerance {tolerance:g}, scatter {scatter_mm:g} mm, die {die_mm:g} mm"):
                    tables.append(TableModel(scatter_mm=float(scatter_mm), die_mm=float(die_mm),
                                             tolerance=float(tolerance)))
        base = self.base
        for count, dice, sides, table in itertools.product(self.colors_count, self.dice_per_color, self.sides,
                                                           tables):
            colors = (self.colors if self.colors is not None else base.colors if count == len(base.colors)
                      else PALETTE[:count])
            with _naming(f"{counted(count, 'color')}, {dice}d{sides}"):
                yield dataclasses.replace(base, colors=colors, dice_per_color=dice, sides=sides,
                                          faces=base.faces if self.keeps_faces else None, commands=self.commands,
                                          table=table)

    def describe(self) -> str:
        """One line naming the grid: its values, the commands, rounds and seed."""
        def listed(values) -> str:
            return ",".join(f"{value:g}" for value in values)

        colors = ",".join(self.colors) if self.colors is not None else listed(self.colors_count)
        sides = f"faces {','.join(map(str, self.base.faces))}" if self.keeps_faces and self.base.faces else \
            f"sides {listed(self.sides)}"
        based = f" of {self.base.name}" if self.base.name else ""
        line = (f"{counted(self.size, 'variant')}{based}: colors {colors}, dice per color "
                f"{listed(self.dice_per_color)}, {sides}; commands {', '.join(c.value for c in self.commands)}")
        if self.simulated:
            line += (f"; closest simulated, {counted(self.rounds, 'round')} per variant, tolerance "
                     f"{listed(self.tolerance)}, scatter {listed(self.scatter_mm)} mm, die {listed(self.die_mm)} mm")
        return line + f"; seed {self.seed}"

    def identity(self) -> str:
        """A short digest of everything that decides the sweep's numbers: its values, rounds and seed."""
        described = {"variants": [{**describe_variant(v), "dice": v.label} for v in self.variants],
                     "commands": [c.value for c in self.commands], "rounds": self.rounds, "seed": self.seed}
        if self.base.die != self.base.commands or any(not c.builtin for c in self.commands):
            described["rules"] = {str(c): c.section() for c in self.commands}
            described["die"] = [str(c) for c in self.variants[0].die]
        return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()[:16]

    def varying(self) -> list[str]:
        """The parameters with more than one value, in the grid's order."""
        return [name for name in GRID_PARAMETERS if len(getattr(self, name)) > 1]


GRID_PARAMETERS = ("colors_count", "dice_per_color", "sides", "tolerance", "scatter_mm", "die_mm")
"""The parameters a grid spans, in the order variants are listed (the last varies fastest)."""

AXES = ("colors", "dice_per_color", "sides", "tolerance", "scatter_mm", "die_mm")
"""The parameters a heatmap can spread over, named as the result's columns (in grid order)."""


def describe_variant(variant: Variant) -> dict:
    """What decides a variant's `closest` simulation, as canonical JSON-ready values: the dice each color
    throws and, when it plays closest, the table model. Not the dice's values (sides, faces): where dice land
    does not depend on them."""
    described = {"colors": len(variant.colors), "counts": list(variant.counts)}
    if any(not c.depends_on_values for c in variant.commands):
        described.update(tolerance=repr(float(variant.table.tolerance)),
                         scatter_mm=repr(float(variant.table.scatter_mm)), die_mm=repr(float(variant.table.die_mm)))
    return described


def variant_seed(seed: int, variant: Variant) -> int:
    """The seed of `variant`'s simulation within a sweep seeded `seed`: a whole number below 2**63.

    From `SeedSequence(entropy=[seed, *digest])`, the digest a SHA-256 of the
    variant's canonical description (`describe_variant`): stable across runs,
    machines and Python versions, unlike `hash()`.
    """
    canonical = json.dumps(describe_variant(variant), sort_keys=True).encode()
    digest = np.frombuffer(hashlib.sha256(canonical).digest(), dtype="<u4")
    state = np.random.SeedSequence(entropy=[seed, *(int(word) for word in digest)]).generate_state(1, np.uint64)
    # 63 bits: fits a signed 64-bit column of a CSV or Parquet reader.
    return int(state[0]) >> 1


@contextmanager
def _naming(where: str):
    """Add which variant was refused to the message of an InputError raised inside."""
    try:
        yield
    except InputError as error:
        raise InputError(f"{error.message} (variant with {where})", field=error.field) from None
