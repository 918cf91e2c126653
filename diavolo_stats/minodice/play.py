"""Deal and play many Minodice rounds at once, with the baseline play policy.

Every player rolls a die chosen uniformly among those they may roll (the follow rule, `Rules.follow_led_color`,
decides which), and the winner of a trick leads the next. Nobody looks at bids, scores or faces: every die is
rolled once in the round anyway, so play only decides which dice meet in which trick. The policy in full:
docs/guides/minodice.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from diavolo_stats.errors import InputError
from diavolo_stats.minodice.dice import FACES_PER_DIE, Bag
from diavolo_stats.minodice.options import Rules, check_round, rounds_for_players
from diavolo_stats.minodice.tricks import NO_WINNER, resolve_tricks


@dataclass(frozen=True)
class DealtHands:
    """Hands dealt for many rounds.

    hands: (games, players, dice) int8 die-type indices by seat; seat 0 leads the first trick.
    seat: (games,) intp, the seat of the fixed hand (all zeros when no hand was fixed).
    """

    hands: np.ndarray
    seat: np.ndarray


def deal(bag: Bag, players: int, round_number: int, games: int, rng: np.random.Generator,
         hand: tuple[int, ...] = (), seat: int | None = None) -> DealtHands:
    """Deal `round_number` dice to each of `players` players, `games` times, from a full bag.

    With `hand` (type indices), that hand is one player's, at `seat` (1 =
    leads the first trick) or at a uniformly random seat when `seat` is None;
    the other hands are drawn from what is left in the bag.
    """
    check_round(round_number, players)
    needed = players * round_number
    if needed > bag.size:
        raise InputError(f"{players} players x {round_number} dice = {needed} dice, "
                         f"more than the {bag.size} in the bag", field="players")
    if hand and len(hand) != round_number:
        relation = "more than" if len(hand) > round_number else "but"
        raise InputError(f"has {len(hand)} dice, {relation} round {round_number} deals {round_number} "
                         "to each player", field="hand")
    if seat is not None and not (isinstance(seat, int) and 1 <= seat <= players):
        raise InputError(f"must be 1 to {players} (1 leads the first trick), got {seat!r}", field="seat")
    left = bag.contents()
    if hand:
        held = np.bincount(hand, minlength=len(bag.dice))
        for die, wanted in zip(bag.dice, held):
            if wanted > die.count:
                raise InputError(f"has {wanted} {die.name} dice but the bag holds {die.count}", field="hand")
        left = np.repeat(np.arange(len(bag.dice), dtype=np.int8), bag.counts() - held)
    others = players - 1 if hand else players
    drawn = rng.permuted(np.tile(left, (games, 1)), axis=1)[:, :others * round_number]
    drawn = drawn.reshape(games, others, round_number)
    if not hand:
        return DealtHands(hands=drawn, seat=np.zeros(games, dtype=np.intp))
    seats = (np.full(games, seat - 1, dtype=np.intp) if seat is not None
             else rng.integers(0, players, size=games))
    # The other hands fill the seats other than the fixed hand's, in order.
    others_seat = np.arange(others)[None, :] + (np.arange(others)[None, :] >= seats[:, None])
    hands = np.empty((games, players, round_number), dtype=np.int8)
    game = np.arange(games)
    hands[game[:, None], others_seat] = drawn
    hands[game, seats] = np.array(hand, dtype=np.int8)
    return DealtHands(hands=hands, seat=seats)


@dataclass(frozen=True)
class RoundRecord:
    """Many rounds played out, trick by trick.

    leaders: (games, tricks) int8, the seat that led each trick.
    dice: (games, tricks, players) int8, die-type index rolled, in roll order.
    faces: (games, tricks, players) int8, face code rolled, in roll order.
    winners: (games, tricks) int8, the seat that won each trick (NO_WINNER for a trick of
        flags nobody takes, under `Rules(all_flags="nobody")`).
    tricks_won: (games, players) int16, tricks each seat won.
    griffins_beaten / minotaurs_beaten: (games, players) int16, bonus dice each seat beat.
    mermaid_tricks: (games, players) int16, tricks each seat's mermaid won against one or more minotaurs.
    """

    leaders: np.ndarray
    dice: np.ndarray
    faces: np.ndarray
    winners: np.ndarray
    tricks_won: np.ndarray
    griffins_beaten: np.ndarray
    minotaurs_beaten: np.ndarray
    mermaid_tricks: np.ndarray


def play_tricks(bag: Bag, hands: np.ndarray, rules: Rules, rng: np.random.Generator) -> RoundRecord:
    """Play dealt hands to the end of the round with the baseline policy (see the module docstring)."""
    # hands: (games, players, dice) int8 die-type indices by seat; seat 0 leads the first trick
    games, players, tricks = hands.shape
    rounds_for_players(players)  # refuses a player count the game does not have
    game = np.arange(games)
    special = bag.special_types()[hands]  # (games, players, dice) bool
    rolled = bag.face_codes()[hands, rng.integers(0, FACES_PER_DIE, size=hands.shape)]  # faces, if rolled
    unrolled = np.ones(hands.shape, dtype=bool)
    leader = np.zeros(games, dtype=np.intp)
    leaders = np.empty((games, tricks), dtype=np.int8)
    dice = np.empty((games, tricks, players), dtype=np.int8)
    faces = np.empty((games, tricks, players), dtype=np.int8)
    winners = np.empty((games, tricks), dtype=np.int8)
    tricks_won = np.zeros((games, players), dtype=np.int16)
    griffins = np.zeros((games, players), dtype=np.int16)
    minotaurs = np.zeros((games, players), dtype=np.int16)
    mermaid_tricks = np.zeros((games, players), dtype=np.int16)
    for trick in range(tricks):
        leaders[:, trick] = leader
        led_color = np.full(games, -1, dtype=np.int16)  # -1 until a number die is rolled
        for place in range(players):
            seat = (leader + place) % players
            hand, allowed = hands[game, seat], unrolled[game, seat]  # (games, dice)
            if rules.follow_led_color:
                of_led = allowed & (hand == led_color[:, None])
                must_follow = of_led.any(axis=1, keepdims=True)
                allowed = np.where(must_follow, of_led | (allowed & special[game, seat]), allowed)
            choice = np.where(allowed, rng.random(allowed.shape), -1.0).argmax(axis=1)
            unrolled[game, seat, choice] = False
            die = hand[game, choice]
            dice[:, trick, place] = die
            faces[:, trick, place] = rolled[game, seat, choice]
            led_color = np.where((led_color < 0) & ~special[game, seat, choice], die, led_color)
        outcome = resolve_tricks(faces[:, trick], rules)
        taken = outcome.winner != NO_WINNER
        winner = np.where(taken, (leader + outcome.winner) % players, NO_WINNER)
        winners[:, trick] = winner
        won, seat = game[taken], winner[taken]
        tricks_won[won, seat] += 1
        griffins[won, seat] += outcome.griffins_beaten[taken].astype(np.int16)
        minotaurs[won, seat] += outcome.minotaurs_beaten[taken].astype(np.int16)
        mermaid_tricks[won, seat] += outcome.minotaurs_beaten[taken] > 0
        leader = np.where(taken, winner, leader)  # nobody took it: its leader leads again
    return RoundRecord(leaders=leaders, dice=dice, faces=faces, winners=winners, tricks_won=tricks_won,
                       griffins_beaten=griffins, minotaurs_beaten=minotaurs, mermaid_tricks=mermaid_tricks)
