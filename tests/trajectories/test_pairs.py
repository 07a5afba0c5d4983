"""pairs: the join rules, and scoring one pair into a report that never raises."""

from __future__ import annotations

from structsim_nb.trajectories.pairs import Pair, join_records, score_pair
from structsim_nb.trajectories.saved_runs import Trajectory
from structsim_nb.trajectories.scenarios import Scenario


class TestJoin:
    def test_rules(self) -> None:
        scenarios = [Scenario("11", "scenario_11", "1"), Scenario("12", "scenario_12", "1"), Scenario("9", "9", "1")]
        trajectories = [
            Trajectory("a.json", "a", run_id="x", scenario_id="11"),
            Trajectory("b.json", "b", run_id="12", scenario_id="a descriptive label"),
            Trajectory("11.json", "11", run_id="12", scenario_id=None),
            Trajectory("c.json", "c", run_id="77", scenario_id="78"),
            Trajectory("9.json", "9", run_id="x", scenario_id="label"),  # the stem is only for a missing id
            Trajectory("d.json", "d", run_id="12", scenario_id=None),
        ]
        pairs, unmatched, unused = join_records(trajectories, scenarios)
        assert [(p.trajectory.file, p.scenario.id, p.joined_by) for p in pairs] == [
            ("a.json", "11", "scenario_id"),
            ("b.json", "12", "run_id"),
            ("11.json", "11", "filename"),
            ("d.json", "12", "run_id"),
        ]
        assert [t.file for t in unmatched] == ["c.json", "9.json"] and [s.id for s in unused] == ["9"]


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
        # Over the parser's 1,000,000 characters, the end of the answer is read (the final answer is there).
        assert report["status"] == "scored" and report["score"]["details"]["model_read_as"] == "embedded"
        assert report["score"]["passed"]
