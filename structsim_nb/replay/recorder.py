"""The recorder: run an agent call against a live model and write what it said as a recording.

`RecordingModel` wraps any `strands.models.Model` (Bedrock, OpenAI, Anthropic, ...), keeps each
call's request and stream events, and yields the events to the agent already scrubbed, so the
recording run and every replay of it see the same answers. `record_exchange` runs
`Agent(model=RecordingModel(inner))(prompt, structured_output_model=M)` and writes the recording
atomically, only when the call produced a valid structured output. Secrets (see `secret_rules`,
plus the literal credentials in use, always collected from the live model) are scrubbed from
requests and events, structurally, before anything is written, and the file is checked for them
again. `structsim-nb record` is a thin shell around `record_exchange`.

Record modes (`RecordMode`) choose, per run, whether a model is replayed or recorded; see
`open_model`.
"""

from __future__ import annotations

import contextlib
import datetime
import enum
import importlib.metadata
import logging
import os
import platform
import shlex
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from strands.models import Model

from .._io import write_text_atomic
from ..errors import InvalidRecordingError, NoStructuredOutputError, RecordingFormatError, RecordModeError
from .cassette import (
    Interaction,
    Provenance,
    RecordedRequest,
    Recording,
    assemble,
    dump_recording,
    from_jsonable,
    load_recording,
    parse_recording,
    request_from_stream_args,
    to_jsonable,
)
from .player import ReplayModel
from .providers import LiveModel, classify_error, secrets_of
from .schema import load_schema, schema_reference
from .scrub import ScrubRule, default_scrub_rules, find_secrets, scrub_events, scrub_text, scrub_value
from .secret_rules import check_rules

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_RETRY",
    "RECORD_MODE_ENV",
    "RecordMode",
    "RecordResult",
    "RecordingModel",
    "load_schema",
    "open_model",
    "record_exchange",
    "build_rerecord_command",
    "validate_record_mode",
]

RECORD_MODE_ENV = "STRUCTSIM_NB_RECORD_MODE"
#: `record_exchange(retry_strategy=...)` default: the Agent's own (strands' `ModelRetryStrategy`).
DEFAULT_RETRY: Any = object()


class RecordMode(str, enum.Enum):
    """How a run treats its recording.

    Attributes:
        REPLAY: Replay only (the default). A missing recording or a mismatch raises; no live
            model is ever built and no credentials are read.
        ONCE: Record when missing: replay if the file exists, otherwise call the live model and
            write the file.
        REWRITE: Re-record: ignore the existing file, call the live model, replace the file on
            success only.
    """

    REPLAY = "replay"
    ONCE = "once"
    REWRITE = "rewrite"


def validate_record_mode(mode: RecordMode | str | None) -> RecordMode:
    """`mode` as a `RecordMode`; None reads `STRUCTSIM_NB_RECORD_MODE`, else `replay`.

    Raises:
        RecordModeError: If the mode is not one of the valid ones (a typo fails loudly instead
            of silently replaying or recording).
    """
    if mode is None:
        mode = os.environ.get(RECORD_MODE_ENV) or RecordMode.REPLAY
    try:
        return RecordMode(mode)
    except ValueError:
        valid = ", ".join(repr(m.value) for m in RecordMode)
        raise RecordModeError(f"record mode must be one of {valid}; got {mode!r}") from None


# --- the recording model ------------------------------------------------------------------


