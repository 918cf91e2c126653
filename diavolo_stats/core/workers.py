"""Worker processes that live and die with the program that started them.

`worker_pool` is the one place the simulator and the sweep start local
processes. Each worker ignores SIGINT (a Ctrl-C reaches the whole terminal
group, and it is the parent's to handle: it stops handing out work and says
so in one line) and, on Linux, asks the kernel to kill it the moment its
parent dies (`prctl(PR_SET_PDEATHSIG, SIGKILL)`), so that a parent killed
outright (SIGKILL, the OOM killer) leaves no worker computing on.

On fork-capable systems the workers are forked: they share what the parent
has already built (the imported library, the simulator's lookups); elsewhere
each worker imports its own.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal the calling process gets when its parent dies."""


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` processes that ignore Ctrl-C and die with this process."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                               initializer=_start_worker, initargs=(os.getpid(),))


def _start_worker(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request above was made: nobody is waiting
        os._exit(1)
