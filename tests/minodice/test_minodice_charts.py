"""The win-chance chart: every die in its own color, no curve hidden under another."""

from matplotlib.colors import to_rgba

from diavolo_stats.minodice import die_odds
from diavolo_stats.minodice.charts import CHARACTER_COLORS, win_chance_chart


def test_minodice_dice_are_drawn_in_their_own_colors():
    figure = win_chance_chart(die_odds(against=(1, 2)))
    lines = {line.get_label(): line for line in figure.axes[0].lines}
    for die in ("red", "blue", "black"):
        assert to_rgba(lines[die].get_color()) == to_rgba(die)
    assert to_rgba(lines["yellow"].get_color()) == to_rgba("gold")  # pure yellow is unreadable on white
    assert to_rgba(lines["minotaur"].get_color()) == to_rgba(CHARACTER_COLORS["minotaur"])
    assert lines["mermaid"].get_linestyle() == "--" and lines["red"].get_linestyle() == "-"
    # the griffin's odds equal the minotaur's in the default bag: its line says so rather than hide
    assert "griffin (same as minotaur)" in lines
