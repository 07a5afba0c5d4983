"""Tests for `structsim_nb.cli` itself: --version, help with examples that fit a terminal, logging levels."""

from __future__ import annotations

import importlib.metadata
import multiprocessing
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


def _closed_pipe_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the CLI with standard output a pipe whose reader is already gone, as `| head` leaves it."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "structsim_nb", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            cwd=cwd,
        )
    finally:
        os.close(write)


def test_a_reader_that_went_away_ends_the_run_quietly_with_its_files_written(tmp_path: Path) -> None:
    done = _closed_pipe_run(["demo", "--out", "d"], tmp_path)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
    assert sorted(path.name for path in (tmp_path / "d").iterdir()) == ["report.html", "report.json"]
    compared = _closed_pipe_run(["compare", "d/report.json", "d/report.json", "--out", "c"], tmp_path)
    assert compared.returncode == 141, compared.stderr
    assert "Traceback" not in compared.stderr
    assert sorted(path.name for path in (tmp_path / "c").iterdir()) == ["comparison.html", "comparison.json"]


@pytest.mark.parametrize("command", ["demo", "compare"])
def test_an_out_that_cannot_be_a_folder_is_bad_input(command: str, tmp_path: Path, capsys) -> None:
    taken = tmp_path / "taken"
    taken.write_text("mine")
    if command == "demo":
        code = main(["demo", "--out", str(taken)])
    else:
        assert main(["demo", "--out", str(tmp_path / "d")]) == 0
        report = str(tmp_path / "d" / "report.json")
        capsys.readouterr()
        code = main(["compare", report, report, "--out", str(taken / "below")])
    captured = capsys.readouterr()
    assert code == 2
    assert (
        "--out must be a folder" in captured.err
        and repr(str(taken if command == "demo" else taken / "below")) in captured.err
    )
    assert "Pass another --out" in captured.err
    assert captured.out == "" and taken.read_text() == "mine"


@pytest.mark.parametrize("command", COMMANDS)
def test_verbose_goes_before_or_after_the_command(command: str) -> None:
    from structsim_nb.cli import build_parser

    required = {
        "record": ["r.json", "--schema", "m:C"],
        "compare": ["a", "b"],
        "evaluate": ["--trajectories", "t", "--scenarios", "s"],
    }.get(command, [])
    parser = build_parser()
    assert parser.parse_args([command, *required, "-v"]).verbose == 1
    assert parser.parse_args(["-vv", command, *required]).verbose == 2
    assert parser.parse_args([command, *required]).verbose == 0


def test_the_installed_script_imports_a_schema_module_from_the_working_directory(tmp_path: Path) -> None:
    """`--schema myapp.models.Counts` as the README writes it, run from the project folder with the console script."""
    import shutil

    script = shutil.which("structsim-nb", path=str(Path(sys.executable).parent))
    assert script, "the structsim-nb console script is not installed next to this Python"
    (tmp_path / "myapp").mkdir()
    (tmp_path / "myapp" / "__init__.py").write_text("")
    (tmp_path / "myapp" / "models.py").write_text(
        "from pydantic import BaseModel\n\nclass Counts(BaseModel):\n    energy: int | None = None\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [script, "evaluate", "--trajectories", str(TREE / "trajectories"), "--scenarios", str(TREE / "scenarios")]
        + ["--scorer", "similarity", "--schema", "myapp.models.Counts", "--reports-dir", "r", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 1, done.stderr  # some runs fail; the schema loaded (bad input would be 2)
    assert "with similarity:" in done.stdout


@pytest.mark.skipif("spawn" not in multiprocessing.get_all_start_methods(), reason="spawn")
def test_workers_that_cannot_start_end_the_command_with_one_line_and_code_3(tmp_path: Path) -> None:
    """Spawned workers run the main script again; one read from standard input cannot be. The command says so in
    one line (no traceback, no document blamed) and exits 3."""
    script = (
        "import multiprocessing, sys\n"
        "from structsim_nb.cli import main\n"
        "multiprocessing.set_start_method('spawn', force=True)\n"
        f"sys.exit(main(['demo', '--out', {str(tmp_path / 'out')!r}, '--workers', '2']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-"], input=script, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 3, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: worker processes must start to score on them;")
    assert "<stdin>' is not a file" in last
    assert "Traceback" not in done.stderr.split("error: worker processes")[-1]
    assert not (tmp_path / "out").exists()
