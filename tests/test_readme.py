"""The README's examples run as written: its ```python blocks, and its offline `demo` and `evaluate` commands.

Each Python block runs in a fresh interpreter whose working directory is a temporary copy of the files the block
reads (`recordings/`, `examples/notebooks/`), so anything it writes lands in `tmp_path`. Blocks are compiled with
top-level `await` allowed, as Jupyter runs a cell. Blocks that need something a test cannot have are skipped by
their first line, in `SKIPPED`, with the reason.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELL_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)

# First line of a block -> why it is not run here.
SKIPPED = {
    "from distributed import Client": "needs a running Dask scheduler at the address it names",
}
# What a block may read, relative to the repository root; copied into the block's working directory.
COPIED = ["recordings", "examples/notebooks"]

# Runs a block as Jupyter runs a cell: top-level `await` allowed, the coroutine driven to the end.
RUNNER = """
import ast, asyncio, sys
source = open(sys.argv[1], encoding="utf-8").read()
code = compile(source, "README block", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
result = eval(code, {"__name__": "__main__"})
if asyncio.iscoroutine(result):
    asyncio.run(result)
"""

CLI = "import sys; from structsim_nb.cli import main; sys.exit(main(sys.argv[1:]))"


def python_blocks() -> list[str]:
    return PYTHON_BLOCK.findall(README.read_text(encoding="utf-8"))


def shell_commands() -> list[str]:
    """Every command of the README's ```bash blocks, continuation lines joined, comments dropped."""
    commands = []
    for block in SHELL_BLOCK.findall(README.read_text(encoding="utf-8")):
        for command in block.replace("\\\n", " ").splitlines():
            command = command.split("  #")[0].strip()
            if command and not command.startswith("#"):
                commands.append(" ".join(command.split()))
    return commands


def _block_id(block: str) -> str:
    return block.splitlines()[0]


def test_the_readme_has_the_blocks_this_file_runs() -> None:
    first_lines = [_block_id(block) for block in python_blocks()]
    assert len(first_lines) >= 5, first_lines
    assert set(SKIPPED) <= set(first_lines), f"SKIPPED names a block the README no longer has: {SKIPPED}"


@pytest.mark.parametrize("block", python_blocks(), ids=_block_id)
def test_python_block_runs(block: str, tmp_path: Path) -> None:
    if _block_id(block) in SKIPPED:
        pytest.skip(SKIPPED[_block_id(block)])
    for relative in COPIED:
        shutil.copytree(ROOT / relative, tmp_path / relative)
    script = tmp_path / "readme_block.py"
    script.write_text(block, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"README block failed:\n{block}\n--- stderr ---\n{result.stderr[-3000:]}"


def _cli(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run a README `structsim-nb ...` command from the repository root, with this interpreter."""
    args = shlex.split(command)
    assert args[0] == "structsim-nb", command
    script = Path(sys.executable).parent / "structsim-nb"  # the console script the install put beside python
    program = [str(script)] if script.is_file() else [sys.executable, "-c", CLI]
    return subprocess.run(
        [*program, *args[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _redirected(command: str, old: str, new: Path) -> str:
    """`command` writing to `new` (in `tmp_path`) where the README has it write to `old`."""
    assert old in command, f"the README command no longer writes to {old}: {command}"
    return command.replace(old, shlex.quote(str(new)))


def test_quick_start_demo_writes_the_report(tmp_path: Path) -> None:
    (command,) = [c for c in shell_commands() if "structsim-nb demo" in c]
    command = command.split("&& ")[-1].replace(".venv/bin/", "")
    result = _cli(_redirected(command, "demo-report", tmp_path / "demo-report"), tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "demo-report" / "report.json").is_file()
    assert (tmp_path / "demo-report" / "report.html").is_file()


def test_evaluate_on_the_committed_tree_exits_1_as_documented(tmp_path: Path) -> None:
    (command,) = [c for c in shell_commands() if "tests/data/trajectories_tree" in c]
    result = _cli(_redirected(command, "/tmp/structsim-reports", tmp_path / "reports"), tmp_path)
    # The tree holds failing runs and unmatched records on purpose: exit 1, with every report written.
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "reports" / "_aggregate.json").is_file()


def test_the_compare_example_prints_what_the_readme_quotes(tmp_path: Path) -> None:
    """The figures in the README's abbreviated compare output are what its example computes."""
    text = README.read_text(encoding="utf-8")
    (block,) = [b for b in python_blocks() if b.startswith("from structsim_nb import compare, score_dataset")]
    quoted = text.split(block, 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(
        compile(block.split("\nresult = compare")[0] + "\nresult = compare(before, after)\n", "README", "exec"),
        namespace,
    )
    result = namespace["result"]
    rows = {
        **{row["measure"]: row for row in result.overall_frame().to_dict("records")},
        **{row["path"]: row for row in result.fields_frame().to_dict("records")},
    }
    checked = 0
    for line in quoted.splitlines():
        words = line.split()
        name = " ".join(words[:2]) if line.startswith("pass rate") else (words[0] if words else "")
        if name not in rows or name in ("measure", "path"):
            continue
        numbers = [float(w) for w in words if re.fullmatch(r"[+-]?\d+(\.\d+)?", w)]
        row = rows[name]
        expected = (
            [
                row["baseline"],
                row["candidate"],
                row["delta"],
                row["ci_low"],
                row["ci_high"],
                row["n_cases"],
                row["n_changed"],
            ]
            if "baseline" in row
            else [row["n_cases"], row["n_changed"], row["delta"], row["ci_low"], row["ci_high"]]
        )
        assert numbers[: len(expected)] == [round(float(v), 3) for v in expected], (line, expected)
        assert row["verdict"] in line
        checked += 1
    assert checked >= 4, quoted
