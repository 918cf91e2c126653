"""Each die's chance to win a trick: exact against brute force, simulated against exact."""

import itertools
from fractions import Fraction

import pytest
from helpers.minodice_reference import reference_winner, symbols

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import (
    Bag,
    Die,
    Rules,
    die_odds,
    exact_win_probability,
    load_dice,
    simulated_win_probability,
)

BAG = load_dice()
SMALL_BAG = Bag((
    Die("minotaur", ("minotaur",) * 4 + ("flag",) * 2, 1),
    Die("griffin", ("griffin",) * 4 + ("flag",) * 2, 1),
    Die("mermaid", ("mermaid",) * 4 + ("flag",) * 2, 2),
    Die("yellow", ("flag", "flag", "flag", 1, 2, 7), 2),
    Die("black", (6, 6, 6, 7, 7, 7), 1),
))


def brute_force_win_probability(bag, name, against, rules=Rules()):
    """Every ordered draw of physical dice, every face of every die, the die at every place in the order."""
    dice = [die for die in bag.dice for _ in range(die.count)]
    own = next(die for die in dice if die.name == name)
    rest = list(dice)
    rest.remove(own)
    wins = total = 0
    for drawn in itertools.permutations(rest, against):
        for faces in itertools.product(symbols(own.faces), *(symbols(die.faces) for die in drawn)):
            for place in range(against + 1):
                trick = list(faces[1:place + 1]) + [faces[0]] + list(faces[place + 1:])
                wins += reference_winner(trick, rules.equal_specials, rules.three_specials, rules.all_flags) == place
                total += 1
    return Fraction(wins, total)


@pytest.mark.parametrize("name", SMALL_BAG.names)
@pytest.mark.parametrize("against, rules", [
    (1, Rules()), (2, Rules()), (2, Rules(equal_specials="earlier", three_specials="minotaur", all_flags="last")),
    (2, Rules(all_flags="nobody")),  # a trick of flags is nobody's: no die wins it
])
def test_exact_odds_match_brute_force_on_a_small_bag(name, against, rules):
    assert exact_win_probability(SMALL_BAG, name, against, rules) == brute_force_win_probability(
        SMALL_BAG, name, against, rules)


@pytest.mark.parametrize("name", ["mermaid", "yellow", "black"])
def test_exact_odds_match_brute_force_on_the_default_bag_head_to_head(name):
    assert exact_win_probability(BAG, name, 1) == brute_force_win_probability(BAG, name, 1)


def test_simulated_odds_agree_with_exact_ones_within_their_interval():
    # Seven comparisons, so each uses a 99.9% interval.
    for die in BAG.dice:
        estimate = simulated_win_probability(BAG, die.name, 3, simulations=40_000, seed=5, confidence=0.999)
        assert exact_win_probability(BAG, die.name, 3) in estimate, die.name


def test_the_table_is_exact_where_cheap_and_simulated_past_the_limit():
    exact = die_odds(against=(1, 2))
    assert {odds.method for odds in exact.odds} == {"exact"}
    assert exact.odds[0].exact == exact_win_probability(BAG, "minotaur", 1)
    simulated = die_odds(against=(1, 2), enumeration_limit=0, simulations=2_000, seed=3)
    assert {odds.method for odds in simulated.odds} == {"simulated"}
    assert simulated.seed == 3 and "RECONSTRUCTION" in simulated.dice


def test_a_simulated_figure_depends_on_the_seed_and_its_row_alone():
    wide = die_odds(against=(1, 2, 3), method="simulated", simulations=1_000, seed=9)
    narrow = die_odds(against=(3,), method="simulated", simulations=1_000, seed=9)
    assert [o.estimate for o in wide.odds if o.against == 3] == [o.estimate for o in narrow.odds]
    assert die_odds(against=(3,), method="simulated", simulations=1_000, seed=9) == narrow


def test_the_flag_chance_of_each_die_is_exact():
    table = die_odds(against=(1,))
    assert table.flag == {"minotaur": Fraction(1, 3), "griffin": Fraction(1, 3), "mermaid": Fraction(1, 3),
                          "yellow": Fraction(1, 2), "red": 0, "blue": 0, "black": 0}


def test_a_trick_larger_than_six_dice_is_refused():
    with pytest.raises(InputError, match="against: must be 1 to 5"):
        die_odds(against=(6,))


@pytest.mark.parametrize("against, message", [((2, 2), "against: 2 repeated; each count once"),
                                              ((), "against: need at least one count"),
                                              ("12", "against: must be a list of counts")])
def test_the_counts_to_play_against_are_a_list_each_once_as_the_command_line_reads_them(against, message):
    with pytest.raises(InputError, match=message):
        die_odds(against=against, method="exact")
