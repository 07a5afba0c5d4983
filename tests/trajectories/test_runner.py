"""run_evaluation: the reports and the aggregate, the scorer registry, and one poisoned file never ending a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import write_json

from structsim_nb.errors import SchemaLoadError, UnknownScorerError
from structsim_nb.trajectories.runner import run_evaluation
from structsim_nb.trajectories.scorers import ScoreResult, get_scorer, register_scorer, score_similarity, scorer_names

TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"


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
        schema = write_json(
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
            "scenarios": 10,
            "scored": 5,
            "passed": 4,
            "pass_rate": 0.4,
            "errors": 5,
            "trajectories": 11,
            "scenarios_loaded": 12,
            "excluded": 0,
        }
        assert aggregate["generated_at"] is None and aggregate["scenario_ids"] is None
        assert aggregate["runners"] == ["direct-llm-agent"]
        assert aggregate["models"] == ["litellm_proxy/Azure/gpt-5-mini-2025-08-07"]
        assert aggregate["by_scenario_type"] == {"structured": {"total": 10, "passed": 4, "pass_rate": 0.4}}
        assert aggregate["ops"] == {
            "tokens_in_total": 320,
            "tokens_out_total": 45,
            "duration_ms_p50": 650.0,
            "duration_ms_p95": 650.0,
            "tool_calls_total": 3,
            "est_cost_usd_total": 0.0012,
        }
        assert [t["file"] for t in aggregate["unmatched_trajectories"]] == ["99.json"]
        # id 21 twice: the last folder is used
        assert [s["folder"] for s in aggregate["unmatched_scenarios"]] == ["scenario_21", "scenario_20"]
        results = {r["scenario_id"]: r for r in aggregate["results"]}
        assert results["12"]["joined_by"] == "run_id" and results["34"]["joined_by"] == "filename"
        assert results["34"]["report"] == "scenario-34.json" and results["11"]["report"] == "11.json"
        assert "ground truth must parse" in results["18"]["score"]["rationale"]
        assert results["17"]["score"]["rationale"] == "scenario folder has no groundtruth.txt"
        report = json.loads((tmp_path / "11.json").read_text())
        assert report["score"]["details"]["missing_keys"] == [] and report["answer"] == '{"energy":14,"material":27}'
        # the upstream ScenarioResult fields in the per-run report; the aggregate's results keep all but the
        # answer and the score's details, unless asked for them (full_results)
        for key in ("scenario_id", "scenario_type", "run_id", "runner", "model", "question", "answer", "score", "ops"):
            assert key in report and (key in results["11"] or key == "answer")
        assert set(report["score"]) == {"scorer", "passed", "score", "rationale", "details"}
        assert set(results["11"]["score"]) == {"scorer", "passed", "score", "rationale"}
        assert report["score"]["rationale"].startswith("structured answer differs from ground truth")
        assert report["format_version"] == 1 and aggregate["format_version"] == 1
        for key, value in results["11"].items():
            assert key == "report" or value == (report[key] if key != "score" else results["11"]["score"])
        full = run_evaluation(TREE / "trajectories", TREE / "scenarios", tmp_path, full_results=True).aggregate
        assert {k: v for k, v in full["results"][0].items() if k != "report"} == json.loads(
            (tmp_path / full["results"][0]["report"]).read_text()
        )
        assert full["full_results"] and not aggregate["full_results"]
        assert json.loads((tmp_path / "scenario-34.json").read_text())["answer"] == "The answer is 34."
        summary = aggregate["score_summary"]
        assert summary["scored_results"] == 5 and summary["car_score_avg"] == 1.0
        assert summary["range_match_accuracy_avg"] == 0.0 and summary["mode_optional_term_coverage_avg"] == 1.0
        assert summary["missing_keys_total"] == 0 and summary["extra_keys_total"] == 0
        assert summary["detail_entries_total"] == sum(
            len(json.loads((tmp_path / r["report"]).read_text())["score"]["details"].get("details", []))
            for r in aggregate["results"]
        )

    def test_scenario_ids_and_generated_at(self, tmp_path: Path) -> None:
        run = run_evaluation(
            TREE / "trajectories", TREE / "scenarios", tmp_path, scenario_ids=["11", "34", "404"], generated_at="T"
        )
        aggregate = run.aggregate
        assert [r["scenario_id"] for r in aggregate["results"]] == ["11", "34"]
        assert aggregate["totals"]["excluded"] == 8 and aggregate["unmatched_scenarios"] == []
        assert [t["file"] for t in aggregate["unmatched_trajectories"]] == ["99.json"]
        assert aggregate["problems"][-1]["message"] == "scenario id '404' matches no scenario"
        assert aggregate["generated_at"] == "T" and aggregate["scenario_ids"] == ["11", "34", "404"]

    def test_report_name_collisions(self, tmp_path: Path) -> None:
        write_json(tmp_path / "t" / "a.json", {"run_id": "r/1", "scenario_id": "1", "answer": "1"})
        write_json(tmp_path / "t" / "b.json", {"run_id": "r/1", "scenario_id": "1", "answer": "2"})
        (tmp_path / "s" / "scenario_1").mkdir(parents=True)
        (tmp_path / "s" / "scenario_1" / "groundtruth.txt").write_text("1")
        run = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        assert [p.name for p in run.report_paths] == ["r_1.json", "r_1-1.json"]
        assert run.aggregate["totals"]["passed"] == 1


def _scenario(root: Path, scenario_id: str, truth: str = '{"a": 1}') -> None:
    (root / f"scenario_{scenario_id}").mkdir(parents=True, exist_ok=True)
    (root / f"scenario_{scenario_id}" / "groundtruth.txt").write_text(truth)


class TestHostileInput:
    """One poisoned file never ends a run; everything found is in the aggregate with its reason."""

    def test_a_lone_surrogate_answer_is_scored_and_written(self, tmp_path: Path) -> None:
        (tmp_path / "t").mkdir()
        (tmp_path / "t" / "1.json").write_text('{"run_id": "1", "answer": "\\ud800 {\\"a\\": 1}"}')
        _scenario(tmp_path / "s", "1")
        run = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        report = json.loads((tmp_path / "r" / "1.json").read_bytes().decode("utf-8"))  # valid UTF-8 JSON
        assert report["answer"] == '\ud800 {"a": 1}' and report["score"]["passed"]
        assert run.aggregate["totals"]["passed"] == 1

    def test_an_answer_nested_hundreds_of_levels_deep_is_scored_and_shown_as_its_text(self, tmp_path: Path) -> None:
        # The page's conversion recursed without a limit: RecursionError ended the whole run, nothing written.
        # The page now shows JSON as the answer readers read it: deeper than MAX_DEPTH, it is text, whole,
        # on every Python (3.11's json.loads reads 500 levels, 3.13's 5,000).
        (tmp_path / "t").mkdir()
        deep = "[" * 500 + "]" * 500
        (tmp_path / "t" / "2.json").write_text('{"scenario_id": "1", "run_id": "2", "answer": ' + deep + "}")
        _scenario(tmp_path / "s", "1")
        run = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        (result,) = run.aggregate["results"]
        assert result["status"] == "scored" and not result["score"]["passed"]
        assert deep in (tmp_path / "r" / "_aggregate.html").read_text(encoding="utf-8")

    def test_ops_numbers_past_the_float_range_end_no_run(self, tmp_path: Path) -> None:
        # Their sum raised OverflowError in the aggregate: the whole run ended and wrote nothing.
        for index, tokens in enumerate([10**308, 10**308, 1.5]):
            record = {"scenario_id": "1", "run_id": str(index), "answer": "{'a': 1}", "tokens_in": tokens}
            write_json(tmp_path / "t" / f"{index}.json", record)
        _scenario(tmp_path / "s", "1")
        run = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        assert run.aggregate["totals"]["passed"] == 3 and run.aggregate["ops"]["tokens_in_total"] is None

    def test_lone_surrogates_in_names_and_fields_end_no_run(self, tmp_path: Path) -> None:
        # A file name that is not UTF-8, or a model holding a "\ud800" escape, reached the page's frames, which
        # pandas 3 keeps in pyarrow: UnicodeEncodeError ended the whole run, nothing written. The page shows
        # both as their escapes (with pandas 2, which holds them, the page's writer escapes them).
        (tmp_path / "t").mkdir()
        (tmp_path / "t" / "1.json").write_text('{"run_id": "1", "model": "m\\ud800", "answer": "{\'a\': 1}"}')
        with open(os.path.join(os.fsencode(tmp_path / "t"), b"caf\xe9.json"), "wb") as handle:
            handle.write(b'{"run_id": "9", "answer": "1"}')
        _scenario(tmp_path / "s", "1")
        run = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        assert run.aggregate["totals"]["passed"] == 1
        assert [item["file"] for item in run.aggregate["unmatched_trajectories"]] == ["caf\udce9.json"]
        page = (tmp_path / "r" / "_aggregate.html").read_text(encoding="utf-8")
        assert "caf\\udce9.json" in page and "m\\ud800" in page

    def test_long_and_odd_run_ids_make_safe_unique_names(self, tmp_path: Path) -> None:
        ids = ["x" * 300, "x" * 300 + "y", "CON", "../../etc/passwd", "a/b", "a_b", "", "é"]
        for index, run_id in enumerate(ids):
            write_json(tmp_path / "t" / f"{index}.json", {"run_id": run_id, "scenario_id": "1", "answer": "{'a': 1}"})
        _scenario(tmp_path / "s", "1")
        run = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        names = [r["report"] for r in run.aggregate["results"]]
        assert len(set(names)) == len(ids) and all(len(name) <= 105 for name in names)
        safe = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        assert all(set(name) <= safe for name in names)
        assert names[2] == "_CON.json" and names[3] == "etc_passwd.json" and names[6] == "scenario-1.json"
        assert sorted(p.name for p in (tmp_path / "r").iterdir()) == sorted(
            [*names, "_aggregate.html", "_aggregate.json"]
        )

    def test_unreadable_and_deep_scenarios_are_entries_and_problems(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from structsim_nb.trajectories import scenarios

        for scenario_id in ("1", "2"):
            write_json(tmp_path / "t" / f"{scenario_id}.json", {"run_id": scenario_id, "answer": "{'a': 1}"})
            _scenario(tmp_path / "s", scenario_id)
        lines = [json.dumps({"id": "3", "expected_answer": "x"}), '{"id": "4", "x": ' + "[" * 100_000 + "]" * 100_000]
        (tmp_path / "more.jsonl").write_text("\n".join(lines) + "\n" + "{not json\n")
        real = scenarios.read_text

        def read_text(path: str | Path) -> str:
            if Path(path) == tmp_path / "s" / "scenario_2" / "groundtruth.txt":
                raise PermissionError(13, "Permission denied")
            return real(path)

        monkeypatch.setattr(scenarios, "read_text", read_text)
        run = run_evaluation(tmp_path / "t", [tmp_path / "s", tmp_path / "more.jsonl"], tmp_path / "r")
        results = {r["scenario_id"]: r for r in run.aggregate["results"]}
        assert results["1"]["status"] == "scored"
        assert results["2"]["error"] == "groundtruth.txt cannot be read: Permission denied"
        problems = {p["source"]: p["message"] for p in run.aggregate["problems"]}
        assert problems[f"{tmp_path / 'more.jsonl'}:2"] == "line 2 nests too deeply to read"
        assert problems[f"{tmp_path / 'more.jsonl'}:3"].startswith("line 3 is not JSON")
        assert [s["scenario_id"] for s in run.aggregate["unmatched_scenarios"]] == ["3"]

    def test_links_folders_and_hidden_files_all_appear(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        t = tmp_path / "t"
        write_json(t / "1.json", {"run_id": "1", "answer": "{'a': 1}"})
        write_json(t / "locked" / "2.json", {"run_id": "2", "answer": "{'a': 1}"})
        (t / "3.json").symlink_to(t / "missing.json")
        (t / "loop.json").symlink_to(t / "loop.json")
        (t / "up").symlink_to(t)
        write_json(t / ".draft.json", {})
        for scenario_id in ("1", "2", "3"):
            _scenario(tmp_path / "s", scenario_id)
        real = os.scandir
        monkeypatch.setattr(os, "scandir", lambda p: _refuse(p) if Path(str(p)).name == "locked" else real(p))
        aggregate = run_evaluation(t, tmp_path / "s", tmp_path / "r").aggregate
        results = {r["scenario_id"]: r for r in aggregate["results"]}
        assert results["1"]["status"] == "scored" and "broken symbolic link" in results["3"]["error"]
        unmatched = {u["file"]: u["error"] for u in aggregate["unmatched_trajectories"]}
        assert "folder cannot be read (Permission denied)" in unmatched["locked/"]
        assert "cannot be followed" in unmatched["loop.json"] and "not followed" in unmatched["up/"]
        assert aggregate["skipped"] == [{"file": ".draft.json", "reason": "hidden file (its name starts with '.')"}]
        assert [s["scenario_id"] for s in aggregate["unmatched_scenarios"]] == ["2"]

    def test_an_unreadable_trajectories_root_is_an_error(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        (tmp_path / "t").mkdir()
        monkeypatch.setattr(os, "scandir", _refuse)
        with pytest.raises(PermissionError, match="--trajectories folder .* cannot be read: Permission denied"):
            run_evaluation(tmp_path / "t", tmp_path, tmp_path / "r")

    def test_a_scorer_that_raises_anything_is_an_error_entry(self, tmp_path: Path) -> None:
        def broken(gold: str, answer: str, *, evaluation_metadata: object, options: object) -> ScoreResult:
            if answer == "boom":
                raise KeyError("a bug in the scorer")
            return ScoreResult("broken_test", True, 1.0, "ok", {})

        register_scorer("broken_test", broken, replace=True)
        write_json(tmp_path / "t" / "1.json", {"run_id": "1", "answer": "boom"})
        write_json(tmp_path / "t" / "2.json", {"run_id": "2", "answer": "fine"})
        for scenario_id in ("1", "2"):
            _scenario(tmp_path / "s", scenario_id)
        aggregate = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r", scorer="broken_test").aggregate
        errors = {r["scenario_id"]: r["error"] for r in aggregate["results"]}
        assert errors == {"1": "the scorer raised KeyError: 'a bug in the scorer'", "2": None}

    def test_a_report_that_cannot_be_written_is_an_error_entry(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from structsim_nb.trajectories.reports_dir import ReportsFolder

        for scenario_id in ("1", "2"):
            write_json(tmp_path / "t" / f"{scenario_id}.json", {"run_id": scenario_id, "answer": "{'a': 1}"})
            _scenario(tmp_path / "s", scenario_id)
        real = ReportsFolder.write

        def write(self: ReportsFolder, name: str, data: bytes) -> Path:
            if name == "1.json":
                raise OSError(28, "No space left on device")
            return real(self, name, data)

        monkeypatch.setattr(ReportsFolder, "write", write)
        aggregate = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r").aggregate
        first = aggregate["results"][0]
        assert first["report"] is None and first["status"] == "error" and "No space left" in first["error"]
        assert aggregate["totals"]["errors"] == 1 and aggregate["totals"]["passed"] == 1

    def test_reports_inside_the_trajectories_folder_are_not_read_back(self, tmp_path: Path) -> None:
        write_json(tmp_path / "t" / "1.json", {"run_id": "1", "answer": "{'a': 1}"})
        _scenario(tmp_path / "s", "1")
        first = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "t" / "reports").aggregate
        second = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "t" / "reports").aggregate
        assert first["totals"] == second["totals"] and second["totals"]["trajectories"] == 1
        assert second["skipped"] == [{"file": "reports/", "reason": "a folder this run writes its reports to"}]
        assert first["skipped"] == second["skipped"]  # (the same inputs, the same aggregate)

        # Written elsewhere next time, the earlier reports are still not runs.
        third = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "elsewhere").aggregate
        assert third["totals"] == first["totals"]
        assert third["skipped"] == [
            {
                "file": "reports/",
                "reason": "a reports folder of an earlier run (it holds _aggregate.json); its reports are not "
                "trajectories",
            }
        ]

    def test_an_id_of_the_wrong_type_is_a_problem_and_left_out_of_the_join(self, tmp_path: Path) -> None:
        write_json(tmp_path / "t" / "1.json", {"run_id": "1", "scenario_id": {"x": 1}, "answer": "{'a': 1}"})
        write_json(tmp_path / "t" / "2.json", {"run_id": [2], "scenario_id": "2", "answer": "{'a': 1}"})
        write_json(tmp_path / "t" / "3.json", {"run_id": "", "scenario_id": "3", "answer": "{'a': 1}"})  # blank: none
        for ident in ("1", "2", "3"):
            _scenario(tmp_path / "s", ident)
        aggregate = run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r").aggregate
        assert aggregate["totals"]["passed"] == 3  # each still joins: by its file name, or its good id
        assert aggregate["problems"] == [
            {
                "kind": "bad_trajectory_id",
                "source": "1.json",
                "message": "scenario_id must be text or a whole number; got a JSON object. It is left out when the run "
                "is joined to its scenario",
            },
            {
                "kind": "bad_trajectory_id",
                "source": "2.json",
                "message": "run_id must be text or a whole number; got a JSON array. It is left out when the run is "
                "joined to its scenario",
            },
        ]

    def test_an_interrupt_while_writing_leaves_the_previous_reports(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from structsim_nb.trajectories.reports_dir import ReportsFolder

        write_json(tmp_path / "t" / "1.json", {"run_id": "1", "answer": "{'a': 1}"})
        write_json(tmp_path / "t" / "2.json", {"run_id": "2", "answer": "{'a': 1}"})
        for scenario_id in ("1", "2"):
            _scenario(tmp_path / "s", scenario_id)
        run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        before = {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir()}
        real = ReportsFolder.write

        def write(self: ReportsFolder, name: str, data: bytes) -> Path:
            if name == "2.json":
                raise KeyboardInterrupt
            return real(self, name, data)

        monkeypatch.setattr(ReportsFolder, "write", write)
        write_json(tmp_path / "t" / "1.json", {"run_id": "1", "answer": "{'a': 2}"})
        with pytest.raises(KeyboardInterrupt) as caught:
            run_evaluation(tmp_path / "t", tmp_path / "s", tmp_path / "r")
        assert caught.value.reports_written is None  # type: ignore[attr-defined]
        assert {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir()} == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r", "s", "t"]  # no staging left


def _refuse(path: object) -> object:
    raise PermissionError(13, "Permission denied")


def test_the_names_of_its_parts_stay_importable_from_runner() -> None:
    from structsim_nb.trajectories import pairs, runner, saved_runs, scenarios

    for name in runner.__all__:
        home = next((part for part in (pairs, saved_runs, scenarios) if name in part.__all__), runner)
        assert getattr(runner, name) is getattr(home, name), name


def test_runs_go_to_workers_in_chunks_of_up_to_64() -> None:
    """A run scores in under a millisecond: chunks of the pool's default 8 cost more in passing than in scoring."""
    from structsim_nb.trajectories.runner import _chunk_size

    assert _chunk_size(20_000, 2) == 64  # the most
    assert _chunk_size(2_000, 2) == 64
    assert _chunk_size(200, 2) == 25  # four chunks a worker
    assert _chunk_size(2_000, 64) == 8  # a large cluster: never under the pool's default
    assert _chunk_size(40, 2) == 8
    assert _chunk_size(0, 3) == 8 and _chunk_size(100, 0) == 25


