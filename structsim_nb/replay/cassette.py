"""The recording file format: one JSON file per exchange set, versioned, validated on load.

A recording holds what a Strands model provider saw and said, at the `Model.stream()`
boundary: for each model call, the request as the model received it (system prompt, messages,
tool specs, the kind of tool choice, the structured-output model name) and the `StreamEvent`
dicts it yielded, verbatim. Replay (`structsim_nb.replay`) only reads these files; the recorder
(`structsim_nb.replay.recorder`) writes them.

Layout (format version 1)::

    {"format": "structsim-nb/recording", "format_version": 1,
     "provenance": {"source": "recorded" | "hand_authored", "recorded_at": "...Z" | null,
                    "note": "...", "model_id": "...", "provider": "...", "region": ...,
                    "streaming": true, "supports_structured_output": true,
                    "sdk_versions": {"strands-agents": "...", ...},
                    "rerecord_command": "structsim-nb record ...", "scrubbed": {"rule": count}},
     "interactions": [{"call": 1, "request": {...}, "events": [{"messageStart": ...}, ...]}]}

Files are written as `json.dumps(indent=2, sort_keys=True)` plus a newline, so diffs review well.
"""

from __future__ import annotations

import base64
import copy
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .._io import write_text_atomic
from ..errors import RecordingAssemblyError, RecordingFormatError, RecordingNotFoundError, RecordingVersionError

logger = logging.getLogger(__name__)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Assembled",
    "Interaction",
    "Provenance",
    "Recording",
    "RecordedRequest",
    "assemble",
    "dump_recording",
    "from_jsonable",
    "load_recording",
    "parse_recording",
    "request_from_stream_args",
    "to_jsonable",
    "tool_choice_kind",
    "write_recording",
]

FORMAT: Final = "structsim-nb/recording"
FORMAT_VERSION = 1

#: The top-level keys a `StreamEvent` may carry (strands.types.streaming.StreamEvent).
STREAM_EVENT_KEYS = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
        "redactContent",
    }
)


def tool_choice_kind(tool_choice: dict[str, Any] | None) -> Literal["auto", "forced"]:
    """`"auto"` for no tool choice or `{"auto": {}}`; `"forced"` for `{"any": {}}` or `{"tool": {...}}`.

    Strands changed the forced retry from `{"any": {}}` to `{"tool": {"name": ...}}`, so matching
    compares the kind, not the dict.
    """
    if tool_choice is None or "auto" in tool_choice:
        return "auto"
    return "forced"


class Provenance(BaseModel):
    """Where a recording came from. Stays honest: a hand-authored file says so, and why."""

    model_config = ConfigDict(extra="forbid")

    source: Literal["recorded", "hand_authored"]
    recorded_at: str | None = Field(description="ISO 8601 UTC time of the live run; null when hand-authored")
    note: str = Field(min_length=1)
    model_id: str = Field(min_length=1, description="the live model, or the one whose wire format is imitated")
    provider: str = Field(min_length=1, description="the provider class, e.g. strands.models.bedrock.BedrockModel")
    region: str | None = None
    streaming: bool = Field(description="false: fragment boundaries are synthetic (one chunk per block)")
    supports_structured_output: bool = Field(description="the provider's _supports_structured_output, mirrored")
    sdk_versions: dict[str, str]
    rerecord_command: str = Field(min_length=1)
    scrubbed: dict[str, int] = Field(default_factory=dict, description="scrub rule -> replacements made")

    @model_validator(mode="after")
    def _source_matches_time(self) -> Provenance:
        if self.source == "recorded" and not self.recorded_at:
            raise ValueError("a recorded file must say when it was recorded (recorded_at); got null")
        if self.source == "hand_authored" and self.recorded_at is not None:
            raise ValueError(
                f"a hand-authored file was never recorded, so recorded_at must be null; got {self.recorded_at!r}"
            )
        return self


