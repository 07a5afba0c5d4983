"""What matching in scrubbed space costs a replay.

`ReplayModel` scrubs each live request and its recorded request with the built-in rules before comparing them
(so a prompt holding a secret matches the recording holding its placeholder). This replays the committed FCC
recording (8 documents, one model call each, through the real Agent) with the rules on, and with them emptied
(the comparison before scrubbing existed), interleaved, and prints medians and their ratio.

    .venv/bin/python bench/replay_scrub.py            # 7 runs
    .venv/bin/python bench/replay_scrub.py --runs 11
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from strands import Agent

from structsim_nb.fcc import SYSTEM_PROMPT, FCCInvoice, load_fcc, user_prompt
from structsim_nb.replay import ReplayModel

RECORDING = Path(__file__).resolve().parent.parent / "recordings" / "fcc_invoices.json"


def replay_once(docs: list, *, scrubbed: bool) -> float:
    model = ReplayModel(RECORDING)
    if not scrubbed:
        model._rules = []  # the baseline: compare requests as they are
    start = time.perf_counter()
    for doc in docs:
        agent = Agent(model=model, system_prompt=SYSTEM_PROMPT, callback_handler=None)
        agent(user_prompt(doc.text), structured_output_model=FCCInvoice)
    elapsed = time.perf_counter() - start
    model.assert_all_played()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    import tempfile

    docs = load_fcc("sample", cache_dir=tempfile.mkdtemp(prefix="bench-fcc-"))
    replay_once(docs, scrubbed=True)  # warm-up: imports, detect-secrets plugins, regex compilation
    times: dict[bool, list[float]] = {True: [], False: []}
    for run in range(args.runs):
        for scrubbed in (True, False) if run % 2 == 0 else (False, True):
            times[scrubbed].append(replay_once(docs, scrubbed=scrubbed))
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"replay of {len(docs)} documents, {args.runs} interleaved runs (medians)")
    print(f"  requests compared as they are : {off * 1000:8.1f} ms")
    print(f"  requests scrubbed, then compared: {on * 1000:8.1f} ms")
    print(f"  ratio scrubbed / as they are    : {on / off:8.2f}x  ({(on - off) / len(docs) * 1000:.1f} ms per call)")


if __name__ == "__main__":
    main()
