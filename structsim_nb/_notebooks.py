"""Execute the example notebooks in a fresh kernel: for the tests, and to refresh committed outputs.

`python -m structsim_nb._notebooks [NOTEBOOK ...]` re-executes notebooks in place (all of
`examples/notebooks/` by default), so what is committed is the output of a real run.

A saved notebook is made stable (`stabilise`): executing it again writes the same bytes when its
visible outputs are the same. ipywidgets gives every widget model a random id, which a notebook
holds in each widget output and in `metadata.widgets` (the saved widget state, about a thousand
lines for one explorer); those ids are renumbered in the order the notebook first shows them. The
per-cell execution timestamps (`metadata.execution`, written by nbclient) are left out: they are
informational only, and JupyterLab shows them only when asked to record timing. Consecutive pieces
of one stream are joined: the kernel sends a `print` as one piece or two depending on when its
buffer is flushed, and Jupyter shows both the same.

A saved notebook also records, in `metadata.structsim_nb.outputs_from`, the versions of the
libraries that shape its outputs (`rendered_with()`: pandas prints a missing object as `NaN` from
3.0 and `None` before; matplotlib's PNG bytes change between releases). Its outputs can be
compared byte for byte with a fresh run only under the same versions.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._io import write_text_atomic

__all__ = ["NOTEBOOK_DIR", "RENDERING_LIBRARIES", "execute_notebook", "rendered_with", "stabilise"]

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "examples" / "notebooks"

#: The distributions whose versions shape a notebook's outputs (tables' text, PNG bytes).
RENDERING_LIBRARIES = ("pandas", "numpy", "matplotlib", "pillow")

_STATE = "application/vnd.jupyter.widget-state+json"
_REFERENCE = "IPY_MODEL_"  # how one widget's state names another
#: The namespace of the ids `stabilise` gives widget models: uuid5(namespace, "widget <n>"), 32 hex digits as
#: ipywidgets writes them, the same for the n-th widget of any notebook.
_WIDGET_IDS = uuid.UUID("5c2b6a1e-0f3d-4c8e-9a57-3f1d2e7b8c40")


def stabilise(notebook: Any) -> dict[str, str]:
    """Make an executed notebook's saved form depend only on what it shows: widget ids renumbered, timestamps out.

    Widget model ids are renumbered in the order the notebook first meets them: cell by cell,
    output by output, each widget followed by the widgets its state names (depth first, keys in
    sorted order); widgets no output reaches (created but never shown) come last, ordered by their
    state with the ids left out. Every occurrence changes together: the `model_id` of widget views
    (in outputs and inside Output widgets' state), `IPY_MODEL_<id>` references, and the keys of
    `metadata.widgets`. Cells lose `metadata.execution`, and consecutive outputs of the same stream
    (stdout, stderr) in a cell become one, their text joined.

    Args:
        notebook: An `nbformat.NotebookNode` (version 4); changed in place.

    Returns:
        `{old id: new id}` for every widget model; empty when the notebook holds no widget state.
    """
    for cell in notebook.cells:
        cell.get("metadata", {}).pop("execution", None)
        if cell.get("outputs"):
            cell.outputs = _joined_streams(cell.outputs)
    state: dict[str, Any] = notebook.get("metadata", {}).get("widgets", {}).get(_STATE, {}).get("state", {})
    if not state:
        return {}
    order: list[str] = []

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for key in sorted(value):
                visit(value[key])
        elif isinstance(value, list):
            for item in value:
                visit(item)
        elif isinstance(value, str):
            found = value[len(_REFERENCE) :] if value.startswith(_REFERENCE) else value
            if found in state and found not in seen:
                seen.add(found)
                order.append(found)
                visit(state[found])

    seen: set[str] = set()
    for cell in notebook.cells:
        visit(cell.get("outputs", []))
    for found in sorted((i for i in state if i not in seen), key=lambda i: _masked(state[i], state)):
        visit(found)
    mapping = {old: uuid.uuid5(_WIDGET_IDS, f"widget {index}").hex for index, old in enumerate(order)}

    def renamed(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: renamed(item) for key, item in value.items()}
        if isinstance(value, list):
            return [renamed(item) for item in value]
        if isinstance(value, str):
            if value in mapping:
                return mapping[value]
            if value.startswith(_REFERENCE) and value[len(_REFERENCE) :] in mapping:
                return _REFERENCE + mapping[value[len(_REFERENCE) :]]
        return value

    import nbformat  # optional extra: notebooks (execute_notebook checked it)

    for cell in notebook.cells:
        if "outputs" in cell:
            cell["outputs"] = nbformat.from_dict(renamed(cell["outputs"]))
    widgets = notebook["metadata"]["widgets"][_STATE]
    widgets["state"] = nbformat.from_dict({mapping[old]: renamed(state[old]) for old in order})
    return mapping


def _joined_streams(outputs: list[Any]) -> list[Any]:
    """`outputs` with each run of consecutive outputs of one stream made one output holding their text."""
    joined: list[Any] = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (
            output.get("output_type") == "stream"
            and last is not None
            and last.get("output_type") == "stream"
            and last.get("name") == output.get("name")
        ):
            last["text"] += output.get("text", "")
        else:
            joined.append(output)
    return joined


def _masked(model: Any, state: dict[str, Any]) -> str:
    """A widget's state as JSON with every widget id replaced by one placeholder: an order free of random ids."""

    def mask(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: mask(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mask(item) for item in value]
        if isinstance(value, str):
            bare = value[len(_REFERENCE) :] if value.startswith(_REFERENCE) else value
            if bare in state:
                return "<widget>"
        return value

    return json.dumps(mask(model), sort_keys=True, default=str)


def rendered_with() -> dict[str, str]:
    """`{distribution: version}` for `RENDERING_LIBRARIES` in this environment ("missing" when not installed)."""
    from importlib import metadata

    versions = {}
    for name in RENDERING_LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "missing"
    return versions


def execute_notebook(path: str | os.PathLike[str], *, timeout: int = 600, save: bool = False) -> Any:
    """Run every cell of `path` in a fresh `python3` kernel whose working folder is the notebook's.

    Args:
        path: The `.ipynb` file.
        timeout: Seconds allowed per cell. Default 600.
        save: Write the executed notebook back to `path` (atomically), made stable first
            (`stabilise`: widget ids renumbered, execution timestamps left out), so executing an
            unchanged notebook again rewrites the same bytes, with `rendered_with()` recorded in
            `metadata.structsim_nb.outputs_from`. Default False.

    Returns:
        The executed `nbformat.NotebookNode` (stabilised when saved).

    Raises:
        nbclient.exceptions.CellExecutionError: If a cell raises; the message shows the cell.
        ImportError: If the `notebooks` extra is missing.
    """
    try:
        # optional extra: notebooks
        import nbformat
        from nbclient import NotebookClient
    except ImportError as exc:
        raise ImportError(
            f'executing notebooks needs the notebooks extra ({exc}); install it: pip install "structsim-nb[notebooks]"'
        ) from exc
    source = Path(path)
    notebook = nbformat.read(source, as_version=4)
    client = NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(source.parent)}}
    )
    client.execute()
    if save:
        stabilise(notebook)
        notebook.metadata["structsim_nb"] = {"outputs_from": rendered_with()}
        write_text_atomic(source, nbformat.writes(notebook) + "\n")
    return notebook


def main(argv: Sequence[str] | None = None) -> int:
    """Execute the given notebooks (default: all example notebooks) and save them in place."""
    paths = [Path(arg) for arg in (argv if argv is not None else sys.argv[1:])] or sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    for path in paths:
        execute_notebook(path, save=True)
        sys.stderr.write(f"executed {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
