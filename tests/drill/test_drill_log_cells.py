"""The reader's shortcuts through a column of cells refuse what the plain rule refuses and read what it reads: a
dice cell's colors and values by its shape (its digits written 0), a whole number without a regular expression;
and a die's value is a face of the row's dice, for the reader and the writer."""

from __future__ import annotations

import json
import re
import warnings

import pandas as pd
import pyarrow as pa
import pytest
from helpers.drill_logs import trial_row
from hypothesis import given, settings
from hypothesis import strategies as st

from diavolo_stats.core.variant import COLOR_NAME, Variant
from diavolo_stats.drill.log import DrillLog, SkippedRowsWarning, load_logs
from diavolo_stats.drill.log.cells import DICE_AS_WRITTEN, _digits, json_object
from diavolo_stats.drill.log.dice_cells import _zeroed, read_dice, shapes_of
from diavolo_stats.drill.log.roll import ROLL_COLUMNS, read_rolls
from diavolo_stats.drill.log.rules import rules_cell
from diavolo_stats.errors import InputError

# Keys as the writer writes them, and keys no color has: a list, a bracket, the [0] the reader writes, digits
# beyond ASCII, a quote, a capital.
KEYS = st.one_of(st.from_regex(COLOR_NAME, fullmatch=True).map(lambda name: name[:8]),
                 st.sampled_from(["red1", "red2", "r0", "re[1]d", "re[0]d", "[1]", "a]", "a[", "a#", "a\u0663",
                                  'a"b', "Red", "", "a b"]))
LISTS = st.one_of(st.lists(st.integers(0, 120), min_size=1, max_size=4).map(json.dumps),
                  st.sampled_from(["[]", "[[1]]", "[1,2]", "[01]", "[-1]", "[1.0]", '["1"]', "[\u0663]", "[0]",
                                   "[1, [2]]", "[1 ]", "#", "1", "{}"]))


@st.composite
def dice_cells(draw) -> str:
    """A dice cell as the writer writes it, with keys and lists no writer writes, sometimes with a character
    inserted, dropped or changed."""
    pairs = draw(st.lists(st.tuples(KEYS, LISTS), min_size=1, max_size=4))
    cell = "{" + ", ".join(f"{json.dumps(key, ensure_ascii=False)}: {values}" for key, values in pairs) + "}"
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(cell)))
        cut = draw(st.integers(0, 1))
        cell = cell[:at] + draw(st.sampled_from(["", "[", "]", "[0]", "0", "7", "#", ",", " ", '"', "{", "}"])) + \
            cell[at + cut:]
    return cell


def arrow_text(cells: list[str]) -> pd.Series:
    """`cells` as the reader holds them: Arrow strings in two chunks, the first a slice (its bytes start before
    its first cell)."""
    half = len(cells) // 2
    chunks = [pa.array(["{}", *cells[:half]]).slice(1), pa.array(cells[half:], type=pa.string())]
    return pd.Series(pa.chunked_array(chunks, type=pa.string()), dtype=pd.ArrowDtype(pa.string()))


def read_cell_by_cell(cell: str) -> tuple[frozenset[str], list[int], list[int]] | None:
    """(colors, dice of each color in order, the values) of a dice cell, None for a refused cell, read on its own:
    a cell that matches DICE_AS_WRITTEN by its color names and lists as written (one with a number 01 too, which
    is not JSON), any other as JSON, which must be what the writer writes (color names, each with a non-empty list
    of whole numbers)."""
    if re.fullmatch(DICE_AS_WRITTEN, cell):
        template = re.sub(r"\[[0-9, ]*\]", "", cell)
        colors = json.loads(template.replace(": ,", ": 0,").replace(": }", ": 0}"))
        lists = re.findall(r"\[([0-9, ]*)\]", cell)
        return frozenset(colors), [len(faces.split(",")) for faces in lists], [
            int(value) for faces in lists for value in faces.split(",")]
    value = json_object(cell)
    if value is None or not all(re.fullmatch(COLOR_NAME, color) and isinstance(faces, list) and faces and all(
            type(face) is int for face in faces) for color, faces in value.items()):
        return None
    return frozenset(value), [len(faces) for faces in value.values()], [v for faces in value.values() for v in faces]


