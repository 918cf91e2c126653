"""Slow, obvious versions of the Minodice rules, written from RULES.md, to check the fast ones against.

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


def reference_winner(faces, equal_specials="later", three_specials="mermaid", all_flags="leader") -> int:
    """The winner's place in the roll order (0 = leader), decided one rule at a time."""
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
        return 0 if all_flags == "leader" else len(faces) - 1
    return max(place for place, value in enumerate(values) if value == max(values))


def reference_bonus(faces, winner: int) -> tuple[int, int]:
    """(griffins beaten, minotaurs beaten) by the winning face."""
    if faces[winner] == "minotaur":
        return faces.count("griffin"), 0
    if faces[winner] == "mermaid":
        return 0, faces.count("minotaur")
    return 0, 0


def reference_score(bid: int, tricks: int, round_number: int, griffins: int = 0, minotaurs: int = 0) -> int:
    """Points for one player in one round, rule by rule."""
    if bid != tricks:
        return -10 * round_number if bid == 0 else -10 * abs(bid - tricks)
    points = 10 * round_number if bid == 0 else 20 * tricks
    return points + 30 * griffins + 50 * minotaurs  # bonuses only when the bid is met
