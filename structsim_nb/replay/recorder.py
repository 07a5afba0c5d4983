"""The recorder: run an agent call against a live model and write what it said as a recording.

`RecordingModel` wraps any `strands.models.Model` (in practice a `BedrockModel`), passes its
stream events through unchanged while copying them, and keeps each call's request.
`record_exchange` runs `Agent(model=RecordingModel(inner))(prompt, structured_output_model=M)`
and writes the recording atomically, only when the call produced a valid structured output.
Secrets (AWS keys, session tokens, account ids, ARNs, and the literal credentials in use) are
scrubbed from the request and the events before anything is written, and the file text is
checked for them again. `structsim-nb record` is a thin shell around `record_exchange`.

Record modes (`RecordMode`) choose, per run, whether a model is replayed or recorded; see
`open_model`.
"""

from __future__ import annotations

import contextlib
import datetime
import enum
import importlib
import importlib.metadata
import importlib.util
import logging
import os
import platform
import shlex
import sys
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from strands.models import Model

from .._io import write_text_atomic
from ..errors import (
    CredentialsMissingError,
    InvalidRecordingError,
    LiveCallError,
    NoStructuredOutputError,
    RecordingFormatError,
    RecordModeError,
)
from .cassette import (
    Interaction,
    Provenance,
    RecordedRequest,
    Recording,
    assemble,
    dump_recording,
    load_recording,
    parse_recording,
    request_from_stream_args,
    to_jsonable,
)
from .player import ReplayModel
from .scrub import ScrubRule, default_scrub_rules, find_secrets, scrub_events, scrub_text, scrub_value

logger = logging.getLogger(__name__)

__all__ = [
    "RECORD_MODE_ENV",
    "RecordMode",
    "RecordResult",
    "RecordingModel",
    "load_schema",
    "open_model",
    "record_exchange",
    "validate_record_mode",
]

