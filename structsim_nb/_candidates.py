"""Find the structure a text holds, in time linear in the text: the search behind `answers.parse_answer`.

`read_whole` reads a whole region as one JSON or Python literal structure; `last_structure` finds
the last balanced `{...}`/`[...]` (else `(...)`) in a region that parses, as `parse_answer`'s
`embedded` form defines it. Both return plain JSON types (see `plain`).

How `last_structure` stays linear. One pass over the bracket characters builds the tree of balanced
spans (the candidates), with each span's height. Candidates are then visited last-ending first,
outer before inner, and each is tested as JSON (`json.JSONDecoder.raw_decode`, from the span's
start, without copying it) and as a Python literal (`_pyliteral.scan_literal`). Both readers are
deterministic and report where they stopped, so one reading answers for many candidates:

- a candidate that read to its end is valid, and beats everything inside it;
- a candidate inside the span that a reader completed on its way is valid;
- a candidate the reader entered (its opening bracket read as one) and stopped inside fails at that
  same position;
- only a candidate starting after that position (or inside a string the reader skipped) is read
  again, from its own start.

So the readings of one family of nested candidates cover disjoint stretches of text, and no
candidate is copied or re-read from the start. Candidates taller than `max_depth` are refused
without reading. Only the winner is built as a value (`json.loads`, or `ast.literal_eval` for a
Python literal of at most `max_literal_chars`). A work budget (characters read, shared by one
`parse_answer` call) bounds the pathological case where brackets nest inside strings inside
brackets; when it runs out, the search stops and says so (`Budget.refused`).
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ._jsonload import loads_within
from ._pyliteral import LiteralScan, scan_literal

__all__ = ["Budget", "Tree", "last_structure", "plain", "read_whole", "scan_brackets"]

_OPEN_FOR = {"}": "{", "]": "[", ")": "("}
# The characters the bracket scan looks at; the regex engine skips everything else.
_SPECIAL = re.compile(r"[{}\[\]()\"'\\\n]")
#: How far down the open brackets a mismatched closer looks for its opener.
_MISMATCH_REACH = 64
_DECODER = json.JSONDecoder()
# What can follow an opener in a JSON value or a Python literal (after spaces): anything else fails
# at that character, so the candidate is refused without starting a reader.
_PLAUSIBLE = re.compile(r"[{\[(][ \t\f\r\n]*(?:[\"'}\])0-9.+\-\[{(#\\]|[tfnTFNruRUbBI])")


@dataclass
class Budget:
    """Limits of one `parse_answer` call, and why something was refused.

    Attributes:
        max_depth: Deepest nesting accepted.
        max_literal_chars: Longest snippet handed to `ast.literal_eval`.
        remaining: Characters the readers may still read.
        refused: The first reason a candidate was refused, or the budget ran out ("" if none).
        exhausted: Whether the work budget ran out (the search stopped early).
        wholes: What each region `read_whole` read gave, and why it refused (or ""), by
            `(start, end, literal)`: a fenced block is read once, whether the marker search or
            the fence search asks first; each later ask says the refusal again, as a new read would.
        fences: The fenced blocks found in each region `(start, end)`, for the same two searches.
        exact_numbers: Read every JSON integer exactly. Default True; False lets an integer past
            64 bits be a float, for a caller that needs only what was found and where
            (`_jsonload.loads_within`).
    """

    max_depth: int
    max_literal_chars: int
    remaining: int
    refused: str = ""
    exhausted: bool = False
    wholes: dict[tuple[int, int, bool], tuple[tuple[Any, str] | None, str]] = field(default_factory=dict)
    fences: dict[tuple[int, int], list[tuple[int, int]]] = field(default_factory=dict)
    exact_numbers: bool = True

    def spend(self, chars: int) -> bool:
        """Spend `chars` of reading; False (and the search stops) once the budget is gone."""
        self.remaining -= chars
        if self.remaining < 0 and not self.exhausted:
            self.exhausted = True
            self.refused = "stopped searching: the candidate snippets needed more reading than the parse budget allows"
        return not self.exhausted

    def refuse(self, reason: str) -> None:
        self.refused = self.refused or reason

    @contextlib.contextmanager
    def ahead(self) -> Iterator[None]:
        """A reading done ahead of its turn: what it refuses is forgotten here, to be said when the search
        that reads it in its turn runs (a memoised reading says it again, `wholes`); the budget running out
        is kept, as `spend` always keeps it."""
        refused, exhausted = self.refused, self.exhausted
        try:
            yield
        finally:
            if self.exhausted == exhausted:
                self.refused = refused


class _HugeInt:
    """A JSON integer with more digits than Python converts; `plain` refuses values holding one."""

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))


def _max_int_digits() -> int:
    get = getattr(sys, "get_int_max_str_digits", None)
    return int(get()) if get is not None else 0


def _lenient_int(token: str) -> int | _HugeInt:
    limit = _max_int_digits()
    return _HugeInt(token) if limit and len(token.lstrip("-")) > limit else int(token)


_LENIENT = json.JSONDecoder(parse_int=_lenient_int)


def plain(value: Any, max_depth: int, budget: Budget | None = None, depth: int = 0) -> tuple[bool, Any]:
    """`value` as plain JSON types (tuples become lists, non-string keys JSON text), or `(False, None)`.

    Refused: sets, bytes, complex and other non-JSON types, nesting deeper than `max_depth`, and
    integers with more digits than Python converts to text (`sys.get_int_max_str_digits()`), which
    no report could be written with. The reason goes to `budget.refused` when given.
    """
    if depth > max_depth:
        if budget is not None:
            budget.refuse(f"a value nests deeper than {max_depth} levels")
        return False, None
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return True, value
    if isinstance(value, int):
        limit = _max_int_digits()
        if limit and value.bit_length() > limit * 3.3219:  # log2(10): more digits than Python writes out
            if budget is not None:
                budget.refuse(f"a number has more than {limit:,} digits, more than Python converts")
            return False, None
        return True, value
    if isinstance(value, _HugeInt):
        if budget is not None:
            budget.refuse(f"a number has {value.digits:,} digits, more than Python converts ({_max_int_digits():,})")
        return False, None
    # What `json.loads` returns is plain already: it comes back as the same object after one walk (the
    # checks), not a copy; a container is rebuilt only where something in it changes (a literal's
    # tuples, non-string keys).
    if isinstance(value, (list, tuple)):
        items: list[Any] | None = None if type(value) is list else []
        for index, item in enumerate(value):
            ok, item_plain = plain(item, max_depth, budget, depth + 1)
            if not ok:
                return False, None
            if items is None and item_plain is not item:
                items = list(value[:index])
            if items is not None:
                items.append(item_plain)
        return True, value if items is None else items
    if isinstance(value, dict):
        out: dict[str, Any] | None = None if type(value) is dict else {}
        for key, item in value.items():
            if not (isinstance(key, (str, int, float, bool)) or key is None):
                return False, None
            ok, item_plain = plain(item, max_depth, budget, depth + 1)
            if not ok:
                return False, None
            text_key = key if isinstance(key, str) else json.dumps(key)
            if out is None and (item_plain is not item or text_key is not key):
                out = {}
                for earlier, earlier_item in value.items():  # the keys before this one, unchanged
                    if earlier is key:
                        break
                    out[earlier] = earlier_item
            if out is not None:
                out[text_key] = item_plain
        return True, value if out is None else out
    if budget is not None:
        budget.refuse(f"a {type(value).__name__} is not a JSON value")
    return False, None


def _json_run(text: str, start: int, end: int) -> tuple[bool, int]:
    """Read one JSON value at `text[start:end]`: `(True, end)` if it is exactly one, else where reading stopped.

    The span is sliced first: a `JSONDecodeError` counts the lines before its position, which
    over the whole text would cost the text's length for every failing candidate.
    """
    snippet = text[start:end]
    try:
        _, stop = _DECODER.raw_decode(snippet)
    except json.JSONDecodeError as exc:
        return False, start + exc.pos
    except ValueError:  # an integer over Python's conversion limit: read the syntax with a lenient decoder
        try:
            _, stop = _LENIENT.raw_decode(snippet)
        except json.JSONDecodeError as exc:
            return False, start + exc.pos
        except (ValueError, RecursionError):
            return False, start
    except RecursionError:
        return False, start
    return stop == len(snippet), start + stop


def _json_value(snippet: str, budget: Budget) -> tuple[bool, Any, bool]:
    """`(found, json.loads(snippet), plain)`, or `(False, None, False)`; an over-long integer becomes a
    `_HugeInt` that `plain` refuses. `plain`: the value is vouched to be plain JSON within the budget's
    `max_depth` (`_jsonload.loads_within`), so `plain()` need not walk it. `exact_numbers`: see `Budget`.
    """
    try:
        value, vouched = loads_within(snippet, budget.max_depth, exact_numbers=budget.exact_numbers)
        return True, value, vouched
    except json.JSONDecodeError:
        return False, None, False
    except RecursionError:
        return False, None, False
    except ValueError:
        try:
            return True, _LENIENT.decode(snippet), False
        except (ValueError, RecursionError):
            return False, None, False


def _literal_value(snippet: str, budget: Budget) -> tuple[bool, Any]:
    if len(snippet) > budget.max_literal_chars:
        budget.refuse(f"a {len(snippet):,}-character snippet is over the literal limit")
        return False, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes such as '\d' warn but read
        try:
            return True, ast.literal_eval(snippet)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False, None


def read_whole(text: str, start: int, end: int, budget: Budget, *, literal: bool = True) -> tuple[Any, str] | None:
    """The region `text[start:end]` (already stripped, starting with a bracket) as one dict or list.

    JSON first, then (when `literal`) a Python literal, recognised in one linear pass before
    `ast.literal_eval` builds it. Returns `(value, syntax)` with `syntax` `json` or
    `python_literal`, or None. Cost: O(`end - start`), once per region and `parse_answer` call
    (`Budget.wholes`; every call on one budget reads the same text).
    """
    key = (start, end, literal)
    if key in budget.wholes:
        found, refused = budget.wholes[key]
        if refused:
            budget.refuse(refused)
        return found
    earlier, exhausted, budget.refused = budget.refused, budget.exhausted, ""
    found = _read_whole(text, start, end, budget, literal=literal)
    budget.wholes[key] = (found, budget.refused)
    if exhausted or not budget.exhausted:  # (the budget running out overrides any reason, as `spend` says)
        budget.refused = earlier or budget.refused
    return found


def _read_whole(text: str, start: int, end: int, budget: Budget, *, literal: bool) -> tuple[Any, str] | None:
    snippet = text[start:end]
    found, value, vouched = _json_value(snippet, budget)
    syntax = "json"
    if not found:
        if not literal or not budget.spend(end - start):
            return None
        scan = scan_literal(text, start, end, max_depth=budget.max_depth)
        if scan.depth > budget.max_depth:
            budget.refuse(f"a snippet nests deeper than {budget.max_depth} levels")
            return None
        if not scan.ok or scan.kind not in ("dict", "list", "tuple"):
            return None
        found, value = _literal_value(snippet, budget)
        syntax = "python_literal"
    if not found:
        return None
    if syntax == "json" and vouched and isinstance(value, (dict, list)):  # plain JSON within the depth limit
        return value, syntax
    ok, value = plain(value, budget.max_depth, budget)
    if not ok or not isinstance(value, (dict, list)):
        return None
    return value, syntax


@dataclass
class Tree:
    """The balanced bracket spans of a region: node `i` is `text[start[i]:end[i]]`.

    Children lists and `roots` are in text order. `height` is 1 for a span with no span inside.
    """

    start: list[int] = field(default_factory=list)
    end: list[int] = field(default_factory=list)
    opener: list[str] = field(default_factory=list)
    height: list[int] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)


def _opens_quote(text: str, at: int, start: int) -> bool:
    """A single quote opens a string after a non-word character or a string prefix (`r'`, `u'`, `rb'`)."""
    before = at - 1
    for _ in range(3):
        if before < start:
            return True
        char = text[before]
        if not (char.isalnum() or char == "_"):
            return True
        if char not in "rRuUbBfF" or before == at - 3:
            return False
        before -= 1
    return False


def scan_brackets(text: str, start: int, end: int) -> Tree:
    """The tree of balanced `{}`/`[]`/`()` spans in `text[start:end]`, in one pass.

    Quotes count only inside `{`/`[` (prose apostrophes cannot swallow the text): a double quote
    always opens a string, a single quote only after a non-word character or a string prefix, a
    tripled quote opens a string that may span lines, and other strings end at a line end. A
    closer that does not match the innermost opener closes the nearest matching one within 64
    levels, discarding the openers above it (their spans are kept as its children), or is
    ignored. Cost: O(`end - start`).
    """
    tree = Tree()
    starts, ends, openers, heights, children = tree.start, tree.end, tree.opener, tree.height, tree.children
    # The open brackets, as parallel lists: character, position, tallest child span, child spans.
    open_char: list[str] = []
    open_at: list[int] = []
    open_tallest: list[int] = []
    open_kids: list[list[int]] = []
    top: list[int] = []
    quote = ""
    skip_to = -1
    for match in _SPECIAL.finditer(text, start, end):
        at = match.start()
        if at < skip_to:
            continue
        char = match.group()
        if quote:
            if char == "\\":
                skip_to = at + 2
            elif char == "\n":
                if len(quote) == 1:
                    quote = ""
            elif char == quote[0] and (len(quote) == 1 or text.startswith(quote, at)):
                skip_to = at + len(quote)
                quote = ""
            continue
        if char in "{[(":
            open_char.append(char)
            open_at.append(at)
            open_tallest.append(0)
            open_kids.append([])
            continue
        if char in "\"'":
            if open_char and open_char[-1] != "(" and (char == '"' or _opens_quote(text, at, start)):
                quote = char * 3 if text.startswith(char * 3, at) else char
                skip_to = at + len(quote)
            continue
        if char in "\n\\":
            continue
        opener = _OPEN_FOR[char]
        depth = len(open_char) - 1
        floor = max(depth - _MISMATCH_REACH, -1)
        while depth > floor and open_char[depth] != opener:
            depth -= 1
        if depth == floor:
            continue  # no opener to close: the closer is ignored
        tallest, kids = open_tallest[depth], open_kids[depth]
        for discarded in range(depth + 1, len(open_char)):
            tallest = max(tallest, open_tallest[discarded])
            kids.extend(open_kids[discarded])  # opened after this opener's own children closed
        node = len(starts)
        starts.append(open_at[depth])
        ends.append(at + 1)
        openers.append(opener)
        heights.append(tallest + 1)
        children.append(kids)
        del open_char[depth:], open_at[depth:], open_tallest[depth:], open_kids[depth:]
        if open_char:
            if tallest + 1 > open_tallest[-1]:
                open_tallest[-1] = tallest + 1
            open_kids[-1].append(node)
        else:
            top.append(node)
    for kids in open_kids:  # children of brackets never closed are roots
        top.extend(kids)
    tree.roots = sorted(top, key=starts.__getitem__)
    return tree


class _Search:
    """Validity of each candidate, found lazily with the shared readings described in the module docstring."""

    def __init__(self, text: str, tree: Tree, budget: Budget) -> None:
        self.text = text
        self.tree = tree
        self.budget = budget
        # node -> (valid, reading that covers its children): JSON as (start, stop) runs.
        self.json_state: dict[int, tuple[bool, tuple[int, int] | None]] = {}
        self.literal_state: dict[int, tuple[bool, str, LiteralScan | None]] = {}

    def plausible(self, node: int) -> bool:
        """Whether `node`'s first character after its opener could start a value (or close it)."""
        return _PLAUSIBLE.match(self.text, self.tree.start[node], self.tree.end[node]) is not None

    def json_valid(self, node: int, cover: tuple[int, int] | None) -> tuple[bool, tuple[int, int] | None]:
        """Whether `node` is one JSON value, and the JSON reading that covers its children."""
        if node in self.json_state:
            return self.json_state[node]
        start, end = self.tree.start[node], self.tree.end[node]
        if self.tree.opener[node] == "(":
            state: tuple[bool, tuple[int, int] | None] = (False, None)  # JSON never reads a parenthesis
        elif cover is not None and end <= cover[1]:
            state = (True, cover)  # the covering reading completed it
        elif cover is not None and start < cover[1] < end:
            state = (False, cover)  # the covering reading failed inside it, as a fresh one would
        else:
            ok, stop = _json_run(self.text, start, end)
            self.budget.spend(max(stop - start, 1))
            state = (ok, (start, stop))
        self.json_state[node] = state
        return state

    def literal_valid(self, node: int, cover: LiteralScan | None) -> tuple[bool, str, LiteralScan | None]:
        """Whether `node` is one Python literal (and its kind), and the reading that covers its children."""
        if node in self.literal_state:
            return self.literal_state[node]
        start, end = self.tree.start[node], self.tree.end[node]
        done = cover.done.get(start) if cover is not None else None
        if cover is not None and done is not None and done[0] == end:
            state: tuple[bool, str, LiteralScan | None] = (True, done[1], cover)
        elif cover is not None and start in cover.open:
            state = (False, "", cover)  # the covering reading opened it and failed inside it
        else:
            scan = scan_literal(self.text, start, end)
            self.budget.spend(max(scan.stop - start, 1))
            state = (scan.ok, scan.kind, scan)
        self.literal_state[node] = state
        return state

    def value(self, node: int, as_json: bool, structural: bool) -> tuple[Any, str] | None:
        """Build the winner's value; None (and the search goes on) if it is refused."""
        snippet = self.text[self.tree.start[node] : self.tree.end[node]]
        if not self.budget.spend(len(snippet)):
            return None
        vouched = False
        if as_json:
            found, value, vouched = _json_value(snippet, self.budget)
            syntax = "json"
        else:
            found, value = _literal_value(snippet, self.budget)
            syntax = "python_literal"
        if not found:
            return None
        if vouched and isinstance(value, (dict, list) if structural else list):  # plain JSON within the limit
            return value, syntax
        ok, value = plain(value, self.budget.max_depth, self.budget)
        if not ok or not isinstance(value, (dict, list) if structural else list):
            return None
        return value, syntax

    def best(self, structural: bool) -> tuple[int, Any, str] | None:
        """The last-ending valid `{`/`[` candidate (or `(` candidate reading as a list), with its value."""
        tree, budget = self.tree, self.budget
        stack: list[tuple[int, tuple[int, int] | None, LiteralScan | None]] = [(r, None, None) for r in tree.roots]
        while stack:
            if budget.exhausted:
                return None
            node, json_cover, literal_cover = stack.pop()
            is_structural = tree.opener[node] != "("
            if tree.height[node] > budget.max_depth:  # its parts are not read on their own either
                budget.refuse(f"a snippet nests deeper than {budget.max_depth} levels")
                continue
            if not self.plausible(node):  # a reader would stop at once: its children are read afresh
                stack.extend((child, None, None) for child in tree.children[node])
                continue
            json_ok, json_cover = self.json_valid(node, json_cover)
            candidate = is_structural == structural
            if candidate and json_ok:
                found = self.value(node, True, structural)
                if found is not None:
                    return node, found[0], found[1]
            if not candidate and structural:
                # A parenthesis in the first pass: only its children matter, under its parent's readings.
                stack.extend((child, json_cover, literal_cover) for child in tree.children[node])
                continue
            literal_ok, kind, literal_cover = self.literal_valid(node, literal_cover)
            wanted = ("dict", "list") if structural else ("list", "tuple")
            if candidate and literal_ok and not json_ok and kind in wanted:
                found = self.value(node, False, structural)
                if found is not None:
                    return node, found[0], found[1]
            stack.extend((child, json_cover, literal_cover) for child in tree.children[node])
        return None


def last_structure(text: str, start: int, end: int, budget: Budget) -> tuple[int, int, Any, str] | None:
    """The last structure in `text[start:end]` that parses: `(start, end, value, syntax)` or None.

    `{`/`[` candidates beat `(` ones (a parenthesis must read as a tuple or list); among them the
    one ending last wins, the outer before the inner. See the module docstring for the cost.
    """
    tree = scan_brackets(text, start, end)
    if not tree.start:
        return None
    search = _Search(text, tree, budget)
    for structural in (True, False):
        found = search.best(structural)
        if found is not None:
            node, value, syntax = found
            return tree.start[node], tree.end[node], value, syntax
    return None
