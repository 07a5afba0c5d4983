"""Scrubbing: take secrets out of a recording before it is written.

Rules are named regular expressions (`ScrubRule`) applied to request text and stream events;
`scrub_fragments` scrubs a secret split across streamed fragments; `find_secrets` is the last
check on the text about to be written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ScrubRule",
    "default_scrub_rules",
    "find_secrets",
    "scrub_events",
    "scrub_fragments",
    "scrub_text",
    "scrub_value",
]


@dataclass(frozen=True)
class ScrubRule:
    """A named regular expression and the replacement (a `re.sub` template) for its matches."""

    name: str
    pattern: re.Pattern[str]
    replacement: str


def default_scrub_rules(secrets: Sequence[str] = ()) -> list[ScrubRule]:
    """The built-in rules, plus one literal rule for each of `secrets` (the credentials in use).

    Built in: AWS access key ids (`AKIA…`/`ASIA…`), secret access keys after their name,
    session tokens (`IQoJb3JpZ2luX2Vj…`, `FwoGZXIvYXdzE…`), ARNs that carry a 12-digit account
    id, and 12-digit numbers labelled as an account id. Placeholders are fixed strings such as
    `<AWS_ACCESS_KEY_ID>`, so scrubbed JSON stays valid and scrubbing twice changes nothing.
    """
    rules = [
        ScrubRule("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "<AWS_ACCESS_KEY_ID>"),
        ScrubRule(
            "aws_secret_access_key",
            re.compile(r"(?i)((?:aws_)?secret_?access_?key[\"']?\s*[=:]\s*[\"']?)[A-Za-z0-9/+=]{40}"),
            r"\1<AWS_SECRET_ACCESS_KEY>",
        ),
        ScrubRule(
            "aws_session_token",
            re.compile(r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9/+=]{16,}"),
            "<AWS_SESSION_TOKEN>",
        ),
        ScrubRule("aws_arn", re.compile(r"arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:\d{12}:[^\s\"'<>,]*"), "<AWS_ARN>"),
        ScrubRule(
            "aws_account_id", re.compile(r"(?i)(account[ _-]?(?:id|number)?\W{0,3})\d{12}\b"), r"\1<AWS_ACCOUNT_ID>"
        ),
    ]
    for secret in secrets:
        if secret and len(secret) >= 8:
            rules.append(ScrubRule("credentials_in_use", re.compile(re.escape(secret)), "<AWS_CREDENTIAL>"))
    return rules


def _count(counts: dict[str, int], name: str, n: int) -> None:
    if n:
        counts[name] = counts.get(name, 0) + n


def scrub_text(text: str, rules: Sequence[ScrubRule], counts: dict[str, int] | None = None) -> str:
    """`text` with every rule applied in order; `counts` (if given) gains rule -> replacements."""
    for rule in rules:
        text, n = rule.pattern.subn(rule.replacement, text)
        if counts is not None:
            _count(counts, rule.name, n)
    return text


def scrub_fragments(
    fragments: Sequence[str], rules: Sequence[ScrubRule], counts: dict[str, int] | None = None
) -> list[str]:
    """Scrub streamed fragments as the joined text, then split again at the original boundaries.

    A secret split across two fragments is invisible to per-fragment matching, so the rules run
    on `"".join(fragments)`. A boundary that fell inside a replaced secret moves to the end of
    its placeholder; the others shift by the length change. The fragment count is unchanged
    (a fragment may become empty).

    Examples:
        >>> scrub_fragments(['{"k": "AKIA1234', '567890ABCDEF"}'], default_scrub_rules())
        ['{"k": "<AWS_ACCESS_KEY_ID>', '"}']
    """
    text = "".join(fragments)
    bounds = []
    position = 0
    for fragment in fragments[:-1]:
        position += len(fragment)
        bounds.append(position)
    for rule in rules:
        pieces: list[str] = []
        spans: list[tuple[int, int, int]] = []  # (start, end, new length)
        last = 0
        for match in rule.pattern.finditer(text):
            replacement = match.expand(rule.replacement)
            pieces.append(text[last : match.start()])
            pieces.append(replacement)
            spans.append((match.start(), match.end(), len(replacement)))
            last = match.end()
        if not spans:
            continue
        pieces.append(text[last:])
        text = "".join(pieces)
        if counts is not None:
            _count(counts, rule.name, len(spans))
        moved = []
        for bound in bounds:
            shift = 0
            for start, end, length in spans:
                if bound >= end:
                    shift += length - (end - start)
                elif bound > start:
                    shift += start + length - bound
                    break
            moved.append(bound + shift)
        bounds = moved
    edges = [0, *bounds, len(text)]
    return [text[edges[i] : edges[i + 1]] for i in range(len(edges) - 1)]


def scrub_value(value: Any, rules: Sequence[ScrubRule], counts: dict[str, int]) -> Any:
    if isinstance(value, str):
        return scrub_text(value, rules, counts)
    if isinstance(value, dict):
        return {scrub_text(str(k), rules, counts): scrub_value(v, rules, counts) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(item, rules, counts) for item in value]
    return value


def scrub_events(
    events: Sequence[dict[str, Any]], rules: Sequence[ScrubRule], counts: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """Scrubbed deep copies of `events`: each block's text and tool-input deltas are scrubbed as one
    joined string (see `scrub_fragments`); every other string is scrubbed on its own."""
    tally: dict[str, int] = {} if counts is None else counts
    out = [copy.deepcopy(event) for event in events]
    block: dict[str, list[int]] = {"toolUse": [], "text": []}

    def flush() -> None:
        for kind, indexes in block.items():
            if not indexes:
                continue
            deltas = [out[i]["contentBlockDelta"]["delta"][kind] for i in indexes]
            if kind == "toolUse":
                new = scrub_fragments([d.get("input", "") for d in deltas], rules, tally)
                for delta, fragment in zip(deltas, new, strict=True):
                    delta["input"] = fragment
            else:
                new = scrub_fragments(deltas, rules, tally)
                for i, fragment in zip(indexes, new, strict=True):
                    out[i]["contentBlockDelta"]["delta"]["text"] = fragment
            indexes.clear()

    for index, event in enumerate(out):
        delta = event.get("contentBlockDelta", {}).get("delta", {})
        if "toolUse" in delta and set(delta["toolUse"]) <= {"input"}:
            block["toolUse"].append(index)
        elif "text" in delta and len(delta) == 1:
            block["text"].append(index)
        else:
            if "contentBlockStop" in event or "contentBlockStart" in event:
                flush()
            out[index] = scrub_value(event, rules, tally)
    flush()
    return out


def find_secrets(text: str, rules: Sequence[ScrubRule]) -> list[str]:
    """The names of the rules that still match somewhere in `text` (empty: clean)."""
    return sorted({rule.name for rule in rules if rule.pattern.search(text)})
