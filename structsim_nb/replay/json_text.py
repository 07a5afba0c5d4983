"""Where the strings are in a JSON text, so they can be rewritten without touching anything else.

A tool call's input streams as fragments of one JSON text. To scrub a secret inside it, the
recorder decodes each string, scrubs the decoded value, and writes the result back encoded,
replacing only that string's span: numbers, whitespace, key order and the other strings stay
byte for byte, and the text parses to exactly the scrubbed value.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StringToken", "string_tokens"]


@dataclass(frozen=True)
class StringToken:
    """One string literal of a JSON text.

    Attributes:
        start: Index of the opening quote.
        end: Index just past the closing quote.
        is_key: True for an object key.
        key: For a value (or an array item, at any depth of arrays), the key of the object
            member it belongs to; None at the top level or for keys.
    """

    start: int
    end: int
    is_key: bool
    key: str | None


def _string_end(text: str, start: int) -> int:
    index = start + 1
    while True:
        char = text[index]
        if char == "\\":
            index += 2
        elif char == '"':
            return index + 1
        else:
            index += 1


def string_tokens(text: str) -> list[StringToken]:
    """The string literals of `text`, in order, with their role (key or value) and owning key.

    `text` must be valid JSON (parse it first); the scan is linear and never evaluates anything.

    Examples:
        >>> [(t.is_key, t.key) for t in string_tokens('{"a": ["x", {"b": "y"}]}')]
        [(True, None), (False, 'a'), (True, None), (False, 'b')]
    """
    import json

    tokens: list[StringToken] = []
    # One frame per open container: ("object", key of the member being read, expecting a key?)
    # or ("array", key the array belongs to, False).
    stack: list[list[object]] = []
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == '"':
            end = _string_end(text, index)
            frame = stack[-1] if stack else None
            if frame is not None and frame[0] == "object" and frame[2]:
                key = json.loads(text[index:end])
                tokens.append(StringToken(index, end, True, None))
                frame[1], frame[2] = key, False
            else:
                owner = frame[1] if frame is not None else None
                tokens.append(StringToken(index, end, False, owner if isinstance(owner, str) else None))
            index = end
            continue
        if char == "{":
            stack.append(["object", None, True])
        elif char == "[":
            owner = stack[-1][1] if stack else None
            stack.append(["array", owner, False])
        elif char in "}]":
            stack.pop()
        elif char == "," and stack and stack[-1][0] == "object":
            stack[-1][1], stack[-1][2] = None, True
        index += 1
    return tokens
