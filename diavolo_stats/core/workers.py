"""Worker processes that live and die with the program that started them, and how many cores the library uses.

`worker_pool` is the one place the library starts local worker processes. A worker ignores Ctrl-C (the parent handles
it, in one line) from the moment it exists, and on Linux the kernel kills it the moment its parent dies, so a
parent killed outright leaves no worker computing on.

How, and why: docs/architecture.md, "Worker processes".
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor

CORES = 2
"""How many cores the library's own splits of one job are made for: the drill log's reader checks its columns on
this many threads and the diffusion fit runs the players' first fits on as many (their work is Arrow's and numpy's,
which release the GIL), and `diavolo report` is this process and one worker process (its charts are drawn by
matplotlib, which holds the GIL). Each of these jobs has about two long parts, so more would
mostly wait, and on one core two cost little more than one. The simulator and the sweep take their own number of
workers (`simulate.MAX_WORKERS`). In a worker of `worker_pool` those splits run on one thread (`threads`)."""

_in_a_worker = False
"""Set in each worker of `worker_pool` as it starts (`_start_worker`)."""

_PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal the calling process gets when its parent dies."""


def threads() -> int:
    """How many threads the library's own splits of one job (the reader's checks, the diffusion fit's players) use
    in this process: CORES, or 1 in a worker of `worker_pool`, which already runs beside its parent on the cores,
    where a second thread would only take a core from the parent."""
    return 1 if _in_a_worker else CORES


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` processes that ignore Ctrl-C and die with this process."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return _WorkerPool(max_workers=workers, mp_context=multiprocessing.get_context(method),
                       initializer=_start_worker, initargs=(os.getpid(),))


class _WorkerPool(ProcessPoolExecutor):
    def submit(self, fn, /, *args, **kwargs):
        # A submit starts the workers (all of them at the first, when forked): SIGINT is held meanwhile, so
        # that a Ctrl-C reaches this process after the submit, not halfway through starting a pool, and each
        # worker inherits it held, until it ignores it (_start_worker).
        with _sigint_held():
            return super().submit(fn, *args, **kwargs)

    def abandon(self) -> None:
        """End the workers now, whatever they are doing, and the pool with them (for a caller that failed and
        needs nothing more of them: a shutdown would wait for the calls under way)."""
        for process in list(self._processes.values()):
            process.terminate()
        self.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _sigint_held():
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if signal.SIGINT not in held:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start_worker(parent: int) -> None:
    global _in_a_worker
    _in_a_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held since the fork; a Ctrl-C since is dropped
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request above was made: nobody is waiting
        os._exit(1)
    _blas_on_one_thread()


def _blas_on_one_thread() -> None:
    """The BLAS libraries loaded (numpy's, at a fork) compute on the calling thread from now on: a worker already
    runs beside its parent on the cores, and OpenBLAS's threads, once a product wakes them, spin a while before
    they sleep (0.3 s of CPU in the million-row report's worker, taken from the report's own process, whose files
    are the same byte for byte on one thread)."""
    from threadpoolctl import ThreadpoolController

    ThreadpoolController().limit(limits=1, user_api="blas")  # kept for the worker's life: never restored

