"""Odds, simulation, drills and analytics for the dice games Diavolo and Minodice."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("diavolo_stats")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
