"""ops: a run's turns, tool calls, tokens, duration and cost, read from its trajectory."""

from __future__ import annotations

from pathlib import Path

from structsim_nb.trajectories.saved_runs import load_trajectories

TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"


class TestOps:
    def test_ops(self) -> None:
        (trajectory,) = load_trajectories(TREE / "trajectories" / "11.json")
        assert trajectory.ops == {
            "turn_count": 2,
            "tool_call_count": 3,
            "unique_tools": ["count_rows", "sql_query"],
            "tokens_in": 320,
            "tokens_out": 45,
            "duration_ms": 650,
            "est_cost_usd": 0.0012,
        }
        (bare,) = load_trajectories(TREE / "trajectories" / "13.json")
        assert bare.ops["turn_count"] == 0 and bare.ops["tokens_in"] is None and bare.ops["unique_tools"] == []


def test_numbers_past_the_float_range_are_no_ops_numbers() -> None:
    # A 400-digit duration made the whole file unreadable (OverflowError in isfinite): the run lost its scenario.
    from structsim_nb.trajectories.ops import read_ops

    ops = read_ops({"duration_ms": 10**400, "tokens_in": 12, "usage": {"duration_ms": 5}, "answer": "1"})
    assert ops["duration_ms"] == 5 and ops["tokens_in"] == 12
    turns = {"trajectory": {"turns": [{"tokens_out": 10**308}, {"tokens_out": 10**308}, {"tokens_out": 1.5}]}}
    assert read_ops(turns)["tokens_out"] is None  # (their sum is past the float range)


def test_a_total_past_the_float_range_is_none_not_an_error() -> None:
    from structsim_nb.trajectories.ops import finite_sum

    assert finite_sum([10**308, 10**308, 1.5]) is None  # (an exact int sum, then a float: OverflowError)
    assert finite_sum([1e308, 1e308]) is None  # (inf)
    assert finite_sum([None, 2, 0.5]) == 2.5 and finite_sum([None]) is None and finite_sum([10**20, 1]) == 10**20 + 1
