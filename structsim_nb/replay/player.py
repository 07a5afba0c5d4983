"""`ReplayModel`: a Strands model provider that replays a recording, offline.

`Agent(model=ReplayModel("recordings/x.json"))(prompt, structured_output_model=M)` runs the
real agent loop, tool registry and structured-output tool; only the model's answer comes from
the file. Each call's request must match the recorded one (system prompt, messages, tool specs,
the kind of tool choice, the structured-output model); events are yielded verbatim, tool input
in the recorded fragments. Nothing here ever calls a live model or reads credentials.

A mismatch or exhaustion on the agent's first model call propagates as is; on a later call
(the forced retry, or after a tool result) strands wraps it in `EventLoopException`, whose
`original_exception` is the error raised here and whose text is the same.

Recorded calls the agent never asked for are reported: `unplayed()` lists them,
`check_all_played()` logs and warns (`UnplayedCallsWarning`), `assert_all_played()` raises, and
leaving a `with ReplayModel(...) as model:` block does one or the other (`strict`).
"""

from __future__ import annotations

import copy
import importlib.metadata
import logging
import os
import re
import threading
import warnings
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import Any

from strands.models import Model

from ..errors import ReplayExhaustedError, ReplayMismatchError, UnplayedCallsError, UnplayedCallsWarning
from .cassette import Recording, from_jsonable, load_recording, request_from_stream_args
from .scrub import default_scrub_rules, scrub_value

logger = logging.getLogger(__name__)

__all__ = ["ReplayModel", "first_difference"]

#: Request fields compared on replay, in the order a difference is reported.
MATCH_FIELDS = ("system", "messages", "tool_specs", "tool_choice_kind", "structured_output_model")

_MISSING = "<missing>"
_SO_WRAPPER = re.compile(r"^IMPORTANT: .*?<description>(.*)</description>$", re.DOTALL)
#: Prompts the strands event loop writes itself (the forced structured-output retry).
_SDK_PROMPTS = frozenset({"You must format the previous response as structured output."})


