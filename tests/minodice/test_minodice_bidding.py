"""The bid advisor: simulated figures against exact ones in round 1, where nobody has a choice."""

import itertools
from fractions import Fraction

import pytest
from helpers.minodice_reference import mermaid_count, reference_bonus, reference_score, reference_winner, symbols

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import Rules, advise_bid, load_dice
from diavolo_stats.minodice.options import WRONG_BID

BAG = load_dice()


def exact_round_one(name, players, seat=None, rules=Rules()):
    """P(this die wins the trick) and the expected score of bids 0 and 1, by enumerating round 1.

    Every ordered draw of die types for the other seats (weighted by how many
    ways the bag gives it), every face, and every seat for this hand (or the one asked).
    """
    left = {die.name: die.count - (die.name == name) for die in BAG.dice}
    faces = {die.name: symbols(die.faces) for die in BAG.dice}
    total_weight = Fraction(0)
    win = Fraction(0)
    scores = [Fraction(0), Fraction(0)]
    for others in itertools.product(BAG.names, repeat=players - 1):
        ways, taken = 1, dict.fromkeys(left, 0)
        for other in others:
            ways *= left[other] - taken[other]
            taken[other] += 1
        if ways <= 0:
            continue
        for rolled in itertools.product(faces[name], *(faces[other] for other in others)):
            for place in range(players) if seat is None else [seat - 1]:
                trick = list(rolled[1:place + 1]) + [rolled[0]] + list(rolled[place + 1:])
                winner = reference_winner(trick)
                won = int(winner == place)
                griffins, minotaurs = reference_bonus(trick, winner) if won else (0, 0)
                total_weight += ways
                win += ways * won
                for bid in (0, 1):
                    scores[bid] += ways * reference_score(bid, won, 1, griffins,
                                                          mermaid_count([minotaurs], rules.mermaid_bonus))
    return win / total_weight, [score / total_weight for score in scores]


@pytest.mark.parametrize("name, players, seat, rules", [
    ("minotaur", 3, None, Rules()), ("yellow", 3, 1, Rules()), ("mermaid", 3, 3, Rules()),
    ("mermaid", 3, 3, Rules(mermaid_bonus="per-minotaur")),
])
def test_round_one_figures_agree_with_exact_ones_within_their_intervals(name, players, seat, rules):
    exact_win, exact_scores = exact_round_one(name, players, seat, rules)
    advice = advise_bid(name, 1, players, seat=seat, rules=rules, simulations=40_000, seed=2, confidence=0.999)
    assert exact_win in advice.tricks[1] and 1 - exact_win in advice.tricks[0]
    assert exact_win in advice.expected_tricks
    for bid in (0, 1):
        assert exact_scores[bid] in advice.expected_scores[bid], bid
    # The advised bid is the truly best one (the exact scores of bids 0 and 1 lie far apart for these hands).
    assert advice.best_bid == max((0, 1), key=exact_scores.__getitem__)


@pytest.mark.parametrize("wrong_bid", WRONG_BID)
def test_each_bid_scores_what_the_rules_give_for_the_trick_distribution_shown(wrong_bid):
    # Number dice only: without a minotaur or a mermaid there is no bonus, so what a bid is worth
    # follows from the chances of winning 0..4 tricks alone.
    advice = advise_bid("black,blue,red,yellow", 4, 4, rules=Rules(wrong_bid=wrong_bid), simulations=5_000, seed=1)
    chances = [trick.value for trick in advice.tricks]
    assert len(chances) == 5 and sum(chances) == pytest.approx(1.0, abs=1e-12)
    expected = [sum(chance * reference_score(bid, won, 4, wrong_bid=wrong_bid) for won, chance in enumerate(chances))
                for bid in range(5)]
    assert [score.value for score in advice.expected_scores] == pytest.approx(expected, abs=1e-9)
    assert advice.best_bid == max(range(5), key=expected.__getitem__)
    rows = advice.rows()
    assert [row["best"] != "" for row in rows] == [bid == advice.best_bid for bid in range(5)]


def test_the_same_seed_gives_the_same_advice_and_an_unseeded_run_reports_its_seed():
    first = advise_bid("black,mermaid,yellow", 3, 4, simulations=3_000, seed=42)
    assert advise_bid("black,mermaid,yellow", 3, 4, simulations=3_000, seed=42) == first
    unseeded = advise_bid("black,mermaid,yellow", 3, 4, simulations=3_000)
    assert advise_bid("black,mermaid,yellow", 3, 4, simulations=3_000, seed=unseeded.seed) == unseeded


def test_a_hand_of_strong_dice_expects_more_tricks_than_a_hand_of_weak_ones():
    strong = advise_bid("black,black,black", 3, 4, simulations=4_000, seed=1)
    weak = advise_bid("yellow,yellow,yellow", 3, 4, simulations=4_000, seed=1)
    assert weak.expected_tricks.high < strong.expected_tricks.low
    assert weak.best_bid == 0


def test_the_advice_says_which_dice_it_used():
    advice = advise_bid("black", 1, 3, simulations=100, seed=0)
    assert "RECONSTRUCTION" in advice.dice and advice.document()["dice"] == advice.dice


@pytest.mark.parametrize("kwargs, message", [
    ({"hand": "black,purple", "round_number": 2, "players": 4}, "hand: unknown die 'purple'"),
    ({"hand": "black,red,red", "round_number": 2, "players": 4}, "hand: has 3 dice, more than round 2 deals"),
    ({"hand": "mermaid,mermaid,mermaid", "round_number": 3, "players": 4},
     "hand: has 3 mermaid dice but the bag holds 2"),
    ({"hand": "black", "round_number": 1, "players": 7}, "players: must be a whole number from 3 to 6, got 7"),
    ({"hand": "black", "round_number": 1, "players": 2}, "players: must be a whole number from 3 to 6, got 2"),
    ({"hand": "black", "round_number": 1, "players": 3, "simulations": 1},
     "simulations: must be a whole number from 2 to 1,000,000,000"),
])
def test_bad_requests_are_refused_by_name(kwargs, message):
    with pytest.raises(InputError, match=message):
        advise_bid(**kwargs, seed=0)

