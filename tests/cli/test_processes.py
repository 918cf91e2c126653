"""`diavolo` as a real process: what it loads to start, Ctrl-C at any moment, and workers that die with it.

The moments are states, not clocks: the program is held at the import of a
chosen module (an audit hook in a `sitecustomize` the test puts on the path
waits there for the signal), or the test waits until the work has begun
(worker processes started, rows written).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomllib
from helpers.cli import REPO

from diavolo_stats.__main__ import OPENBLAS_SPIN

HEAVY = ("pandas", "matplotlib", "scipy", "dask", "starlette", "pyarrow")

ENTRY_POINT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["diavolo"]
"""`diavolo`'s console script, `module:function`, as pyproject declares it."""


def console_script(folder: Path) -> Path:
    """The `diavolo` script as pip and uv write it for ENTRY_POINT (its own imports, then the entry point's)."""
    module, function = ENTRY_POINT.split(":")
    script = folder / "diavolo"
    script.write_text(f"import re\nimport sys\nfrom {module} import {function}\nif __name__ == '__main__':\n"
                      f"    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                      f"    sys.exit({function}())\n", encoding="utf-8")
    return script

HOLD_AT_IMPORT = '''
import os, signal, sys

_module, _ready = os.environ["DIAVOLO_TEST_HOLD_AT"], os.environ["DIAVOLO_TEST_HELD"]


def _hold(event, args):
    global _module
    if event == "import" and args[0] == _module:
        _module = None
        with open(_ready, "w"):
            pass
        signal.pause()  # until the test's SIGINT: its KeyboardInterrupt aborts this import


sys.addaudithook(_hold)
'''

HOLD_IN_A_WORKER = '''
import os, sys, time

_parent, _held, _release = os.getpid(), os.environ["DIAVOLO_TEST_HELD"], os.environ["DIAVOLO_TEST_RELEASE"]
_holding = False


def _hold(event, args):
    # In a worker only just forked, before its initializer runs: the first file it opens (multiprocessing's stdin).
    global _holding
    if event != "open" or os.getpid() == _parent or _holding:
        return
    _holding = True  # the hook's own open below raises the event again
    try:
        os.close(os.open(_held, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # another worker is held, or this one was
    while not os.path.exists(_release):  # until the test has sent its SIGINT
        time.sleep(0.01)


sys.addaudithook(_hold)
'''


@pytest.fixture
def start():
    """Start `diavolo ARGS` as a real process in a process group of its own. Whatever of it still runs when
    the test ends, failed or not, is killed with its workers: a test never leaves work computing."""
    started = []

    def launch(*args: str, cwd: Path, env: dict | None = None, program: list[str] | None = None) -> subprocess.Popen:
        program = program or ["-m", "diavolo_stats"]
        process = subprocess.Popen([sys.executable, *program, *args], cwd=cwd, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
                                   start_new_session=True)
        started.append(process)
        return process

    yield launch
    for process in started:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # the group is gone: nothing left running
        process.communicate()


def wait_until(condition, process: subprocess.Popen | None = None, seconds: float = 60) -> None:
    """Poll `condition()` until it holds; the test fails if the process ends first or `seconds` pass (a state
    that a loaded machine reaches late is still reached in a minute)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert process is None or process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"not reached in {seconds} s: {condition}"
        time.sleep(0.02)


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def ignoring_ctrl_c(pid: int) -> bool:
    """The process ignores SIGINT (the SigIgn mask /proc shows), as a worker does once its initializer has run."""
    try:
        status = (Path("/proc") / str(pid) / "status").read_text()
    except OSError:
        return False
    masks = [line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")]
    return bool(masks) and bool(int(masks[0], 16) >> (signal.SIGINT - 1) & 1)


def running(pid: int) -> bool:
    """The process exists and has not ended (a zombie waiting to be reaped has ended)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def assert_interrupted(process: subprocess.Popen) -> None:
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, (process.returncode, stderr)
    assert stderr.splitlines() == ["diavolo: interrupted"] and stdout == ""


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["odds"]])
def test_version_help_and_odds_load_none_of_the_heavy_libraries(argv, tmp_path):
    code = ("import sys\nfrom diavolo_stats.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
            f"    pass\nprint(sorted(name for name in {HEAVY!r} if name in sys.modules), file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", code, *argv], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout, result.stderr
    assert result.stderr.splitlines()[-1] == "[]"


