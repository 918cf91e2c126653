"""A figure's PNG bytes: what matplotlib's savefig writes at 100 dpi, drawn once."""

from __future__ import annotations

import io
import pickle

from helpers.cli import REPO
from matplotlib.figure import Figure

from diavolo_stats.analytics import charts
from diavolo_stats.drill.log import load_logs
from diavolo_stats.plots import PNG_COMPRESSION, figure_png


def test_a_chart_s_png_is_byte_for_byte_what_savefig_writes_once_laid_out():
    # Six panels laid out as they are drawn (chart_layout), each with a title, a legend, a label across the figure.
    figure = charts.latency_chart(load_logs([REPO / "data" / "sample_drills.csv"]))
    saved = io.BytesIO()
    pickle.loads(pickle.dumps(figure)).savefig(saved, format="png", dpi=100,
                                               pil_kwargs={"compress_level": PNG_COMPRESSION})
    assert figure_png(figure) == saved.getvalue()


def test_a_png_is_drawn_at_100_dpi_whatever_the_figure_s_dpi():
    png = figure_png(Figure(figsize=(2, 1.5), dpi=50))
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (200, 150)  # IHDR
