"""A fake Anthropic messages API on 127.0.0.1 (`POST /v1/messages`).

Answers stream as `text/event-stream` events, as the API sends them: `message_start`,
`content_block_start` (a `tool_use` block, or `text`), `ping`, `content_block_delta`
(`input_json_delta` pieces of the tool input, or `text_delta`), `content_block_stop`,
`message_delta` (the stop reason and output usage) and `message_stop`; an error inside the
stream is an `event: error`. Errors use the API's status codes and
`{"type": "error", "error": {"type", "message"}}`; 429s carry `retry-after-ms`, which the SDK
honours. `x-api-key` must be a known key and `anthropic-version` must be sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .loopback import LoopbackService, Received, Reply, json_reply
from .sse import sse


@dataclass
class ToolUse:
    name: str
    input_json: str
    cuts: tuple[int, ...] = ()
    tool_id: str = "toolu_01abc"


@dataclass
class Text:
    text: str
    cuts: tuple[int, ...] = ()


@dataclass
class Failure:
    status: int
    error_type: str
    message: str


@dataclass
class FakeAnthropic(LoopbackService):
    api_keys: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        LoopbackService.__init__(self)
        self.name = "anthropic"

    def tool_use(self, name: str, input_json: str, cuts: tuple[int, ...] = (), tool_id: str = "toolu_01abc") -> None:
        self.queue(ToolUse(name, input_json, cuts, tool_id))

    def text(self, text: str, cuts: tuple[int, ...] = ()) -> None:
        self.queue(Text(text, cuts))

    def error(self, status: int, error_type: str, message: str) -> None:
        self.queue(Failure(status, error_type, message))

    def mid_stream_error(self, answer: ToolUse | Text, error_type: str, message: str) -> None:
        self.queue(("broken", answer, error_type, message))

    def handle(self, request: Received) -> Reply:
        if request.method != "POST" or request.path.split("?")[0] != "/v1/messages":
            return _error(404, "not_found_error", f"Not found: {request.method} {request.path}")
        key = request.headers.get("x-api-key", "")
        request.notes["api_key"] = key
        if key not in self.api_keys:
            return _error(401, "authentication_error", "invalid x-api-key")
        if not request.headers.get("anthropic-version"):
            return _error(400, "invalid_request_error", "anthropic-version: header is required")
        body = request.json()
        if not body.get("model") or not body.get("max_tokens") or not isinstance(body.get("messages"), list):
            return _error(400, "invalid_request_error", "model, max_tokens and messages are required")
        request.notes.update(operation="messages", body=body)
        answer = self.next_scripted()
        if answer is None:
            self.problems.append("messages call with no scripted answer")
            return _error(500, "api_error", "the fake service has no scripted answer left")
        if isinstance(answer, Failure):
            extra = {"retry-after-ms": "10"} if answer.status == 429 else {}
            return _error(answer.status, answer.error_type, answer.message, extra)
        broken = None
        if isinstance(answer, tuple):
            _, answer, error_type, message = answer
            broken = (error_type, message)
        if not body.get("stream"):
            self.problems.append("a non-streaming messages call (strands' AnthropicModel always streams)")
            return _error(400, "invalid_request_error", "the fake only streams")
        return Reply(200, {"Content-Type": "text/event-stream"}, chunks=_events(answer, body["model"], broken))


def _error(status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> Reply:
    return json_reply(status, {"type": "error", "error": {"type": error_type, "message": message}}, headers)


def _pieces(text: str, cuts: tuple[int, ...]) -> list[str]:
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _events(answer: ToolUse | Text, model: str, broken: tuple[str, str] | None) -> Iterator[bytes]:
    message: dict[str, Any] = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 25, "output_tokens": 1},
    }
    yield sse({"type": "message_start", "message": message}, "message_start")
    if isinstance(answer, ToolUse):
        block = {"type": "tool_use", "id": answer.tool_id, "name": answer.name, "input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(answer.input_json, answer.cuts)]
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in _pieces(answer.text, answer.cuts)]
        stop = "end_turn"
    yield sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start")
    yield sse({"type": "ping"}, "ping")
    for number, delta in enumerate(deltas):
        yield sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        if broken and number == 0:
            yield sse({"type": "error", "error": {"type": broken[0], "message": broken[1]}}, "error")
            return
    yield sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
    yield sse(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 15},
        },
        "message_delta",
    )
    yield sse({"type": "message_stop"}, "message_stop")
