"""Driving `diavolo serve` and the system Chromium, for the web tests and the browser benchmark.

Chromium is Debian's `chromium` package (Playwright's own browser download is
not available here), launched headless through Playwright for Python. Keys
are timed the way that gives a steady offset: a short busy-wait inside the
page until the wanted `performance.now()` time, then the key sent through the
DevTools protocol (`Input.dispatchKeyEvent`). Waiting once per frame instead
would spread the errors over a whole frame.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from diavolo_stats.drill import MIN_LATENCY_MS
from diavolo_stats.drill.settings import MAX_TIMEOUT_S
from diavolo_stats.game.fairness import MAX_TRIP_MS

CHROMIUM = os.environ.get("DIAVOLO_CHROMIUM", "/usr/bin/chromium")
ORIGIN = "http://127.0.0.1:8765"
"""Where the in-process test client's requests say they come from."""
REQUIRE_BROWSER = "DIAVOLO_REQUIRE_BROWSER"
"""Set (to 1) by CI: a browser that cannot start fails the browser tests instead of skipping them."""
UNHURRIED_S = f"{MAX_TIMEOUT_S:g}"
"""The seconds to answer a roll chosen by a test that answers every roll it is shown (the drill's `timeout_s`, the
Play page's and a room's): its keys come when a busy machine lets the test send them, which can be past the ten
seconds a person has by default, and a roll left unanswered would change the game it checks."""


def launch_chromium(playwright):
    """Headless system Chromium; the exception from Playwright when it cannot start."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True)


class Server:
    """The real `diavolo serve` in a child process, on 127.0.0.1 and a free port (or `port`)."""

    def __init__(self, log: Path, port: int = 0, *args: str, cwd: Path | None = None):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "diavolo_stats", "serve", "--port", str(port), "--log", str(log), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
        self.first_line = self.process.stdout.readline()
        if not self.first_line:
            self.process.wait(10)
            raise RuntimeError(f"diavolo serve did not start: {self.process.stderr.read()}")
        self.url = next(word for word in self.first_line.split() if word.startswith("http://"))
        self.port = int(self.url.split(":")[2].split("/")[0])

    def interrupt(self, timeout: float = 30) -> int:
        """Ctrl-C; the exit status once it has stopped."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout)

    def kill(self) -> None:
        """Stop it dead (SIGKILL), as a crash or a pulled plug would."""
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        for stream in (self.process.stdout, self.process.stderr):
            stream.close()


def press_at(page, cdp, at_ms: float, key: str) -> None:
    """Press `key` when the page's `performance.now()` reaches `at_ms`: busy-wait in the page, then the
    key through the DevTools protocol."""
    page.evaluate("target => { while (performance.now() < target) {} }", at_ms)
    code = f"Key{key.upper()}" if key.isalpha() else ""
    event = {"key": key, "code": code, "text": key, "unmodifiedText": key,
             "windowsVirtualKeyCode": ord(key.upper()), "nativeVirtualKeyCode": ord(key.upper())}
    cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", **event})
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **{k: v for k, v in event.items() if "ext" not in k}})


def press_past_the_floor(page, cdp, onset: float, key: str) -> None:
    """Press `key` in a room MAX_TRIP_MS past the too-early floor after the roll's `onset` (the page's ms). A room
    holds a claim to what its server saw less half the seat's fastest ping (`fairness.judge_claim`): a prompt
    press with slow pings on a loaded machine could be held under the floor; this late it takes pings over three
    seconds. Waited for by frames: a busy-wait that long would hold the page's pongs back."""
    at = onset + MIN_LATENCY_MS + MAX_TRIP_MS
    page.wait_for_function("at => performance.now() >= at", arg=at)
    press_at(page, cdp, at, key)


def wait_for_stimulus(page, timeout_ms: float = 20_000) -> float:
    """Wait until the drill shows a roll; its onset, in the page's `performance.now()` ms."""
    page.wait_for_function("() => document.body.dataset.state === 'stimulus' && document.body.dataset.onset",
                           polling="raf", timeout=timeout_ms)
    return float(page.evaluate("Number(document.body.dataset.onset)"))


def answer_after(page, cdp, delay_ms: float, key: str) -> None:
    """Wait for the next roll and press `key` `delay_ms` after its onset."""
    onset = wait_for_stimulus(page)
    press_at(page, cdp, onset + delay_ms, key)


