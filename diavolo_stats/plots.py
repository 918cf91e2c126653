"""What every chart module shares: drawing curves so that none hides another, and PNG bytes of a figure.

Charts are built on `matplotlib.figure.Figure`, never pyplot (see `analytics.charts`).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence

import numpy as np
from matplotlib import image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PNG_DPI = 100
"""Dots per inch of the PNG files: a chart of 10 by 3.6 inches is 1000 by 360 pixels."""
PNG_COMPRESSION = 1
"""zlib level of the PNG files (0 none to 9; Pillow's default 6): at 1 the report's PNGs are some 6 % larger and
encoded in a third of the time, a tenth of a second of the sample's report."""


def plot_curves(axes, curves: Sequence[tuple[str, np.ndarray, np.ndarray, dict]]) -> None:
    """Plot (label, x, y, style) curves; a curve equal to an earlier one everywhere stays visible.

    Some curves coincide exactly (highest and lowest total by symmetry, minotaur and griffin dice):
    the later one is drawn under the first with larger hollow markers, and its label says which it equals.
    """
    drawn: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for label, x, y, style in curves:
        same = next((other for other, (other_x, other_y) in drawn.items()
                     if other_x.shape == x.shape and (other_x == x).all()
                     and np.allclose(other_y, y, rtol=0, atol=1e-12)), None)
        drawn[label] = (x, y)
        if same is not None:
            label = f"{label} (same as {same})"
            style = {**style, "markersize": 11, "markerfacecolor": "none", "zorder": 1.5}
            style["markeredgecolor"] = style.get("color")
        axes.plot(x, y, label=label, **style)


def figure_png(figure: Figure) -> bytes:
    """The figure as PNG bytes at PNG_DPI, rendered with Agg, deflated at PNG_COMPRESSION.

    The canvas draws it once, laying it out as it draws: `savefig` would first draw it once more with drawing
    turned off, only to lay it out (some 10 % of a report chart's time), the same pixels. Sets the figure's dpi.
    """
    canvas = FigureCanvasAgg(figure)  # render with Agg, whatever backend the caller's matplotlib is set to
    figure.set_dpi(PNG_DPI)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # A player name in a script the default font lacks is drawn as boxes; say nothing on stderr.
        warnings.filterwarnings("ignore", message="Glyph .* missing from")
        canvas.draw()
    image.imsave(buffer, canvas.buffer_rgba(), format="png", dpi=PNG_DPI,
                 pil_kwargs={"compress_level": PNG_COMPRESSION})
    return buffer.getvalue()