class RecordedRequest(BaseModel):
    """One model call's request as `Model.stream()` received it (JSON-safe, bytes as `{"$bytes": b64}`)."""

    model_config = ConfigDict(extra="forbid")

    system: list[dict[str, Any]] | None
    messages: list[dict[str, Any]] = Field(min_length=1)
    tool_specs: list[dict[str, Any]]
    tool_choice: dict[str, Any] | None
    tool_choice_kind: Literal["auto", "forced"]
    structured_output_model: str | None

    @model_validator(mode="after")
    def _kind_matches_choice(self) -> RecordedRequest:
        derived = tool_choice_kind(self.tool_choice)
        if derived != self.tool_choice_kind:
            raise ValueError(
                f"tool_choice_kind must follow tool_choice: {self.tool_choice!r} is {derived!r}; "
                f"got {self.tool_choice_kind!r}"
            )
        return self


class Interaction(BaseModel):
    """One model call: its request and the stream events it answered with."""

    model_config = ConfigDict(extra="forbid")

    call: int = Field(ge=1)
    request: RecordedRequest
    events: list[dict[str, Any]] = Field(min_length=1)

    @field_validator("events")
    @classmethod
    def _events_are_stream_events(cls, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for index, event in enumerate(events):
            if len(event) != 1 or next(iter(event)) not in STREAM_EVENT_KEYS:
                raise ValueError(
                    f"events[{index}] must have exactly one key out of {sorted(STREAM_EVENT_KEYS)}; "
                    f"got keys {sorted(event)}"
                )
        return events


class Recording(BaseModel):
    """A whole recording file: format marker, provenance and the model calls in order."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["structsim-nb/recording"] = FORMAT
    format_version: int = FORMAT_VERSION
    provenance: Provenance
    interactions: list[Interaction] = Field(min_length=1)

    @model_validator(mode="after")
    def _calls_in_order(self) -> Recording:
        calls = [interaction.call for interaction in self.interactions]
        if calls != list(range(1, len(calls) + 1)):
            raise ValueError(f"interactions must be numbered call 1, 2, ... in order; got calls {calls}")
        return self


@dataclass(frozen=True)
class Assembled:
    """What the agent assembles from one call's events (the rules of strands' `process_stream`).

    Attributes:
        content: The message content blocks, e.g. `[{"toolUse": {"toolUseId", "name", "input"}}]`.
        stop_reason: From `messageStop`; `end_turn` when absent (as in strands).
        tool_fragments: For each tool block, the raw input fragments as streamed.
        usage: The `metadata.usage` dict, or empty.
    """

    content: list[dict[str, Any]]
    stop_reason: str
    tool_fragments: list[list[str]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)


def assemble(events: list[dict[str, Any]]) -> Assembled:
    """Assemble stream events into a message the way strands does, but strictly.

    Strands logs and skips a tool block without id or name, and turns invalid tool JSON into `{}`
    (so a broken recording shows up as an extra model call); here both raise instead. A tool block
    may be opened by `contentBlockStart` or, as strands also accepts, by a first `toolUse` delta
    naming the tool. A `messageStop` without a `stopReason` raises (strands would fail on it).

    Raises:
        ValueError: With the event index, if the events do not assemble into valid content.
    """
    content: list[dict[str, Any]] = []
    fragments_per_tool: list[list[str]] = []
    tool: dict[str, Any] | None = None
    fragments: list[str] = []
    text: list[str] = []
    stop_reason = "end_turn"
    usage: dict[str, Any] = {}
    for index, event in enumerate(events):
        (key, body), *_ = event.items()
        if key == "contentBlockStart":
            start = (body or {}).get("start", {}).get("toolUse")
            if start is not None:
                if tool is not None:
                    raise ValueError(f"events[{index}]: a tool block starts before the previous one stopped")
                tool, fragments = dict(start), []
        elif key == "contentBlockDelta":
            delta = (body or {}).get("delta", {})
            if "toolUse" in delta:
                piece = delta["toolUse"]
                if tool is None:
                    if not ({"toolUseId", "name"} & set(piece)):
                        raise ValueError(
                            f"events[{index}]: tool input arrives outside a tool block (no contentBlockStart, and "
                            "no toolUseId or name in the delta)"
                        )
                    tool, fragments = {}, []  # some models name the tool in its first delta; strands accepts that
                for name in ("toolUseId", "name"):  # as strands: a value already set is kept
                    if name in piece and name not in tool:
                        tool[name] = piece[name]
                fragments.append(piece.get("input", ""))
            elif "text" in delta:
                text.append(delta["text"])
        elif key == "contentBlockStop":
            if tool is not None:
                if not tool.get("toolUseId") or not tool.get("name"):
                    raise ValueError(f"events[{index}]: the tool block has no toolUseId or name; strands would drop it")
                raw = "".join(fragments)
                try:
                    parsed = json.loads(raw) if raw.strip() else {}
                except json.JSONDecodeError as exc:
                    raise ValueError(
                        f"events[{index}]: tool '{tool['name']}' input is not valid JSON ({exc.msg} at char "
                        f"{exc.pos}); joined fragments: {raw[:120]!r}"
                    ) from exc
                if not isinstance(parsed, dict):
                    raise ValueError(f"events[{index}]: tool '{tool['name']}' input must be a JSON object; got {raw!r}")
                content.append({"toolUse": {"toolUseId": tool["toolUseId"], "name": tool["name"], "input": parsed}})
                fragments_per_tool.append(fragments)
                tool = None
            elif text:
                content.append({"text": "".join(text)})
            text = []
        elif key == "messageStop":
            if not isinstance(body, dict) or not isinstance(body.get("stopReason"), str):
                raise ValueError(
                    f"events[{index}]: messageStop must hold a stopReason (such as 'tool_use' or 'end_turn'); got "
                    f"{body!r}. Strands reads event['stopReason'] and would fail"
                )
            stop_reason = body["stopReason"]
        elif key == "metadata":
            usage = dict((body or {}).get("usage", {}))
    if tool is not None:
        raise ValueError(f"tool block '{tool.get('name')}' never stops (no contentBlockStop); strands would drop it")
    return Assembled(content=content, stop_reason=stop_reason, tool_fragments=fragments_per_tool, usage=usage)


def to_jsonable(value: Any) -> Any:
    """A deep, JSON-safe copy: bytes become `{"$bytes": base64}`, tuples lists."""
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return copy.deepcopy(str(value))


def from_jsonable(value: Any) -> Any:
    """`to_jsonable` undone: a deep copy with every `{"$bytes": base64}` as the bytes it holds.

    What a model yields goes to the agent as it came: strands joins a redacted reasoning block's
    `redactedContent` as bytes (`b"" + chunk`), so a recorded event must give it bytes again.
    A dict is read as bytes only when `$bytes` is its one key and holds valid base64 text.
    """
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get("$bytes"), str):
            try:
                return base64.b64decode(value["$bytes"], validate=True)
            except ValueError:
                pass
        return {key: from_jsonable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_jsonable(item) for item in value]
    return value


def request_from_stream_args(
    messages: list[dict[str, Any]],
    tool_specs: list[dict[str, Any]] | None,
    system_prompt: str | None,
    *,
    system_prompt_content: list[dict[str, Any]] | None = None,
    tool_choice: dict[str, Any] | None = None,
    structured_output_model: type | None = None,
) -> dict[str, Any]:
    """The request dict stored for (and compared against) one `Model.stream()` call.

    The system prompt is stored as content blocks (`system_prompt_content`, else
    `[{"text": system_prompt}]`, else null) with cache points dropped; tool specs are sorted by
    name. Volatile arguments (`invocation_state`, `cancel_signal`, `model_state`, ...) are never
    stored.
    """
    if system_prompt_content is not None:
        system: list[dict[str, Any]] | None = [block for block in system_prompt_content if "cachePoint" not in block]
    elif system_prompt:
        system = [{"text": system_prompt}]
    else:
        system = None
    specs = sorted(tool_specs or [], key=lambda spec: str(spec.get("name", "")))
    return to_jsonable(
        {
            "system": system,
            "messages": [{"role": m.get("role"), "content": m.get("content", [])} for m in messages],
            "tool_specs": specs,
            "tool_choice": tool_choice,
            "tool_choice_kind": tool_choice_kind(tool_choice),
            "structured_output_model": getattr(structured_output_model, "__name__", None),
        }
    )


def _describe_errors(exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]).lstrip(".")
        got = repr(error.get("input"))
        got = got if len(got) <= 80 else got[:77] + "..."
        lines.append(f"  {where or '(top level)'}: {error['msg']}; got {got}")
    return "\n".join(lines)


def parse_recording(text: str, *, path: str | os.PathLike[str] = "<string>") -> Recording:
    """Parse and validate a recording from its JSON text.

    Checks, in order: the text is JSON; it is a structsim-nb recording; its format version is
    one this package reads; every field validates; every call's events assemble into valid
    content (tool blocks have an id and a name, tool input is one JSON object).

    Raises:
        RecordingVersionError: If `format_version` is newer (or older, or missing) than `FORMAT_VERSION`;
            checked before any other field, so a newer file is never reported as merely invalid.
        RecordingAssemblyError: If a call's events do not assemble into a valid message.
        RecordingFormatError: For anything else wrong, naming the file and the field.
    """
    where = str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordingFormatError(
            f"recording '{where}' must be JSON; it is not ({exc.msg} at line {exc.lineno}, column {exc.colno}). "
            "Restore it from version control or re-record it.",
            path=where,
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise RecordingFormatError(
            f'recording \'{where}\' must have "format": "{FORMAT}"; got {got!r}. It is not a structsim-nb recording.',
            path=where,
        )
    version = data.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:  # (`true` and `1.0` equal 1 in Python; not here)
        newer = type(version) is int and version > FORMAT_VERSION
        hint = "Upgrade structsim-nb to read it." if newer else "Re-record it with this version."
        raise RecordingVersionError(
            f"recording '{where}' has format_version {version!r}; this structsim-nb reads version "
            f"{FORMAT_VERSION} only. {hint}",
            path=where,
        )
    try:
        recording = Recording.model_validate(data)
    except ValidationError as exc:
        raise RecordingFormatError(
            f"recording '{where}' is not valid ({exc.error_count()} problem(s)):\n{_describe_errors(exc)}",
            path=where,
        ) from None
    for index, interaction in enumerate(recording.interactions):
        try:
            assemble(interaction.events)
        except ValueError as exc:
            raise RecordingAssemblyError(
                f"recording '{where}', interactions[{index}] (call {interaction.call}) does not assemble into a "
                f"valid model message: {exc}. Fix the events or re-record.",
                path=where,
            ) from None
    logger.debug("path=<%s>, calls=<%d> | recording loaded", where, len(recording.interactions))
    return recording


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """Read, parse and validate the recording at `path`.

    Raises:
        RecordingNotFoundError: If there is no file at `path`.
        RecordingVersionError, RecordingAssemblyError, RecordingFormatError: See `parse_recording`.
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordingNotFoundError(
            f"no recording at '{source}'. Replay never calls a live model; record it first with "
            f"`structsim-nb record {source} --schema MODULE:CLASS --prompt TEXT` (needs AWS credentials).",
            path=str(source),
        ) from None
    except UnicodeDecodeError as exc:
        raise RecordingFormatError(f"recording '{source}' must be UTF-8 text; {exc}", path=str(source)) from None
    return parse_recording(text, path=source)


#: A lone surrogate (Python text holds a pair as one character, so any surrogate left in it is alone).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dump_recording(recording: Recording) -> str:
    """The file text for `recording`: sorted keys, two-space indent, trailing newline.

    Text is written as itself (not as ASCII escapes), except a lone surrogate (a model that cut an
    emoji's escape in half): UTF-8 cannot hold one, so it is written as its JSON escape (`\\ud83d`),
    which reads back as the same text.
    """
    text = json.dumps(recording.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)  # (only inside JSON strings)


def write_recording(recording: Recording, path: str | os.PathLike[str]) -> Path:
    """Validate `recording` round-trip and write it atomically to `path` (old file kept on failure)."""
    text = dump_recording(recording)
    parse_recording(text, path=path)
    return write_text_atomic(path, text)