class RecordingModel(Model):
    """A `strands.models.Model` that delegates to `inner` and copies every call.

    With `rules`, each call's events are buffered, scrubbed and then yielded, so the agent
    assembles exactly what a replay of the recording will yield (its next request, which
    carries the answer back, matches the recording). Without `rules`, events pass through
    unchanged as they arrive. `_supports_structured_output`, `config`, `get_config` and
    `update_config` mirror `inner`, so the agent takes the path it would take against `inner`
    alone (the forced retry sends the full tool list), and a replay takes it too.

    Args:
        inner: The live model.
        rules: Scrub rules applied to the events before the agent sees them. Default None.

    Attributes:
        calls: One dict per finished call: `{"request": ..., "events": [...]}`. A call that
            raised (a throttle retried by the agent, an error mid-stream) is not kept.
        scrubbed: Rule name -> replacements made in the events so far.

    Raises:
        ValueError: If `inner.stateful`; replaying server-side state is not supported.
    """

    def __init__(self, inner: Model, *, rules: Sequence[ScrubRule] | None = None) -> None:
        if inner.stateful:
            raise ValueError(f"the model to record must not be stateful; got {type(inner).__name__} with stateful=True")
        self.inner = inner
        self.rules = list(rules) if rules is not None else None
        self._supports_structured_output = bool(getattr(inner, "_supports_structured_output", False))
        self.calls: list[dict[str, Any]] = []
        self.scrubbed: dict[str, int] = {}

    @property
    def config(self) -> Any:
        """The inner model's `config` (strands' tracer reads `model_id` from it)."""
        return getattr(self.inner, "config", self.inner.get_config())

    def update_config(self, **model_config: Any) -> None:
        """Forwarded to the inner model."""
        self.inner.update_config(**model_config)

    def get_config(self) -> Any:
        """The inner model's configuration."""
        return self.inner.get_config()

    async def stream(
        self,
        messages: Any,
        tool_specs: Any = None,
        system_prompt: str | None = None,
        *,
        tool_choice: Any = None,
        system_prompt_content: Any = None,
        structured_output_model: Any = None,
        **kwargs: Any,
    ) -> AsyncGenerator[Any, None]:
        """Stream from the inner model; yield its events (scrubbed, when `rules` are set) and keep copies."""
        request = request_from_stream_args(
            messages,
            tool_specs,
            system_prompt,
            system_prompt_content=system_prompt_content,
            tool_choice=tool_choice,
            structured_output_model=structured_output_model,
        )
        events: list[Any] = []
        async for event in self.inner.stream(
            messages,
            tool_specs,
            system_prompt,
            tool_choice=tool_choice,
            system_prompt_content=system_prompt_content,
            structured_output_model=structured_output_model,
            **kwargs,
        ):
            events.append(to_jsonable(event))
            if self.rules is None:
                yield event
        if self.rules is not None:
            events = scrub_events(events, self.rules, self.scrubbed)
            for scrubbed in events:
                yield from_jsonable(scrubbed)  # a deep copy (the agent may keep it), bytes as bytes again
        self.calls.append({"request": request, "events": events})
        logger.debug("call=<%d>, events=<%d> | recorded model call", len(self.calls), len(events))

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        """Forwarded to the inner model; not recorded (only the deprecated API uses it)."""
        async for event in self.inner.structured_output(output_model, prompt, system_prompt, **kwargs):
            yield event


# --- recording an exchange ----------------------------------------------------------------


