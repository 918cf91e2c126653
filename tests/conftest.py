"""Shared test helpers: running the real `diavolo` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run_diavolo(*args: str, cwd: Path | None = None, env: dict | None = None,
                timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m diavolo_stats ARGS` as a user would, capturing its output."""
    return subprocess.run([sys.executable, "-m", "diavolo_stats", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit status 2, one line on stderr naming what was wrong, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture
def diavolo():
    return run_diavolo


def pytest_collection_modifyitems(items):
    """Every test that drives Chromium (it takes the `browser` fixture) is in the `browser` lane."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
