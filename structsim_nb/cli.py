"""The `structsim-nb` command line. It parses arguments, calls the public API and prints.

No scoring logic lives here: every command calls the same functions a notebook would.
Exit codes: 0 ok, 1 the run finished but something failed, 2 bad input, 3 runtime error.
"""

from __future__ import annotations

import argparse
import datetime
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from .report import StructuredOutputReport

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CALL_FAILED",
    "EXIT_FAILURES",
    "EXIT_INVALID_RECORDING",
    "EXIT_LIVE_MISSING",
    "EXIT_NO_CREDENTIALS",
    "EXIT_NO_STRUCTURED_OUTPUT",
    "EXIT_OK",
    "EXIT_RUNTIME_ERROR",
    "main",
]

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_BAD_INPUT = 2
EXIT_RUNTIME_ERROR = 3
# `structsim-nb record`: one code per way a recording can fail; the old file is kept on all of them.
EXIT_LIVE_MISSING = 4
EXIT_NO_CREDENTIALS = 5
EXIT_CALL_FAILED = 6
EXIT_NO_STRUCTURED_OUTPUT = 7
EXIT_INVALID_RECORDING = 8


def _table(frame: pd.DataFrame) -> str:
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.max_colwidth", 60):
        return frame.to_string(index=False, float_format=lambda value: f"{value:.3f}", na_rep="")


def _reference_on_workers(workers: int) -> StructuredOutputReport:
    """The reference cases through `score_dataset` on `workers` processes: the same report as `run_reference`."""
    from .dataset import score_dataset
    from .demo import Invoice, reference_cases, reference_predictions

    predictions = reference_predictions()
    pairs = [
        {"name": case.name, "input": case.input, "expected": case.expected_output, "actual": predictions[case.name]}
        for case in reference_cases()
    ]
    return score_dataset(pairs, model_cls=Invoice, workers=workers)


