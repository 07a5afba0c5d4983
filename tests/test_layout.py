"""The package layout: the folder listing reads as the architecture, and imports run one way (no cycles)."""

from __future__ import annotations

import ast
from pathlib import Path

import structsim_nb

PACKAGE = Path(structsim_nb.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, target] if target else base)


def _edges(modules: dict[str, Path], *, top_level_only: bool) -> dict[str, set[str]]:
    """Module -> modules of this package it imports (at import time only, when `top_level_only`)."""
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {  # `if TYPE_CHECKING:` imports never run, so they cannot make a cycle
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
            for statement in block.body
            for node in ast.walk(statement)
        }
        nodes = [n for n in (tree.body if top_level_only else ast.walk(tree)) if id(n) not in typing_only]
        for node in nodes:
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            target = _resolve(name, path.name == "__init__.py", node.level, node.module)
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                found = candidate if candidate in modules else target
                if found in modules and found != name:
                    edges[name].add(found)
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_at_import_time() -> None:
    cycle = _cycle(_edges(_modules(), top_level_only=True))
    assert cycle is None, f"modules must import one way; found the cycle {' -> '.join(cycle or [])}"


def test_no_import_cycle_even_counting_deferred_imports() -> None:
    # A function-level import that points back is a cycle waiting to happen (json_scorers <-> scorers was one).
    modules = _modules()
    edges = _edges(modules, top_level_only=False)
    for name, path in modules.items():  # a package's __init__ importing its own modules is how re-exports work
        if path.name == "__init__.py":
            edges[name] = {target for target in edges[name] if not target.startswith(name + ".")}
    cycle = _cycle(edges)
    assert cycle is None, f"modules must import one way; found the cycle {' -> '.join(cycle or [])}"


def test_each_integration_has_its_own_folder() -> None:
    folders = {path.name for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    assert {"replay", "json_match", "trajectories", "fcc", "cli", "comparison", "plot", "display", "engine"} <= folders


def test_tests_mirror_the_package_folders() -> None:
    for folder in ("replay", "json_match", "trajectories", "fcc", "cli", "comparison", "plot", "display", "engine"):
        modules = {p.stem for p in (PACKAGE / folder).glob("*.py") if not p.stem.startswith("_")}
        tested = {p.stem.removeprefix("test_") for p in (TESTS / folder).glob("test_*.py")}
        assert tested, f"tests/{folder}/ must hold the tests of structsim_nb/{folder}/"
        assert tested & modules, f"tests/{folder}/ must be named after the modules of structsim_nb/{folder}/"
