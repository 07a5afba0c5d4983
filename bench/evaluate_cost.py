"""What `structsim-nb evaluate` costs around the scoring: the share of wall time that is scoring.

Run: `.venv/bin/python bench/evaluate_cost.py [--trajectories 2000] [--runs 5] [--scorer static_json|similarity]`

It writes a synthetic AssetOpsBench tree to a temporary folder: `--trajectories` runs, one per
scenario, each scenario a `groundtruth.txt` object of 12 keys (numbers, text, a nested object, a list)
and each answer the same object with a few keys changed or dropped, written as an agent would (a
`Final Answer:` line, a fenced block, or plain JSON), plus a trajectory of three turns with tool calls
and token counts. Then, in this process (start-up and imports excluded), rounds interleave:

- `scoring`: `score_pair` over every joined pair, nothing else (the work the run exists for), with
  `--scorer` (`static_json`, the default, or `similarity`: field by field against a JSON Schema of
  the ground truth, written next to the tree);
- `evaluate`: `run_evaluation` end to end into a fresh reports folder (load, join, score, write, move
  into place), with the default options;
- `evaluate --full-results`: the same, with every per-run report repeated inside `_aggregate.json`.

Every round writes a new reports folder, and all are deleted only at the end: deleting one round's
2,000 files before the next round made that round's writes wait on the file system's clean-up.

It prints the median seconds of each over `--runs` rounds and scoring's share of the `evaluate` time
(the target is at least 60%) two ways: the separate `scoring` rounds against `evaluate`, and the time
spent inside the scorer during `evaluate` itself (the scorer wrapped in a timer, as
`evaluate_share.py` does; it includes what scoring costs in a process holding every report so far).
It also prints where the rest of the time goes in the last round (reading the
trajectories and scenarios, writing the files, moving them into place), and checks that two runs
wrote byte-identical files. To compare with another checkout, run the script with that checkout's
package first on the path: `PYTHONPATH=/path/to/checkout .venv/bin/python bench/evaluate_cost.py`.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import structsim_nb
from structsim_nb.trajectories import pairs as pairs_module
from structsim_nb.trajectories import runner
from structsim_nb.trajectories.runner import join_records, load_scenarios, load_trajectories, run_evaluation, score_pair


def _truth(rng: random.Random, index: int) -> dict[str, object]:
    return {
        "asset_id": f"PMP-{index:05d}",
        "site": rng.choice(["North plant", "South plant", "Harbour depot"]),
        "energy": rng.randint(1, 500),
        "material": round(rng.uniform(1, 100), 2),
        "status": rng.choice(["running", "stopped", "maintenance"]),
        "alarms": rng.randint(0, 9),
        "start": rng.randint(0, 10),
        "end": rng.randint(11, 20),
        "owner": {"team": rng.choice(["ops", "reliability"]), "shift": rng.randint(1, 3)},
        "sensors": [f"S{rng.randint(1, 99)}" for _ in range(3)],
        "notes": "checked " + rng.choice(["yesterday", "last week", "on arrival"]),
        "ok": rng.random() < 0.5,
    }


def build_tree(root: Path, count: int, seed: int = 7) -> tuple[Path, Path]:
    """`root/trajectories` and `root/scenarios` with `count` runs, one per scenario."""
    rng = random.Random(seed)
    trajectories, scenarios = root / "trajectories", root / "scenarios"
    trajectories.mkdir(parents=True)
    for index in range(count):
        truth = _truth(rng, index)
        folder = scenarios / f"scenario_{index}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(json.dumps(truth), encoding="utf-8")
        answer = dict(truth)
        for key in rng.sample(sorted(answer), k=rng.randint(0, 3)):
            if rng.random() < 0.5:
                del answer[key]
            else:
                answer[key] = "unknown"
        text = json.dumps(answer)
        style = index % 3
        if style == 0:
            text = f"I looked at the work orders.\nFinal Answer: {text}"
        elif style == 1:
            text = f"Here is the result:\n```json\n{json.dumps(answer, indent=2)}\n```"
        tools = [{"name": rng.choice(["sensors", "work_orders", "assets"])} for _ in range(3)]
        turns = [{"tool_calls": [tool], "tokens_in": 900, "tokens_out": 60} for tool in tools]
        run = {
            "run_id": f"run-{index}",
            "scenario_id": str(index),
            "runner": "bench",
            "model": "synthetic",
            "question": f"What is the state of asset {index}?",
            "answer": text,
            "trajectory": {"turns": turns, "duration_ms": rng.randint(1000, 9000)},
        }
        (trajectories / f"{index}.json").write_text(json.dumps(run), encoding="utf-8")
    return trajectories, scenarios


def _phases() -> dict[str, float]:
    """Wrap the runner's steps so the last evaluate round reports where its time went."""
    spent: dict[str, float] = {}
    for name, label in (
        ("_discover", "read trajectories"),  # a checkout from before runner.py was split
        ("discover_trajectories", "read trajectories"),
        ("load_trajectories", "read trajectories"),
        ("load_scenarios", "read scenarios"),
    ):
        real = getattr(runner, name, None)
        if real is None:
            continue

        def timed(*args: object, _real: object = real, _label: str = label, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return _real(*args, **kwargs)  # type: ignore[operator]
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.perf_counter() - start

        setattr(runner, name, timed)
    return spent


SCHEMA = {
    "title": "Asset",
    "type": "object",
    "properties": {
        "asset_id": {"type": "string"},
        "site": {"type": "string"},
        "energy": {"type": "integer"},
        "material": {"type": "number"},
        "status": {"type": "string"},
        "alarms": {"type": "integer"},
        "start": {"type": "integer"},
        "end": {"type": "integer"},
        "notes": {"type": "string"},
        "ok": {"type": "boolean"},
    },
}


def files_in(folder: Path) -> dict[str, bytes]:
    """Every file of a reports folder by name, as bytes (to check that two runs wrote the same)."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def scorer_options(work: Path, scorer: str) -> dict[str, object]:
    """The options `scorer` needs on this tree: for `similarity`, `SCHEMA` written to `work/schema.json`."""
    if scorer != "similarity":
        return {}
    (work / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    return {"schema": str(work / "schema.json")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=2000, help="runs in the tree (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds, median taken (default: %(default)s)")
    parser.add_argument("--scorer", choices=["static_json", "similarity"], default="static_json")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="evaluate-cost-"))
    try:
        trajectories, scenarios = build_tree(work, args.trajectories)
        options = scorer_options(work, args.scorer)
        times: dict[str, list[float]] = {"scoring": [], "evaluate": [], "evaluate --full-results": []}
        inside: dict[str, list[float]] = {"evaluate": [], "evaluate --full-results": []}
        original = pairs_module.get_scorer
        spent_in_scorer = [0.0]

        def timed_get_scorer(name: str) -> Any:
            scorer: Any = original(name)

            def timed(*args: Any, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return scorer(*args, **kwargs)
                finally:
                    spent_in_scorer[0] += time.perf_counter() - start

            return timed

        written: list[dict[str, bytes]] = []
        for round_ in range(args.runs):
            start = time.perf_counter()
            pairs, _, _ = join_records(load_trajectories(trajectories), load_scenarios(scenarios)[0])
            load = time.perf_counter() - start
            start = time.perf_counter()
            for pair in pairs:
                score_pair(pair, scorer=args.scorer, options=options)
            times["scoring"].append(time.perf_counter() - start)
            for label, full in (("evaluate", False), ("evaluate --full-results", True)):
                out = work / f"reports-{round_}-{int(full)}"
                spent_in_scorer[0] = 0.0
                pairs_module.get_scorer = timed_get_scorer  # type: ignore[assignment]
                start = time.perf_counter()
                try:
                    run_evaluation(trajectories, scenarios, out, scorer=args.scorer, options=options, full_results=full)
                except TypeError:  # a version without full_results: the aggregate always repeats every report
                    run_evaluation(trajectories, scenarios, out, scorer=args.scorer, options=options)
                finally:
                    pairs_module.get_scorer = original
                times[label].append(time.perf_counter() - start)
                inside[label].append(spent_in_scorer[0] / times[label][-1])
                if not full and len(written) < 2:
                    written.append(files_in(out))
                # Each round's folder stays until the end. Deleting 2,000 files between timed rounds made the
                # next round's writes wait on the file system's clean-up (on an ext4 mounted with `discard`, as
                # here, each freed block is trimmed at the next journal commit): the bench's own cost, not evaluate's.
            print(f"round {round_ + 1}: loading and joining {load:.2f} s", flush=True)
        spent = _phases()
        out = work / "reports-phases"
        spent_in_scorer[0] = 0.0
        pairs_module.get_scorer = timed_get_scorer  # type: ignore[assignment]
        start = time.perf_counter()
        try:
            run_evaluation(trajectories, scenarios, out, scorer=args.scorer, options=options)
        finally:
            pairs_module.get_scorer = original
        total = time.perf_counter() - start
        spent["score"] = spent_in_scorer[0]
        scoring = statistics.median(times["scoring"])
        print(f"\npackage: {Path(structsim_nb.__file__).parent}")
        print(f"{args.trajectories:,} trajectories, {args.scorer}, one process; median of {args.runs} rounds")
        print(f"{'what':28} {'seconds':>9} {'scoring share':>14} {'in-run scorer share':>20}")
        for label, values in times.items():
            median = statistics.median(values)
            in_run = f"{statistics.median(inside[label]):20.0%}" if label in inside else f"{'':20}"
            print(f"{label:28} {median:9.2f} {scoring / median:14.0%} {in_run}")
        if len(written) < 2:
            print("two runs wrote byte-identical files: not checked (one round; pass --runs 2 or more)")
        else:
            print(f"two runs wrote byte-identical files: {'yes' if written[0] == written[1] else 'NO'}")
        rest = total - sum(spent.values())
        parts = ", ".join(f"{label} {seconds:.2f} s" for label, seconds in spent.items())
        print(f"one more evaluate, {total:.2f} s: {parts}, writing and moving into place {rest:.2f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
