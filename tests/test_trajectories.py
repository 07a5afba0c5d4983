"""Loading, joining and scoring saved trajectories; the scorer registry; bad inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structsim_nb.errors import SchemaLoadError, UnknownScorerError
from structsim_nb.scorers import ScoreResult, get_scorer, register_scorer, score_similarity, scorer_names
from structsim_nb.trajectories import (
    Pair,
    Scenario,
    Trajectory,
    join_records,
    load_scenarios,
    load_trajectories,
    run_evaluation,
    score_pair,
)

TREE = Path(__file__).parent / "data" / "trajectories_tree"


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


class TestLoad:
    def test_tree(self) -> None:
        loaded = {t.file: t for t in load_trajectories(TREE / "trajectories")}
        assert "nested/34.json" in loaded  # recursive
        assert loaded["nested/34.json"].scenario_id is None and loaded["nested/34.json"].stem == "34"
        assert loaded["19.json"].run_id == "19"  # an int run_id is kept as text
        assert "not JSON" in loaded["14.json"].error
        assert "not UTF-8" in loaded["15.json"].error
        assert "no answer" in loaded["16.json"].error

    def test_scenarios(self) -> None:
        scenarios, problems = load_scenarios(TREE / "scenarios")
        by_id = {s.id: s for s in scenarios}
        assert by_id["11"].groundtruth == "{'energy': 14, 'material': 48}" and by_id["11"].folder == "scenario_11"
        assert by_id["13"].evaluation_metadata["mode"] == "clarification"
        assert by_id["17"].error == "scenario folder has no groundtruth.txt"
        assert by_id["21"].folder == "21"
        assert problems == [
            {
                "kind": "duplicate_scenario_id",
                "source": "scenario_21",
                "message": "scenario id '21' is already taken by folder '21'; this folder is not used",
            }
        ]

    def test_invalid_eval_metadata_is_reported_against_its_scenario(self, tmp_path: Path) -> None:
        (tmp_path / "scenario_1").mkdir()
        (tmp_path / "scenario_1" / "groundtruth.txt").write_text('{"a": 1}')
        (tmp_path / "scenario_1" / "groundtruth_eval.json").write_text("{not json")
        (scenario,), _ = load_scenarios(tmp_path)
        assert scenario.error.startswith("groundtruth_eval.json is not valid JSON")

    def test_structured_answer_is_kept_as_json_text(self, tmp_path: Path) -> None:
        (trajectory,) = load_trajectories(_write(tmp_path / "t.json", {"run_id": "1", "answer": {"a": 1}}))
        assert trajectory.answer == '{"a": 1}'

    def test_missing_inputs(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="does not exist"):
            load_trajectories(tmp_path / "nope")
        with pytest.raises(NotADirectoryError, match="not a folder"):
            load_scenarios(tmp_path / "nope")


class TestJoin:
    def test_rules(self) -> None:
        scenarios = [Scenario("11", "scenario_11", "1"), Scenario("12", "scenario_12", "1"), Scenario("9", "9", "1")]
        trajectories = [
            Trajectory("a.json", "a", run_id="x", scenario_id="11"),
            Trajectory("b.json", "b", run_id="12", scenario_id="a descriptive label"),
            Trajectory("11.json", "11", run_id=None, scenario_id=None),
            Trajectory("c.json", "c", run_id="77", scenario_id="78"),
        ]
        pairs, unmatched, unused = join_records(trajectories, scenarios)
        assert [(p.trajectory.file, p.scenario.id, p.joined_by) for p in pairs] == [
            ("a.json", "11", "scenario_id"),
            ("b.json", "12", "run_id"),
            ("11.json", "11", "filename"),
        ]
        assert [t.file for t in unmatched] == ["c.json"] and [s.id for s in unused] == ["9"]


class TestScorePair:
    def test_error_entries_never_raise(self) -> None:
        scenario = Scenario("1", "scenario_1", "{'a':")
        report = score_pair(
            Pair(Trajectory("1.json", "1", answer='{"a": 1}'), scenario, "filename"), scorer="static_json", options={}
        )
        assert report["status"] == "error" and "ground truth" in report["error"]
        assert report["score"] == {
            "scorer": "static_json",
            "passed": False,
            "score": 0.0,
            "rationale": report["error"],
            "details": {},
        }

    def test_deeply_nested_answer_is_an_error_entry(self) -> None:
        deep = "[" * 3000 + "]" * 3000
        pair = Pair(Trajectory("1.json", "1", answer=deep), Scenario("1", "s", '{"a": 1}'), "filename")
        report = score_pair(pair, scorer="static_json", options={})
        assert report["status"] == "scored" and report["score"]["passed"] is False

    def test_several_megabyte_answer(self) -> None:
        answer = "word " * 800_000 + '{"a": 1}'
        pair = Pair(Trajectory("1.json", "1", answer=answer), Scenario("1", "s", '{"a": 1}'), "filename")
        report = score_pair(pair, scorer="static_json", options={})
        assert report["status"] == "scored" and report["score"]["details"]["model_read_as"] == "text"


class TestRegistry:
    def test_builtins(self) -> None:
        assert {"static_json", "similarity"} <= set(scorer_names())

    def test_unknown(self) -> None:
        with pytest.raises(UnknownScorerError, match="Registered: .*static_json"):
            get_scorer("llm_judge")

    def test_register_and_refuse_duplicates(self) -> None:
        def always(gold: str, answer: str, *, evaluation_metadata: object, options: object) -> ScoreResult:
            return ScoreResult("always_test", True, 1.0, "ok", {})

        register_scorer("always_test", always)
        with pytest.raises(ValueError, match="already registered"):
            register_scorer("always_test", always)
        assert get_scorer("always_test")("a", "b", evaluation_metadata=None, options={}).passed

    def test_similarity_needs_a_schema(self) -> None:
        with pytest.raises(SchemaLoadError, match="needs a schema"):
            score_similarity("{}", "{}", options={})
        with pytest.raises(SchemaLoadError, match="dotted path"):
            score_similarity("{}", "{}", options={"schema": "no.such.Model"})

    def test_similarity_with_a_json_schema_file(self, tmp_path: Path) -> None:
        schema = _write(
            tmp_path / "schema.json",
            {
                "title": "Counts",
                "type": "object",
                "properties": {"energy": {"type": "integer"}, "material": {"type": "integer"}},
            },
        )
        result = score_similarity(
            "{'energy': 14, 'material': 48}",
            'Final Answer: {"energy": 14, "material": 48}',
            options={"schema": str(schema)},
        )
        assert result.passed and result.details["read_as"] == {
            "actual_output": "prefixed",
            "expected_output": "python_literal",
        }


class TestRun:
    def test_reports_are_byte_identical_across_runs(self, tmp_path: Path) -> None:
        first = run_evaluation(TREE / "trajectories", TREE / "scenarios", tmp_path / "a")
        second = run_evaluation(TREE / "trajectories", TREE / "scenarios", tmp_path / "b")
        names = sorted(p.name for p in (tmp_path / "a").iterdir())
        assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
        for name in names:
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
        assert first.aggregate == second.aggregate

    def test_aggregate(self, tmp_path: Path) -> None:
        aggregate = run_evaluation(TREE / "trajectories", TREE / "scenarios", tmp_path).aggregate
        assert aggregate["totals"] == {
            "trajectories": 11,
            "scenarios": 12,
            "pairs": 10,
            "scored": 5,
            "errors": 5,
            "passed": 4,
            "pass_rate": 0.4,
        }
        assert [t["file"] for t in aggregate["unmatched_trajectories"]] == ["99.json"]
        assert [s["folder"] for s in aggregate["unmatched_scenarios"]] == ["21", "scenario_20"]
        results = {r["scenario_id"]: r for r in aggregate["results"]}
        assert results["12"]["joined_by"] == "run_id" and results["34"]["joined_by"] == "filename"
        assert results["34"]["report"] == "scenario-34.json" and results["11"]["report"] == "11.json"
        assert "ground truth must parse" in results["18"]["rationale"]
        assert results["17"]["rationale"] == "scenario folder has no groundtruth.txt"
        assert aggregate["score_summary"]["scored_results"] == 5
        report = json.loads((tmp_path / "11.json").read_text())
        assert report["score"]["details"]["missing_keys"] == [] and report["answer"] == '{"energy":14,"material":27}'

    def test_report_name_collisions(self, tmp_path: Path) -> None:
        _write(tmp_path / "t" / "a.json", {"run_id": "r/1", "scenario_id": "1", "answer": "1"})
        _write(tmp_path / "t" / "b.json", {"run_id": "r/1", "scenario_id": "1", "answer": "2"})
        (tmp_path / "s" / "scenario_1").mkdir(parents=True)
        (tmp_path / "s" / "scenario_1" / "groundtruth.txt").write_text("1")
        run = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        assert [p.name for p in run.report_paths] == ["r_1.json", "r_1-1.json"]
        assert run.aggregate["totals"]["passed"] == 1