def start_drill(page, url: str, player: str, trials: int, **query: str) -> None:
    """Open the drill page and start a session of `trials` trials, fast-paced for tests."""
    pace = {"foreperiod_ms": "30,60", "feedback_ms": "0", "timeout_s": UNHURRIED_S, **query}
    page.goto(url.rstrip("/") + "/drill?" + "&".join(f"{k}={v}" for k, v in pace.items()))
    page.fill("input[name=player]", player)
    page.fill("input[name=trials]", str(trials))
    page.click("button.start")


def save_screenshot(page, folder: Path, name: str) -> Path:
    """A PNG of the page in `folder` (and in $DIAVOLO_SCREENSHOTS when set, for the manual's pictures)."""
    path = folder / name
    page.screenshot(path=str(path))
    if os.environ.get("DIAVOLO_SCREENSHOTS"):
        shutil.copy(path, Path(os.environ["DIAVOLO_SCREENSHOTS"]) / name)
    return path


def wait_for_summary(page) -> None:
    """Wait until the drill page shows its session summary."""
    page.wait_for_function("() => document.querySelector('#summary-table tbody tr') !== null", timeout=30_000)



class RoomPlayer:
    """One browser context at a room: its page, the rolls and the end of game its socket received."""

    def __init__(self, browser, name: str, **context):
        self.name = name
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.errors, self.rolls, self.over = [], {}, None
        self.page.on("pageerror", lambda error: self.errors.append(error))
        self.page.on("websocket", lambda socket: socket.on("framereceived", self.frame))
        self.cdp = self.context.new_cdp_session(self.page)

    def frame(self, payload) -> None:
        message = json.loads(payload)
        if message["type"] == "roll":
            self.rolls[message["round"]] = message
        elif message["type"] == "over":
            self.over = message

    def state(self) -> str:
        return self.page.evaluate("document.body.dataset.state")

    def wait_for(self, states: list[str]) -> None:
        self.page.wait_for_function("states => states.includes(document.body.dataset.state)", arg=states,
                                    timeout=60_000)

    def host(self, url: str, timeout_s: str = UNHURRIED_S) -> str:
        """Open a room at `url` (the room page, its settings in the query) as its host, in this player's name,
        with `timeout_s` to answer each roll: the room's code, once the lobby shows."""
        self.page.goto(url)
        self.page.fill("#host-form input[name=timeout_s]", timeout_s)
        self.page.fill("#host-form input[name=name]", self.name)
        self.page.click("#host-form button[type=submit]")
        self.wait_for(["lobby"])
        return self.page.locator("#room-code").inner_text()

    def join(self, base: str, code: str) -> None:
        """Join room `code` on the server at `base` in this player's name, once the lobby shows."""
        self.page.goto(f"{base}/room?code={code}")
        self.page.fill("#join-form input[name=name]", self.name)
        self.page.click("#join-form button[type=submit]")
        self.wait_for(["lobby"])


ROOM_KEYS = {"black": "b", "red": "r", "white": "w", "grey": "g"}


def play_room_to_its_end(host: RoomPlayer, others: list[RoomPlayer], reloads: RoomPlayer, after_round=None) -> dict:
    """Play a started room of `host` and `others` to its end: every round the host answers right and the others
    wrong, each past the too-early floor (`press_past_the_floor`), until the others are out; `reloads` reloads its
    page before answering round 2 (its seat taken back, the roll shown again); `after_round(number)` after each
    round's answers. The answers given, by player name and round."""
    from diavolo_stats.core.rules import resolve
    from diavolo_stats.core.variant import Command, Variant

    players = [host, *others]
    answered: dict[str, dict[int, str]] = {player.name: {} for player in players}
    number = 0
    while True:
        number += 1
        for player in players:
            player.page.wait_for_function(
                "n => document.body.dataset.state === 'over' || (document.body.dataset.state === 'stimulus'"
                " && Number(document.body.dataset.round) === n)", arg=number, timeout=60_000)
        if host.state() == "over":
            return answered
        if number == 2:
            reloads.page.reload()
            reloads.page.wait_for_function(
                "n => document.body.dataset.state === 'stimulus' && Number(document.body.dataset.round) === n",
                arg=number, timeout=60_000)
        for player in players:
            if player is not host and len(answered[player.name]) >= 5:
                continue  # out
            roll = player.rolls[number]
            accepted = resolve(Variant(), Command(roll["command"]), roll["dice"], roll["positions"]).accepted
            given = accepted[0] if player is host else next(a for a in ROOM_KEYS if a not in accepted)
            press_past_the_floor(player.page, player.cdp, wait_for_stimulus(player.page), ROOM_KEYS[given])
            answered[player.name][number] = given
        if after_round is not None:
            after_round(number)
