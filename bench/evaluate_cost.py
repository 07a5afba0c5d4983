"""What `structsim-nb evaluate` costs around the scoring: the share of wall time that is scoring.

Run: `.venv/bin/python bench/evaluate_cost.py [--trajectories 2000] [--runs 5]`

It writes a synthetic AssetOpsBench tree to a temporary folder: `--trajectories` runs, one per
scenario, each scenario a `groundtruth.txt` object of 12 keys (numbers, text, a nested object, a list)
and each answer the same object with a few keys changed or dropped, written as an agent would (a
`Final Answer:` line, a fenced block, or plain JSON), plus a trajectory of three turns with tool calls
and token counts. Then, in this process (start-up and imports excluded), rounds interleave:

- `scoring`: `score_pair` over every joined pair, nothing else (the work the run exists for);
- `evaluate`: `run_evaluation` end to end into a fresh reports folder (load, join, score, write, move
  into place), with the default options;
- `evaluate --full-results`: the same, with every per-run report repeated inside `_aggregate.json`.

It prints the median seconds of each over `--runs` rounds and scoring's share of the `evaluate` time
(the target is at least 60%), and checks that two runs wrote byte-identical files.
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


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=2000, help="runs in the tree (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds, median taken (default: %(default)s)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="evaluate-cost-"))
    try:
        trajectories, scenarios = build_tree(work, args.trajectories)
        times: dict[str, list[float]] = {"scoring": [], "evaluate": [], "evaluate --full-results": []}
        written: list[dict[str, bytes]] = []
        for round_ in range(args.runs):
            start = time.perf_counter()
            pairs, _, _ = join_records(load_trajectories(trajectories), load_scenarios(scenarios)[0])
            load = time.perf_counter() - start
            start = time.perf_counter()
            for pair in pairs:
                score_pair(pair, scorer="static_json", options={})
            times["scoring"].append(time.perf_counter() - start)
            for label, full in (("evaluate", False), ("evaluate --full-results", True)):
                out = work / f"reports-{round_}-{int(full)}"
                start = time.perf_counter()
                try:
                    run_evaluation(trajectories, scenarios, out, full_results=full)
                except TypeError:  # a version without full_results: the aggregate always repeats every report
                    run_evaluation(trajectories, scenarios, out)
                times[label].append(time.perf_counter() - start)
                if not full and len(written) < 2:
                    written.append(_files(out))
                shutil.rmtree(out)
            print(f"round {round_ + 1}: loading and joining {load:.2f} s", flush=True)
        scoring = statistics.median(times["scoring"])
        print(f"\n{args.trajectories:,} trajectories, static_json, one process; median of {args.runs} rounds")
        print(f"{'what':28} {'seconds':>9} {'scoring share':>14}")
        for label, values in times.items():
            median = statistics.median(values)
            print(f"{label:28} {median:9.2f} {scoring / median:14.0%}")
        same = len(written) == 2 and written[0] == written[1]
        print(f"two runs wrote byte-identical files: {'yes' if same else 'NO'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
