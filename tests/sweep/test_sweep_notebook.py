"""The variant design notebook runs top to bottom: a small sweep, its heatmaps and a target search."""

from __future__ import annotations

import nbformat
import pytest
from helpers.cli import REPO
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # executes a notebook in a Jupyter kernel

NOTEBOOK = REPO / "notebooks" / "variant_design.ipynb"


def test_variant_design_notebook_runs_and_draws_its_heatmaps():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        "commit notebooks with outputs cleared"
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    assert not [output for output in outputs if output.get("name") == "stderr"]
    assert sum("image/png" in output.get("data", {}) for output in outputs) == 3
    printed = "".join(output.get("text", "") for output in outputs if output.output_type == "stream")
    assert "Target: highest-total 0.1..0.2, closest 0..0.15" in printed and "nearest" in printed
