"""`structsim-nb record` and `record-fcc`: re-record agent exchanges against a live model."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._common import (
    EXIT_BAD_INPUT,
    EXIT_CALL_FAILED,
    EXIT_INVALID_RECORDING,
    EXIT_LIVE_MISSING,
    EXIT_NO_CREDENTIALS,
    EXIT_NO_STRUCTURED_OUTPUT,
    EXIT_OK,
    HelpFormatter,
    add_verbose,
    non_negative_float,
    positive_int,
)

RECORD_EXAMPLES = """\
examples:
  # re-record the walkthrough exchange, reusing its prompt and system prompt
  structsim-nb record recordings/invoice_walkthrough.json \\
      --schema examples/notebooks/walkthrough_schema.py:Invoice \\
      --model-id us.anthropic.claude-haiku-4-5-20251001-v1:0

  # a new recording from your own schema and prompt, with a named AWS profile
  structsim-nb record recordings/mine.json --schema myapp.models:Invoice \\
      --prompt-file prompt.txt --profile my-profile \\
      --model-id us.anthropic.claude-haiku-4-5-20251001-v1:0

  # with a Bedrock API key instead of AWS credentials
  AWS_BEARER_TOKEN_BEDROCK=... structsim-nb record recordings/mine.json \\
      --schema myapp.models:Invoice --prompt "..." \\
      --model-id us.anthropic.claude-haiku-4-5-20251001-v1:0

  # OpenAI (or an OpenAI-compatible server: --endpoint-url), or Anthropic
  OPENAI_API_KEY=... structsim-nb record recordings/mine.json \\
      --provider openai --model-id gpt-4o-mini \\
      --schema myapp.models:Invoice --prompt-file prompt.txt
  ANTHROPIC_API_KEY=... structsim-nb record recordings/mine.json \\
      --provider anthropic --model-id claude-haiku-4-5 \\
      --schema myapp.models:Invoice --prompt-file prompt.txt

exit codes: 0 written, 2 bad arguments, 4 provider SDK missing, 5 no or rejected credentials, 6 the call
failed (throttled past the retries, invalid request, an error in the stream), 7 no structured output,
8 invalid result (including a secret that survived scrubbing). On every failure nothing is written and
the existing recording is left as it was.
"""

RECORD_FCC_EXAMPLES = """\
examples:
  AWS_PROFILE=your-profile structsim-nb record-fcc \\
      --model-id us.anthropic.claude-haiku-4-5-20251001-v1:0
  AWS_PROFILE=your-profile structsim-nb record-fcc --source hub --n-docs 20

