"""Tests for `structsim_nb.cli` itself: --version, help with examples that fit a terminal, logging levels."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

from structsim_nb.cli import main

COMMANDS = ["demo", "record", "record-fcc", "evaluate", "compare"]
TREE = Path(__file__).resolve().parent.parent / "data" / "trajectories_tree"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"structsim-nb {importlib.metadata.version('structsim-nb')}"


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_has_examples_and_fits_an_80_column_terminal(
    command: str | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main([command, "--help"] if command else ["--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "structsim-nb " in text.split("examples:", 1)[1]
    too_wide = [line for line in text.splitlines() if len(line) > 80]
    assert not too_wide, f"help lines wider than the terminal: {too_wide}"


def test_demo_tables_fit_a_narrow_terminal(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "structsim_nb", "demo", "--out", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    too_wide = [line for line in done.stdout.splitlines()[:-1] if len(line) > 80]  # the last line names two paths
    assert not too_wide, too_wide
    assert "2024-03-15" in done.stdout  # a short value is never cut


def test_no_library_info_lines_without_verbose(tmp_path: Path) -> None:
    # strands_evals sets the root logger to INFO on import; the command line still prints warnings only.
    args = ["evaluate", "--trajectories", str(TREE / "trajectories"), "--scenarios", str(TREE / "scenarios")]
    quiet = subprocess.run(
        [sys.executable, "-m", "structsim_nb", *args, "--reports-dir", str(tmp_path / "q"), "--no-progress"],
        capture_output=True,
        text=True,
    )
    assert "INFO" not in quiet.stderr
    loud = subprocess.run(
        [sys.executable, "-m", "structsim_nb", "-v", *args, "--reports-dir", str(tmp_path / "l"), "--no-progress"],
        capture_output=True,
        text=True,
    )
    assert "INFO structsim_nb.trajectories.runner" in loud.stderr
