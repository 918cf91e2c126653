"""The `diavolo` program: `python -m diavolo_stats`, and the console script (pyproject's `[project.scripts]`).

`main` loads the command line under its Ctrl-C guard, so a Ctrl-C from the
first import the package runs ends it with one line and status 130. Before
it only the interpreter's start-up runs, then this file and the package's
`__init__.py`, which import nothing but `sys` and `os` (loaded with the
interpreter) and only define names.
"""

import os
import sys

OPENBLAS_SPIN = "4"
"""How long an idle OpenBLAS thread spins before it sleeps, as a power of two of CPU cycles: 2**4, OpenBLAS's
least (its default, 2**28, is some 0.1 s)."""


def main() -> int:
    """Run `diavolo` on the process's arguments; the exit status."""
    # OpenBLAS's idle threads (numpy and scipy each start a pool) spin some 0.1 s before they sleep, as they start
    # and after each product: CPU taken from the command's own work and its worker. They sleep at once instead;
    # that is scheduling only, the same numbers. Set before numpy loads; a user's own setting stays.
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", OPENBLAS_SPIN)
    try:
        from diavolo_stats.cli import main as command  # everything the command loads, loaded under this guard

        status = command()
    except KeyboardInterrupt:  # before cli.main's own guard: while its module loaded or as it was called
        from diavolo_stats.cli import interrupted  # definitions only: loads at once, also after a load cut short

        status = interrupted()
    # The process is about to end, and its memory with it: the garbage collector's passes at exit would walk every
    # object the libraries made (pandas, matplotlib: seconds on a busy machine) for cycles that free nothing the
    # system does not. Exit handlers and flushes still run. Imported here: nothing is imported before the guard.
    import gc

    gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(main())
