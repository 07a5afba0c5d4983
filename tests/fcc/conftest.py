"""Fixtures shared by the FCC tests: a private datasets cache and the loaded sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from structsim_nb.fcc import FCCDocument, load_fcc


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "hf-cache"


@pytest.fixture
def sample(cache: Path) -> list[FCCDocument]:
    return load_fcc("sample", cache_dir=cache)
