"""Execute the example notebooks in a fresh kernel: for the tests, and to refresh committed outputs.

`python -m structsim_nb._notebooks [NOTEBOOK ...]` re-executes notebooks in place (all of
`examples/notebooks/` by default), so what is committed is the output of a real run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._io import write_text_atomic

__all__ = ["NOTEBOOK_DIR", "execute_notebook"]

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "examples" / "notebooks"


def execute_notebook(path: str | os.PathLike[str], *, timeout: int = 600, save: bool = False) -> Any:
    """Run every cell of `path` in a fresh `python3` kernel whose working folder is the notebook's.

    Args:
        path: The `.ipynb` file.
        timeout: Seconds allowed per cell. Default 600.
        save: Write the executed notebook back to `path` (atomically). Default False.

    Returns:
        The executed `nbformat.NotebookNode`.

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
