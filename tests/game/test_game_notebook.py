"""The game balance notebook runs top to bottom, as a reader would run it."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # executes a notebook in a Jupyter kernel

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "game_balance.ipynb"


def test_game_balance_notebook_runs_and_draws_its_charts():
    # nbclient raises on the first cell that fails.
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # committed clean
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    images = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
              if "image/png" in output.get("data", {})]
    assert len(images) == 2  # win chances against the skill gap; game length by players and end rule
