"""The report's charts drawn in worker processes: the report's worker, what it imports, and the drawer it forks.

`report_worker` forks the worker `build_report` shares its work with, before the caller imports pandas. It imports
the charts (`import_charts`) and draws them (`report_chart_png`); after a short read it forks a drawer with
matplotlib imported (`fork_drawer`) and hands it some (`hand_over`, `handed_over`). Their PNG bytes are the same.

Why it works as it does: docs/architecture.md, "The report's charts".
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing.util
import sys
import warnings
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor

from diavolo_stats.core.workers import worker_pool

CHART_MODULES = ("diavolo_stats.analytics.charts", "diavolo_stats.plots")
"""What drawing a chart imports: matplotlib, a third of a second of Python."""

UNUSED_IN_A_WORKER = ("mpl_toolkits.mplot3d",)
"""What matplotlib imports that no chart of the report uses: the 3D axes (matplotlib.projections registers them
if it can import them, some 20 ms of building 3D artists' classes). A worker imports the charts without them."""

DRAWER_EXIT_PRIORITY = 20
"""Where the drawer's shutdown comes among a worker's exit finalizers (`multiprocessing.util.Finalize`: higher
first): before its queues' own (10), which stop the threads that would carry the call to end."""

_drawer: ProcessPoolExecutor | None = None
"""The worker's own drawer (`fork_drawer`), in a worker that has one."""
_handed: dict[str, Future] = {}
"""The charts handed to the drawer, by file name, not yet taken back (`handed_over`)."""


@contextlib.contextmanager
def report_worker() -> Iterator[Executor]:
    """The worker process `report.build_report` shares its work with, forked now and importing the charts, ended with
    the block (at once if the block fails: a one-line error waits for no import). Called before pandas is imported
    (this module does not import it), its import of matplotlib runs on the other core beside the caller's: the charts
    import no pandas, and are sent none (`chart_data`)."""
    worker = worker_pool(1)
    with warnings.catch_warnings():
        # Python 3.12 on warns of any fork beside threads; this process's are numpy's OpenBLAS's, which start afresh
        # in a forked child.
        warnings.filterwarnings("ignore", message=".*multi-threaded, use of fork", category=DeprecationWarning)
        worker.submit(import_charts)  # the first call forks the worker
    try:
        yield worker
    except BaseException:
        worker.abandon()
        raise
    worker.shutdown()


def import_charts() -> None:
    """Import CHART_MODULES without UNUSED_IN_A_WORKER, in a worker process of the report only (a user's own
    matplotlib, in their process, keeps its 3D axes): the worker draws only the report's charts."""
    unused = [module for module in UNUSED_IN_A_WORKER if module not in sys.modules]
    sys.modules.update(dict.fromkeys(unused))  # None: an import of it fails, and matplotlib goes on without it
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Unable to import Axes3D")
            for module in CHART_MODULES:
                importlib.import_module(module)
    finally:
        for module in unused:
            del sys.modules[module]


def report_chart_png(chart: str, *args, **kwargs) -> bytes:
    """The PNG bytes of `charts.<chart>(*args, **kwargs)`, in whichever process draws it."""
    from diavolo_stats.analytics import charts  # CHART_MODULES
    from diavolo_stats.plots import figure_png

    return figure_png(getattr(charts, chart)(*args, **kwargs))


def fork_drawer() -> None:
    """In the worker, once it has imported the charts and before it draws one: fork its drawer, which starts
    with matplotlib imported. Forked before the worker has drawn (a chart could start Arrow's threads) and before
    the pool's own thread starts (it starts after its fork), so that the copy holds no lock another thread held
    (numpy's BLAS stops its own threads across a fork)."""
    global _drawer
    _drawer = worker_pool(1)
    _drawer.submit(int)  # a first call, of nothing, forks it now
    # A worker that ends with its drawer (its report failed before taking the charts back) waits for its children
    # before its pools' exit hooks run: the drawer is shut down first, by a finalizer run before that wait.
    multiprocessing.util.Finalize(None, _drawer_closed, exitpriority=DRAWER_EXIT_PRIORITY)


def hand_over(name: str, chart: str, *args, **kwargs) -> None:
    """In the worker: hand `report_chart_png(chart, ...)` to its drawer, as `name`, and go on."""
    _handed[name] = _drawer.submit(report_chart_png, chart, *args, **kwargs)


def handed_over() -> dict[str, bytes]:
    """In the worker: the PNG bytes of every chart handed to its drawer, by name, once drawn; the drawer then
    ends."""
    try:
        return {name: future.result() for name, future in _handed.items()}
    finally:
        _drawer_closed()


def _drawer_closed() -> None:
    """The worker's drawer, if it has one, shut down (the charts still queued called off) and waited for."""
    global _drawer
    _handed.clear()
    if _drawer is not None:
        _drawer.shutdown(cancel_futures=True)
        _drawer = None