def _workers(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {value}")
    return value


def _cmd_demo(args: argparse.Namespace) -> int:
    from ._io import write_text_atomic
    from .demo import run_reference

    report = run_reference() if args.workers is None else _reference_on_workers(args.workers)
    out = Path(args.out)
    cases = report.cases_frame().drop(columns=["evaluator", "model"])
    print("Per case")
    print(_table(cases))
    print()
    print("Per field, worst first")
    print(_table(report.fields_frame()))
    print()
    print("Non-matches")
    print(_table(report.non_matches_frame().drop(columns=["evaluator"])))
    json_path = report.to_file(out / "report.json")
    html_path = write_text_atomic(out / "report.html", report.to_html(title="structsim-nb reference evaluation"))
    summary = report.summary()
    print()
    print(
        f"{summary['cases']} cases, {summary['passed']} passed, overall score {summary['overall_score']:.3f}; "
        f"wrote {json_path} and {html_path}"
    )
    return EXIT_OK


def _cmd_record(args: argparse.Namespace) -> int:
    from . import errors
    from .cassette import load_recording
    from .record import bedrock_model, load_schema, record_exchange

    target = Path(args.recording)
    if args.mode == "once" and target.exists():
        print(f"{target} exists; mode 'once' keeps it (use --mode rewrite to re-record)")
        return EXIT_OK
    previous = None
    if target.exists():
        try:
            previous = load_recording(target)
        except errors.ReplayError as exc:
            print(
                f"warning: the existing recording is unreadable ({exc}); it is kept unless this run succeeds",
                file=sys.stderr,
            )
    try:
        schema = load_schema(args.schema)
        prompt, system_prompt, model_id = _record_inputs(args, previous)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    codes = [
        (errors.LiveExtraMissingError, EXIT_LIVE_MISSING),
        (errors.CredentialsMissingError, EXIT_NO_CREDENTIALS),
        (errors.NoStructuredOutputError, EXIT_NO_STRUCTURED_OUTPUT),
        (errors.InvalidRecordingError, EXIT_INVALID_RECORDING),
        (errors.LiveCallError, EXIT_CALL_FAILED),
    ]
    try:
        model, secrets = bedrock_model(
            model_id, region=args.region, profile=args.profile, streaming=not args.no_streaming
        )
        result = record_exchange(
            target,
            model=model,
            schema=schema,
            prompt=prompt,
            system_prompt=system_prompt,
            secrets=secrets,
            note=args.note,
            rerecord_command=previous.provenance.rerecord_command if previous else None,
        )
    except errors.RecordError as exc:
        code = next(code for kind, code in codes if isinstance(exc, kind))
        print(f"error: {exc}\nno recording was written; {target} is unchanged", file=sys.stderr)
        return code
    print(f"wrote {result.path}: {result.calls} model call(s); scrubbed {result.scrubbed or 'nothing'}")
    print(result.structured_output.model_dump_json(indent=2))
    print("review the file (prompt, document text, model output) before committing it")
    return EXIT_OK


def _record_inputs(args: argparse.Namespace, previous: object) -> tuple[str, str | None, str]:
    """The prompt, system prompt and model id: from the arguments, else from the existing recording."""
    first = previous.interactions[0].request if previous is not None else None  # type: ignore[attr-defined]
    if args.prompt_file:
        prompt = Path(args.prompt_file).read_text(encoding="utf-8")
    elif args.prompt is not None:
        prompt = args.prompt
    elif first is not None and first.messages[0].get("content") and "text" in first.messages[0]["content"][0]:
        prompt = first.messages[0]["content"][0]["text"]
    else:
        raise ValueError("--prompt or --prompt-file is required when there is no existing recording to reuse")
    system_prompt = args.system_prompt
    if system_prompt is None and first is not None and first.system:
        system_prompt = "".join(block.get("text", "") for block in first.system)
    model_id = args.model_id or (previous.provenance.model_id if previous is not None else None)  # type: ignore[attr-defined]
    if not model_id:
        raise ValueError("--model-id is required when there is no existing recording to reuse")
    return prompt, system_prompt, model_id


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from .errors import FieldPathError, SchemaLoadError, UnknownScorerError
    from .trajectories import read_scenario_ids, run_evaluation

    options = {"schema": args.schema} if args.schema else {}
    # Options of the JSON match scorers (structsim_nb.json_match); only those given are passed.
    for key in ("fields", "threshold", "both_absent"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    for key in ("compare_schema_only", "case_insensitive_keys", "penalize_extra_keys", "skip_nulls", "ignore_case"):
        if getattr(args, key):
            options[key] = True
    if args.strip:
        options["strip"] = True
    client = executor = None
    if args.scheduler:
        try:
            from distributed import Client  # optional extra: scale
        except ImportError:
            print('error: --scheduler needs Dask: pip install "structsim-nb[scale]"', file=sys.stderr)
            return EXIT_BAD_INPUT
        try:
            client = Client(args.scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            print(f"error: could not reach the Dask scheduler at {args.scheduler}: {exc}", file=sys.stderr)
            return EXIT_RUNTIME_ERROR
        executor = client.get_executor()
    generated_at = None  # reports stay byte-identical unless a time is asked for
    if args.timestamp:
        generated_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    elif os.environ.get("SOURCE_DATE_EPOCH", "").strip().isdigit():
        epoch = int(os.environ["SOURCE_DATE_EPOCH"])
        generated_at = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        run = run_evaluation(
            args.trajectories,
            args.scenarios,
            args.reports_dir,
            scorer=args.scorer,
            options=options,
            progress=not args.no_progress,
            workers=args.workers,
            executor=executor,
            scenario_ids=read_scenario_ids(args.scenario_ids) if args.scenario_ids else None,
            generated_at=generated_at,
        )
    except (
        UnknownScorerError,
        SchemaLoadError,
        FieldPathError,
        ValueError,
        FileNotFoundError,
        NotADirectoryError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        if client is not None:
            client.close()
    aggregate = run.aggregate
    results = pd.DataFrame(
        [
            {
                "report": r["report"],
                "scenario_id": r["scenario_id"],
                "status": r["status"],
                "passed": r["score"]["passed"],
                "score": r["score"]["score"],
            }
            for r in aggregate["results"]
        ],
        columns=["report", "scenario_id", "status", "passed", "score"],
    )
    print(_table(results) if len(results) else "no trajectory joined a scenario")
    for label, key, column in (
        ("Unmatched trajectories", "unmatched_trajectories", "file"),
        ("Unmatched scenarios", "unmatched_scenarios", "folder"),
    ):
        if aggregate[key]:
            print(f"\n{label}:")
            for item in aggregate[key]:
                print(f"  {item[column]}: {item['error'] or item['reason']}")
    if aggregate["problems"]:
        print("\nProblems:")
        for problem in aggregate["problems"]:
            print(f"  {problem['source']}: {problem['message']}")
    totals = aggregate["totals"]
    rate = "n/a" if totals["pass_rate"] is None else f"{totals['pass_rate']:.1%}"
    print(
        f"\n{totals['scenarios']} runs scored with {aggregate['scorer']}: {totals['passed']} passed ({rate}), "
        f"{totals['errors']} errors, {len(aggregate['unmatched_trajectories'])} unmatched trajectories, "
        f"{len(aggregate['unmatched_scenarios'])} unmatched scenarios"
    )
    print(f"Reports written: {len(run.report_paths)} in {run.aggregate_path.parent}")
    print(f"Aggregate report written: {run.aggregate_path}")
    clean = totals["passed"] == totals["scenarios"] and not (
        aggregate["unmatched_trajectories"] or aggregate["unmatched_scenarios"] or aggregate["problems"]
    )
    return EXIT_OK if clean else EXIT_FAILURES


def _cmd_record_fcc(args: argparse.Namespace) -> int:
    from . import errors
    from .fcc import RunSettings, model_id, record_notebook

    settings = RunSettings(
        source=args.source,
        n_docs=args.n_docs,
        max_line_items=args.max_line_items,
        max_text_chars=args.max_text_chars,
        model_id=args.model_id or model_id(),
    )
    try:
        written = record_notebook(
            settings=settings, out_dir=args.out, profile=args.profile, region=args.region, save=not args.no_save
        )
    except errors.LiveExtraMissingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_LIVE_MISSING
    except errors.CredentialsMissingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_NO_CREDENTIALS
    except Exception as exc:  # a failed cell: nbclient's CellExecutionError names the cell and the error
        print(f"error: the notebook run failed; the recordings were left as they were.\n{exc}", file=sys.stderr)
        return EXIT_CALL_FAILED
    print("recorded and replayed the FCC notebook run; wrote " + ", ".join(map(str, written)))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="structsim-nb",
        description="Score an agent's structured output against ground truth, field by field.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v info, -vv debug)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo",
        help="run the offline reference evaluation (six invoices) and write its report",
        description="Run the offline reference evaluation end to end: six invoices, each broken a different "
        "way, scored field by field. Prints the per-case and per-field tables and writes report.json and "
        "report.html. No credentials, no network.",
    )
    demo.add_argument("--out", default="structsim-demo", help="folder to write the report to (default: %(default)s)")
    demo.add_argument(
        "--workers", type=_workers, metavar="N", help="score on N worker processes (default: in this process)"
    )
    demo.set_defaults(handler=_cmd_demo)

    record = commands.add_parser(
        "record",
        help="re-record an agent exchange against a live Bedrock model (needs the live extra and AWS credentials)",
        description="Run Agent(model=BedrockModel(...))(prompt, structured_output_model=SCHEMA) once, copy the model's "
        "stream events unchanged, scrub secrets and write RECORDING atomically, only on success. Prompt, system prompt "
        "and model id default to those of the existing recording. Credentials come from the environment or "
        "--profile and are never stored. Exit codes: 0 written, 2 bad arguments, 4 live extra missing, "
        "5 no credentials, 6 the call failed, 7 no structured output, 8 invalid result (nothing written).",
    )
    record.add_argument("recording", help="the recording file to write, e.g. recordings/invoice_walkthrough.json")
    record.add_argument("--schema", required=True, help="the Pydantic model: MODULE:CLASS or path/to/file.py:CLASS")
    record.add_argument("--prompt", help="the user prompt (default: the existing recording's)")
    record.add_argument("--prompt-file", help="read the user prompt from this file")
    record.add_argument("--system-prompt", help="the agent's system prompt (default: the existing recording's)")
    record.add_argument("--model-id", help="the Bedrock model id (default: the existing recording's)")
    record.add_argument("--region", help="the AWS region (default: from the environment or profile)")
    record.add_argument("--profile", help="the AWS profile (default: AWS_PROFILE or the default chain)")
    record.add_argument("--no-streaming", action="store_true", help="use converse instead of converse_stream")
    record.add_argument(
        "--mode",
        choices=["rewrite", "once"],
        default="rewrite",
        help="rewrite: always re-record (default); once: record only when the file is missing",
    )
    record.add_argument(
        "--note",
        default="Live capture by structsim-nb record; review the scrubbed content before committing.",
        help="the provenance note stored in the file",
    )
    record.set_defaults(handler=_cmd_record)

    evaluate = commands.add_parser(
        "evaluate",
        help="score saved trajectories against scenario folders (AssetOpsBench layout)",
        description="Join saved trajectories to scenario_<id> folders (by scenario_id, run_id, then file name), "
        "score each answer against groundtruth.txt, and write one report per run plus _aggregate.json. "
        "Exit 0 when every run passed and everything joined, 1 otherwise, 2 on bad input.",
    )
    evaluate.add_argument("--trajectories", required=True, help="folder of trajectory *.json files, or one file")
    evaluate.add_argument(
        "--scenarios",
        required=True,
        nargs="+",
        help="folders of scenario_<id> folders and/or scenario files (.json, .jsonl)",
    )
    evaluate.add_argument(
        "--scenario-ids",
        metavar="SELECTOR",
        help="score only these scenarios: ids separated by ',' or '+' (11,12,34), or a file of ids",
    )
    evaluate.add_argument(
        "--timestamp",
        action="store_true",
        help="put the current UTC time in _aggregate.json generated_at (default: null, or SOURCE_DATE_EPOCH if set, "
        "so reports are byte-identical across runs)",
    )
    evaluate.add_argument(
        "-v", "--verbose", action="count", default=argparse.SUPPRESS, help="log more (-v info, -vv debug)"
    )
    evaluate.add_argument("--reports-dir", default="reports", help="where reports go (default: %(default)s)")
    evaluate.add_argument(
        "--scorer",
        "--scorer-default",
        dest="scorer",
        default="static_json",
        help="registered scorer: static_json, similarity, exact_match, contains_json, json_field_match or "
        "json_diff (default: %(default)s)",
    )
    evaluate.add_argument(
        "--schema", help="for --scorer similarity: a Pydantic model dotted path or a JSON Schema file"
    )
    json_match = evaluate.add_argument_group(
        "JSON match scorers",
        "options of exact_match, contains_json, json_field_match and json_diff (Agenta-compatible)",
    )
    json_match.add_argument(
        "--fields",
        nargs="+",
        action="extend",
        metavar="PATH",
        help="json_field_match: field paths, dot notation (address.city, items[0].sku), JSON Path ($.items[-1]) "
        "or JSON Pointer (/address/city)",
    )
    json_match.add_argument(
        "--threshold", type=float, help="json_field_match / json_diff: score needed to pass (default 1.0 / 0.5)"
    )
    json_match.add_argument(
        "--both-absent",
        choices=["skip", "match", "miss"],
        help="json_field_match: a field on neither side is skipped (default), a match, or a miss",
    )
    json_match.add_argument(
        "--schema-only", dest="compare_schema_only", action="store_true", help="json_diff: compare JSON types only"
    )
    json_match.add_argument("--case-insensitive-keys", action="store_true", help="json_diff: fold key case")
    json_match.add_argument(
        "--penalize-extra-keys", action="store_true", help="json_diff: leaves only the answer has count as misses"
    )
    json_match.add_argument(
        "--skip-nulls", action="store_true", help="json_diff: do not score null ground-truth leaves"
    )
    json_match.add_argument(
        "--ignore-case", action="store_true", help="exact_match: compare strings case-insensitively"
    )
    json_match.add_argument("--strip", action="store_true", help="exact_match: ignore leading/trailing whitespace")
    evaluate.add_argument("--no-progress", action="store_true", help="no progress bar (it only shows on a terminal)")
    evaluate.add_argument(
        "--workers", type=_workers, metavar="N", help="score on N worker processes (default: in this process)"
    )
    evaluate.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="score on the Dask cluster at ADDRESS, e.g. tcp://10.0.0.5:8786 (needs the scale extra)",
    )
    evaluate.set_defaults(handler=_cmd_evaluate)
    record_fcc = commands.add_parser(
        "record-fcc",
        help="re-record the FCC notebook run (both output models) against your own Bedrock access",
        description="Execute examples/notebooks/03_fcc_invoices_bedrock.ipynb in record mode against live Bedrock "
        "(needs AWS credentials), write recordings/fcc_invoices.json, fcc_invoices_tuned.json and "
        "fcc_invoices.settings.json only if every cell succeeds, then execute it again in replay mode against them "
        "and save its outputs. On any failure the committed recordings are left as they were.",
    )
    record_fcc.add_argument(
        "--model-id", default=None, help="Bedrock model id (default: $STRUCTSIM_NB_FCC_MODEL_ID, else Claude Haiku 4.5)"
    )
    record_fcc.add_argument(
        "--source", default="sample", help="'sample' (bundled, default), 'hub' (the real dataset) or a JSON Lines path"
    )
    record_fcc.add_argument("--n-docs", type=int, default=None, help="record at most this many documents")
    record_fcc.add_argument("--max-line-items", type=int, default=None, help="skip documents with more line items")
    record_fcc.add_argument("--max-text-chars", type=int, default=None, help="skip documents with longer OCR text")
    record_fcc.add_argument("--out", default=None, help="folder for the recordings (default: the repo's recordings/)")
    record_fcc.add_argument("--profile", default=None, help="AWS profile (default: AWS_PROFILE or the default chain)")
    record_fcc.add_argument("--region", default=None, help="AWS region (default: the profile's)")
    record_fcc.add_argument("--no-save", action="store_true", help="do not save the replayed notebook's outputs")
    record_fcc.set_defaults(handler=_cmd_record_fcc)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted; nothing partial was written", file=sys.stderr)
        return 130
