"""Shared test fixtures. Keep this file generic: fixtures here serve every test module."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser import launch, require_chromium
from helpers import run_pairs

RunExperiment = Callable[..., Any]


@pytest.fixture
def run_experiment() -> RunExperiment:
    """`run_pairs`, as a fixture."""
    return run_pairs


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Chromium (Debian's, through playwright) for one test module; see `browser`.

    Module-scoped, and to be requested after the fixtures that score: playwright's sync API runs an
    event loop in this thread while it is open, so `asyncio.run` (a Strands `Experiment`) fails
    until it closes at the end of the module.
    """
    sync_api = require_chromium()
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()
