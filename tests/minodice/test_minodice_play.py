"""Dealing and playing rounds: every simulated trick checked one by one against the rules."""

from collections import Counter

import numpy as np
import pytest
from helpers.minodice_reference import reference_bonus, reference_winner, symbols

from diavolo_stats.errors import InputError
from diavolo_stats.minodice import Bag, Die, Rules, deal, load_dice, play_tricks, rounds_for_players
from diavolo_stats.minodice.tricks import NO_WINNER

BAG = load_dice()


def check_round(bag, hands, record, rules):
    """Every fact of a played round that the rules fix, game by game, trick by trick."""
    games, players, tricks = hands.shape
    special = bag.special_types()
    for game in range(games):
        left = [Counter(hands[game, seat].tolist()) for seat in range(players)]
        leader, won = 0, Counter()
        bonuses = Counter()
        for trick in range(tricks):
            assert record.leaders[game, trick] == leader
            led_color = None
            for place in range(players):
                seat = (leader + place) % players
                die = int(record.dice[game, trick, place])
                assert left[seat][die] > 0, "a player rolled a die they did not hold"
                if rules.follow_led_color and led_color is not None and left[seat][led_color] > 0:
                    assert die == led_color or special[die], "a player did not follow the led color"
                left[seat][die] -= 1
                assert record.faces[game, trick, place] in bag.dice[die].faces
                if led_color is None and not special[die]:
                    led_color = die
            faces = symbols(record.faces[game, trick])
            place = reference_winner(faces, rules.equal_specials, rules.three_specials, rules.all_flags)
            if place is None:  # nobody takes a trick of flags; its leader leads again
                assert record.winners[game, trick] == NO_WINNER
                continue
            leader = (leader + place) % players
            assert record.winners[game, trick] == leader
            won[leader] += 1
            griffins, minotaurs = reference_bonus(faces, place)
            bonuses[leader, "griffins"] += griffins
            bonuses[leader, "minotaurs"] += minotaurs
            bonuses[leader, "mermaid_tricks"] += minotaurs > 0
        assert all(sum(counter.values()) == 0 for counter in left), "a die was never rolled"
        assert record.tricks_won[game].tolist() == [won[seat] for seat in range(players)]
        assert record.griffins_beaten[game].tolist() == [bonuses[seat, "griffins"] for seat in range(players)]
        assert record.minotaurs_beaten[game].tolist() == [bonuses[seat, "minotaurs"] for seat in range(players)]
        assert record.mermaid_tricks[game].tolist() == [bonuses[seat, "mermaid_tricks"] for seat in range(players)]


@pytest.mark.parametrize("players, round_number, rules", [
    (4, 5, Rules()),
    (6, 6, Rules()),  # the whole bag in play
    (3, 8, Rules(equal_specials="earlier", three_specials="griffin", all_flags="last")),
    (5, 4, Rules(follow_led_color=False)),
    (3, 8, Rules(all_flags="nobody")),
])
def test_every_simulated_trick_is_played_and_won_by_the_rules(players, round_number, rules):
    rng = np.random.default_rng(7)
    hands = deal(BAG, players, round_number, 300, rng).hands
    check_round(BAG, hands, play_tricks(BAG, hands, rules, rng), rules)


def test_without_the_follow_rule_players_do_break_color():
    rng = np.random.default_rng(3)
    hands = deal(BAG, 4, 6, 300, rng).hands
    with pytest.raises(AssertionError, match="did not follow the led color"):
        check_round(BAG, hands, play_tricks(BAG, hands, Rules(follow_led_color=False), rng), Rules())


def test_a_fixed_hand_sits_where_asked_and_the_rest_comes_from_what_is_left():
    hand = BAG.parse_hand("mermaid,mermaid,black")
    rng = np.random.default_rng(1)
    dealt = deal(BAG, 4, 3, 2000, rng, hand=hand, seat=2)
    assert (dealt.seat == 1).all() and (np.sort(dealt.hands[:, 1], axis=1) == sorted(hand)).all()
    dealt = deal(BAG, 4, 3, 2000, rng, hand=hand)
    game = np.arange(2000)
    assert (np.sort(dealt.hands[game, dealt.seat], axis=1) == sorted(hand)).all()
    assert set(dealt.seat.tolist()) == {0, 1, 2, 3}
    in_play = np.stack([np.bincount(g.ravel(), minlength=len(BAG.dice)) for g in dealt.hands])
    assert (in_play <= BAG.counts()).all()
    # both mermaids are in the fixed hand, so no other hand ever holds one
    assert (in_play[:, BAG.index("mermaid")] == 2).all()


def test_the_same_seed_plays_the_same_rounds():
    first, second = (play_tricks(BAG, deal(BAG, 4, 4, 50, np.random.default_rng(11)).hands, Rules(),
                                np.random.default_rng(12)) for _ in range(2))
    assert (first.faces == second.faces).all() and (first.winners == second.winners).all()


SMALL_BAG = Bag((Die("minotaur", ("minotaur",) * 4 + ("flag",) * 2, 1), Die("griffin", ("griffin",) * 6, 1),
                 Die("mermaid", ("mermaid",) * 6, 1), Die("white", (1, 2, 3, 4, 5, 6), 5)))


@pytest.mark.parametrize("call, message", [
    (lambda rng: deal(SMALL_BAG, 3, 3, 1, rng), "players: 3 players x 3 dice = 9 dice, more than the 8 in the bag"),
    (lambda rng: deal(BAG, 4, 2, 1, rng, hand=BAG.parse_hand("black,red,red")),
     "hand: has 3 dice, more than round 2 deals 2 to each player"),
    (lambda rng: deal(BAG, 4, 3, 1, rng, hand=BAG.parse_hand("mermaid,mermaid,mermaid")),
     "hand: has 3 mermaid dice but the bag holds 2"),
    (lambda rng: deal(BAG, 4, 2, 1, rng, hand=BAG.parse_hand("black,red"), seat=5), "seat: must be 1 to 4"),
    (lambda rng: deal(BAG, 7, 2, 1, rng), "players: must be a whole number from 3 to 6, got 7"),
    (lambda rng: deal(BAG, 5, 8, 1, rng), "round_number: a 5-player game has rounds 1 to 7, got 8"),
])
def test_impossible_deals_are_refused_by_name(call, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        call(np.random.default_rng(0))


def test_rounds_per_player_count_are_the_most_the_bag_can_deal_at_most_eight():
    # The summary gives "6-8 rounds depending on the number of players"; the split is this project's:
    # the last round deals every player as many dice as its number, from the 36 dice of the bag.
    assert BAG.size == 36
    assert {players: rounds_for_players(players) for players in (3, 4, 5, 6)} == {3: 8, 4: 8, 5: 7, 6: 6}
    for players in (3, 4, 5, 6):
        rounds = rounds_for_players(players)
        assert players * rounds <= BAG.size and (rounds == 8 or players * (rounds + 1) > BAG.size)
