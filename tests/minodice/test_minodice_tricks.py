"""Who wins a trick: the rules page (docs/rules.md, Minodice tricks), case by case and exhaustively."""

import itertools

import numpy as np
import pytest
from helpers.minodice_reference import ALL_FACES, reference_bonus, reference_winner

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import Rules, face_code, resolve_trick, resolve_tricks
from diavolo_stats.minodice.options import ALL_FLAGS, EQUAL_SPECIALS, THREE_SPECIALS
from diavolo_stats.minodice.tricks import NO_WINNER


@pytest.mark.parametrize("faces, winner", [
    # every pairing of specials, in both orders
    (["minotaur", "griffin"], 0), (["griffin", "minotaur"], 1),
    (["griffin", "mermaid"], 0), (["mermaid", "griffin"], 1),
    (["mermaid", "minotaur"], 0), (["minotaur", "mermaid"], 1),
    # all three specials: the mermaid by default
    (["minotaur", "griffin", "mermaid"], 2), (["mermaid", "minotaur", "griffin"], 0),
    # specials against numbers: any character beats the highest number
    (["minotaur", 7], 0), ([7, "griffin"], 1), ([7, 7, "mermaid", 6], 2),
    # flags never win; a special die's flag is no character
    (["flag", 1], 1), ([3, "flag", "flag"], 0),
    # the highest number wins, whatever its color; equal numbers go to the later roller
    ([2, 7, 5], 1), ([5, 5], 1), ([6, 3, 6, 2], 2),
    # every die a flag: the leader by default
    (["flag", "flag", "flag"], 0), (["flag"] * 6, 0),
    # the same character twice: the later roller by default
    (["griffin", 4, "griffin"], 2), (["mermaid", "minotaur", "mermaid"], 2),
])
def test_the_trick_goes_to_the_die_the_rules_name(faces, winner):
    assert resolve_trick(faces).winner == winner


def test_the_open_questions_follow_their_options():
    assert resolve_trick(["griffin", "griffin"], Rules(equal_specials="earlier")).winner == 0
    assert resolve_trick(["minotaur", "griffin", "mermaid"], Rules(three_specials="minotaur")).winner == 0
    assert resolve_trick(["minotaur", "griffin", "mermaid"], Rules(three_specials="griffin")).winner == 1
    assert resolve_trick(["flag", "flag", "flag"], Rules(all_flags="last")).winner == 2
    # equal numbers are not an open question: the later roller, whatever the options
    assert resolve_trick([4, 4, 1], Rules(equal_specials="earlier", all_flags="last")).winner == 1


def test_a_trick_of_only_flags_goes_to_the_leader_by_default_and_to_nobody_under_the_literal_reading():
    # «Выпавший флаг равен 0 и не может выиграть взятку»: "a flag counts 0 and cannot win a trick".
    assert resolve_trick(["flag", "flag", "flag"]).winner == 0
    assert resolve_trick(["flag", "flag", "flag"], Rules(all_flags="nobody")).winner is None
    # a trick with any number or character is taken as always
    assert resolve_trick(["flag", 1, "flag"], Rules(all_flags="nobody")).winner == 1
    assert resolve_tricks(np.zeros((2, 4), dtype=np.int8), Rules(all_flags="nobody")).winner.tolist() == [
        NO_WINNER, NO_WINNER]


def test_a_winning_minotaur_beats_every_griffin_and_a_winning_mermaid_every_minotaur():
    assert resolve_trick(["griffin", "minotaur", "griffin", 7]).griffins_beaten == 2
    assert resolve_trick(["minotaur", "mermaid", "minotaur"]).minotaurs_beaten == 2
    # the mermaid takes a three-special trick by default: she beat the minotaur, the minotaur beat nobody
    three = resolve_trick(["griffin", "minotaur", "mermaid"])
    assert (three.griffins_beaten, three.minotaurs_beaten) == (0, 1)
    # a minotaur that loses beats nobody
    assert resolve_trick(["griffin", "minotaur", "mermaid", "mermaid"]).griffins_beaten == 0


@pytest.mark.parametrize("rollers", [2, 3])
@pytest.mark.parametrize("equal_specials, three_specials, all_flags",
                         list(itertools.product(EQUAL_SPECIALS, THREE_SPECIALS, ALL_FLAGS)))
def test_vectorized_resolution_matches_the_rules_on_every_trick(rollers, equal_specials, three_specials, all_flags):
    tricks = list(itertools.product(ALL_FACES, repeat=rollers))
    codes = np.array([[face_code(face) for face in trick] for trick in tricks], dtype=np.int8)
    rules = Rules(equal_specials=equal_specials, three_specials=three_specials, all_flags=all_flags)
    outcome = resolve_tricks(codes, rules)
    for row, trick in enumerate(tricks):
        winner = reference_winner(list(trick), equal_specials, three_specials, all_flags)
        assert outcome.winner[row] == (NO_WINNER if winner is None else winner), trick
        assert (outcome.griffins_beaten[row], outcome.minotaurs_beaten[row]) == reference_bonus(list(trick), winner)


def test_vectorized_resolution_matches_the_rules_on_every_four_die_trick():
    tricks = list(itertools.product(ALL_FACES, repeat=4))
    codes = np.array([[face_code(face) for face in trick] for trick in tricks], dtype=np.int8)
    winners = resolve_tricks(codes).winner
    assert [reference_winner(list(trick)) for trick in tricks] == winners.tolist()


def test_a_face_that_does_not_exist_is_refused_by_name():
    with pytest.raises(InputError, match="unknown symbol 'kraken'"):
        resolve_trick(["kraken", 3])
    with pytest.raises(InputError, match="value 8 is outside 0 to 7"):
        resolve_trick([8, 3])