RECORD_MODE_ENV = "STRUCTSIM_NB_RECORD_MODE"


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

    Events reach the agent unchanged, in the inner model's fragments; copies go to `calls`.
    `_supports_structured_output`, `config`, `get_config` and `update_config` mirror `inner`,
    so the agent takes the same path (the forced retry sends the full tool list) as it would
    against `inner` alone, and a replay of the result takes it too.

    Args:
        inner: The live model.

    Raises:
        ValueError: If `inner.stateful`; replaying server-side state is not supported.
    """

    def __init__(self, inner: Model) -> None:
        if inner.stateful:
            raise ValueError(f"the model to record must not be stateful; got {type(inner).__name__} with stateful=True")
        self.inner = inner
        self._supports_structured_output = bool(getattr(inner, "_supports_structured_output", False))
        self.calls: list[dict[str, Any]] = []

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
        """Stream from the inner model, yielding its events unchanged and keeping copies."""
        request = request_from_stream_args(
            messages,
            tool_specs,
            system_prompt,
            system_prompt_content=system_prompt_content,
            tool_choice=tool_choice,
            structured_output_model=structured_output_model,
        )
        events: list[dict[str, Any]] = []
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
            yield event
        self.calls.append({"request": request, "events": events})
        logger.debug("call=<%d>, events=<%d> | recorded model call", len(self.calls), len(events))

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        """Forwarded to the inner model; not recorded (only the deprecated API uses it)."""
        async for event in self.inner.structured_output(output_model, prompt, system_prompt, **kwargs):
            yield event


def load_schema(spec: str) -> type[BaseModel]:
    """The Pydantic class named by `module.path:Class` or `path/to/file.py:Class`.

    Raises:
        ValueError: If `spec` is malformed, cannot be imported, or is not a Pydantic model.
    """
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name:
        raise ValueError(f"--schema must be MODULE:CLASS or FILE.py:CLASS; got {spec!r}")
    try:
        if target.endswith(".py"):
            file = Path(target)
            module_spec = importlib.util.spec_from_file_location(f"_structsim_schema_{file.stem}", file)
            if module_spec is None or module_spec.loader is None or not file.is_file():
                raise ImportError(f"no Python file at {file}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_spec.name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except Exception as exc:
        raise ValueError(f"--schema {spec!r} must be importable; got {type(exc).__name__}: {exc}") from None
    cls = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        raise ValueError(f"--schema {spec!r} must name a Pydantic model class; got {cls!r}")
    return cls


# --- recording an exchange ----------------------------------------------------------------


@dataclass(frozen=True)
class RecordResult:
    """What `record_exchange` wrote.

    Attributes:
        path: The recording file.
        recording: The recording as written.
        structured_output: The object the live agent produced.
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
    for name in ("strands-agents", "pydantic", "botocore", "structsim-nb"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


_CREDENTIAL_ERRORS = {
    "NoCredentialsError",
    "PartialCredentialsError",
    "TokenRetrievalError",
    "UnauthorizedSSOTokenError",
    "SSOTokenLoadError",
    "CredentialRetrievalError",
}
_CREDENTIAL_CODES = {"UnrecognizedClientException", "ExpiredTokenException", "InvalidSignatureException"}


def _classify(exc: BaseException, model_id: str) -> Exception:
    original = getattr(exc, "original_exception", None) or exc
    kind = type(original).__name__
    if kind == "StructuredOutputException":
        return NoStructuredOutputError(f"the model never produced the structured output: {original}")
    code = getattr(original, "response", {}).get("Error", {}).get("Code") if hasattr(original, "response") else None
    if kind in _CREDENTIAL_ERRORS or code in _CREDENTIAL_CODES:
        return CredentialsMissingError(f"AWS credentials must be present and valid; got {kind}: {original}")
    return LiveCallError(f"the live call to {model_id!r} failed: {kind}: {original}")


def record_exchange(
    path: str | os.PathLike[str],
    *,
    model: Model,
    schema: type[BaseModel],
    prompt: str,
    system_prompt: str | None = None,
    secrets: Sequence[str] = (),
    note: str = "Live capture by structsim-nb record; review the scrubbed content before committing.",
    rerecord_command: str | None = None,
) -> RecordResult:
    """Run `Agent(model=RecordingModel(model))(prompt, structured_output_model=schema)` and write the recording.

    The file is written atomically and only on success: any failure below leaves an existing
    recording exactly as it was.

    Args:
        path: Where to write the recording.
        model: The live model (e.g. from `bedrock_model`).
        schema: The Pydantic class the agent must produce.
        prompt: The user prompt.
        system_prompt: The agent's system prompt. Default None.
        secrets: Literal strings to scrub in addition to the built-in rules (the credentials).
        note: The provenance note.
        rerecord_command: The command stored to re-record this file; built from the arguments
            if None.

    Returns:
        A `RecordResult`.

    Raises:
        CredentialsMissingError: Credentials are missing or rejected during the call.
        LiveCallError: The call failed for another reason.
        NoStructuredOutputError: The agent finished without the structured output.
        InvalidRecordingError: The events do not assemble into valid content, or a secret
            survived scrubbing.
    """
    from strands import Agent

    target = Path(path)
    config = model.get_config() if isinstance(model.get_config(), dict) else {}
    model_id = str(config.get("model_id", type(model).__name__))
    recorder = RecordingModel(model)
    agent = Agent(model=recorder, system_prompt=system_prompt, callback_handler=None)
    try:
        result = agent(prompt, structured_output_model=schema)
    except Exception as exc:
        raise _classify(exc, model_id) from exc
    if result.structured_output is None:
        raise NoStructuredOutputError(
            f"the agent finished (stop reason {result.stop_reason!r}) without a {schema.__name__} object"
        )

    rules = default_scrub_rules(secrets)
    for number, call in enumerate(recorder.calls, start=1):
        try:
            assemble(call["events"])
        except ValueError as exc:
            raise InvalidRecordingError(f"model call {number} does not assemble into a valid message: {exc}") from None
    client = getattr(model, "client", None)
    command = rerecord_command or " ".join(
        ["structsim-nb", "record", shlex.quote(str(target))]
        + ["--schema", shlex.quote(f"{schema.__module__}:{schema.__name__}"), "--model-id", shlex.quote(model_id)]
    )
    recording, counts = _write_checked(
        target,
        recorder,
        rules,
        note=note,
        region=getattr(getattr(client, "meta", None), "region_name", None),
        rerecord_command=command,
    )
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
    live: Callable[[], Model] | None = None,
) -> Iterator[Model]:
    """A model for one run, chosen by the record mode; checks or saves on exit.

    `replay` yields a `ReplayModel` and, on a clean exit, requires every recorded call to have
    been played. `once` replays if the file exists and records otherwise; `rewrite` always
    records. A recording is written at exit only if the block raised nothing, atomically,
    after scrubbing with the built-in rules. `live` is a factory, called only when recording,
    so `replay` never builds a client or reads credentials.

    Raises:
        RecordModeError: For an invalid mode.
        ValueError: If recording is needed and `live` is None.
        RecordingNotFoundError: In `replay` mode without a file.
        UnplayedCallsError: In replay, if recorded calls were never requested.
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
    recorder = RecordingModel(live())
    yield recorder
    if not recorder.calls:
        raise ValueError(f"record mode {chosen.value!r}: the block made no model calls, so there is nothing to record")
    previous = None
    if target.exists():
        try:
            previous = load_recording(target).provenance
        except RecordingFormatError as exc:  # rewrite ignores the old file; keep only its command, if readable
            logger.warning("path=<%s>, error=<%s> | existing recording unreadable; replacing it", target, exc)
    _write_checked(
        target,
        recorder,
        default_scrub_rules(),
        note="Live capture through structsim_nb.open_model; review before committing.",
        region=None,
        rerecord_command=previous.rerecord_command if previous else f"{RECORD_MODE_ENV}=rewrite <your script>",
    )


def _write_checked(
    target: Path,
    recorder: RecordingModel,
    rules: Sequence[ScrubRule],
    *,
    note: str,
    region: str | None,
    rerecord_command: str,
) -> tuple[Recording, dict[str, int]]:
    """Scrub the recorder's calls, build the recording, check the text for secrets, write atomically.

    Raises:
        InvalidRecordingError: If a secret survived scrubbing or the result does not validate;
            nothing is written then.
    """
    counts: dict[str, int] = {}
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
        model_id=scrub_text(str(config.get("model_id", type(inner).__name__)), rules),
        provider=f"{type(inner).__module__}.{type(inner).__qualname__}",
        region=region,
        streaming=bool(config.get("streaming", True)),
        supports_structured_output=recorder._supports_structured_output,
        sdk_versions=_versions(),
        rerecord_command=scrub_text(rerecord_command, rules),
        scrubbed=counts,
    )
    recording = Recording(provenance=provenance, interactions=interactions)
    text = dump_recording(recording)
    leaked = find_secrets(text, rules)
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
