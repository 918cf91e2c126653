"""The terminal drill in a pseudo-terminal, read as the player sees it."""

from __future__ import annotations

import fcntl
import json
import os
import platform
import re
import struct
import sys
import termios
import time
from pathlib import Path

import pexpect
import pyte

from diavolo_stats.drill import MIN_LATENCY_MS

# Fast pacing for tests: the default foreperiod stays random 600-1500 ms. No introduction screen.
FAST = ("--foreperiod-ms", "30,60", "--feedback-ms", "0", "--no-intro")
CURSOR_QUERY = "\x1b[6n"  # blessed asks where the cursor is when it starts; a terminal answers
HUMAN_MS = MIN_LATENCY_MS + 50  # a person's answer: one faster than the human floor is an anticipation
TIOCGPTN = 0x80045430  # Linux's ioctl asking a pseudo-terminal's master for its number N: the other end is /dev/pts/N
WRITE_SYSCALL = {"x86_64": 1, "aarch64": 64}
"""The number Linux's /proc/PID/syscall shows for a process blocked in write(2), by machine."""
WAIT_S = 20.0


class Drill:
    """One `diavolo drill` session in an 80x24 pseudo-terminal.

    Everything it prints also goes through a terminal emulator (pyte), so a
    test can read the screen as the player sees it (`screen()`).
    """

    def __init__(self, *args: str, cwd: Path, env: dict | None = None, size=(24, 80)):
        self.child = pexpect.spawn(
            sys.executable, ["-m", "diavolo_stats", "drill", *args], cwd=str(cwd), encoding="utf-8",
            dimensions=size, timeout=20,
            env={**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor", **(env or {})})
        self.child.delaybeforesend = None  # send keys exactly when asked
        self.terminal = pyte.Screen(size[1], size[0])
        self.stream = pyte.Stream(self.terminal)
        self.unread: list[str] = []  # output not yet fed to the emulator: feeding takes ms, so only on demand

    def expect(self, pattern: str) -> re.Match:
        """Wait for `pattern` on screen, answering the terminal queries made on the way."""
        while True:
            index = self.child.expect([re.escape(CURSOR_QUERY), pattern])
            self.unread += [self.child.before, self.child.after if isinstance(self.child.after, str) else ""]
            if index != 0:
                return self.child.match
            self.child.send("\x1b[1;1R")

    def screen(self) -> str:
        """What the terminal shows now (as of the last `expect`), one line per row."""
        self.stream.feed("".join(self.unread))
        self.unread.clear()
        return "\n".join(line.rstrip() for line in self.terminal.display)

    def resize(self, rows: int, columns: int) -> None:
        """Make the window `columns` x `rows`, as a person dragging its corner would."""
        self.screen()  # what came before was drawn at the old size
        self.child.setwinsize(rows, columns)
        self.terminal.resize(rows, columns)

    def stimulus(self) -> int:
        """Wait for the next roll on screen: its trial number."""
        match = self.expect(r"answer now \(trial (\d+)\)")
        return int(match.group(1))

    def answer_after(self, delay_ms: float, key: str) -> None:
        """Wait for a roll, press `key` at least `delay_ms` after it appeared."""
        self.stimulus()
        time.sleep(delay_ms / 1000)
        self.child.send(key)

    def answer(self, key: str) -> None:
        """Press `key` as a person answers the roll on screen: HUMAN_MS from now."""
        time.sleep(HUMAN_MS / 1000)
        self.child.send(key)

    def press_unseen(self, key: str) -> None:
        """Press `key` before the drill's next screen can be seen, so that it is waiting when that screen shows:
        the drill's output is held, as a terminal stopped by Ctrl-S holds it (on the terminal's side, /dev/pts/N),
        until the drill is blocked writing that screen and the key is in its input. The drill reads it as the
        screen shows, however busy the machine. Called while the drill waits before that screen (a foreperiod, a
        feedback pause)."""
        number = struct.unpack("I", fcntl.ioctl(self.child.child_fd, TIOCGPTN, b"\0" * 4))[0]
        terminal = os.open(f"/dev/pts/{number}", os.O_RDWR | os.O_NOCTTY)
        write = str(WRITE_SYSCALL[platform.machine()])
        try:
            termios.tcflow(terminal, termios.TCOOFF)
            _wait(lambda: Path(f"/proc/{self.child.pid}/syscall").read_text().split()[0] == write,
                  "the drill wrote no screen")
            self.child.send(key)
            _wait(lambda: struct.unpack("i", fcntl.ioctl(terminal, termios.FIONREAD, b"\0" * 4))[0] > 0,
                  "the key did not reach the drill's terminal")
        finally:
            termios.tcflow(terminal, termios.TCOON)
            os.close(terminal)

    def finish(self) -> tuple[int, str]:
        """Wait for the session to end: (exit status, what it printed last)."""
        self.expect(pexpect.EOF)
        output = self.child.before
        self.child.close()
        return self.child.exitstatus, output


def _wait(condition, failure: str) -> None:
    """Return once `condition()` holds, checked every 5 ms; fail saying `failure` past WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{failure} in {WAIT_S:g} s")
        time.sleep(0.005)


def printed_json(output: str) -> dict:
    """The JSON summary printed after the session (`--format json`)."""
    return json.loads(output[output.index('{\r\n  "session_id"'):].replace("\r\n", "\n"))
