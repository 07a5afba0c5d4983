"""A fake OpenAI chat completions API on 127.0.0.1 (`POST /v1/chat/completions`).

Streaming answers are `text/event-stream` chunks (`chat.completion.chunk`: the role, `content`
deltas or `tool_calls` deltas whose `function.arguments` arrive in pieces, a `finish_reason`,
then a usage-only chunk when `stream_options.include_usage`, then `data: [DONE]`); an error
inside the stream is a `data: {"error": ...}` chunk. Non-streaming answers are one
`chat.completion`. Errors use the API's status codes and `{"error": {message, type, code}}`;
429s carry `retry-after-ms`, which the SDK honours. `Authorization: Bearer <key>` must be a known key.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .loopback import LoopbackService, Received, Reply, json_reply
from .sse import sse


@dataclass
class ToolCall:
    """A tool call answer: the arguments (JSON text) streamed in pieces cut at `cuts`."""

    name: str
    arguments: str
    cuts: tuple[int, ...] = ()
    call_id: str = "call_abc123"


@dataclass
class Text:
    """A text answer streamed in pieces cut at `cuts`."""

    text: str
    cuts: tuple[int, ...] = ()


@dataclass
class Failure:
    status: int
    error_type: str
    code: str | None
    message: str


@dataclass
class FakeOpenAI(LoopbackService):
    api_keys: set[str] = field(default_factory=set)
    #: An error to send inside the stream of the next answer, after its first chunks.
    stream_error: str | None = None

    def __post_init__(self) -> None:
        LoopbackService.__init__(self)
        self.name = "openai"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def tool_call(self, name: str, arguments: str, cuts: tuple[int, ...] = (), call_id: str = "call_abc123") -> None:
        self.queue(ToolCall(name, arguments, cuts, call_id))

    def text(self, text: str, cuts: tuple[int, ...] = ()) -> None:
        self.queue(Text(text, cuts))

    def error(self, status: int, error_type: str, message: str, code: str | None = None) -> None:
        self.queue(Failure(status, error_type, code, message))

    def mid_stream_error(self, answer: ToolCall | Text, message: str) -> None:
        """An answer whose stream breaks off with an error chunk after its first delta."""
        self.queue(("broken", answer, message))

    def handle(self, request: Received) -> Reply:
        if request.method != "POST" or request.path.split("?")[0] != "/v1/chat/completions":
            return _error(404, "invalid_request_error", f"Unknown request URL: {request.method} {request.path}", None)
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        request.notes["api_key"] = key
        if key not in self.api_keys:
            return _error(401, "invalid_request_error", "Incorrect API key provided.", "invalid_api_key")
        body = request.json()
        if not isinstance(body.get("messages"), list) or not body.get("model"):
            return _error(400, "invalid_request_error", "'messages' and 'model' are required", None)
        request.notes.update(operation="chat.completions", body=body)
        answer = self.next_scripted()
        if answer is None:
            self.problems.append("chat completion with no scripted answer")
            return _error(500, "server_error", "the fake service has no scripted answer left", None)
        if isinstance(answer, Failure):
            extra = {"retry-after-ms": "10"} if answer.status == 429 else {}
            return _error(answer.status, answer.error_type, answer.message, answer.code, extra)
        broken = None
        if isinstance(answer, tuple):
            _, answer, broken = answer
        model = body["model"]
        if not body.get("stream"):
            return json_reply(200, _completion(answer, model))
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return Reply(200, {"Content-Type": "text/event-stream"}, chunks=_stream(answer, model, include_usage, broken))


def _error(
    status: int, error_type: str, message: str, code: str | None, headers: dict[str, str] | None = None
) -> Reply:
    return json_reply(status, {"error": {"message": message, "type": error_type, "param": None, "code": code}}, headers)


def _pieces(text: str, cuts: tuple[int, ...]) -> list[str]:
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _chunk(model: str, delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": choices,
        **extra,
    }


_USAGE = {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}


def _stream(answer: ToolCall | Text, model: str, include_usage: bool, broken: str | None) -> Iterator[bytes]:
    if isinstance(answer, ToolCall):
        first = {
            "index": 0,
            "id": answer.call_id,
            "type": "function",
            "function": {"name": answer.name, "arguments": ""},
        }
        yield sse(_chunk(model, {"role": "assistant", "content": None, "tool_calls": [first]}))
        for number, piece in enumerate(_pieces(answer.arguments, answer.cuts)):
            yield sse(_chunk(model, {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
            if broken and number == 0:
                yield sse({"error": {"message": broken, "type": "server_error", "param": None, "code": None}})
                return
        finish = "tool_calls"
    else:
        yield sse(_chunk(model, {"role": "assistant", "content": ""}))
        for number, piece in enumerate(_pieces(answer.text, answer.cuts)):
            yield sse(_chunk(model, {"content": piece}))
            if broken and number == 0:
                yield sse({"error": {"message": broken, "type": "server_error", "param": None, "code": None}})
                return
        finish = "stop"
    yield sse(_chunk(model, {}, finish))
    if include_usage:
        yield sse(_chunk(model, None, usage=_USAGE))
    yield sse("[DONE]")


def _completion(answer: ToolCall | Text, model: str) -> dict[str, Any]:
    if isinstance(answer, ToolCall):
        call = {
            "id": answer.call_id,
            "type": "function",
            "function": {"name": answer.name, "arguments": answer.arguments},
        }
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call], "refusal": None}
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": answer.text, "refusal": None}, "stop"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": _USAGE,
    }


def arguments(value: dict[str, Any]) -> str:
    return json.dumps(value)
