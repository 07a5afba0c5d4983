"""The example notebooks: each executes cleanly in a fresh kernel, and is committed with real outputs.

Every `examples/notebooks/*.ipynb` is picked up automatically. Execution never saves, so the
tests leave the committed notebooks as they are; refresh those with
`python -m structsim_nb._notebooks` (or `nox -s notebooks`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structsim_nb._notebooks import NOTEBOOK_DIR, RENDERING_LIBRARIES

nbformat = pytest.importorskip("nbformat", reason='needs the notebooks extra: pip install "structsim-nb[notebooks]"')
pytest.importorskip("nbclient", reason='needs the notebooks extra: pip install "structsim-nb[notebooks]"')

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def _code_cells(path: Path) -> list:
    notebook = nbformat.read(path, as_version=4)
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_notebooks_exist() -> None:
    assert NOTEBOOKS, f"examples/notebooks/ must hold at least one notebook; found none in {NOTEBOOK_DIR}"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_executes_in_a_fresh_kernel(path: Path, run_notebook) -> None:
    # Raises CellExecutionError naming the cell if any cell fails; nothing is written. The execution is shared
    # with the notebook's own test module (tests/notebooks/test_<notebook>.py) when its probe is the default.
    executed, _ = run_notebook(path.name)
    errors = [
        output
        for cell in executed.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors, f"{path.name} produced error outputs: {[error.get('ename') for error in errors]}"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_a_run_leaves_nothing_in_the_temporary_folder(path: Path, run_notebook, notebook_leftovers) -> None:
    # A reader runs a lesson many times: a folder it makes there (a dataset cache, say) must be gone by the end of the
    # run, not left to the kernel's exit: on Python 3.14 a kernel that showed a progress bar ends by SIGTERM, no atexit.
    run_notebook(path.name)
    left = notebook_leftovers[path.name]
    assert left == [], f"{path.name} left {left} in the kernel's temporary folder"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_committed_notebook_has_outputs_of_a_clean_run(path: Path) -> None:
    cells = _code_cells(path)
    unexecuted = [index for index, cell in enumerate(cells) if cell.get("execution_count") is None]
    assert not unexecuted, (
        f"{path.name} must be committed executed; code cells {unexecuted} have no execution_count. "
        f"Run: python -m structsim_nb._notebooks {path.relative_to(NOTEBOOK_DIR.parent.parent)}"
    )
    counts = [cell["execution_count"] for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{path.name} must come from one top-to-bottom run; execution counts are {counts}. "
        "Re-execute it with python -m structsim_nb._notebooks"
    )
    errors = [
        (index, output.get("ename"))
        for index, cell in enumerate(cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors, f"{path.name} is committed with error outputs (code cell, exception): {errors}"


@pytest.mark.parametrize("path", sorted(NOTEBOOK_DIR.glob("*.ipynb")), ids=lambda path: path.stem)
def test_committed_notebook_records_the_versions_its_outputs_came_from(path: Path) -> None:
    """A byte-for-byte comparison with a fresh run is meaningful only under these versions (see `rendered_with`)."""
    recorded = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("structsim_nb", {}).get("outputs_from")
    assert recorded is not None and set(recorded) == set(RENDERING_LIBRARIES), (
        f"{path.name} must record the library versions of its outputs; got {recorded!r}. "
        "Re-execute it with python -m structsim_nb._notebooks"
    )
