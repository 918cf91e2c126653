"""Exact odds of each answer, tie (grey) included, for the value commands of a variant.

Colors are independent, so the odds are put together from one distribution per color
(`distributions.chain_distribution`) without enumerating a joint roll; counts stay Python integers and become
`fractions.Fraction` at the end. Colors with different dice have different chances (`answer_probability`).
The formula: docs/architecture.md, "Exact odds".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import prod
from typing import Any

from diavolo_stats.core.budget import WorkBudget
from diavolo_stats.core.distributions import chain_distribution
from diavolo_stats.core.variant import GREY, Command, Variant
from diavolo_stats.results import TextResult, render_fitted, wrap

CLOSEST_NOTE = ("closest depends on where the dice land, not on their values: it has no exact value; "
                "estimate it with `diavolo simulate`")


@dataclass(frozen=True)
class ExactOdds(TextResult):
    """Exact probabilities of each answer for the value commands of `variant`.

    tie_probability: per value command, the probability that the answer is grey.
    answer_probability: per value command, each color name and "grey" mapped to
    the probability that it is the answer; these sum to 1.
    `closest` has no entry: it depends on where the dice land (see `closest_note`).
    """

    variant: Variant
    tie_probability: dict[Command, Fraction]
    answer_probability: dict[Command, dict[str, Fraction]]

    def __post_init__(self) -> None:
        expected = set(self.variant.value_commands)
        if set(self.tie_probability) != expected or set(self.answer_probability) != expected:
            raise ValueError(f"tie_probability, answer_probability: need exactly the value commands "
                             f"{', '.join(c.value for c in self.variant.value_commands) or '(none)'}")
        names = {*self.variant.colors, GREY}
        for command, by_answer in self.answer_probability.items():
            if set(by_answer) != names or sum(by_answer.values()) != 1:
                raise ValueError(f"answer_probability: {command} needs every color and grey, summing to 1")
            if by_answer[GREY] != self.tie_probability[command]:
                raise ValueError(f"answer_probability: {command} grey differs from its tie_probability")

    @property
    def positional_commands(self) -> tuple[Command, ...]:
        """The variant's commands decided by where the dice land (closest): no exact value."""
        return tuple(c for c in self.variant.commands if not c.depends_on_values)

    @property
    def closest_note(self) -> str | None:
        """Why `closest` has no exact value, when it is among the variant's commands; else None."""
        return CLOSEST_NOTE if self.positional_commands else None

    @property
    def overall_tie_probability(self) -> Fraction | None:
        """The overall grey rate: the tie probability averaged over the command die's faces (repeats
        counted), exact when every face is a value command; else None (closest needs `simulate`)."""
        die = self.variant.die
        if any(not c.depends_on_values for c in die):
            return None
        return sum((self.tie_probability[c] for c in die), Fraction(0)) / len(die)

    def overall(self) -> dict[str, Any]:
        """The overall grey rate as the JSON document gives it: the die's faces, the tie probability and
        fraction when every face is exact, else null and a note."""
        die = self.variant.die
        overall = self.overall_tie_probability
        if overall is not None:
            return {"faces": len(die), "tie_probability": float(overall), "tie_fraction": fraction_text(overall)}
        positional = sum(not c.depends_on_values for c in die)
        return {"faces": len(die), "tie_probability": None,
                "note": f"closest is on {positional} of the command die's {len(die)} faces and has no exact "
                        "value; `diavolo simulate` estimates the overall grey rate"}

    @property
    def columns(self) -> tuple[str, ...]:
        """Columns of `rows()`: command, tie_fraction, tie_probability, p_<color> per color, note."""
        return ("command", "tie_fraction", "tie_probability", *(f"p_{c}" for c in self.variant.colors), "note")

    def rows(self) -> list[dict[str, Any]]:
        """One row per command of the variant: for a value command the tie as "p/q" and as a float and each
        color's probability (float); for `closest` only the note saying why it has no exact value."""
        rows = [
            {"command": command.value,
             "tie_fraction": fraction_text(tie),
             "tie_probability": float(tie),
             **{f"p_{c}": float(self.answer_probability[command][c]) for c in self.variant.colors}}
            for command, tie in self.tie_probability.items()
        ]
        rows += [{"command": command.value, "note": CLOSEST_NOTE} for command in self.positional_commands]
        return rows

    def text(self) -> str:
        """The variant, a table of the value commands' odds, the overall grey rate and the note on `closest`."""
        lines = [wrap(f"Exact odds: {self.variant.describe()}", "  ")]
        value_rows = [row for row in self.rows() if "note" not in row]
        if value_rows:
            lines.append(render_fitted(value_rows, self.columns[:-1], keep=3))
        overall = self.overall()
        if overall["tie_probability"] is not None:
            lines.append(f"overall grey rate (command die of {overall['faces']} faces): "
                         f"{overall['tie_probability']:.4f} = {overall['tie_fraction']}")
        if self.closest_note is not None:
            lines.append(wrap(self.closest_note))
        return "\n".join(lines)

    def document(self) -> dict[str, Any]:
        """The JSON document `diavolo odds` prints as json (described in the manual, docs/reference/contracts.md)."""
        document: dict[str, Any] = {
            "variant": self.variant.as_dict(),
            "commands": {
                command.value: {
                    "tie_probability": float(tie),
                    "tie_fraction": fraction_text(tie),
                    "answer_probability": {a: float(p) for a, p in self.answer_probability[command].items()},
                    "answer_fraction": {a: fraction_text(p) for a, p in self.answer_probability[command].items()},
                }
                for command, tie in self.tie_probability.items()
            },
            "overall": self.overall(),
        }
        if self.closest_note is not None:
            document["closest"] = {"exact": None, "note": self.closest_note}
        return document


