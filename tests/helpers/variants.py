"""Variants for the tests: small random ones with a command of their own (a hypothesis strategy), and variant
files with one mistake each."""

from __future__ import annotations

from hypothesis import strategies as st

from diavolo_stats.core.commands import Command, Criterion
from diavolo_stats.core.figures import DiceFigure
from diavolo_stats.core.variant import ColorDice, Variant

VALUE_FIGURES = ("sum", "max", "min", "spread", "distinct", "most-alike", "nth-highest:1", "nth-highest:2",
                 "count:odd", "count:even", "count:=1", "count:=2", "count:>=2", "count:<=1")
FACE_SETS = ((1, 2, 3), (0, 1, 1, 2), (1, 2, 3, 4), (2, 2, 5), (0, 3))


@st.composite
def small_variants_with_a_command(draw) -> Variant:
    """2-3 colors of 1-3 dice (some colors with their own count or faces), a random chain of 1-3 criteria."""
    colors = ("black", "red", "white")[: draw(st.integers(2, 3))]
    faces = draw(st.sampled_from(FACE_SETS))
    dice = []
    for color in colors:
        if draw(st.booleans()):
            dice.append(ColorDice(color=color, count=draw(st.integers(1, 3)),
                                  faces=draw(st.sampled_from(FACE_SETS))))
    chain = []
    for _ in range(draw(st.integers(1, 3))):
        chain.append((draw(st.sampled_from(VALUE_FIGURES)), draw(st.booleans())))
    variant = Variant(colors=colors, dice_per_color=draw(st.integers(1, 2)), faces=faces, dice=tuple(dice),
                      commands=(Command.HIGHEST_TOTAL,))
    drawn = command("drawn", *chain)
    counts = variant.counts
    # A figure that means nothing for these dice is refused (tested apart): keep the ones that do.
    usable = [c for c in drawn.chain if not (c.figure.kind == "nth-highest" and c.figure.rank > min(counts))
              and not (c.figure.kind == "count" and c.figure.test == "=" and
                       any(c.figure.value not in f for f in variant.color_faces))]
    if not usable:
        usable = [Criterion(DiceFigure("sum"))]
    return Variant(colors=colors, dice_per_color=variant.dice_per_color, faces=faces, dice=tuple(dice),
                   commands=(Command("drawn", None, None, tuple(usable)),))



def command(name: str, *chain: tuple[str, bool]) -> Command:
    return Command(name, None, None, tuple(Criterion(DiceFigure.parse(figure), highest) for figure, highest in chain))


BAD_VARIANT_FILES = {
    "variant_syntax": 'name = "sixes"\ncolors = = ["black", "red"]\n',
    "variant_unknown_key": 'speed = 3\n',
    "variant_unknown_figure": '[commands.mid]\nfigure = "median"\n',
    "variant_bad_direction": '[commands.big]\nfigure = "sum"\nwins = "largest"\n',
    "variant_then_not_list": '[commands.big]\nfigure = "max"\nthen = "sum"\n',
    "variant_nth_beyond_dice": '[commands.fourth]\nfigure = "nth-highest:4"\n',
    "variant_count_no_face": '[commands.sevens]\nfigure = "count:=7"\n',
    "variant_empty_faces": 'faces = []\n',
    "variant_count_zero": '[dice.white]\ncount = 0\n',
    "variant_builtin_redefined": '[commands.closest]\nfigure = "max"\n',
    "variant_grey_color": 'colors = ["black", "grey"]\n',
    "variant_die_undefined": 'command_die = ["highest-total", "most-sevens"]\n',
    "variant_binary": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    # sizes a file (and the explorer's editor) may not pass
    "variant_too_many_tie_breaks": '[commands.big]\nfigure = "max"\nthen = ' + str(["sum"] * 7) + "\n",
    "variant_too_many_commands": "".join(f'[commands.c{i}]\nfigure = "sum"\n' for i in range(25)),
    "variant_die_too_long": "command_die = " + str(["highest-total"] * 61) + "\n",
}
"""A variant file with one mistake each (syntax, keys, figures, faces, colors, the die) and the sizes allowed exceeded;
tests/core/test_variant_file.py checks what each message names."""

