"""Fixtures every test folder shares: the `diavolo` command and the drill-log builder (their code is in
`helpers`), and the browser lane's marker."""

from __future__ import annotations

import pytest
from helpers.cli import run_diavolo
from helpers.drill_logs import write_log


@pytest.fixture
def diavolo():
    return run_diavolo


@pytest.fixture
def drill_log(tmp_path):
    """`drill_log(rows, name="drills.csv", numbered=False)`: `rows` written to a new log in the test's folder
    through the drill's own writer (as `helpers.drill_logs.write_log`); its path."""
    def write(rows, name: str = "drills.csv", numbered: bool = False):
        return write_log(tmp_path / name, rows, numbered=numbered)
    return write


def pytest_collection_modifyitems(items):
    """Every test that drives Chromium (it takes the `browser` fixture) is in the `browser` lane. The manual's
    build runs first, then the rest of the `slow` lane, then the `browser` lane: across the workers of `pytest -n`
    (CI) the longest tests start first and the short ones fill in at the end."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
    items.sort(key=lambda item: ("manual_site" not in getattr(item, "fixturenames", ()),
                                 item.get_closest_marker("slow") is None, item.get_closest_marker("browser") is None))
