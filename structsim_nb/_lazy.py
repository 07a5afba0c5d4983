"""Public names a package imports on first use (PEP 562): one `__getattr__` and `__dir__` for every such package.

A package assigns both at its top level, after `__all__`:
`__getattr__, __dir__ = lazy_exports(__name__, {"Name": ".module"}, globals(), __all__)`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any], public: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` of `package`, importing each of `exports` on first use.

    Args:
        package: The package's `__name__` (relative module names resolve against it).
        exports: Public name -> the module that defines it (`".evaluators"`).
        namespace: The package's `globals()`; a name, once imported, is cached there, so later
            reads never reach `__getattr__`.
        public: The package's `__all__`, listed by `dir()` before anything is imported.

    Returns:
        `(__getattr__, __dir__)`, to assign at the package's top level. `__getattr__` raises
        `AttributeError` for a name `exports` does not hold, as a module does.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
