"""Helpers shared by test modules (importable as `helpers`: pytest puts tests/ on the path)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from strands_evals import Case, Experiment
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputReport


def run_pairs(
    pairs: Mapping[str, tuple[Any, Any]],
    evaluators: Sequence[Any],
    *,
    report_cls: type = StructuredOutputReport,
) -> Any:
    """Run cases through a real Strands Evals `Experiment`, offline, and return its report.

    `pairs` maps a case name to `(expected_output, actual_output)`, in case order. The task
    returns `{"output": actual}`, the form that passes a model through the task handler
    untouched (see `structsim_nb.demo.run_reference`). Plain function, so module-scoped
    fixtures can call it; tests take it as the `run_experiment` fixture.
    """
    cases = [Case(name=name, input=name, expected_output=expected) for name, (expected, _) in pairs.items()]
    experiment = Experiment(cases=cases, evaluators=list(evaluators), report_cls=report_cls)
    return experiment.run_evaluations(lambda case: {"output": pairs[case.name][1]})


def write_json(path: Path, data: object) -> Path:
    """Write `data` as JSON to `path`, creating its folders; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# The documented Agenta example (seed 003), shared by the json_match tests.
SEED_GT = {"name": "John Doe", "email": "john@example.com", "address": {"city": "New York", "zip": "10001"}}
SEED_OUT = {"name": "John Doe", "email": "jane@example.com", "address": {"city": "New York", "zip": "10002"}}
SEED_FIELDS = ["name", "email", "address.city", "address.zip"]


def evaluate_row(evaluator: Any, actual: Any, expected: Any, name: str = "c1") -> Any:
    """The one row `evaluator` gives for a case with this output and ground truth."""
    (row,) = evaluator.evaluate(EvaluationData(name=name, input="", actual_output=actual, expected_output=expected))
    return row


class SubDict(dict):  # type: ignore[type-arg]
    """A dict subclass: JSON data all the same, but it sends the JSON evaluators the long way."""


def as_subclass(value: Any) -> Any:
    """`value` with every dict a `SubDict`: the same JSON data, read by the evaluators' general path."""
    if isinstance(value, dict):
        return SubDict({key: as_subclass(item) for key, item in value.items()})
    if isinstance(value, list):
        return [as_subclass(item) for item in value]
    return value


def json_pair_strategy(*, booleans: bool = True) -> Any:
    """Hypothesis: `(ground truth, output)` JSON documents that share structure, with ties, nulls,
    case-twins, dotted keys, digit keys, NaN, booleans beside integers (unless `booleans=False`) and
    changed values."""
    from hypothesis import strategies as st

    scalar = st.one_of(
        st.none(),
        st.booleans() if booleans else st.none(),
        st.integers(-2, 2),
        st.sampled_from([1.0, 0.0, 2.5, float("nan")]),
        st.sampled_from(["a", "A", " a", "b", "a.b", ""]),
    )
    keys = st.sampled_from(["a", "b", "A", "a.b", "0", "1", "c"])
    document = st.recursive(
        scalar,
        lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(keys, children, max_size=3)),
        max_leaves=10,
    )

    @st.composite
    def pair(draw: Any) -> tuple[Any, Any]:
        truth = draw(document)
        changes = draw(st.lists(st.tuples(st.integers(0, 50), scalar), max_size=3))
        output = json.loads(json.dumps(truth))
        for at, value in changes:
            replace_leaf(output, at, value)
        return truth, draw(st.sampled_from([output, output, truth, draw(document)]))

    return pair()


def replace_leaf(value: Any, at: int, new: Any) -> None:
    """Replace the `at`-th leaf (depth first, modulo the leaf count) of a container, in place."""
    slots: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, item in items:
            if isinstance(item, (dict, list)) and item:
                walk(item)
            else:
                slots.append((node, key))

    walk(value)
    if slots:
        node, key = slots[at % len(slots)]
        node[key] = new


def answer_text_strategy() -> Any:
    """Hypothesis: agent answers built from prose, fences, JSON and Python snippets, cut JSON, think blocks."""
    from hypothesis import strategies as st

    pieces = st.sampled_from(
        [
            "Here is the answer:",
            "```json\n",
            "\n```",
            '{"a": 1, "b": [1, 2]}',
            '{"a": "}", "b": "[x"}',
            '[{"a": null}, {"b": true}]',
            "{'a': (1, 2)}",
            '{"a": [1, {"b": ',  # cut off
            "<think>{'draft': 1}</think>",
            " { ",
            " ] ",
            "Final Answer: ",
            "\n",
            "42",
            '"quoted { text"',
        ]
    )
    return st.lists(pieces, min_size=1, max_size=6).map("".join)


def same_but_long_integers(fast: Any, exact: Any) -> bool:
    """Equal with the same types throughout (NaN equal to NaN), except that an integer outside 64 bits may be the
    float nearest it: what a reading with `exact_numbers=False` allows (a repaired answer or a Python literal keeps
    it exact)."""
    if type(exact) is int and type(fast) is float and not -(2**63) <= exact < 2**64:
        return bool(fast == float(exact))
    if type(fast) is not type(exact):
        return False
    if isinstance(exact, dict):
        return list(fast) == list(exact) and all(same_but_long_integers(fast[k], exact[k]) for k in exact)
    if isinstance(exact, list):
        return len(fast) == len(exact) and all(map(same_but_long_integers, fast, exact))
    return bool(fast == exact or (fast != fast and exact != exact))


def communicate_or_kill(process: Any, timeout: float) -> tuple[str, str]:
    """`process.communicate(timeout=...)`; on a timeout the process and its children are killed first, so a
    hung child fails its test without living on to slow the rest of the suite."""
    import contextlib
    import subprocess

    import psutil

    try:
        return process.communicate(timeout=timeout)  # type: ignore[no-any-return]
    except subprocess.TimeoutExpired:
        try:
            family = [*psutil.Process(process.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            family = []
        for member in family:
            with contextlib.suppress(psutil.NoSuchProcess):
                member.kill()
        process.kill()
        stdout, stderr = process.communicate()  # what it printed before it hung: the clue to why
        raise subprocess.TimeoutExpired(process.args, timeout, output=stdout, stderr=stderr) from None


#: A CAR-mode (clarification) ground truth and its evaluation metadata, for the static_json tests.
CAR_GOLD = '{"clarification": "Which asset do you mean by \'the main unit\'?"}'
CAR_META = {
    "mode": "clarification",
    "required_terms": ["main unit"],
    "optional_terms": ["asset"],
    "must_have_exactly_one_mode_key": True,
}


class Address(BaseModel):
    street: str = ""
    city: str | None = None


class Order(BaseModel):
    """An optional nested model: present on one side only, its non-match holds one of stickler's run-time models."""

    order_id: str
    bill_to: Address | None = None


def still_alive(processes: list[Any], timeout: float = 20.0) -> list[Any]:
    """The psutil `processes` still alive after waiting up to `timeout` seconds for them (zombies count as ended)."""
    import psutil

    _, alive = psutil.wait_procs(processes, timeout=timeout)
    return [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
