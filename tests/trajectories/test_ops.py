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