@settings(max_examples=300, deadline=None)
@given(st.lists(dice_cells(), min_size=1, max_size=12))
def test_a_dice_cell_is_read_and_refused_as_one_read_cell_by_cell(cells):
    expected = list(map(read_cell_by_cell, cells))
    for text in (arrow_text(cells), pd.Series(cells, dtype=object)):
        read = read_dice(text)
        assert [read.color_sets[code] if code >= 0 else None for code in read.codes] == [
            None if one is None else one[0] for one in expected]
        assert read.counts.tolist() == [[0, 0, 0, 0] if one is None else
                                        [len(one[1]), sum(one[1]), min(one[1]), max(one[1])] for one in expected]
        # each color's dice and the values, padded with 0 (a value past a byte written 255: its row is refused)
        assert [row[:len(one[1])] for row, one in zip(read.color_dice.tolist(), expected) if one] == [
            one[1] for one in expected if one]
        assert [row[:len(one[2])] for row, one in zip(read.values.tolist(), expected) if one] == [
            [min(max(value, 0), 255) for value in one[2]] for one in expected if one]
        assert not read.values[[one is None for one in expected]].any()
        assert not any(row[len(one[2]):].any() for row, one in zip(read.values, expected) if one)
        assert read.extremes.tolist() == [[0, 0] if one is None else [min(one[2]), max(one[2])] for one in expected]


@settings(max_examples=300, deadline=None)
@given(st.lists(dice_cells(), min_size=1, max_size=12))
def test_a_dice_cell_is_as_written_exactly_when_its_shape_is(cells):
    # What read_dice relies on: the cells its one match of a shape passes are those the full match of every
    # cell passed.
    shapes = _zeroed(arrow_text(cells)).tolist()
    assert shapes == [re.sub("[0-9]", "0", cell) for cell in cells]
    assert [bool(re.fullmatch(DICE_AS_WRITTEN, shape)) for shape in shapes] == [
        bool(re.fullmatch(DICE_AS_WRITTEN, cell)) for cell in cells]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["{0}", "{9}", "{a}", "{}}", "[10]", "[1a]", "\u0663[1]", "77", None]),
                         min_size=1, max_size=6), min_size=1, max_size=4))
def test_the_shapes_of_cells_are_as_encoding_them_with_their_digits_written_0_gives(chunks):
    # Chunks of cells of one length (found at once, a chunk's cells of its first one's shape) and chunks of
    # several lengths or with a missing cell (encoded), some a slice whose bytes start before its first cell.
    text = pd.Series(pa.chunked_array([pa.array(["{}", *chunk]).slice(1) if index % 2 else pa.array(chunk, pa.string())
                                       for index, chunk in enumerate(chunks)], type=pa.string()),
                     dtype=pd.ArrowDtype(pa.string()))
    codes, shapes = shapes_of(text)
    expected_codes, expected_shapes = pd.factorize(_zeroed(text))
    assert codes.tolist() == expected_codes.tolist()
    assert shapes.tolist() == expected_shapes.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet="0123456789", max_size=21),
                          st.text(alphabet="019a -+.\u0663\uff11\u00b2\u0000", max_size=4)), min_size=1, max_size=8))
def test_a_whole_number_cell_is_one_to_nineteen_ascii_digits_as_the_regular_expression_says(cells):
    for text in (arrow_text(cells), pd.Series(cells, dtype=object)):
        assert _digits(text, 19).tolist() == [bool(re.fullmatch("[0-9]{1,19}", cell)) for cell in cells]


def test_rows_whose_color_names_differ_only_in_digits_are_each_checked_against_their_own(tmp_path):
    # One shape, {"c0": [0, 0, 0], ...}, for both rows: the second's answers are not of its dice.
    path = tmp_path / "drills.csv"
    log = DrillLog(path)
    for trial in (1, 2, 3):
        log.append(trial_row(trial))
    header, *lines = path.read_text(encoding="utf-8").splitlines()

    def colored(line: str, names: tuple[str, str, str], expected: str) -> str:
        for old, new in zip(("black", "red", "white"), names):
            line = line.replace(f'{{""{old}"": [', f'{{""{new}"": [').replace(f', ""{old}"": [', f', ""{new}"": [')
        return line.replace(",red,red,", f",{expected},{expected},").replace('[""red""]', f'[""{expected}""]')

    lines = [colored(lines[0], ("c1", "c2", "c3"), "c2"), colored(lines[1], ("c4", "c5", "c6"), "c2"),
             colored(lines[2], ("c7", "c2", "c9"), "c2")]
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = load_logs([path])
    [warning] = [w for w in caught if issubclass(w.category, SkippedRowsWarning)]
    assert "skipped 1 row" in str(warning.message) and "line 3: expected must be a color of the dice" in str(
        warning.message)
    assert frame["trial"].tolist() == [1, 3]
    assert [list(json.loads(cell)) for cell in frame["dice"]] == [["c1", "c2", "c3"], ["c7", "c2", "c9"]]


