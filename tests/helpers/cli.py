"""The `diavolo` command in a test: in this process through `main(argv)` as sqlite-utils' CliRunner does
(`run_diavolo`), or as a real program for the few tests that need one (`run_diavolo_process`)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import traceback
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PYTHON_DEFAULT_WARNINGS = (("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                           ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                           ("ignore", ResourceWarning, ""))
"""The warning filters of a Python started without -W: what a user of the command sees."""


def _print_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # As Python's own showwarning prints to stderr; pytest records warnings instead while a test runs.
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


class _ThisThreads(io.TextIOBase):
    """A standard stream while a command runs in this process: what the command's thread writes is captured, what
    another thread writes meanwhile (an earlier test's server or event loop) goes where it went before."""

    def __init__(self, captured: io.StringIO, before):
        self.captured, self.before, self.thread = captured, before, threading.get_ident()

    def write(self, text: str) -> int:
        return (self.captured if threading.get_ident() == self.thread else self.before).write(text)

    def flush(self) -> None:
        (self.captured if threading.get_ident() == self.thread else self.before).flush()


def run_diavolo(*args: str, cwd: Path | None = None, env: dict | None = None,
                input: str = "") -> subprocess.CompletedProcess:
    """Run `diavolo ARGS` in this process, capturing its output and exit status as a user would see them.

    stdin reads `input`; `env` is added to the environment and `cwd` is the
    working folder for the run. The environment, folder, standard streams,
    SIGINT handler and warning filters are restored afterwards. An exception
    that escapes `main` is printed as Python prints it, with exit status 1.
    The output captured is what the command's own thread wrote: the test
    process's other threads write elsewhere.
    """
    from diavolo_stats.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    saved_environment, saved_folder = dict(os.environ), os.getcwd()
    saved_sigint = signal.getsignal(signal.SIGINT)
    try:
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(_ThisThreads(stdout, sys.stdout)), \
                contextlib.redirect_stderr(_ThisThreads(stderr, sys.stderr)), \
                _stdin(io.StringIO(input)), warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in PYTHON_DEFAULT_WARNINGS:
                warnings.filterwarnings(action, category=category, module=module, append=True)
            warnings.showwarning = _print_warning
            try:
                status = main(list(args))
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) or stop.code is None else 1
                if not isinstance(stop.code, int | None):
                    print(stop.code, file=sys.stderr)
            except Exception:
                traceback.print_exc()
                status = 1
    finally:
        os.chdir(saved_folder)
        os.environ.clear()
        os.environ.update(saved_environment)
        signal.signal(signal.SIGINT, saved_sigint)
    return subprocess.CompletedProcess(["diavolo", *args], status or 0, stdout.getvalue(), stderr.getvalue())


@contextlib.contextmanager
def _stdin(stream: io.StringIO):
    saved, sys.stdin = sys.stdin, stream
    try:
        yield
    finally:
        sys.stdin = saved


def run_diavolo_process(*args: str, cwd: Path | None = None, env: dict | None = None,
                        timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m diavolo_stats ARGS` as a separate program, capturing its output."""
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