def test_run_evaluation_asks_the_workers_for_its_chunk_size(tmp_path: Path, monkeypatch) -> None:
    from structsim_nb import dataset
    from structsim_nb.trajectories import runner

    asked: list[int] = []
    original = dataset.map_ordered

    def recording(fn, items, **kwargs):
        asked.append(kwargs["chunk_size"])
        return original(fn, items, **kwargs)

    monkeypatch.setattr(dataset, "map_ordered", recording)
    tree = Path(__file__).resolve().parent.parent / "data" / "trajectories_tree"
    run = runner.run_evaluation(tree / "trajectories", tree / "scenarios", tmp_path / "r", workers=2)
    assert asked == [runner._chunk_size(len(run.report_paths), 2)]


def test_chunks_for_a_cluster_are_sized_by_its_threads_not_this_machines_cores(monkeypatch) -> None:
    """With an executor and no `workers`, the chunks are shared among what the executor runs at once."""
    from structsim_nb import _pool, dataset
    from structsim_nb.trajectories import runner

    class Cluster:  # a `distributed.Client` as `executor_capacity` reads it: only `nthreads()`
        def nthreads(self) -> dict[str, int]:
            return {"tcp://10.0.0.1:1": 32, "tcp://10.0.0.2:1": 32}

    asked: list[int] = []

    def recording(fn, items, **kwargs):
        asked.append(kwargs["chunk_size"])
        return iter(())

    monkeypatch.setattr(dataset, "map_ordered", recording)
    monkeypatch.setattr(_pool, "cores", lambda: 2)
    runner._score_all(
        [object()] * 1_000, scorer="static_json", options={}, progress=False, workers=None, executor=Cluster()
    )
    runner._score_all([object()] * 1_000, scorer="static_json", options={}, progress=False, workers=2, executor=None)
    assert asked == [8, 64]  # 64 threads: 1,000 runs in chunks of 8; 2 local workers: 64