@pytest.mark.parametrize("users, seen", [(None, OPENBLAS_SPIN), ("28", "28")])
def test_the_program_has_openblas_threads_sleep_at_once_unless_its_user_says_otherwise(users, seen, tmp_path):
    """OpenBLAS reads OPENBLAS_THREAD_TIMEOUT as numpy loads it: `diavolo` has set it by then (its idle threads
    sleep at once instead of spinning some 0.1 s), and keeps a user's own setting."""
    code = ("import os, sys\nfrom diavolo_stats.__main__ import main\nseen = []\n"
            "def at_numpy(event, args):\n"
            "    if event == 'import' and args[0] == 'numpy' and not seen:\n"
            "        seen.append(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n"
            "sys.addaudithook(at_numpy)\nsys.argv = ['diavolo', 'odds']\nmain()\nprint(seen, file=sys.stderr)")
    env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_THREAD_TIMEOUT"}
    env.update({} if users is None else {"OPENBLAS_THREAD_TIMEOUT": users})
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout, result.stderr
    assert result.stderr.splitlines()[-1] == str([seen])


@pytest.mark.slow  # a real process
def test_the_package_and_the_entry_point_s_module_load_nothing_and_leave_ctrl_c_alone(tmp_path):
    """Before its Ctrl-C guard the program runs only these two files: they import nothing (no module for a
    Ctrl-C to land in), and a library user's `import diavolo_stats` leaves SIGINT to Python's default."""
    module = ENTRY_POINT.split(":")[0]
    code = ("import signal, sys\nbefore = set(sys.modules)\nimport diavolo_stats\n"
            f"import {module}\nprint(sorted(set(sys.modules) - before))\n"
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [str(sorted({"diavolo_stats", module})), "True"]


@pytest.mark.slow  # real processes, each signalled
@pytest.mark.parametrize("launcher", ["python -m diavolo_stats", "console script"])
@pytest.mark.parametrize("module", [
    "diavolo_stats.cli",         # the first import the package runs (the entry point's, under its guard)
    "diavolo_stats.cli.common",  # the first thing the command line loads
    "numpy",                     # while the parser is being built
    "diavolo_stats.sweep.run",   # the command's own work, loaded once the flags are read
])
def test_ctrl_c_while_the_program_loads_is_one_line_and_status_130(start, tmp_path, module, launcher):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD_AT_IMPORT)
    held = tmp_path / "held"
    path = os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")])
    program = [str(console_script(tmp_path))] if launcher == "console script" else None
    process = start("sweep", "--sides", "4,6", "--rounds", "20000", cwd=tmp_path, program=program,
                    env={"PYTHONPATH": path, "DIAVOLO_TEST_HOLD_AT": module, "DIAVOLO_TEST_HELD": str(held)})
    wait_until(held.exists, process)
    process.send_signal(signal.SIGINT)
    assert_interrupted(process)


@pytest.mark.slow  # real processes, each signalled
def test_ctrl_c_once_the_workers_compute_keeps_the_file_and_is_one_line_and_status_130(start, tmp_path):
    out = tmp_path / "keep.csv"
    out.write_text("precious\n")
    process = start("simulate", "--rounds", "10000000000", "--workers", "2", "--out", str(out), cwd=REPO)
    # Started: forked and past their initializer (a worker only just forked does not ignore Ctrl-C yet).
    wait_until(lambda: len(workers := children(process.pid)) >= 2 and all(map(ignoring_ctrl_c, workers)), process)
    # A terminal's Ctrl-C reaches the whole foreground process group; the workers ignore it.
    os.killpg(process.pid, signal.SIGINT)
    assert_interrupted(process)
    assert out.read_text() == "precious\n"


@pytest.mark.slow  # real processes, signalled
def test_ctrl_c_while_a_worker_starts_is_one_line_and_status_130(start, tmp_path):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD_IN_A_WORKER)
    held, release = tmp_path / "held", tmp_path / "release"
    path = os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")])
    process = start("simulate", "--rounds", "10000000000", "--workers", "2", cwd=tmp_path,
                    env={"PYTHONPATH": path, "DIAVOLO_TEST_HELD": str(held), "DIAVOLO_TEST_RELEASE": str(release)})
    wait_until(held.exists, process)  # a worker is forked and has not yet set itself to ignore Ctrl-C
    os.killpg(process.pid, signal.SIGINT)
    release.touch()
    assert_interrupted(process)


@pytest.mark.slow  # real processes, one killed
@pytest.mark.timeout(120)  # a worker left running computes for many minutes: the test fails here
@pytest.mark.parametrize("command", [
    ["simulate", "--rounds", "1000000000000"],
    ["sweep", "--sides", "4,6,8", "--commands", "closest", "--rounds", "1000000000000"],
])
def test_workers_die_with_a_killed_parent(start, tmp_path, command):
    process = start(*command, "--workers", "2", cwd=tmp_path)
    wait_until(lambda: len(children(process.pid)) >= 2, process)
    workers = children(process.pid)
    process.kill()  # SIGKILL: no handler runs, nothing is cleaned up (`start` kills what a failure leaves)
    process.wait()
    wait_until(lambda: not any(running(worker) for worker in workers))
