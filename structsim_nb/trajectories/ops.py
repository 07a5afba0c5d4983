"""Operational metrics of one saved run: turns, tool calls, tokens, duration and cost.

`read_ops(raw)` reads them off a trajectory's JSON object, wherever the run records them (the run,
its `usage`, its `trajectory`, or summed over its turns); anything the trajectory does not record
is None (`unique_tools` an empty list). The runner's aggregate sums them (`aggregate`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["OPS_KEYS", "finite_sum", "read_ops"]

#: The keys of a run's `ops` block, in the order they are written.
OPS_KEYS = ("turn_count", "tool_call_count", "unique_tools", "tokens_in", "tokens_out", "duration_ms", "est_cost_usd")


def finite_sum(values: list[Any]) -> float | None:
    """The sum of the numbers among `values` (None left out) when it is a finite float; else None.

    Each number is one `_number` accepted, so the sum of ints stays exact; a sum past the float range (a
    trajectory's absurd token count, twice) is None, like one no trajectory recorded, never an `OverflowError`
    that stops the run or an infinity no JSON holds.
    """
    numbers = [value for value in values if value is not None]
    if not numbers:
        return None
    try:
        total = sum(numbers)
    except OverflowError:  # (an exact int sum past the float range, then a float added to it)
        return None
    return total if _finite(total) else None


def _finite(value: float) -> bool:
    """`math.isfinite`, and False for an int past the float range (where `isfinite` raises OverflowError)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _number(*values: Any) -> float | None:
    """The first value that is a finite number within the float range (bools excluded), or None.

    A 400-digit duration is no number here: the aggregate's totals and percentiles are floats.
    """
    for value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value):
            return value
    return None


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
        # The first finite number under these keys, source by source, key by key; else the turns' sum.
        for source in sources:
            for key in keys:
                if key in source and (found := _number(source[key])) is not None:
                    return found
        if not turn_dicts:
            return None
        return finite_sum([_number(*(turn[key] for key in keys if key in turn)) for turn in turn_dicts])

    return {
        "turn_count": len(turns) if turns is not None else None,
        "tool_call_count": len(calls) if turns is not None or calls else None,
        "unique_tools": sorted(set(names)),
        "tokens_in": read("tokens_in", "input_tokens", "prompt_tokens"),
        "tokens_out": read("tokens_out", "output_tokens", "completion_tokens"),
        "duration_ms": read("duration_ms"),
        "est_cost_usd": read("est_cost_usd", "cost_usd"),
    }
