"""Server-sent events (text/event-stream), as OpenAI and Anthropic stream: `event:`/`data:` lines, a blank line."""

from __future__ import annotations

import json
from typing import Any


def sse(data: Any, event: str | None = None) -> bytes:
    """One event; `data` is JSON-encoded unless it is already a string (`[DONE]`)."""
    body = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return (f"event: {event}\n" if event else "").encode() + f"data: {body}\n\n".encode()
