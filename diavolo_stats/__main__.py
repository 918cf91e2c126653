"""The `diavolo` program: `python -m diavolo_stats`, and the console script (pyproject's `[project.scripts]`).

`main` loads the command line under its Ctrl-C guard, so a Ctrl-C from the
first import the package runs ends it with one line and status 130. Before
it only the interpreter's start-up runs, then this file and the package's
`__init__.py`, which import nothing but `sys` and only define names.
"""

import sys


def main() -> int:
    """Run `diavolo` on the process's arguments; the exit status."""
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
