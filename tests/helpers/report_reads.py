"""A report's read made to end short or long whatever the machine's speed: `build_report` decides by it which
process draws what (a short read: the worker draws every chart)."""

from __future__ import annotations

import importlib
import threading
import types

import diavolo_stats.analytics.report as report
from diavolo_stats.drill.log import load_logs


def read_ends(monkeypatch, when: str) -> None:
    """Have a report's read end `when` "short" (before the imports beside it have reached the charts: they wait until
    the report goes on to build) or "long" (once the imports beside it are all done), whatever the machine's speed."""
    building, imported = threading.Event(), threading.Event()

    def beside(module):
        if when == "short":
            assert building.wait(timeout=60), "the report waited for its imports beside the read"
        imported_module = importlib.import_module(module)
        if module == report.AFTER_THE_READ[-1]:
            imported.set()
        return imported_module

    def read(*args, **kwargs):
        if when == "long":
            assert imported.wait(timeout=60), "the imports beside the read never ended"
        return load_logs(*args, **kwargs)

    def built(*args, **kwargs):
        building.set()
        return report_built(*args, **kwargs)

    report_built = report._built
    monkeypatch.setattr(report, "importlib", types.SimpleNamespace(import_module=beside))
    monkeypatch.setattr(report, "load_logs", read)
    monkeypatch.setattr(report, "_built", built)


SHORT_READ = """
import importlib, sys, threading, types
from diavolo_stats.analytics import report
building = threading.Event()
report_built = report._built

def built(*args, **kwargs):  # the read has ended and the report goes on to build: the imports beside it may go on
    building.set()
    return report_built(*args, **kwargs)

def beside(module):
    building.wait(60)
    return importlib.import_module(module)

report._built = built
report.importlib = types.SimpleNamespace(import_module=beside)
"""
"""`read_ends(..., "short")` as code for a process of its own (`building` says whether the report went on)."""