def _with_black(line: str, values: str) -> str:
    """A log line of the worked-example roll with black's values (as written, `2, 3, 6`) changed to `values`."""
    assert '""black"": [2, 3, 6]' in line
    return line.replace('""black"": [2, 3, 6]', f'""black"": [{values}]')


@pytest.mark.parametrize("columns", [None, ROLL_COLUMNS])
def test_rows_whose_dice_show_values_their_dice_do_not_have_are_skipped_with_the_value_named(tmp_path, columns):
    # 300 was read as 44 (uint8), 0 and 7 as themselves: none is a face of the standard dice (1 to 6). Row 6 is
    # written by hand (no spaces): it is parsed as JSON and checked alike.
    path = tmp_path / "drills.csv"
    DrillLog(path).append_rows([trial_row(trial) for trial in range(1, 7)])
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    lines[1], lines[2], lines[3] = (_with_black(lines[1], "300, 3, 6"), _with_black(lines[2], "2, 0, 6"),
                                    _with_black(lines[3], "2, 3, 7"))
    lines[5] = lines[5].replace('""black"": [2, 3, 6]', '""black"":[2,3,6,9]').replace('[2, 3, 6]', '[2,3,6,9]')
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    with pytest.warns(SkippedRowsWarning) as caught:
        frame = load_logs([path], columns=columns)
    message = str(caught[0].message)
    assert "skipped 4 rows" in message
    assert "line 3: dice must be faces of the row's game: black shows 300, and the standard dice show 1 to 6" in message
    assert "line 4: dice must be faces of the row's game: black shows 0" in message
    assert "line 5: dice must be faces of the row's game: black shows 7" in message
    assert "line 7: dice must be faces of the row's game: black shows 9" in message
    rolls = read_rolls(frame)
    assert rolls.values.tolist() == [[2, 3, 6, 3, 5, 5, 1, 5, 6]] * 2


def test_a_row_of_a_game_of_its_own_is_skipped_when_a_value_is_not_a_face_of_its_dice(tmp_path):
    # Eight-sided dice: 8 is a face, 9 is not. Read with the rolls' columns alone (no `variant`), the row was
    # kept on 9 too.
    path = tmp_path / "drills.csv"
    game = rules_cell(Variant(sides=8))
    DrillLog(path).append_rows([trial_row(trial, variant=game) for trial in (1, 2, 3)])
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    lines[1], lines[2] = _with_black(lines[1], "2, 3, 8"), _with_black(lines[2], "2, 3, 9")
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    with pytest.warns(SkippedRowsWarning, match="skipped 1 row .*line 4: dice must be faces of the row's game: "
                                                 "black shows 9, and the dice of the row's game show 1 to 8"):
        frame = load_logs([path], columns=ROLL_COLUMNS)
    assert read_rolls(frame).values[:, :3].tolist() == [[2, 3, 6], [2, 3, 8]]
    assert "variant" not in frame


@pytest.mark.parametrize("value", [0, 7, 300])
def test_the_writer_refuses_a_value_the_standard_dice_do_not_show_in_one_line(tmp_path, value):
    log = DrillLog(tmp_path / "drills.csv")
    with pytest.raises(InputError) as raised:
        log.append(trial_row(1, dice={"black": [2, 3, value], "red": [3, 5, 5], "white": [1, 5, 6]}))
    assert str(raised.value) == f"dice: black shows {value}, and the standard dice show 1 to 6"
    assert (tmp_path / "drills.csv").read_text(encoding="utf-8").count("\n") == 1  # the header alone