def fraction_text(value: Fraction) -> str:
    """`value` as "p/q" in lowest terms, always with a denominator ("0/1", "1/1")."""
    return f"{value.numerator}/{value.denominator}"


def exact_odds(variant: Variant, budget: WorkBudget | None = None) -> ExactOdds:
    """Exact probabilities (Fractions) of each answer for every value command of `variant`.

    Works from each color's distribution of the command's figures; never enumerates joint rolls. InputError
    naming the limit when a color's dice need more than `distributions.MAX_STATES` states, or more steps of
    work than `budget` holds (`budget.Stopped` once it is stopped).
    """
    tie_probability: dict[Command, Fraction] = {}
    answer_probability: dict[Command, dict[str, Fraction]] = {}
    outcomes = prod(len(faces) ** count for count, faces in zip(variant.counts, variant.color_faces))
    for command in variant.value_commands:
        alone = [Fraction(wins, outcomes) for wins in sole_win_counts(variant, command, budget)]
        tie = 1 - sum(alone)
        tie_probability[command] = tie
        answer_probability[command] = {**dict(zip(variant.colors, alone)), GREY: tie}
    return ExactOdds(variant, tie_probability, answer_probability)


def sole_win_counts(variant: Variant, command: Command, budget: WorkBudget | None = None) -> list[int]:
    """Per color, the joint rolls in which it alone has the best chain of figures for `command` (within
    `budget`'s steps, as `exact_odds`)."""
    distributions = [chain_distribution(command.chain, count, faces, budget)
                     for count, faces in zip(variant.counts, variant.color_faces)]
    keys = sorted(set().union(*distributions))  # worst to best
    return _sole_win_counts([[distribution.get(key, 0) for key in keys] for distribution in distributions])


def _sole_win_counts(worst_to_best: Sequence[Sequence[int]]) -> list[int]:
    """Per color, the joint outcomes in which it alone has the best figure.

    Each color's counts list its outcomes per key, from the worst key to the
    best, over one common list of keys. Colors are independent, so the
    count for color c is sum_k n_c(k) * prod over the others of L_d(k), with
    L_d(k) the outcomes of color d strictly worse than k.
    """
    below = []
    for counts in worst_to_best:
        strictly_worse, running = [], 0
        for count in counts:
            strictly_worse.append(running)
            running += count
        below.append(strictly_worse)
    wins = []
    for c, counts in enumerate(worst_to_best):
        others = [below[d] for d in range(len(worst_to_best)) if d != c]
        total = 0
        for v, count in enumerate(counts):
            if count:
                product = count
                for strictly_worse in others:
                    product *= strictly_worse[v]
                total += product
        wins.append(total)
    return wins
