"""Shared test fixtures. Keep this file generic: fixtures here serve every test module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from helpers import run_pairs

RunExperiment = Callable[..., Any]


@pytest.fixture
def run_experiment() -> RunExperiment:
    """`run_pairs`, as a fixture."""
    return run_pairs
