"""The dice cells read: each cell's colors, dice per color and values, for a column of a million at once.

The cells are grouped by shape (the text with each digit written 0): the shapes are few, so the dice pattern is
matched and the colors read once per shape, and each value is read at its place in the cells' bytes
(docs/architecture.md, "The drill log's cells"). `DiceCell` is the dice column's kind of cell (`schema.CELLS`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from diavolo_stats.core.variant import COLOR_NAME
from diavolo_stats.drill.log.cells import _LIST, DICE_AS_WRITTEN, JsonObjectCell, _arrow_text, json_object
from diavolo_stats.errors import InputError


def _zeroed(text: pd.Series) -> pd.Series:
    """`text` with each digit 0-9 written 0, as Arrow strings: the bytes of each chunk rewritten at once (the
    digits are bytes 0x30 to 0x39; each byte of a character beyond ASCII is 0x80 or more, so no other character
    changes)."""
    import pyarrow as pa

    held = _arrow_text(text)
    chunks = []
    for chunk in held.chunks:
        validity, offsets, data = chunk.buffers()
        if data is not None:
            values = np.frombuffer(data, dtype=np.uint8)
            data = pa.py_buffer(np.where(values - np.uint8(0x30) < 10, np.uint8(0x30), values))  # below 0x30 wraps
        chunks.append(pa.Array.from_buffers(chunk.type, len(chunk), [validity, offsets, data], chunk.null_count,
                                            chunk.offset))
    return pd.Series(pa.chunked_array(chunks, type=held.type), dtype=pd.ArrowDtype(held.type), index=text.index)


def shapes_of(text: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Each cell's shape, its text with every digit written 0, as `pd.factorize(_zeroed(text))` gives them: (codes
    (rows,) int64, -1 for a missing cell; the distinct shapes in the order they first come). A chunk of cells all
    of one length is a (cells, length) array of bytes, and the cells of its first cell's shape are found in it at
    once (a log's dice cells are most often of one shape); only the others are encoded."""
    codes = np.full(len(text), -1, dtype=np.int64)
    known: dict[str, tuple[int, int]] = {}  # shape: (its code here, its first row)
    others = []  # (cells,) the rows of the cells left to encode
    start = 0
    for chunk in _arrow_text(text).chunks:
        rows = np.arange(start, start + len(chunk))
        pattern, same = _first_shape(chunk)
        if pattern is not None:
            code, _ = known.setdefault(pattern, (len(known), start))
            codes[rows[same]] = code
            rows = rows[~same]
        others.append(rows)
        start += len(chunk)
    rest = np.concatenate(others) if others else np.zeros(0, dtype=np.int64)
    if len(rest):
        rest_codes, rest_shapes = pd.factorize(_zeroed(text.iloc[rest]))
        _, firsts = np.unique(rest_codes, return_index=True)  # codes from -1 (a missing cell) when there is one
        firsts = firsts[-len(rest_shapes):] if len(rest_shapes) else firsts[:0]
        mapped = np.empty(len(rest_shapes) + 1, dtype=np.int64)
        mapped[-1] = -1
        for index, (shape, first) in enumerate(zip(rest_shapes, rest[firsts])):
            code, seen = known.get(shape, (len(known), first))
            known[shape] = (code, min(seen, int(first)))
            mapped[index] = code
        codes[rest] = mapped[rest_codes]
    order = sorted(known, key=lambda shape: known[shape][1])  # first come, first numbered
    renumbered = np.empty(len(known) + 1, dtype=np.int64)
    renumbered[[known[shape][0] for shape in order]] = np.arange(len(order))
    renumbered[-1] = -1
    return renumbered[codes], pd.Index(order, dtype=object)


