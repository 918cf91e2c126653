"""Every figure in its own words (`DiceFigure.words`), and the one-line why of a roll built from them: the
terminal's feedback, its commands screen and the browser's (served by the server) all read these lines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diavolo_stats.core.commands import Command, Criterion
from diavolo_stats.core.figures import VOCABULARY, DiceFigure
from diavolo_stats.core.rules import resolve, roll
from diavolo_stats.core.variant import GREY, Variant

WORDS = [
    ("sum", 14, "total 14"),
    ("max", 6, "highest die 6"),
    ("min", 1, "lowest die 1"),
    ("spread", 5, "spread 5"),
    ("distinct", 1, "1 different value"),
    ("distinct", 3, "3 different values"),
    ("most-alike", 1, "no two alike"),
    ("most-alike", 3, "3 alike"),
    ("nth-highest:1", 6, "highest die 6"),
    ("nth-highest:2", 5, "second-highest die 5"),
    ("nth-highest:12", 2, "twelfth-highest die 2"),
    ("count:odd", 1, "1 odd die"),
    ("count:odd", 0, "0 odd dice"),
    ("count:even", 2, "2 even dice"),
    ("count:=6", 2, "2 sixes"),
    ("count:=6", 1, "1 six"),
    ("count:=1", 3, "3 ones"),
    ("count:=0", 2, "2 zeros"),
    ("count:=20", 1, "1 die showing 20"),
    ("count:>=5", 2, "2 dice of 5 or more"),
    ("count:<=2", 1, "1 die of 2 or less"),
    ("distance", 23.4, "nearest die 23.4 mm"),
]


@pytest.mark.parametrize("figure, value, words", WORDS)
def test_each_figure_says_its_value_in_words(figure, value, words):
    assert DiceFigure.parse(figure).words(value) == words


def test_every_figure_of_the_vocabulary_has_words_stated_here():
    # VOCABULARY writes K and V for a rank and a face: each form must be among the cases above.
    forms = {str(DiceFigure.parse(figure)).rstrip("0123456789") for figure, _, _ in WORDS}
    assert forms == {form.rstrip("KV") for form in VOCABULARY}


def chained(name: str, *chain: tuple[str, bool]) -> Command:
    return Command(name, None, None, tuple(Criterion(DiceFigure.parse(figure), highest) for figure, highest in chain))


def test_the_winner_is_named_with_its_figure_in_words_and_the_others_by_their_numbers():
    sixes = chained("most-sixes", ("count:=6", True))
    resolution = resolve(Variant(commands=(sixes,)), sixes,
                         {"black": [6, 6, 1], "red": [6, 2, 3], "white": [1, 6, 4]})
    assert resolution.reason == "black: 2 sixes > 1 red, 1 white"


def test_a_tie_break_says_which_colors_tied_at_what_then_what_broke_it():
    broken = chained("broken", ("max", True), ("sum", True))
    variant = Variant(commands=(broken,))
    resolution = resolve(variant, broken, {"black": [6, 1, 1], "red": [6, 5, 1], "white": [4, 4, 4]})
    assert resolution.answer == "red"
    assert resolution.reason == "black and red tie at highest die 6 > 4 white; then red: total 12 > 8 black"


def test_a_chain_tied_to_its_end_is_grey_and_says_each_step():
    broken = chained("broken", ("max", True), ("sum", False))
    resolution = resolve(Variant(commands=(broken,)), broken,
                         {"black": [6, 1, 2], "red": [2, 6, 1], "white": [6, 5, 4]})
    assert resolution.answer == GREY
    assert resolution.reason == ("grey: black, red and white tie at highest die 6; "
                                 "then black and red tie at total 9 < 15 white")


@st.composite
def variants_with_a_chain(draw) -> Variant:
    figures = ("sum", "max", "min", "spread", "distinct", "most-alike", "nth-highest:2", "count:odd", "count:=3")
    chain = tuple(Criterion(DiceFigure.parse(draw(st.sampled_from(figures))), draw(st.booleans()))
                  for _ in range(draw(st.integers(1, 3))))
    return Variant(dice_per_color=draw(st.integers(2, 4)), sides=draw(st.integers(3, 6)),
                   commands=(Command("drawn", None, None, chain),))


@settings(max_examples=60, deadline=None)
@given(variants_with_a_chain(), st.integers(0, 2**32 - 1))
def test_the_why_names_the_answer_the_rules_gave(variant, seed):
    thrown = roll(variant, np.random.default_rng(seed))
    resolution = resolve(variant, variant.commands[0], thrown.dice)
    if resolution.answer == GREY:
        assert resolution.reason.startswith("grey: ")
    else:
        # The step that decides names the winner, with its figure in words.
        last = resolution.reason.split("; then ")[-1]
        assert last.startswith(f"{resolution.answer}: ")
