"""The `--schema` argument: load the Pydantic class it names, and name a class the way `--schema` takes it."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from pydantic import BaseModel

__all__ = ["load_schema", "schema_reference"]

#: Modules `load_schema` creates for `path/to/file.py:Class` are named with this prefix.
_FILE_MODULE_PREFIX = "_structsim_schema_"


def load_schema(spec: str) -> type[BaseModel]:
    """The Pydantic class named by `module.path:Class` or `path/to/file.py:Class`.

    Raises:
        ValueError: If `spec` is malformed, cannot be imported, or is not a Pydantic model.
    """
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name:
        raise ValueError(f"--schema must be MODULE:CLASS or FILE.py:CLASS; got {spec!r}")
    try:
        if target.endswith(".py"):
            file = Path(target)
            module_name = _FILE_MODULE_PREFIX + file.stem
            module_spec = importlib.util.spec_from_file_location(module_name, file)
            if module_spec is None or module_spec.loader is None or not file.is_file():
                raise ImportError(f"no Python file at {file}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_spec.name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except Exception as exc:
        raise ValueError(
            f"--schema {spec!r} must be importable; got {type(exc).__name__}: {exc}. A module is imported from the "
            "working directory or PYTHONPATH; a file is named by its path (path/to/models.py:Class)"
        ) from None
    cls = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        raise ValueError(f"--schema {spec!r} must name a Pydantic model class; got {cls!r}")
    return cls


def schema_reference(schema: type[BaseModel]) -> str:
    """How `--schema` names `schema`: `module:Class`, or `path/to/file.py:Class` for a class loaded from a file.

    A file path is written relative to the working directory when the file is inside it (so a
    command stored in a committed recording works from the repository root), else absolute.

    Examples:
        >>> from structsim_nb.demo import Invoice
        >>> schema_reference(Invoice)
        'structsim_nb.demo:Invoice'
    """
    module = sys.modules.get(schema.__module__)
    file = getattr(module, "__file__", None)
    if schema.__module__.startswith(_FILE_MODULE_PREFIX) or schema.__module__ == "__main__":
        if file:
            path = Path(file).resolve()
            try:
                shown = path.relative_to(Path.cwd().resolve()).as_posix()
            except ValueError:
                shown = str(path)
            return f"{shown}:{schema.__qualname__}"
    return f"{schema.__module__}:{schema.__qualname__}"
