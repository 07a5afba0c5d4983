"""Scrubbing: take secrets out of a recording before it is written, structurally.

Rules (`secret_rules`) run on decoded strings, never on JSON-escaped text:

- request values (`scrub_value`): every string, every mapping key; a string stored under a
  secret-sounding key (`password`, `api_key`, ...) is replaced whole;
- streamed text (`scrub_fragments`): on the joined text of a block, so a secret split across two
  fragments is found, then split again at the original boundaries;
- streamed tool input (`scrub_json_fragments`): each string literal of the joined JSON is decoded,
  scrubbed as a value, and re-encoded in place, so the JSON stays valid and parses to exactly
  what `scrub_value` makes of the parsed input. The agent's next request, which carries that
  input back, therefore matches the recording on replay.

`find_secrets` is the last check on a recording about to be written.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from .json_text import string_tokens
from .secret_rules import REDACTED, ScrubRule, builtin_rules, is_secret_key, literal_rules

__all__ = [
    "ScrubRule",
    "default_scrub_rules",
    "find_secrets",
    "scrub_events",
    "scrub_fragments",
    "scrub_json_fragments",
    "scrub_text",
    "scrub_value",
]

_Spans = list[tuple[int, int, str]]  # (start, end, replacement)


def default_scrub_rules(secrets: Sequence[str] = ()) -> list[ScrubRule]:
    """The built-in rules (`secret_rules.builtin_rules`), plus one literal rule per value of `secrets`.

    `secrets` are the credentials in use (access key, secret key, session token, API key), which
    no pattern may recognise; literals come first, so a credential is named as such.
    """
    return [*literal_rules(list(secrets)), *builtin_rules()]


def _count(counts: dict[str, int] | None, name: str, n: int) -> None:
    if counts is not None and n:
        counts[name] = counts.get(name, 0) + n


def _rule_spans(text: str, rule: ScrubRule) -> _Spans:
    spans = []
    for match in rule.pattern.finditer(text):
        start, end = match.span(rule.group)
        if start >= 0 and text[start:end] != rule.placeholder:
            spans.append((start, end, rule.placeholder))
    return spans


def _apply(text: str, spans: _Spans) -> str:
    pieces, last = [], 0
    for start, end, replacement in spans:
        pieces.append(text[last:start])
        pieces.append(replacement)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def scrub_text(text: str, rules: Sequence[ScrubRule], counts: dict[str, int] | None = None) -> str:
    """`text` with every rule applied in order; `counts` (if given) gains rule name -> replacements.

    Examples:
        >>> scrub_text("arn:aws:bedrock:us-east-1:123456789012:x", default_scrub_rules())
        'arn:aws:bedrock:us-east-1:<AWS_ACCOUNT_ID>:x'
    """
    for rule in rules:
        spans = _rule_spans(text, rule)
        if spans:
            text = _apply(text, spans)
            _count(counts, rule.name, len(spans))
    return text


def _scrub_string(value: str, key: str | None, rules: Sequence[ScrubRule], counts: dict[str, int] | None) -> str:
    if key is not None and is_secret_key(key) and value and value != REDACTED:
        _count(counts, "secret_named_value", 1)
        return REDACTED
    return scrub_text(value, rules, counts)


def scrub_value(
    value: Any, rules: Sequence[ScrubRule], counts: dict[str, int] | None = None, *, key: str | None = None
) -> Any:
    """A scrubbed copy of a JSON-like value: strings and keys scrubbed, secret-named strings replaced.

    A string directly under a key that names a secret (`is_secret_key`), or inside a list under
    one, becomes `<REDACTED>`; numbers and booleans are kept, whatever their key.

    Examples:
        >>> scrub_value({"user": "al", "password": "hunter2", "n": 3}, default_scrub_rules())
        {'user': 'al', 'password': '<REDACTED>', 'n': 3}
    """
    if isinstance(value, str):
        return _scrub_string(value, key, rules, counts)
    if isinstance(value, dict):
        return {scrub_text(str(k), rules, counts): scrub_value(v, rules, counts, key=str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(item, rules, counts, key=key) for item in value]
    return value


def _move_bounds(bounds: list[int], spans: _Spans) -> list[int]:
    """Fragment boundaries after `spans` were replaced: one inside a replaced span moves to its end."""
    moved = []
    for bound in bounds:
        shift = 0
        for start, end, replacement in spans:
            if bound >= end:
                shift += len(replacement) - (end - start)
            elif bound > start:
                shift += start + len(replacement) - bound
                break
            else:
                break
        moved.append(bound + shift)
    return moved


def _split(text: str, fragments: Sequence[str], edit: Any) -> list[str]:
    """Apply `edit(text) -> [(spans)...]` rounds and re-split `text` at the moved fragment boundaries."""
    bounds, position = [], 0
    for fragment in fragments[:-1]:
        position += len(fragment)
        bounds.append(position)
    for spans in edit(text):
        if spans:
            bounds = _move_bounds(bounds, spans)
            text = _apply(text, spans)
    edges = [0, *bounds, len(text)]
    return [text[edges[i] : edges[i + 1]] for i in range(len(edges) - 1)]


def scrub_fragments(
    fragments: Sequence[str], rules: Sequence[ScrubRule], counts: dict[str, int] | None = None
) -> list[str]:
    """Scrub streamed text fragments as the joined text, then split again at the original boundaries.

    A boundary that fell inside a replaced secret moves to the end of its placeholder; the
    others shift by the length change. The fragment count is unchanged (a fragment may become empty).

    Examples:
        >>> scrub_fragments(["key AKIA1234", "567890ABCDEF ok"], default_scrub_rules())
        ['key <AWS_ACCESS_KEY>', ' ok']
    """

    def rounds(text: str) -> Any:
        current = text
        for rule in rules:
            spans = _rule_spans(current, rule)
            _count(counts, rule.name, len(spans))
            yield spans
            current = _apply(current, spans) if spans else current

    return _split("".join(fragments), fragments, rounds)


def scrub_json_fragments(
    fragments: Sequence[str], rules: Sequence[ScrubRule], counts: dict[str, int] | None = None
) -> list[str]:
    """Scrub the string literals of a streamed JSON text (tool input) and split it again.

    Each string is decoded, scrubbed as `scrub_value` would scrub it at that place, and
    re-encoded only if it changed; everything else keeps its bytes. Text that is not valid JSON
    is scrubbed as plain text (the recorder refuses such a call anyway).

    Examples:
        >>> scrub_json_fragments(['{"k": "see \\\\"arn:aws:iam::1234', '56789012:role/x\\\\""}'], default_scrub_rules())
        ['{"k": "see \\\\"arn:aws:iam::<AWS_ACCOUNT_ID>', ':role/x\\\\""}']
    """
    text = "".join(fragments)
    try:
        json.loads(text)
    except ValueError:
        return scrub_fragments(fragments, rules, counts)

    def rounds(current: str) -> Any:
        spans: _Spans = []
        for token in string_tokens(current):
            raw = current[token.start : token.end]
            decoded = json.loads(raw)
            if token.is_key:
                cleaned = scrub_text(decoded, rules, counts)
            else:
                cleaned = _scrub_string(decoded, token.key, rules, counts)
            if cleaned != decoded:
                spans.extend(_minimal_span(raw, json.dumps(cleaned, ensure_ascii=False), token.start))
        yield spans

    return _split(text, fragments, rounds)


def _minimal_span(old: str, new: str, offset: int) -> _Spans:
    """The one span replacing `old` by `new`, trimmed of their common prefix and suffix.

    Keeps fragment boundaries outside the changed part where they were (a boundary before the
    secret stays before it).
    """
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return [(offset + prefix, offset + len(old) - suffix, new[prefix : len(new) - suffix])]


_BLOCK_DELTAS = ("text", "toolUse", "reasoningContent")


def _delta_kind(event: dict[str, Any]) -> str | None:
    delta = event.get("contentBlockDelta", {}).get("delta", {})
    if len(delta) != 1:
        return None
    ((kind, body),) = delta.items()
    if kind == "text" and isinstance(body, str):
        return "text"
    if kind == "toolUse" and isinstance(body, dict) and set(body) <= {"input"}:
        return "toolUse"
    if kind == "reasoningContent" and isinstance(body, dict) and set(body) == {"text"}:
        return "reasoningContent"
    return None


def scrub_events(
    events: Sequence[dict[str, Any]], rules: Sequence[ScrubRule], counts: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """Scrubbed deep copies of `events`.

    Within each content block, text, reasoning-text and tool-input deltas are scrubbed as one
    joined string (tool input as JSON, see `scrub_json_fragments`); every other event is
    scrubbed as a value.
    """
    out = [copy.deepcopy(event) for event in events]
    block: dict[str, list[int]] = {kind: [] for kind in _BLOCK_DELTAS}

    def get(index: int, kind: str) -> str:
        body = out[index]["contentBlockDelta"]["delta"][kind]
        return body if kind == "text" else str(body.get("input" if kind == "toolUse" else "text", ""))

    def put(index: int, kind: str, value: str) -> None:
        delta = out[index]["contentBlockDelta"]["delta"]
        if kind == "text":
            delta["text"] = value
        else:
            delta[kind]["input" if kind == "toolUse" else "text"] = value

    def flush() -> None:
        for kind, indexes in block.items():
            if not indexes:
                continue
            fragments = [get(i, kind) for i in indexes]
            scrub = scrub_json_fragments if kind == "toolUse" else scrub_fragments
            for i, fragment in zip(indexes, scrub(fragments, rules, counts), strict=True):
                put(i, kind, fragment)
            indexes.clear()

    for index, event in enumerate(out):
        kind = _delta_kind(event)
        if kind is not None:
            block[kind].append(index)
            continue
        if "contentBlockStop" in event or "contentBlockStart" in event:
            flush()
        out[index] = scrub_value(event, rules, counts)
    flush()
    return out


def find_secrets(text: str, rules: Sequence[ScrubRule]) -> list[str]:
    """The names of the rules that still match somewhere in `text` (empty: clean).

    Run it on the decoded strings of a file and on the file text itself: a secret may hide
    behind a JSON escape in one and not in the other.
    """
    return sorted({rule.name for rule in rules if _rule_spans(text, rule)})
