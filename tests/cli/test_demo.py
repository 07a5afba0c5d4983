"""Tests for `structsim_nb.cli`. Each command's tests are named `test_<command>_...`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from structsim_nb import StructuredOutputReport
from structsim_nb.cli import EXIT_OK, main
from structsim_nb.demo import reference_cases

CASE_NAMES = [case.name for case in reference_cases()]


def _assert_demo_output(stdout: str, out: Path) -> None:
    for heading in ("Per case", "Per field, worst first", "Non-matches"):
        assert heading in stdout
    for name in CASE_NAMES:
        assert name in stdout
    for column in ("status", "precision", "recall", "mean_score", "kind", "expected", "predicted"):
        assert column in stdout
    assert "line_items.sku" in stdout
    assert "6 cases, 5 passed, overall score 0.752" in stdout
    assert str(out / "report.json") in stdout
    assert str(out / "report.html") in stdout


def test_demo_prints_tables_and_writes_report(tmp_path, capsys):
    out = tmp_path / "x"
    assert main(["demo", "--out", str(out)]) == EXIT_OK
    _assert_demo_output(capsys.readouterr().out, out)
    report = StructuredOutputReport.from_file(out / "report.json")
    assert [entry["case"] for entry in report.per_case()] == CASE_NAMES
    assert report.metrics().document_count == 6
    assert len(report.non_matches_frame()) == 9
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "structsim-nb reference evaluation" in page
    assert sorted(path.name for path in out.iterdir()) == ["report.html", "report.json"]


def test_demo_overwrites_an_earlier_run_with_the_same_bytes(tmp_path, capsys):
    out = tmp_path / "x"
    main(["demo", "--out", str(out)])
    first = (out / "report.json").read_bytes()
    main(["demo", "--out", str(out)])
    assert (out / "report.json").read_bytes() == first
    capsys.readouterr()


def test_demo_requires_a_command(capsys):
    with pytest.raises(SystemExit) as caught:
        main([])
    assert caught.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_demo_console_script(tmp_path):
    script = shutil.which("structsim-nb", path=str(Path(sys.executable).parent))
    assert script, "the structsim-nb console script is not installed next to this Python"
    out = tmp_path / "out"
    done = subprocess.run(
        [script, "demo", "--out", str(out)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == EXIT_OK, done.stderr
    _assert_demo_output(done.stdout, out)
    assert StructuredOutputReport.from_file(out / "report.json").summary()["cases"] == 6
    assert (out / "report.html").is_file()
