"""The package type-checks clean under the project's mypy settings (what `nox -s typecheck` runs).

mypy runs in a subprocess with its cache in `tmp_path`, so each run is cold (seconds, not minutes)
and nothing is written to the repository.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_package_type_checks_clean(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason='mypy is a dev dependency; install it with: pip install -e ".[dev]"')
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy_cache"),
            "structsim_nb",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"mypy must report no errors; got:\n{result.stdout}{result.stderr}"
