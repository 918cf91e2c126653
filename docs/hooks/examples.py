"""MkDocs hook: where the pages' console examples run.

Console blocks marked `exec="1"` are run by the markdown-exec plugin when the
site is built, and the page shows what the command printed (stdout and stderr,
as a terminal would), so no output in the manual is copied by hand. A block
that exits with another status than the one it states (`returncode="2"` for
the error examples, 0 otherwise) fails the strict build.

They run in a scratch folder, `build/docs-examples/`, holding copies of
`examples/` and `data/`: the commands see the paths a reader of the page
would type from the repository's top folder, and whatever they write (a
report folder, a saved simulation) lands in the scratch folder, never in the
repository. `diavolo` is the one installed beside the Python that runs MkDocs.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

SHIPPED = ("examples", "data", "benchmarks")
# What a user's own runs leave in data/: not part of what the repository ships.
IGNORED = shutil.ignore_patterns("reports", "drills.csv", "*.lock", "*.partial")

_previous_directory: Path | None = None


def scratch_folder(config) -> Path:
    return Path(config.config_file_path).resolve().parent / "build" / "docs-examples"


def on_pre_build(config):
    global _previous_directory
    repository = Path(config.config_file_path).resolve().parent
    scratch = scratch_folder(config)
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    for name in SHIPPED:
        shutil.copytree(repository / name, scratch / name, ignore=IGNORED)
    bin_folder = str(Path(sys.executable).parent)
    if bin_folder not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_folder + os.pathsep + os.environ.get("PATH", "")
    # The examples show the defaults: no drill log chosen by the environment, an 80-column terminal.
    os.environ.pop("DIAVOLO_LOG", None)
    os.environ["COLUMNS"] = "80"
    _previous_directory = Path.cwd()
    os.chdir(scratch)


def _restore() -> None:
    global _previous_directory
    if _previous_directory is not None:
        os.chdir(_previous_directory)
        _previous_directory = None


def on_post_build(config):
    _restore()


def on_build_error(error):
    _restore()
