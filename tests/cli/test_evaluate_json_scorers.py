"""End-to-end tests of `structsim-nb evaluate --scorer` with the JSON match scorers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structsim_nb.cli import EXIT_BAD_INPUT, EXIT_FAILURES, main

SEED_GT = {"name": "John Doe", "email": "john@example.com", "address": {"city": "New York", "zip": "10001"}}
SEED_OUT = {"name": "John Doe", "email": "jane@example.com", "address": {"city": "New York", "zip": "10002"}}
FIELDS = ["name", "email", "address.city", "address.zip"]
COMMITTED_TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"


def _tree(root: Path) -> tuple[Path, Path]:
    """Two runs: the seed example as a fenced block, and an answer with no JSON in it."""
    trajectories, scenarios = root / "trajectories", root / "scenarios"
    trajectories.mkdir()
    answers = {"1": "Sure:\n```json\n" + json.dumps(SEED_OUT) + "\n```", "2": "I do not know."}
    truths = {"1": json.dumps(SEED_GT), "2": "{'name': 'Ada'}"}  # a Python-literal ground truth too
    for run, answer in answers.items():
        (trajectories / f"{run}.json").write_text(json.dumps({"run_id": run, "scenario_id": run, "answer": answer}))
        (scenarios / f"scenario_{run}").mkdir(parents=True)
        (scenarios / f"scenario_{run}" / "groundtruth.txt").write_text(truths[run])
    return trajectories, scenarios


def _evaluate(tmp_path: Path, *extra: str) -> tuple[int, Path]:
    trajectories, scenarios = _tree(tmp_path)
    reports = tmp_path / "reports"
    argv = ["evaluate", "--trajectories", str(trajectories), "--scenarios", str(scenarios)]
    code = main([*argv, "--reports-dir", str(reports), "--no-progress", *extra])
    return code, reports


def test_field_match_writes_per_field_detail(tmp_path, capsys):
    code, reports = _evaluate(tmp_path, "--scorer", "json_field_match", "--fields", *FIELDS, "--threshold", "0.5")
    assert code == EXIT_FAILURES  # run 2 fails
    out = capsys.readouterr().out
    assert "2 runs with json_field_match: 1 passed" in out
    first = json.loads((reports / "1.json").read_text())["score"]
    assert first["score"] == 0.5 and first["passed"]
    assert first["details"]["field_scores"] == {"name": 1.0, "email": 0.0, "address.city": 1.0, "address.zip": 0.0}
    assert first["details"]["evaluated_by"] == "json_match:json_field_match"
    second = json.loads((reports / "2.json").read_text())["score"]
    assert second["score"] == 0.0 and "output is not JSON" in second["rationale"]


@pytest.mark.parametrize(
    ("scorer", "extra", "scores"),
    [
        ("json_diff", [], (0.5, 0.0)),
        ("json_diff", ["--threshold", "0"], (0.5, 0.0)),
        ("exact_match", [], (0.0, 0.0)),
        ("contains_json", [], (1.0, 0.0)),
    ],
)
def test_other_scorers(tmp_path, capsys, scorer, extra, scores):
    code, reports = _evaluate(tmp_path, "--scorer", scorer, *extra)
    assert code == EXIT_FAILURES
    got = tuple(json.loads((reports / f"{run}.json").read_text())["score"]["score"] for run in ("1", "2"))
    assert got == scores
    assert f"with {scorer}: " in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra",
    [
        ["--scorer", "json_field_match"],
        ["--scorer", "json_field_match", "--fields", "a[x]"],
        ["--scorer", "json_diff", "--threshold", "2"],
    ],
)
def test_bad_options_are_bad_input(tmp_path, capsys, extra):
    code, reports = _evaluate(tmp_path, *extra)
    assert code == EXIT_BAD_INPUT
    assert capsys.readouterr().err.startswith("error: ")
    assert not reports.exists()


def test_committed_tree(tmp_path, capsys):
    argv = ["evaluate", "--trajectories", str(COMMITTED_TREE / "trajectories")]
    argv += ["--scenarios", str(COMMITTED_TREE / "scenarios"), "--reports-dir", str(tmp_path), "--no-progress"]
    assert main([*argv, "--scorer", "json_diff"]) in (0, EXIT_FAILURES)
    aggregate = json.loads((tmp_path / "_aggregate.json").read_text())
    assert aggregate["scorer"] == "json_diff" and aggregate["results"]
    assert "with json_diff: " in capsys.readouterr().out


def test_null_is_a_value_restores_the_strict_reading(tmp_path, capsys):
    trajectories, scenarios = tmp_path / "trajectories", tmp_path / "scenarios"
    trajectories.mkdir()
    (scenarios / "scenario_1").mkdir(parents=True)
    answer = json.dumps({"name": "Ada", "email": None})  # a Pydantic model_dump() of an unset optional field
    (trajectories / "1.json").write_text(json.dumps({"run_id": "1", "scenario_id": "1", "answer": answer}))
    (scenarios / "scenario_1" / "groundtruth.txt").write_text(json.dumps({"name": "Ada"}))
    argv = ["evaluate", "--trajectories", str(trajectories), "--scenarios", str(scenarios), "--no-progress"]
    argv += ["--scorer", "json_field_match", "--fields", "name", "email"]
    assert main([*argv, "--reports-dir", str(tmp_path / "lenient")]) == 0
    assert main([*argv, "--reports-dir", str(tmp_path / "strict"), "--null-is-a-value"]) == EXIT_FAILURES
    strict = json.loads((tmp_path / "strict" / "1.json").read_text())["score"]
    assert strict["details"]["field_scores"] == {"name": 1.0, "email": 0.0}
    capsys.readouterr()
