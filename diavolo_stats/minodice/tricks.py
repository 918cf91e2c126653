"""Who wins a trick, as the rules page (docs/rules.md, "Who takes a trick") says, with its three open questions as
`Rules` options (`equal_specials`, `three_specials`, `all_flags`).

`resolve_tricks` decides millions of tricks at once; `resolve_trick` is the same function for one trick written
by a person.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from diavolo_stats.minodice.dice import CHARACTERS, Face, face_code
from diavolo_stats.minodice.options import Rules

NO_WINNER = -1
"""The winner of a trick nobody takes: every die a flag, under `Rules(all_flags="nobody")`."""

BEATS = {Face.MINOTAUR: Face.GRIFFIN, Face.GRIFFIN: Face.MERMAID, Face.MERMAID: Face.MINOTAUR}
"""Each character and the one it beats."""


def _winning_characters(three_specials: str) -> np.ndarray:
    """The winning character for each set of characters present: (8,) int8, indexed by a bit per character."""
    lookup = np.zeros(2 ** len(CHARACTERS), dtype=np.int8)
    for pattern in range(1, len(lookup)):
        present = [character for bit, character in enumerate(CHARACTERS) if pattern >> bit & 1]
        if len(present) == len(CHARACTERS):
            lookup[pattern] = Face[three_specials.upper()]
        elif len(present) == 2:
            lookup[pattern] = next(c for c in present if BEATS[c] in present)
        else:
            lookup[pattern] = present[0]
    return lookup


@dataclass(frozen=True)
class TrickOutcomes:
    """Many resolved tricks.

    winner: (tricks,) intp, the winner's place in the roll order (0 = the leader);
        NO_WINNER (-1) for a trick of flags nobody takes (`Rules.all_flags` "nobody").
    griffins_beaten: (tricks,) intp, griffins in the trick when a minotaur won it, else 0.
    minotaurs_beaten: (tricks,) intp, minotaurs in the trick when a mermaid won it, else 0.
    """

    winner: np.ndarray
    griffins_beaten: np.ndarray
    minotaurs_beaten: np.ndarray


def resolve_tricks(faces: np.ndarray, rules: Rules = Rules()) -> TrickOutcomes:
    """Resolve many tricks at once; see `TrickOutcomes` for what comes back."""
    # faces: (tricks, rollers) int8 face codes in roll order; column 0 is the leader
    faces = np.asarray(faces)
    if faces.ndim != 2 or faces.shape[1] < 1:
        raise ValueError(f"faces must be (tricks, rollers) with at least one roller, got shape {faces.shape}")
    rollers = faces.shape[1]
    pattern = sum((faces == character).any(axis=1) << bit for bit, character in enumerate(CHARACTERS))
    character = _winning_characters(rules.three_specials)[pattern]
    # The face that takes the trick: the winning character, else the highest number (0 if all flags).
    target = np.where(pattern > 0, character, faces.max(axis=1))
    holders = faces == target[:, None]
    earliest = holders.argmax(axis=1)
    latest = rollers - 1 - holders[:, ::-1].argmax(axis=1)
    later_wins = np.where(pattern > 0, rules.equal_specials == "later",
                          np.where(target == Face.FLAG, rules.all_flags == "last", True))
    winner = np.where(later_wins, latest, earliest)
    if rules.all_flags == "nobody":
        winner = np.where(target == Face.FLAG, NO_WINNER, winner)
    griffins = np.where(target == Face.MINOTAUR, (faces == Face.GRIFFIN).sum(axis=1), 0)
    minotaurs = np.where(target == Face.MERMAID, (faces == Face.MINOTAUR).sum(axis=1), 0)
    return TrickOutcomes(winner=winner, griffins_beaten=griffins, minotaurs_beaten=minotaurs)


@dataclass(frozen=True)
class Trick:
    """One resolved trick: the winner's place in the roll order (0 = the leader; None when nobody
    takes a trick of flags) and the bonus dice beaten."""

    winner: int | None
    griffins_beaten: int
    minotaurs_beaten: int


def resolve_trick(faces: Sequence[int | str], rules: Rules = Rules()) -> Trick:
    """Resolve one trick given its faces in roll order, as codes or symbols: ["griffin", 7, "flag"]."""
    codes = np.array([[face_code(face) for face in faces]], dtype=np.int8)
    outcome = resolve_tricks(codes, rules)
    winner = int(outcome.winner[0])
    return Trick(winner=None if winner == NO_WINNER else winner, griffins_beaten=int(outcome.griffins_beaten[0]),
                 minotaurs_beaten=int(outcome.minotaurs_beaten[0]))