exit codes: 0 recorded, 4 boto3 missing, 5 no credentials, 6 the run failed (the recordings are left
as they were).
"""


def add_parsers(commands: Any) -> None:
    """Register `record` and `record-fcc` on the `commands` subparsers."""
    record = commands.add_parser(
        "record",
        help="re-record an agent exchange against a live model (Bedrock, OpenAI or Anthropic: its SDK and credentials)",
        description="Run Agent(model=<live model>)(prompt, structured_output_model=SCHEMA) once, copy the model's "
        "stream events, scrub secrets and write RECORDING atomically, only on success. Prompt, system prompt, "
        "provider and model id default to those of the existing recording. Credentials come from the provider SDK's "
        "usual settings (AWS keys, profile or Bedrock API key; OPENAI_API_KEY; ANTHROPIC_API_KEY) and are never "
        "stored.",
        epilog=RECORD_EXAMPLES,
        formatter_class=HelpFormatter,
    )
    record.add_argument("recording", help="the recording file to write, e.g. recordings/invoice_walkthrough.json")
    record.add_argument("--schema", required=True, help="the Pydantic model: MODULE:CLASS or path/to/file.py:CLASS")
    record.add_argument("--prompt", help="the user prompt (default: the existing recording's)")
    record.add_argument("--prompt-file", help="read the user prompt from this file")
    record.add_argument("--system-prompt", help="the agent's system prompt (default: the existing recording's)")
    record.add_argument(
        "--provider",
        choices=sorted(PROVIDER_NAMES),
        default=None,
        help="the model provider (default: the existing recording's, else bedrock)",
    )
    record.add_argument("--model-id", help="the provider's model id (default: the existing recording's)")
    record.add_argument("--region", help="Bedrock: the AWS region (default: from the environment or profile)")
    record.add_argument("--profile", help="Bedrock: the AWS profile (default: AWS_PROFILE or the default chain)")
    record.add_argument(
        "--endpoint-url",
        help="the service endpoint (default: the SDK's own, e.g. AWS_ENDPOINT_URL_BEDROCK_RUNTIME, OPENAI_BASE_URL)",
    )
    record.add_argument("--no-streaming", action="store_true", help="use the non-streaming API (Bedrock converse)")
    record.add_argument(
        "--max-attempts",
        type=positive_int,
        default=6,
        help="model attempts when throttled, as strands retries (default 6)",
    )
    record.add_argument(
        "--retry-delay",
        type=non_negative_float,
        default=4.0,
        help="seconds before the first retry, doubling after (default 4)",
    )
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
    add_verbose(record)
    record.set_defaults(handler=run_record)

    record_fcc = commands.add_parser(
        "record-fcc",
        help="re-record the FCC notebook run (both output models) against your own Bedrock access",
        description="Execute examples/notebooks/03_fcc_invoices_bedrock.ipynb in record mode against live Bedrock "
        "(needs AWS credentials), write recordings/fcc_invoices.json, fcc_invoices_tuned.json and "
        "fcc_invoices.settings.json only if every cell succeeds, then execute it again in replay mode against them "
        "and save its outputs. On any failure the committed recordings are left as they were.",
        epilog=RECORD_FCC_EXAMPLES,
        formatter_class=HelpFormatter,
    )
    record_fcc.add_argument(
        "--model-id", default=None, help="Bedrock model id (default: $STRUCTSIM_NB_FCC_MODEL_ID, else Claude Haiku 4.5)"
    )
    record_fcc.add_argument(
        "--source",
        default="sample",
        help="'sample' (bundled, default), 'hub' (the real dataset), or a local file or snapshot folder "
        "(Parquet, JSON Lines, JSON, CSV; see load_fcc)",
    )
    record_fcc.add_argument("--n-docs", type=positive_int, default=None, help="record at most this many documents")
    record_fcc.add_argument(
        "--max-line-items", type=positive_int, default=None, help="skip documents with more line items"
    )
    record_fcc.add_argument(
        "--max-text-chars", type=positive_int, default=None, help="skip documents with longer OCR text"
    )
    record_fcc.add_argument("--out", default=None, help="folder for the recordings (default: the repo's recordings/)")
    record_fcc.add_argument("--profile", default=None, help="AWS profile (default: AWS_PROFILE or the default chain)")
    record_fcc.add_argument("--region", default=None, help="AWS region (default: the profile's)")
    record_fcc.add_argument("--no-save", action="store_true", help="do not save the replayed notebook's outputs")
    add_verbose(record_fcc)
    record_fcc.set_defaults(handler=run_record_fcc)


PROVIDER_NAMES = {"bedrock", "openai", "anthropic"}


def run_record(args: argparse.Namespace) -> int:
    """Record one exchange against a live model; the exit code says how it ended."""
    from strands.agent import ModelRetryStrategy

    from .. import errors
    from ..replay.cassette import load_recording
    from ..replay.providers import live_model
    from ..replay.recorder import record_exchange
    from ..replay.schema import load_schema

    target = Path(args.recording)
    if target.is_dir():
        print(
            f"error: RECORDING must name a .json file; {args.recording!r} is a folder. "
            f"Name a file in it, e.g. {target / 'exchange.json'}",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
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
        prompt, system_prompt, model_id, provider = _record_inputs(args, previous)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    codes = [
        (errors.ModelIdError, EXIT_BAD_INPUT),
        (errors.LiveExtraMissingError, EXIT_LIVE_MISSING),
        (errors.CredentialsMissingError, EXIT_NO_CREDENTIALS),
        (errors.NoStructuredOutputError, EXIT_NO_STRUCTURED_OUTPUT),
        (errors.InvalidRecordingError, EXIT_INVALID_RECORDING),
        (errors.LiveCallError, EXIT_CALL_FAILED),
    ]
    try:
        live = live_model(
            provider,
            model_id,
            region=args.region,
            profile=args.profile,
            streaming=not args.no_streaming,
            endpoint_url=args.endpoint_url,
        )
        result = record_exchange(
            target,
            model=live,
            schema=schema,
            prompt=prompt,
            system_prompt=system_prompt,
            note=args.note,
            schema_spec=args.schema,
            retry_strategy=ModelRetryStrategy(max_attempts=args.max_attempts, initial_delay=args.retry_delay),  # type: ignore[arg-type]
        )
    except errors.RecordError as exc:
        code = next(code for kind, code in codes if isinstance(exc, kind))
        print(f"error: {exc}\nno recording was written; {target} is unchanged", file=sys.stderr)
        return code
    print(f"wrote {result.path}: {result.calls} model call(s); scrubbed {result.scrubbed or 'nothing'}")
    print(result.structured_output.model_dump_json(indent=2))
    print("review the file (prompt, document text, model output) before committing it")
    return EXIT_OK


_PROVIDER_CLASSES = {
    "strands.models.bedrock.BedrockModel": "bedrock",
    "strands.models.openai.OpenAIModel": "openai",
    "strands.models.anthropic.AnthropicModel": "anthropic",
}


def _record_inputs(args: argparse.Namespace, previous: object) -> tuple[str, str | None, str, str]:
    """The prompt, system prompt, model id and provider: from the arguments, else from the existing recording."""
    first = previous.interactions[0].request if previous is not None else None  # type: ignore[attr-defined]
    if args.prompt_file:
        try:
            prompt = Path(args.prompt_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise ValueError(
                f"--prompt-file must be a readable UTF-8 text file; {args.prompt_file!r} failed: {reason}. "
                "Check the path"
            ) from None
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
    recorded_provider = _PROVIDER_CLASSES.get(previous.provenance.provider) if previous is not None else None  # type: ignore[attr-defined]
    provider = args.provider or recorded_provider or "bedrock"
    return prompt, system_prompt, model_id, provider


def run_record_fcc(args: argparse.Namespace) -> int:
    """Re-record the FCC notebook run; the exit code says how it ended."""
    from .. import errors
    from ..fcc.run import RunSettings, model_id, record_notebook

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