@dataclass(frozen=True)
class RecordResult:
    """What `record_exchange` wrote.

    Attributes:
        path: The recording file.
        recording: The recording as written.
        structured_output: The object the agent produced (from the scrubbed answer, as a replay gives it).
        calls: Model calls recorded.
        scrubbed: Rule name -> replacements made.
    """

    path: Path
    recording: Recording
    structured_output: BaseModel
    calls: int
    scrubbed: dict[str, int]


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("strands-agents", "pydantic", "botocore", "openai", "anthropic", "structsim-nb"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _provider_name(model: Model) -> str | None:
    module = type(model).__module__
    for name in ("bedrock", "openai", "anthropic"):
        if module == f"strands.models.{name}":
            return name
    return None


def _streaming(model: Model) -> bool:
    config = model.get_config() if isinstance(model.get_config(), dict) else {}
    if "streaming" in config:
        return bool(config["streaming"])
    return bool(config.get("stream", True))


def build_rerecord_command(
    path: str | os.PathLike[str], *, schema: str, model_id: str, provider: str = "bedrock", streaming: bool = True
) -> str:
    """The `structsim-nb record` command that re-records `path`, with every argument shell-quoted.

    The prompt and system prompt are not in it: `record` reuses those of the existing file.

    Examples:
        >>> build_rerecord_command("r.json", schema="app.models:Invoice", model_id="m1", provider="openai")
        'structsim-nb record r.json --schema app.models:Invoice --model-id m1 --provider openai'
    """
    words = ["structsim-nb", "record", str(path), "--schema", schema, "--model-id", model_id]
    if provider != "bedrock":
        words += ["--provider", provider]
    if not streaming:
        words.append("--no-streaming")
    return " ".join(shlex.quote(word) for word in words)


def _unwrap(model: Model | LiveModel, secrets: Sequence[str]) -> tuple[Model, list[str], str | None]:
    if isinstance(model, LiveModel):
        return model.model, [*secrets, *model.secrets, *secrets_of(model.model)], model.region
    client = getattr(model, "client", None)
    region = getattr(getattr(client, "meta", None), "region_name", None)
    return model, [*secrets, *secrets_of(model)], region if isinstance(region, str) else None


def record_exchange(
    path: str | os.PathLike[str],
    *,
    model: Model | LiveModel,
    schema: type[BaseModel],
    prompt: str,
    system_prompt: str | None = None,
    secrets: Sequence[str] = (),
    note: str = "Live capture by structsim-nb record; review the scrubbed content before committing.",
    rerecord_command: str | None = None,
    schema_spec: str | None = None,
    retry_strategy: Any = DEFAULT_RETRY,
) -> RecordResult:
    """Run `Agent(model=RecordingModel(model))(prompt, structured_output_model=schema)` and write the recording.

    The file is written atomically and only on success: any failure below leaves an existing
    recording exactly as it was.

    Args:
        path: Where to write the recording.
        model: The live model, or a `LiveModel` from `providers.live_model` (its credentials
            are scrubbed too).
        schema: The Pydantic class the agent must produce.
        prompt: The user prompt.
        system_prompt: The agent's system prompt. Default None.
        secrets: Literal strings to scrub in addition to the built-in rules and the credentials
            found on the model and in the environment (`providers.secrets_of`).
        note: The provenance note.
        rerecord_command: The command stored to re-record this file. Default None: the
            `structsim-nb record` command for these arguments (`build_rerecord_command`), or, for
            a provider the CLI does not build, `STRUCTSIM_NB_RECORD_MODE=rewrite <your script>`.
        schema_spec: How `--schema` names `schema` in that command. Default None:
            `schema_reference(schema)` (a file path for a class loaded from a file).
        retry_strategy: The Agent's `retry_strategy`. Default: the Agent's own (strands retries
            a throttled call 5 times, 4 s to 64 s apart). None disables retries.

    Returns:
        A `RecordResult`.

    Raises:
        CredentialsMissingError: Credentials are missing or rejected during the call.
        LiveCallError: The call failed for another reason (throttled past the retries, a
            validation error, an exception in the stream, the network).
        NoStructuredOutputError: The agent finished without the structured output.
        InvalidRecordingError: The events do not assemble into valid content, or a secret
            survived scrubbing.
    """
    from strands import Agent

    inner, credentials, region = _unwrap(model, secrets)
    target = Path(path)
    config = inner.get_config() if isinstance(inner.get_config(), dict) else {}
    model_id = str(config.get("model_id", type(inner).__name__))
    provider = model.provider if isinstance(model, LiveModel) else _provider_name(inner)
    rules = default_scrub_rules(credentials)
    recorder = RecordingModel(inner, rules=rules)
    extra = {} if retry_strategy is DEFAULT_RETRY else {"retry_strategy": retry_strategy}
    agent = Agent(model=recorder, system_prompt=system_prompt, callback_handler=None, **extra)
    try:
        result = agent(prompt, structured_output_model=schema)
    except Exception as exc:
        raise classify_error(exc, model_id, provider=provider or type(inner).__name__) from exc
    if result.structured_output is None:
        raise NoStructuredOutputError(
            f"the agent finished (stop reason {result.stop_reason!r}) without a {schema.__name__} object"
        )
    for number, call in enumerate(recorder.calls, start=1):
        try:
            assemble(call["events"])
        except ValueError as exc:
            raise InvalidRecordingError(f"model call {number} does not assemble into a valid message: {exc}") from None
    command = rerecord_command
    if command is None and provider is not None:
        command = build_rerecord_command(
            target,
            schema=schema_spec or schema_reference(schema),
            model_id=scrub_text(model_id, rules),
            provider=provider,
            streaming=_streaming(inner),
        )
    command = command or f"{RECORD_MODE_ENV}=rewrite <your script>"
    recording, counts = _write_checked(target, recorder, rules, note=note, region=region, rerecord_command=command)
    return RecordResult(
        path=target,
        recording=recording,
        structured_output=result.structured_output,
        calls=len(recording.interactions),
        scrubbed=counts,
    )


@contextlib.contextmanager
def open_model(
    path: str | os.PathLike[str],
    *,
    mode: RecordMode | str | None = None,
    live: Callable[[], Model | LiveModel] | None = None,
    secrets: Sequence[str] = (),
    rerecord_command: str | None = None,
    note: str = "Live capture through structsim_nb.open_model; review before committing.",
) -> Iterator[Model]:
    """A model for one run, chosen by the record mode; checks or saves on exit.

    `replay` yields a `ReplayModel` and, on a clean exit, requires every recorded call to have
    been played. `once` replays if the file exists and records otherwise; `rewrite` always
    records. A recording is written at exit only if the block raised nothing, atomically,
    after scrubbing with the built-in rules and the credentials in use (those of a
    `LiveModel`, those found on the model, those of the environment, and `secrets`). `live` is
    a factory, called only when recording, so `replay` never builds a client or reads credentials.

    Args:
        path: The recording file.
        mode: A `RecordMode` or its name. Default None: `$STRUCTSIM_NB_RECORD_MODE`, else `replay`.
        live: Builds the live model (a `Model` or a `providers.LiveModel`) when recording.
        secrets: More literal strings to scrub.
        rerecord_command: The command stored in the file to re-record it. Default None: the
            existing file's, else `STRUCTSIM_NB_RECORD_MODE=rewrite <your script>`.
        note: The provenance note.

    Raises:
        RecordModeError: For an invalid mode.
        ValueError: If recording is needed and `live` is None, or the block made no model call.
        RecordingNotFoundError: In `replay` mode without a file.
        UnplayedCallsError: In replay, if recorded calls were never requested.
        InvalidRecordingError: When recording, if a call does not assemble or a secret survived.
    """
    chosen = validate_record_mode(mode)
    target = Path(path)
    if chosen is RecordMode.REPLAY or (chosen is RecordMode.ONCE and target.exists()):
        replay = ReplayModel(target)
        yield replay
        replay.assert_all_played()
        return
    if live is None:
        raise ValueError(f"record mode {chosen.value!r} needs live=<a factory returning a Model>; got None")
    inner, credentials, region = _unwrap(live(), secrets)
    rules = default_scrub_rules(credentials)
    recorder = RecordingModel(inner, rules=rules)
    yield recorder
    if not recorder.calls:
        raise ValueError(f"record mode {chosen.value!r}: the block made no model calls, so there is nothing to record")
    command = rerecord_command
    if command is None and target.exists():
        try:
            command = load_recording(target).provenance.rerecord_command
        except RecordingFormatError as exc:  # rewrite ignores the old file; keep only its command, if readable
            logger.warning("path=<%s>, error=<%s> | existing recording unreadable; replacing it", target, exc)
    for number, call in enumerate(recorder.calls, start=1):
        try:
            assemble(call["events"])
        except ValueError as exc:
            raise InvalidRecordingError(f"model call {number} does not assemble into a valid message: {exc}") from None
    _write_checked(
        target,
        recorder,
        rules,
        note=note,
        region=region,
        rerecord_command=command or f"{RECORD_MODE_ENV}=rewrite <your script>",
    )


def _leaks(recording: Recording, text: str, scrub_rules: Sequence[ScrubRule]) -> list[str]:
    """Rules still matching the file: in each decoded string (and key) and in the raw text.

    Checks the literal credentials of `scrub_rules` and every detection rule (`check_rules`).
    """
    rules = [*(rule for rule in scrub_rules if rule.name == "credentials_in_use"), *check_rules()]
    found = set(find_secrets(text, rules))

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.update(find_secrets(value, rules))
        elif isinstance(value, dict):
            for key, item in value.items():
                found.update(find_secrets(str(key), rules))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(recording.model_dump(mode="json"))
    return sorted(found)


def _write_checked(
    target: Path,
    recorder: RecordingModel,
    rules: Sequence[ScrubRule],
    *,
    note: str,
    region: str | None,
    rerecord_command: str,
) -> tuple[Recording, dict[str, int]]:
    """Scrub the recorder's calls, build the recording, check it for secrets, write atomically.

    Raises:
        InvalidRecordingError: If a secret survived scrubbing or the result does not validate;
            nothing is written then.
    """
    counts: dict[str, int] = dict(recorder.scrubbed)
    try:
        interactions = [
            Interaction(
                call=number,
                request=RecordedRequest.model_validate(scrub_value(call["request"], rules, counts)),
                events=scrub_events(call["events"], rules, counts),
            )
            for number, call in enumerate(recorder.calls, start=1)
        ]
    except ValueError as exc:
        raise InvalidRecordingError(f"the recorded calls do not form a valid recording: {exc}") from None
    inner = recorder.inner
    config = recorder.get_config() if isinstance(recorder.get_config(), dict) else {}
    provenance = Provenance(
        source="recorded",
        recorded_at=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        note=note,
        model_id=scrub_text(str(config.get("model_id", type(inner).__name__)), rules, counts),
        provider=f"{type(inner).__module__}.{type(inner).__qualname__}",
        region=region,
        streaming=_streaming(inner),
        supports_structured_output=recorder._supports_structured_output,
        sdk_versions=_versions(),
        rerecord_command=scrub_text(rerecord_command, rules, counts),
        scrubbed=counts,
    )
    recording = Recording(provenance=provenance, interactions=interactions)
    text = dump_recording(recording)
    leaked = _leaks(recording, text, rules)
    if leaked:
        raise InvalidRecordingError(
            f"the recording must contain no secrets; after scrubbing it still matches {leaked}. Nothing was written."
        )
    try:
        parse_recording(text, path=target)
    except RecordingFormatError as exc:
        raise InvalidRecordingError(f"the recording did not validate; nothing was written: {exc}") from None
    write_text_atomic(target, text)
    logger.info("path=<%s>, calls=<%d>, scrubbed=<%s> | recording written", target, len(interactions), counts)
    return recording, counts
