"""The drill log (being split into modules: the next commit)."""

from diavolo_stats.drill.log.reader import *  # noqa: F403
from diavolo_stats.drill.log.reader import _csv_line  # noqa: F401
