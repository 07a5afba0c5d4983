"""`structsim-nb evaluate` end to end on the committed trajectories/scenarios tree."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from structsim_nb.cli import EXIT_BAD_INPUT, EXIT_FAILURES, EXIT_OK, main

TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"
MODELS = __name__  # the module name pytest imported this file under (tests.cli.test_evaluate)


class Counts(BaseModel):
    """The --schema target; importable by its dotted path (MODELS.Counts)."""

    energy: int | None = None
    material: int | None = None


def _args(reports: Path, *extra: str) -> list[str]:
    return [
        "evaluate",
        "--trajectories",
        str(TREE / "trajectories"),
        "--scenarios",
        str(TREE / "scenarios"),
        "--reports-dir",
        str(reports),
        "--no-progress",
        *extra,
    ]


def test_static_json_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(tmp_path / "r")) == EXIT_FAILURES
    out = capsys.readouterr().out
    assert "scenario-34.json" in out and "Unmatched trajectories:\n  99.json" in out
    assert "Unmatched scenarios:\n  21: no trajectory joins this scenario" in out
    assert "scenario_21: scenario id '21' is already taken" in out
    assert "10 runs scored with static_json: 4 passed (40.0%), 5 errors" in out
    assert f"Page written: {tmp_path / 'r' / '_aggregate.html'}" in out
    written = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert written[0] == "11.json" and {"_aggregate.json", "_aggregate.html"} <= set(written) and len(written) == 12
    assert not [p for p in (tmp_path / "r").iterdir() if p.name.endswith(".tmp")]


def test_reference_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """--scorer-default, several --scenarios paths, --scenario-ids, -v after the command, and generated_at."""
    (tmp_path / "extra.jsonl").write_text(json.dumps({"id": "99", "text": "q", "expected_answer": "42"}) + "\n")
    argv = _args(tmp_path / "r", "--scorer-default", "static_json", "--scenario-ids", "11,99", "-v")
    argv[argv.index(str(TREE / "scenarios")) + 1 : argv.index(str(TREE / "scenarios")) + 1] = [
        str(tmp_path / "extra.jsonl")
    ]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    assert main(argv) == EXIT_FAILURES  # 11 fails, 99 passes
    aggregate = json.loads((tmp_path / "r" / "_aggregate.json").read_text())
    assert aggregate["generated_at"] == "1970-01-02T00:00:00+00:00"
    assert [(r["scenario_id"], r["score"]["passed"]) for r in aggregate["results"]] == [("11", False), ("99", True)]
    out = capsys.readouterr().out
    assert "2 runs scored with static_json: 1 passed (50.0%)" in out and "Reports written: 2 in " in out
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert main([*argv, "--timestamp"]) == EXIT_FAILURES
    stamp = json.loads((tmp_path / "r" / "_aggregate.json").read_text())["generated_at"]
    assert stamp.endswith("+00:00") and stamp[:4] >= "2024"


def test_clean_run_exits_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "5.json").write_text(json.dumps({"run_id": "5", "answer": "Final Answer: {'a': 1}"}))
    (tmp_path / "s" / "scenario_5").mkdir(parents=True)
    (tmp_path / "s" / "scenario_5" / "groundtruth.txt").write_text('{"a": 1}')
    argv = ["evaluate", "--trajectories", str(tmp_path / "t"), "--scenarios", str(tmp_path / "s")]
    assert main([*argv, "--reports-dir", str(tmp_path / "r"), "--no-progress"]) == EXIT_OK
    assert "1 run scored with static_json: 1 passed (100.0%), 0 errors" in capsys.readouterr().out


def test_similarity_with_a_dotted_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_args(tmp_path / "r", "--scorer", "similarity", "--schema", f"{MODELS}.Counts"))
    assert code == EXIT_FAILURES
    report = json.loads((tmp_path / "r" / "11.json").read_text())
    assert report["score"]["scorer"] == "similarity" and report["score"]["score"] == 0.5
    assert "similarity" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--scorer", "llm_judge"], "scorer must be a registered name"),
        (["--scorer", "similarity"], "needs a schema"),
        (["--scorer", "similarity", "--schema", "missing.json"], "JSON Schema"),
    ],
)
def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    assert main(_args(tmp_path / "r", *extra)) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "--trajectories", str(tmp_path / "x"), "--scenarios", str(tmp_path), "--no-progress"]
    assert main(argv) == EXIT_BAD_INPUT
    assert "does not exist" in capsys.readouterr().err


def test_progress_bar_stays_off_the_output_when_not_a_tty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = _args(tmp_path / "r")
    argv.remove("--no-progress")
    assert not sys.stderr.isatty()
    main(argv)
    assert "scoring" not in capsys.readouterr().err


def test_the_summary_says_why_each_run_errored_naming_its_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    main(_args(tmp_path / "r"))
    out = capsys.readouterr().out
    block = out.split("Errors (5 runs not scored):\n", 1)[1].split("\n\n", 1)[0]
    errors = [line for line in block.splitlines() if not line.startswith("      ")]  # wrapped lines are indented
    assert len(errors) == 5
    assert "  14.json -> scenario_14: trajectory file is not JSON" in errors[0]
    assert "  17.json -> scenario_17: scenario folder has no groundtruth.txt" in errors
    # A duplicate scenario id names both places it was found.
    problem = out.split("Problems:\n", 1)[1]
    assert str(TREE / "scenarios" / "21") in problem and str(TREE / "scenarios" / "scenario_21") in problem