def first_difference(recorded: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first path where two JSON values differ, with both values; None if equal.

    Dict keys are visited in sorted order; a key present on one side only shows `"<missing>"`
    on the other.

    Examples:
        >>> first_difference({"a": [1, 2]}, {"a": [1, 3]})
        ('a[1]', 2, 3)
    """
    if isinstance(recorded, dict) and isinstance(actual, dict):
        for key in sorted(set(recorded) | set(actual)):
            sub = f"{path}.{key}" if path else str(key)
            if key not in recorded or key not in actual:
                return sub, recorded.get(key, _MISSING), actual.get(key, _MISSING)
            found = first_difference(recorded[key], actual[key], sub)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(actual, list):
        for index, (left, right) in enumerate(zip(recorded, actual, strict=False)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        if len(recorded) != len(actual):
            index = min(len(recorded), len(actual))
            left = recorded[index] if index < len(recorded) else _MISSING
            right = actual[index] if index < len(actual) else _MISSING
            return f"{path}[{index}]", left, right
        return None
    if recorded != actual or type(recorded) is not type(actual):
        return path, recorded, actual
    return None


def _without_sdk_text(request: dict[str, Any]) -> dict[str, Any]:
    """`request` with the text strands generates removed: the StructuredOutputTool wrapper around the
    docstring, the `"Property <name>"` descriptions, and the forced-retry prompt."""
    stripped = copy.deepcopy(request)
    for spec in stripped.get("tool_specs") or []:
        match = _SO_WRAPPER.match(str(spec.get("description", "")))
        if match:
            spec["description"] = match.group(1)
        properties = spec.get("inputSchema", {}).get("json", {}).get("properties", {})
        for name, schema in properties.items():
            if isinstance(schema, dict) and schema.get("description") == f"Property {name}":
                del schema["description"]
    for message in stripped.get("messages") or []:
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("text") in _SDK_PROMPTS:
                block["text"] = "<sdk prompt>"
    return stripped


def _window(left: Any, right: Any) -> tuple[str, str]:
    """Both values for a message; for two long strings, the part around the first differing character."""
    if isinstance(left, str) and isinstance(right, str) and max(len(left), len(right)) > 80:
        at = next((i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b), min(len(left), len(right)))
        lo = max(0, at - 30)
        return (
            f"{_short(left[lo : at + 40])} (from char {lo}; first difference at char {at})",
            _short(right[lo : at + 40]),
        )
    return _short(left), _short(right)


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _installed(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


class ReplayModel(Model):
    """A `strands.models.Model` that answers each call from a recording, in order, once.

    Args:
        path: The recording file (see `structsim_nb.replay.cassette`).
        recording: An already loaded recording to use instead of reading `path`. Default None.
        strict: What leaving a `with` block does when recorded calls were never played: warn
            (False, the default) or raise `UnplayedCallsError` (True). Default False.

    Attributes:
        config: `{"model_id": "replay:<recorded model id>", "recording": path}`; strands'
            tracer reads `config["model_id"]`.
        requests: The requests the agent made, in order, as stored in a recording.

    Raises:
        RecordingNotFoundError, RecordingFormatError: On construction, if the file is missing
            or invalid (`RecordingVersionError` and `RecordingAssemblyError` are format errors).

    Notes:
        `_supports_structured_output` is taken from the recording's provenance, so the forced
        structured-output retry has the same request shape as when it was recorded (a provider
        with the flag receives the full tool list and `structured_output_model`).
        A call whose request does not match raises `ReplayMismatchError` and plays nothing; a
        call past the last recorded one raises `ReplayExhaustedError`. Answers never repeat.
        There is no live fallback: this class holds no live model and reads no credentials.

    Examples:
        >>> with ReplayModel("recordings/invoice_walkthrough.json") as model:  # doctest: +SKIP
        ...     result = Agent(model=model, system_prompt=SYSTEM)(prompt, structured_output_model=Invoice)
    """

    def __init__(
        self, path: str | os.PathLike[str], *, recording: Recording | None = None, strict: bool = False
    ) -> None:
        self.path = str(path)
        self.strict = strict
        self.recording = recording if recording is not None else load_recording(path)
        provenance = self.recording.provenance
        self._supports_structured_output = provenance.supports_structured_output
        self.config: dict[str, Any] = {"model_id": f"replay:{provenance.model_id}", "recording": self.path}
        self.requests: list[dict[str, Any]] = []
        # Requests are compared in scrubbed space (vcrpy's "filter before matching"): a prompt holding a
        # secret matches the recording that holds its placeholder, and no secret reaches a mismatch message.
        self._rules = default_scrub_rules()
        self._played = 0
        self._lock = threading.Lock()

    def update_config(self, **model_config: Any) -> None:
        """Update `config`; it changes nothing about what is replayed."""
        self.config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        """A copy of `config`."""
        return dict(self.config)

    @property
    def played(self) -> int:
        """How many recorded calls have been played."""
        return self._played

    def unplayed(self) -> list[int]:
        """The 1-based call numbers recorded but not (yet) played."""
        return [interaction.call for interaction in self.recording.interactions[self._played :]]

    def _unplayed_message(self) -> str | None:
        missing = self.recording.interactions[self._played :]
        if not missing:
            return None
        total = len(self.recording.interactions)
        listed = ", ".join(
            f"call {i.call} (tool choice {i.request.tool_choice_kind}, {len(i.request.messages)} messages)"
            for i in missing
        )
        return (
            f"recording '{self.path}': {len(missing)} of {total} recorded model calls were never requested: {listed}. "
            f"The agent took fewer model calls than when recorded, so its path changed; re-record to confirm: "
            f"{self._rerecord()}"
        )

    def check_all_played(self, *, strict: bool = False) -> list[int]:
        """Report recorded calls that were never requested; return their call numbers (empty: all played).

        Unplayed calls are logged at WARNING and warned as `UnplayedCallsWarning`, which a
        notebook shows under the cell; with `strict=True` they raise instead.

        Args:
            strict: Raise `UnplayedCallsError` instead of warning. Default False.

        Raises:
            UnplayedCallsError: If `strict` and calls were never requested.
        """
        return self._report_unplayed(strict=strict, stacklevel=3)

    def _report_unplayed(self, *, strict: bool, stacklevel: int) -> list[int]:
        message = self._unplayed_message()
        if message is None:
            return []
        if strict:
            raise UnplayedCallsError(message, path=self.path)
        unplayed = self.unplayed()
        logger.warning("path=<%s>, unplayed=<%s> | recorded model calls were never requested", self.path, unplayed)
        warnings.warn(message, UnplayedCallsWarning, stacklevel=stacklevel)
        return unplayed

    def assert_all_played(self) -> None:
        """Raise if recorded calls were never requested (`check_all_played(strict=True)`).

        Raises:
            UnplayedCallsError: Naming the unplayed calls; fewer calls than recorded means the
                agent took another path (e.g. no forced retry), which a re-record should confirm.
        """
        self.check_all_played(strict=True)

    def __enter__(self) -> ReplayModel:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """On a clean exit, report unplayed calls: warn, or raise if `strict`. An error in the block wins."""
        if exc_type is None:
            self._report_unplayed(strict=self.strict, stacklevel=3)

    def _rerecord(self) -> str:
        return self.recording.provenance.rerecord_command

    def _mismatch(self, call: int, recorded: dict[str, Any], actual: dict[str, Any]) -> ReplayMismatchError:
        for name in MATCH_FIELDS:
            found = first_difference(recorded[name], actual[name], name)
            if found:
                break
        assert found is not None
        field_path, left, right = found
        sdk_only = all(
            first_difference(_without_sdk_text(recorded)[name], _without_sdk_text(actual)[name]) is None
            for name in MATCH_FIELDS
        )
        versions = self.recording.provenance.sdk_versions
        recorded_with = versions.get("strands-agents", "an unknown version")
        total = len(self.recording.interactions)
        verdict = (
            "yes: the request differs only in text the strands SDK generates (tool-spec wrapper, "
            f"'Property x' descriptions, retry prompt); recorded with strands-agents {recorded_with}, running "
            f"{_installed('strands-agents')}"
            if sdk_only
            else "no: your prompt, schema or agent setup changed"
        )
        shown = _window(left, right)
        message = (
            f"model call {call} does not match recording '{self.path}' (call {call} of {total} recorded; "
            f"{self._played} played)\n"
            f"  first difference at {field_path}\n"
            f"    recorded: {shown[0]}\n"
            f"    now     : {shown[1]}\n"
            f"  only SDK-generated text differs: {verdict}\n"
            f"  Replay never falls back to a live model. If the change is intended, re-record: {self._rerecord()}"
        )
        return ReplayMismatchError(
            message,
            path=self.path,
            call=call,
            field_path=field_path,
            recorded=left,
            actual=right,
            sdk_text_only=sdk_only,
        )

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
        """Check the request against the next recorded call and yield its events verbatim (deep copies).

        Both requests are scrubbed with the built-in rules before they are compared, as the
        recorder scrubbed the recorded one.

        Raises:
            ReplayExhaustedError: If every recorded call was already played.
            ReplayMismatchError: If the request differs from the recorded one.
        """
        actual = scrub_value(
            request_from_stream_args(
                messages,
                tool_specs,
                system_prompt,
                system_prompt_content=system_prompt_content,
                tool_choice=tool_choice,
                structured_output_model=structured_output_model,
            ),
            self._rules,
        )
        with self._lock:
            call = self._played + 1
            self.requests.append(actual)
            total = len(self.recording.interactions)
            if self._played >= total:
                raise ReplayExhaustedError(
                    f"the agent asked for model call {call}, but recording '{self.path}' holds {total} call(s), "
                    f"all played. A replay never repeats an answer (that would prove nothing); if the extra call "
                    f"is expected, re-record: {self._rerecord()}",
                    path=self.path,
                )
            interaction = self.recording.interactions[self._played]
            recorded = scrub_value(interaction.request.model_dump(mode="json"), self._rules)
            if any(recorded[name] != actual[name] for name in MATCH_FIELDS):
                raise self._mismatch(call, recorded, actual)
            self._played += 1
            events = from_jsonable(interaction.events)  # a deep copy, with recorded bytes as bytes again
        logger.debug("path=<%s>, call=<%d>, events=<%d> | replaying recorded call", self.path, call, len(events))
        for event in events:
            yield event

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        """Not supported: only the deprecated `Agent.structured_output()` reaches it.

        Raises:
            NotImplementedError: Always; call `agent(prompt, structured_output_model=M)` instead.
        """
        raise NotImplementedError(
            "ReplayModel replays the agent loop, not the deprecated Agent.structured_output(); "
            f"call agent(prompt, structured_output_model={getattr(output_model, '__name__', output_model)}) instead"
        )
        yield  # pragma: no cover - makes this an async generator like the abstract method
