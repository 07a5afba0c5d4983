"""Operational metrics of one saved run: turns, tool calls, tokens, duration and cost.

`read_ops(raw)` reads them off a trajectory's JSON object, wherever the run records them (the run,
its `usage`, its `trajectory`, or summed over its turns); anything the trajectory does not record
is None (`unique_tools` an empty list). The runner's aggregate sums them (`aggregate`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["OPS_KEYS", "read_ops"]

#: The keys of a run's `ops` block, in the order they are written.
OPS_KEYS = ("turn_count", "tool_call_count", "unique_tools", "tokens_in", "tokens_out", "duration_ms", "est_cost_usd")


def _number(*values: Any) -> float | None:
    """The first value that is a finite number (bools excluded), or None."""
    for value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return value
    return None


def _sum(values: list[Any]) -> float | None:
    numbers = [v for v in values if v is not None]
    return sum(numbers) if numbers else None


def _tool_name(call: Any) -> str | None:
    if isinstance(call, str):
        return call
    if not isinstance(call, dict):
        return None
    function = call.get("function")
    name = call.get("name") or call.get("tool") or call.get("tool_name")
    if not name and isinstance(function, dict):
        name = function.get("name")
    return str(name) if name else None


def read_ops(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Operational metrics of one saved run; None for anything the trajectory does not record.

    Read from `trajectory.turns` (a list): `turn_count`; tool calls from each turn's
    `tool_calls` (or `tools`) list, named by `name`/`tool`/`tool_name`/`function.name`; tokens
    from `tokens_in`/`input_tokens`/`prompt_tokens` (and the `_out`/`output_`/`completion_`
    forms) on the run, its `usage`, its `trajectory`, or else summed over the turns;
    `duration_ms` and `est_cost_usd` (or `cost_usd`) likewise.
    """
    trajectory = raw.get("trajectory")
    inner: Mapping[str, Any] = trajectory if isinstance(trajectory, dict) else {}
    turns = inner.get("turns") if isinstance(inner.get("turns"), list) else None
    turn_dicts = [turn for turn in turns or [] if isinstance(turn, dict)]
    calls: list[Any] = []
    for turn in turn_dicts:
        for key in ("tool_calls", "tools"):
            if isinstance(turn.get(key), list):
                calls += turn[key]
                break
    if isinstance(inner.get("tool_calls"), list) and not calls:
        calls = inner["tool_calls"]
    names = [name for name in (_tool_name(call) for call in calls) if name]
    sources = [
        source
        for source in (raw, raw.get("usage"), inner, inner.get("usage"), raw.get("metrics"))
        if isinstance(source, dict)
    ]

    def read(*keys: str) -> float | None:
        found = _number(*(source[key] for source in sources for key in keys if key in source))
        if found is not None:
            return found
        return _sum([_number(*(turn[key] for key in keys if key in turn)) for turn in turn_dicts])

    return {
        "turn_count": len(turns) if turns is not None else None,
        "tool_call_count": len(calls) if turns is not None or calls else None,
        "unique_tools": sorted(set(names)),
        "tokens_in": read("tokens_in", "input_tokens", "prompt_tokens"),
        "tokens_out": read("tokens_out", "output_tokens", "completion_tokens"),
        "duration_ms": read("duration_ms"),
        "est_cost_usd": read("est_cost_usd", "cost_usd"),
    }