def _first_shape(chunk) -> tuple[str | None, np.ndarray]:
    """(the shape of the first cell of an Arrow chunk of strings, which cells have it (cells,) bool) when its cells
    are all of one length and none is missing, else (None, nothing). A cell has the first's shape where each of
    its bytes is a digit exactly where the first's is, and is the first's byte elsewhere."""
    import pyarrow as pa

    _, offsets, data = chunk.buffers()
    if not len(chunk) or chunk.null_count or data is None:
        return None, np.zeros(0, dtype=bool)
    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    ends = np.frombuffer(offsets, dtype=width)[chunk.offset: chunk.offset + len(chunk) + 1].astype(np.int64)
    length = int(ends[1] - ends[0])
    if not length or (np.diff(ends) != length).any():
        return None, np.zeros(0, dtype=bool)
    cells = np.frombuffer(data, dtype=np.uint8)[ends[0]: ends[-1]].reshape(len(chunk), length)
    digit = cells[0] - np.uint8(0x30) < 10  # (length,) bool; below 0x30 wraps
    other = ((cells != cells[0]) & ~digit) | ((cells - np.uint8(0x30) >= 10) & digit)  # (cells, length) bool
    same = np.ones(len(chunk), dtype=bool)
    same[np.flatnonzero(other.ravel()) // length] = False
    return re.sub("[0-9]", "0", bytes(cells[0]).decode("utf-8")), same


def _color_faces(color: object, faces: object) -> bool:
    """Whether (color, faces) is one color of a roll's dice: a color name and a non-empty list of whole numbers."""
    return (isinstance(color, str) and re.fullmatch(COLOR_NAME, color) is not None and isinstance(faces, Sequence)
            and not isinstance(faces, str) and len(faces) > 0
            and all(isinstance(f, (int, np.integer)) and not isinstance(f, bool) for f in faces))


@dataclass(frozen=True)
class DiceRead:
    """A column of dice cells read once: what the reader checks, and the rolls' numbers of the typed frame.

    codes: (rows,) int64 index into `color_sets`, -1 for a cell that is not a roll's dice. counts: (rows, 4) int16,
    per cell its colors, its dice, the fewest and the most dice of one color (0 where refused). color_dice: (rows,
    most colors) uint8, each color's dice. values: (rows, most dice) uint8, 0 past a row's dice (255 for a value
    over 255, whose row the reader refuses). extremes: (rows, 2) float64, each cell's lowest and highest value.
    """

    codes: np.ndarray
    color_sets: list[frozenset[str]]
    counts: np.ndarray
    color_dice: np.ndarray
    values: np.ndarray
    extremes: np.ndarray


def read_dice(text: pd.Series) -> DiceRead:
    """The dice cells `text` (rows,) read: their colors, counts and values, grouped by shape (how,
    docs/architecture.md, "The drill log's cells"). A cell not as written is parsed as JSON and must be what the
    writer writes: color names, each with a non-empty list of whole numbers."""
    groups, shapes = shapes_of(text)  # groups: (rows,) int, a row's shape; -1: a missing cell
    matched = np.append(pd.Series(shapes, dtype=object).str.fullmatch(DICE_AS_WRITTEN).to_numpy(dtype=bool), False)
    color_sets: list[frozenset[str]] = []

    def code(colors: frozenset[str]) -> int:
        if colors not in color_sets:
            color_sets.append(colors)
        return color_sets.index(colors)

    shape_codes = np.full(len(shapes) + 1, -1, dtype=np.int64)
    shape_layouts: list[list[int]] = [[] for _ in range(len(shapes) + 1)]  # each color's dice, per shape
    digits_in_names = np.zeros(len(shapes) + 1, dtype=bool)
    for shape in np.flatnonzero(matched):
        shape_layouts[shape] = [group.count(",") + 1 for group in re.findall(_LIST, shapes[shape])]
        colors = _colors_of(shapes[shape])
        if any("0" in color for color in colors):
            digits_in_names[shape] = True
        else:
            shape_codes[shape] = code(colors)
    codes = shape_codes[groups]
    named = np.flatnonzero(digits_in_names[groups])
    if len(named):  # color names with digits (red1, red2 both read red0): each cell's own, its lists written [0]
        kinds, texts = pd.factorize(text.iloc[named].str.replace(_LIST, "[0]", regex=True))
        codes[named] = np.array([code(_colors_of(cell)) for cell in texts], dtype=np.int64)[kinds]
    parsed = {}  # row: the cell's values per color, for the cells read as JSON
    for row in np.flatnonzero(~matched[groups]):  # written otherwise (by hand?): each parsed as JSON
        value = json_object(text.iloc[row])
        if value is not None and all(_color_faces(color, faces) for color, faces in value.items()):
            codes[row] = code(frozenset(value))
            parsed[int(row)] = list(value.values())
    layouts = [*shape_layouts, *(list(map(len, faces)) for faces in parsed.values())]
    most_colors = max(map(len, layouts), default=0)
    layout_dice = np.array([layout + [0] * (most_colors - len(layout)) for layout in layouts],
                           dtype=np.uint8).reshape(len(layouts), most_colors)
    layout_counts = np.array([(len(layout), sum(layout), min(layout), max(layout)) if layout else (0, 0, 0, 0)
                              for layout in layouts], dtype=np.int16).reshape(len(layouts), 4)
    layout_of = groups.copy()  # (rows,) each row's index into `layouts`
    layout_of[list(parsed)] = np.arange(len(shape_layouts), len(layouts))
    layout_of[layout_of < 0] = len(shapes)  # a missing cell: no dice
    counts = layout_counts[layout_of]
    values, extremes = _values(text, groups, shapes, np.flatnonzero(matched[:-1]), parsed, int(counts[:, 1].max(
        initial=0)))
    return DiceRead(codes=codes, color_sets=color_sets, counts=counts, color_dice=layout_dice[layout_of],
                    values=values, extremes=extremes)


def _values(text: pd.Series, groups: np.ndarray, shapes: pd.Index, written: np.ndarray, parsed: dict[int, list],
            most: int) -> tuple[np.ndarray, np.ndarray]:
    """The dice values of the cells `text` ((rows, most) uint8, as `DiceRead.values`) and their lowest and highest
    ((rows, 2) float64). Cells of one shape written as json.dumps writes them (`written`: those shapes) hold
    their values' digits at the same places, which the shape's lists give, so each place is read from the cells'
    bytes for all of them at once, chunk by chunk of Arrow's (no copy of the column, no array of a million
    offsets); the cells `parsed` as JSON give theirs."""
    import pyarrow as pa

    values = np.zeros((len(groups), most), dtype=np.uint8)
    extremes = np.zeros((len(groups), 2))
    for row, faces in parsed.items():
        every = [face for color in faces for face in color]
        values[row, : len(every)] = np.clip(every, 0, 255)
        extremes[row] = (max(min(every), -2**62), min(max(every), 2**62))  # a float holds them
    places = {int(shape): [(match.start() + number.start(), len(number.group()))  # (first byte, digits) per value
                           for match in re.finditer(_LIST, shapes[shape])  # a shape is ASCII: a character a byte
                           for number in re.finditer("[0-9]+", match.group())] for shape in written}
    start = 0
    for chunk in _arrow_text(text).chunks if places else ():
        _, offsets, data = chunk.buffers()
        width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        firsts = np.frombuffer(offsets, dtype=width)[chunk.offset: chunk.offset + len(chunk)]  # each cell's first byte
        cell_bytes = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)
        chunk_groups = groups[start: start + len(chunk)]
        one = len(chunk) and chunk_groups[0] == chunk_groups[-1] and (chunk_groups == chunk_groups[0]).all()
        for shape in [int(chunk_groups[0])] if one else np.unique(chunk_groups).tolist():
            numbers = places.get(shape)
            if numbers is None:  # a missing cell, or a shape not as written
                continue
            rows = slice(start, start + len(chunk)) if one else start + np.flatnonzero(chunk_groups == shape)
            first = firsts if one else firsts[rows - start]
            # (dice, rows): a value of each cell at once; in a byte while every value has at most 2 digits, else
            # as a float, exact for the values a die may show (a larger one is refused, by `extremes`)
            read = np.empty((len(numbers), len(first)),
                            dtype=np.uint8 if max(n for _, n in numbers) <= 2 else np.float64)
            for die, (place, length) in enumerate(numbers):
                for digit in range(length):
                    value = cell_bytes[place + digit:][first] - np.uint8(0x30)  # a digit's byte: its value
                    read[die] = value if digit == 0 else read[die] * 10 + value
            values[rows, : len(numbers)] = np.minimum(read, 255).T
            extremes[rows, 0], extremes[rows, 1] = read.min(axis=0), read.max(axis=0)
        start += len(chunk)
    return values, extremes


@dataclass(frozen=True)
class DiceCell(JsonObjectCell):
    """The dice values per color: a JSON object of color names, each with a list of whole numbers."""

    allowed = "a JSON object of color names, each with a list of whole numbers"

    def written(self, column: str, value: Mapping) -> Mapping:
        for color, faces in value.items():
            if not _color_faces(color, faces):
                raise InputError(f"each color name needs a list of whole numbers, got {color!r}: {faces!r}",
                                 field=column)
        return {color: [int(f) for f in faces] for color, faces in value.items()}

    def read(self, text: pd.Series) -> tuple[object, np.ndarray]:
        return text, read_dice(text).codes < 0


def _colors_of(cell: str) -> frozenset[str]:
    """The color names of a dice cell that matches DICE_AS_WRITTEN (or its shape, `_zeroed`): its lists are the
    only matches of _LIST in it (a color name holds no bracket), each written [0] to make it JSON whatever its
    digits (a shape's 00 is not a JSON number)."""
    return frozenset(json.loads(re.sub(_LIST, "[0]", cell)))
