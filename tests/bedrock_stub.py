"""Offline Bedrock for the recorder tests: botocore's Stubber plus a real binary event stream.

`converse_stream` returns `{"stream": EventStream}`. botocore's `Stubber` cannot express that
(its response validator wants a dict for the event-stream member), so `BedrockStreamStubber`
keeps everything Stubber does (queued responses, `expected_params` checks on the request,
client errors, `assert_no_pending_responses`) and replaces only the `stream` value: each event
dict is validated against the service model's ConverseStream event shapes, encoded to the
`application/vnd.amazon.eventstream` wire format (prelude, headers, payload, CRC32s), and
wrapped in botocore's own `EventStream` with the client's own event parser. The strands
`BedrockModel` then iterates a genuine `EventStream` that decodes genuine frames; no network,
no signing.
"""

from __future__ import annotations

import binascii
import json
import struct
from typing import Any

from botocore.eventstream import EventStream
from botocore.stub import Stubber
from botocore.validate import validate_parameters


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return struct.pack("B", len(raw_name)) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) + raw_value


def encode_event(event: dict[str, Any]) -> bytes:
    """One ConverseStream event dict (`{"contentBlockDelta": {...}}`) as an eventstream frame."""
    ((name, body),) = event.items()
    headers = (
        _header(":event-type", name) + _header(":content-type", "application/json") + _header(":message-type", "event")
    )
    payload = json.dumps(body).encode()
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + headers + payload
    return message + struct.pack(">I", binascii.crc32(message) & 0xFFFFFFFF)


class _RawStream:
    def __init__(self, data: bytes, chunk: int = 37) -> None:
        self._data, self._chunk = data, chunk

    def stream(self) -> Any:
        # deliberately chunked across frame boundaries, as a socket would deliver it
        for start in range(0, len(self._data), self._chunk):
            yield self._data[start : start + self._chunk]

    def close(self) -> None:
        pass


class BedrockStreamStubber(Stubber):
    """`Stubber` whose `add_stream_response` queues a ConverseStream answer made of event dicts."""

    def add_stream_response(self, events: list[dict[str, Any]], expected_params: dict[str, Any] | None = None) -> None:
        operation = self.client.meta.service_model.operation_model("ConverseStream")
        stream_shape = operation.output_shape.members["stream"]
        for event in events:
            validate_parameters(event, stream_shape)  # each event against the service model
        raw = _RawStream(b"".join(encode_event(event) for event in events))
        parser = self.client._response_parser._event_stream_parser  # the client's own event parser
        stream = EventStream(raw, stream_shape, parser, "ConverseStream")
        self._add_response("converse_stream", {"stream": stream}, expected_params)

    def _validate_operation_response(self, operation_name: str, service_response: dict[str, Any]) -> None:
        if isinstance(service_response.get("stream"), EventStream):
            rest = {key: value for key, value in service_response.items() if key != "stream"}
            return super()._validate_operation_response(operation_name, rest)
        return super()._validate_operation_response(operation_name, service_response)


MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"


def tool_events(payload: str, cuts: list[int], tool_id: str = "tooluse_abc123") -> list[dict[str, Any]]:
    pieces = [payload[a:b] for a, b in zip([0, *cuts], [*cuts, len(payload)], strict=True)]
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": tool_id, "name": "Person"}}}},
        *[{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": p}}}} for p in pieces],
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}, "metrics": {"latencyMs": 9}}},
    ]


def text_events(text: str) -> list[dict[str, Any]]:
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": text}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 3, "totalTokens": 13}, "metrics": {"latencyMs": 5}}},
    ]
