"""Execute each example notebook once per test session, in a fresh kernel, and read figures out of it.

A notebook's prose states figures ("5 of 6 cases pass", "overall 0.752"); its test checks them. The lesson keeps no
assertion machinery: `run_notebook(name)` executes the notebook's cells, then one more cell that the committed
notebook never holds, its probe: `tests/notebooks/probes/<notebook stem>.py`, if there is one. The probe runs in the
notebook's namespace and sets `FIGURES`, a dict of plain JSON values read off the notebook's own variables; the
notebook's test module (`tests/notebooks/test_<notebook stem>.py`) gets that dict back and checks it against what
the prose says. Each notebook is executed once per session, shared by every test that needs it.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from structsim_nb._notebooks import NOTEBOOK_DIR, rendered_with

nbformat = pytest.importorskip("nbformat", reason='needs the notebooks extra: pip install "structsim-nb[notebooks]"')
nbclient = pytest.importorskip("nbclient", reason='needs the notebooks extra: pip install "structsim-nb[notebooks]"')

_MARKER = "__STRUCTSIM_NB_FIGURES__"
PROBES = Path(__file__).resolve().parent / "probes"
_cache: dict[str, tuple[Any, dict[str, Any]]] = {}
#: notebook name -> what its run left in the kernel's temporary folder after the kernel stopped (names, sorted)
LEFTOVERS: dict[str, list[str]] = {}


def _execute(name: str) -> tuple[Any, dict[str, Any]]:
    path = NOTEBOOK_DIR / name
    probe_file = PROBES / f"{path.stem}.py"
    probe = probe_file.read_text(encoding="utf-8") if probe_file.is_file() else "FIGURES = {}"
    notebook = nbformat.read(path, as_version=4)
    runnable = copy.deepcopy(notebook)
    suffix = f"\nimport json as _json\nprint({_MARKER!r} + _json.dumps(FIGURES, sort_keys=True, default=str))\n"
    runnable.cells.append(nbformat.v4.new_code_cell(probe + suffix))
    # Stopped at once (SIGKILL, no atexit), as a kernel that showed a progress bar ends on Python 3.14 (by SIGTERM:
    # ipykernel waits for multiprocessing's resource tracker), so a lesson that leaves cleanup to the kernel's exit
    # fails its leftovers test on every version.
    client = nbclient.NotebookClient(
        runnable,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        shutdown_kernel="immediate",
    )
    # The kernel's temporary folder is one of its own, so what the notebook leaves there is seen once it stops.
    with tempfile.TemporaryDirectory(prefix="notebook-tmp-") as scratch:
        client.execute(env={**os.environ, "TMPDIR": scratch})
        LEFTOVERS[name] = sorted(entry.name for entry in Path(scratch).iterdir())
    text = "".join(
        output.get("text", "") for output in runnable.cells[-1].get("outputs", []) if output.get("name") == "stdout"
    )
    figures = json.loads(text.split(_MARKER, 1)[1]) if _MARKER in text else {}
    runnable.cells.pop()  # what the reader sees: the notebook's own cells, executed
    return runnable, figures


@pytest.fixture(scope="session")
def notebook_leftovers() -> dict[str, list[str]]:
    """Notebook name -> what its run (`run_notebook`) left in the kernel's temporary folder once the kernel stopped."""
    return LEFTOVERS


@pytest.fixture(scope="session")
def run_notebook() -> Callable[[str], tuple[Any, dict[str, Any]]]:
    """`run_notebook(name) -> (executed notebook, FIGURES)`; each notebook is executed once per session."""

    def run(name: str) -> tuple[Any, dict[str, Any]]:
        if name not in _cache:
            _cache[name] = _execute(name)
        return _cache[name]

    return run


def markdown(notebook: Any) -> str:
    """Every markdown cell's text, joined: what the reader reads."""
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def outputs_text(notebook: Any) -> str:
    """Every text output (stdout, and text/plain or text/html of results): what the reader sees under the code."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                parts.append(output["text"])
            data = output.get("data", {})
            parts.extend(str(data[kind]) for kind in ("text/plain", "text/html") if kind in data)
    return "\n".join(parts)


def require_same_rendering(committed: Any) -> None:
    """Skip a byte-for-byte comparison with a fresh run when the committed outputs came from other library versions.

    pandas 2 prints a missing object as `None` where pandas 3 prints `NaN`, and matplotlib's PNG
    bytes change between releases, so the comparison holds only under the versions the notebook
    was executed with (`metadata.structsim_nb.outputs_from`, written by `python -m
    structsim_nb._notebooks`). Every other notebook test still checks the fresh run.
    """
    recorded = committed.metadata.get("structsim_nb", {}).get("outputs_from")
    assert recorded, (
        "the notebook must record the versions its outputs came from; re-execute it: python -m structsim_nb._notebooks"
    )
    here = rendered_with()
    if recorded != here:
        pytest.skip(
            f"committed outputs come from {recorded}; this environment has {here}, so they cannot match byte for byte"
        )


NOTEBOOKS = sorted(path.name for path in NOTEBOOK_DIR.glob("*.ipynb"))
__all__ = ["NOTEBOOKS", "markdown", "outputs_text"]
