"""Slow, obvious versions of the Minodice rules, written from the rules page (docs/rules.md),
to check the fast ones against.

Faces are written as people write them: "flag", "minotaur", "griffin",
"mermaid", or a number 1 to 7.
"""

from __future__ import annotations

from diavolo_stats.minodice import face_label

CHARACTER_NAMES = ("minotaur", "griffin", "mermaid")
ALL_FACES = ("flag", 1, 2, 3, 4, 5, 6, 7, *CHARACTER_NAMES)
BEATS = {"minotaur": "griffin", "griffin": "mermaid", "mermaid": "minotaur"}


def symbols(codes) -> list:
    """Face codes (from the library or a numpy array) as written here."""
    return [int(code) if 1 <= code <= 7 else face_label(int(code)) for code in codes]


def reference_winner(faces, equal_specials="later", three_specials="mermaid", all_flags="leader") -> int | None:
    """The winner's place in the roll order (0 = leader), decided one rule at a time; None when nobody takes it."""
    characters = {face for face in faces if face in CHARACTER_NAMES}
    if characters:
        if len(characters) == 3:
            kind = three_specials
        elif len(characters) == 2:
            first, second = characters
            kind = first if BEATS[first] == second else second
        else:
            (kind,) = characters
        places = [place for place, face in enumerate(faces) if face == kind]
        return places[-1] if equal_specials == "later" else places[0]
    values = [0 if face == "flag" else face for face in faces]
    if max(values) == 0:
        return {"leader": 0, "last": len(faces) - 1, "nobody": None}[all_flags]
    return max(place for place, value in enumerate(values) if value == max(values))


def reference_bonus(faces, winner: int | None) -> tuple[int, int]:
    """(griffins beaten, minotaurs beaten) by the winning face."""
    if winner is None:
        return 0, 0
    if faces[winner] == "minotaur":
        return faces.count("griffin"), 0
    if faces[winner] == "mermaid":
        return 0, faces.count("minotaur")
    return 0, 0


def reference_score(bid: int, tricks: int, round_number: int, griffins: int = 0, mermaid_count: int = 0,
                    wrong_bid: str = "per-trick") -> int:
    """Points for one player in one round, rule by rule.

    mermaid_count: what the chosen mermaid reading pays +50 for (see `mermaid_count`).
    """
    if bid != tricks:
        if bid == 0:
            return -10 * round_number
        return -10 * abs(bid - tricks) if wrong_bid == "per-trick" else -10
    points = 10 * round_number if bid == 0 else 20 * tricks
    return points + 30 * griffins + 50 * mermaid_count  # bonuses only when the bid is met


def mermaid_count(minotaurs_beaten_per_trick, mermaid_bonus: str = "per-trick") -> int:
    """What the mermaid bonus pays for, from the minotaurs a player's mermaid beat in each trick they won."""
    if mermaid_bonus == "per-trick":
        return sum(1 for beaten in minotaurs_beaten_per_trick if beaten > 0)
    return sum(minotaurs_beaten_per_trick)
