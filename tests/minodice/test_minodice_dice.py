"""The dice file: the shipped reconstruction keeps to what the sources say, and bad files are refused by name."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import Bag, Die, Face, load_dice
from diavolo_stats.minodice.dice import CHARACTERS

GOOD_FILE = """
[[dice]]
name = "minotaur"
count = 1
faces = ["minotaur", "minotaur", "minotaur", "minotaur", "flag", "flag"]
[[dice]]
name = "griffin"
count = 1
faces = ["griffin", "griffin", "griffin", "griffin", "flag", "flag"]
[[dice]]
name = "mermaid"
count = 1
faces = ["mermaid", "mermaid", "mermaid", "mermaid", 0, 0]
[[dice]]
name = "white"
count = 3
faces = [1, 2, 3, 4, 5, 6]
"""


def write(tmp_path, text):
    path = tmp_path / "dice.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_default_dice_keep_to_what_the_sources_agree_on():
    bag = load_dice()
    assert bag.size == 36
    specials = [die for die in bag.dice if die.is_special]
    numbers = [die for die in bag.dice if not die.is_special]
    assert sum(die.count for die in specials) == 6 and sum(die.count for die in numbers) == 30
    assert {die.kind for die in specials} == {"minotaur", "griffin", "mermaid"}
    for die in specials:
        assert sorted(die.faces).count(Face.FLAG) == 2 and len(set(die.faces) & set(CHARACTERS)) == 1
    assert len(numbers) == 4
    weakest = numbers[0]
    assert weakest.faces.count(Face.FLAG) == 3 and weakest.faces.count(7) == 1
    assert all(Face.FLAG not in die.faces for die in numbers[1:])
    for lower, upper in zip(numbers, numbers[1:]):
        values = lambda die: {face for face in die.faces if face != Face.FLAG}  # noqa: E731
        assert len(values(lower) & values(upper)) == 1, (lower.name, upper.name)
        assert max(values(upper)) >= max(values(lower) - {7}) and min(values(upper)) > min(values(lower))


def test_the_default_dice_say_they_are_a_reconstruction():
    bag = load_dice()
    assert bag.reconstruction and "RECONSTRUCTION" in bag.provenance


def test_a_dice_file_replaces_the_default(tmp_path):
    bag = load_dice(write(tmp_path, GOOD_FILE))
    assert bag.names == ("minotaur", "griffin", "mermaid", "white")
    assert bag.size == 6 and not bag.reconstruction
    assert str(tmp_path) in bag.provenance and "RECONSTRUCTION" not in bag.provenance
    assert bag.dice[2].faces == (Face.MERMAID,) * 4 + (Face.FLAG,) * 2  # 0 is a flag


@pytest.mark.parametrize("change, message", [
    (('faces = [1, 2, 3, 4, 5, 6]', 'faces = [1, 2, 3, 4, 5]'), "faces: die 'white': a die has 6 faces, not 5"),
    (('faces = [1, 2, 3, 4, 5, 6]', 'faces = [1, 2, 3, 9, 5, 6]'),
     "faces: die 'white': face 4: value 9 is outside 0 to 7"),
    (('faces = [1, 2, 3, 4, 5, 6]', 'faces = [1, 2, "skull", 4, 5, 6]'),
     "faces: die 'white': face 3: unknown symbol 'skull'"),
    (('faces = [1, 2, 3, 4, 5, 6]', 'faces = [1, 2, "griffin", 4, 5, 6]'),
     "faces: die 'white': face 3: griffin cannot share a die with 1"),
    (('"griffin", "griffin", "griffin", "griffin"', '"griffin", "mermaid", "griffin", "griffin"'),
     "faces: die 'griffin': face 2: mermaid cannot share a die with griffin"),
    (('count = 3', 'count = 0'), "count: die 'white': must be a whole number of 1 or more, got 0"),
    (('name = "white"', 'name = "griffin"'), "dice: a second die named 'griffin'"),
    (('faces = [1, 2, 3, 4, 5, 6]', 'faces = ["flag", "flag", "flag", "flag", "flag", "flag"]'),
     "faces: die 'white': every face is a flag"),
    (('faces = [1, 2, 3, 4, 5, 6]', 'faces = [1, 2, 3, 4, 5, 6]\ncolour = "white"'),
     "die 'white': unknown key 'colour'"),
    (('count = 3\n', ''), "die 'white': missing count"),
    (('faces = ["mermaid", "mermaid", "mermaid", "mermaid", 0, 0]', 'faces = [2, 2, 2, 2, 0, 0]'),
     "no mermaid die; the bag needs at least one die of each kind"),
    (('faces = [1, 2, 3, 4, 5, 6]', 'faces = ["minotaur", 0, 0, 0, 0, 0]'), "no number die"),
    (('[[dice]]\nname = "minotaur"', '[[dice]\nname = "minotaur"'), "not valid TOML"),
    (('[[dice]]\nname = "minotaur"', 'reconstruction = "yes"\n[[dice]]\nname = "minotaur"'),
     "reconstruction: must be true or false, got 'yes'"),
])
def test_an_invalid_dice_file_is_refused_with_the_die_and_face_named(tmp_path, change, message):
    old, new = change
    assert old in GOOD_FILE
    path = write(tmp_path, GOOD_FILE.replace(old, new, 1))
    with pytest.raises(InputError) as error:
        load_dice(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_missing_dice_file_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match=r"^.*nothere.toml: cannot read it"):
        load_dice(tmp_path / "nothere.toml")


@given(st.lists(st.one_of(st.integers(-3, 12), st.sampled_from(["flag", "minotaur", "x"])), min_size=6, max_size=6))
def test_a_die_is_accepted_exactly_when_it_keeps_to_the_face_rules(faces):
    valid_symbols = all(face in ("flag", "minotaur") or (isinstance(face, int) and 0 <= face <= 7) for face in faces)
    shown = [face for face in faces if face not in ("flag", 0)]
    one_kind = bool(shown) and (all(face == "minotaur" for face in shown)
                                or all(isinstance(face, int) for face in shown))
    if valid_symbols and one_kind:
        assert len(Die("d", tuple(faces), 1).faces) == 6
    else:
        with pytest.raises(InputError, match="die 'd'"):
            Die("d", tuple(faces), 1)


def test_each_die_knows_its_chance_of_a_flag():
    bag = load_dice()
    flags = {die.name: die.flag_probability for die in bag.dice}
    assert flags["minotaur"] == Fraction(1, 3) and flags["yellow"] == Fraction(1, 2) and flags["black"] == 0


def test_hands_are_read_by_name_in_any_case_and_unknown_names_are_refused():
    bag = load_dice()
    assert bag.parse_hand("Black, mermaid,yellow") == (bag.index("black"), bag.index("mermaid"), bag.index("yellow"))
    with pytest.raises(InputError, match="hand: unknown die 'purple'; the dice are minotaur, griffin"):
        bag.parse_hand("black,purple")


def test_a_bag_needs_every_kind_of_die():
    with pytest.raises(InputError, match="no griffin and no mermaid die"):
        Bag((Die("m", ("minotaur",) * 6, 1), Die("w", (1, 2, 3, 4, 5, 6), 1)))
