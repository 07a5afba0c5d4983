"""The `Examples:` in every module's docstrings run and show what they say (a broken example misleads a reader)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import structsim_nb

#: Every module of the package, `__main__` aside (importing it runs the command line).
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(structsim_nb.__path__, "structsim_nb.")
    if not info.name.endswith("__main__")
)


def test_the_package_has_examples_to_run() -> None:
    finder = doctest.DocTestFinder()
    examples = sum(len(test.examples) for name in MODULES for test in finder.find(importlib.import_module(name)))
    assert len(MODULES) > 50 and examples > 50


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), report=False, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} fail; run python -m doctest"
