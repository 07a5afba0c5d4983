"""The AWS event stream binary encoding (`application/vnd.amazon.eventstream`).

A message is a prelude (total length, headers length: two big-endian uint32), the prelude's
CRC32, the headers, the payload, and the CRC32 of everything before it. Headers here are all of
type 7 (string): one byte name length, the name, the type byte, a uint16 value length, the value.
"""

from __future__ import annotations

import binascii
import json
import struct
from typing import Any

_STRING = 7


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode("utf-8"), value.encode("utf-8")
    return struct.pack("B", len(raw_name)) + raw_name + bytes([_STRING]) + struct.pack(">H", len(raw_value)) + raw_value


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event stream message with string `headers` and `payload`."""
    raw_headers = b"".join(_header(name, value) for name, value in headers.items())
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    prelude += struct.pack(">I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + raw_headers + payload
    return message + struct.pack(">I", binascii.crc32(message) & 0xFFFFFFFF)


def event_frame(event: dict[str, Any]) -> bytes:
    """A ConverseStream event (`{"contentBlockDelta": {...}}`) as the service frames it."""
    ((name, body),) = event.items()
    headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, json.dumps(body).encode("utf-8"))


def exception_frame(exception_type: str, message: str) -> bytes:
    """A modelled exception sent inside the stream (`:message-type: exception`)."""
    headers = {":exception-type": exception_type, ":content-type": "application/json", ":message-type": "exception"}
    return frame(headers, json.dumps({"message": message}).encode("utf-8"))
