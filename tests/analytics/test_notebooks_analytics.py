"""Both analytics notebooks run top to bottom on what data/ ships, and draw their charts."""

from __future__ import annotations

import nbformat
import pytest
from helpers.cli import REPO
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # executes a notebook in a Jupyter kernel

NOTEBOOKS = REPO / "notebooks"


@pytest.mark.parametrize("name, charts, log", [("tie_frequency.ipynb", 7, None), ("drill_analysis.ipynb", 4, None),
                                               ("drill_analysis.ipynb", 4, "")],
                         ids=["tie_frequency", "drill_analysis", "drill_analysis, DIAVOLO_LOG empty"])
def test_notebook_runs_on_shipped_data(name, charts, log, monkeypatch):
    # The drill notebook reads $DIAVOLO_LOG when set: run it on the shipped sample, as a fresh clone would. An
    # empty variable is unset, as for every command.
    monkeypatch.delenv("DIAVOLO_LOG", raising=False)
    if log is not None:
        monkeypatch.setenv("DIAVOLO_LOG", log)
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        "commit notebooks with outputs cleared"
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    assert not [output for output in outputs if output.get("name") == "stderr"]
    assert sum("image/png" in output.get("data", {}) for output in outputs) == charts
