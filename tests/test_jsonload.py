"""Tests for structsim_nb._jsonload: `loads` is `json.loads`, value for value and error for error."""

from __future__ import annotations

import json
import sys

import pytest
from helpers import same_but_long_integers
from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb._jsonload import loads, loads_within, shallow

JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),  # past 64 bits too: orjson would read those as floats
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(),
    ),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(), children, max_size=4)),
    max_leaves=20,
)


def _same(a, b):
    """Equal with the same types throughout (`==` takes 1 == 1.0 == True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (a != a and b != b)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(value=JSON, indent=st.sampled_from([None, 1]), ascii_only=st.booleans())
def test_loads_is_json_loads(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert _same(loads(text), json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        "123456789012345678901234567890",  # past 64 bits: orjson reads a float
        "-9223372036854775809",
        '{"a": 12345678901234567890}',
        '{\n  "a": [\n    18446744073709551616\n  ]\n}',  # indented: the squeezed check still sees the run
        '{"a":\t12345678901234567890\r\n}',
        '["1234567890 123456789", 5]',  # a run joined across a space in a string: json.loads reads it, the same
        "[NaN, Infinity, -Infinity]",  # json.loads reads these; orjson refuses
        "1e400",
        '"\\ud800"',  # a lone surrogate
        '{"a": 1, "b": 2, "a": 3}',  # the last of repeated keys, in the first one's place
        " [1.0, -0.0, 1E5] ",
    ],
)
def test_where_orjson_differs_json_loads_reads(text):
    assert _same(loads(text), json.loads(text))


@pytest.mark.parametrize("text", ["{", "[1,]", "{'a': 1}", "", "nul", "[1] x"])
def test_errors_are_json_loads_errors(text):
    with pytest.raises(json.JSONDecodeError) as ours:
        loads(text)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    assert (ours.value.msg, ours.value.pos) == (theirs.value.msg, theirs.value.pos)


class TestInexactNumbers:
    """`loads_within(..., exact_numbers=False)`: an integer past 64 bits may differ, as the float nearest it; what is
    JSON, what it holds and whether it is vouched for are the same, but for the two cases `_loads` names (tested
    below: nesting json.loads may refuse, halfway numbers of over 768 digits)."""

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(value=JSON, indent=st.sampled_from([None, 2]), ascii_only=st.booleans(), limit=st.sampled_from([3, 100]))
    def test_only_long_integers_may_differ(self, value, indent, ascii_only, limit):
        text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
        fast, fast_vouched = loads_within(text, limit, exact_numbers=False)
        exact, _ = loads_within(text, limit)
        assert same_but_long_integers(fast, exact), text
        if isinstance(fast, (dict, list)):
            assert fast_vouched == shallow(exact, limit), text

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(
        digits=st.text(alphabet="0123456789", min_size=18, max_size=45),
        point=st.integers(1, 17),
        exponent=st.none() | st.integers(-340, 310),
        halfway=st.floats(allow_nan=False, allow_infinity=False, min_value=1e-300, max_value=1e300),
    )
    def test_numbers_with_long_digit_runs_are_the_same_floats(self, digits, point, exponent, halfway):
        """A number with a fraction or an exponent reads as the same float either way, however many digits it has
        (the check skipped here sent those to json.loads): long mantissas, and the exact midpoint between two
        floats, where rounding to even decides."""
        import math
        from decimal import Decimal

        text = f"{digits[:point]}.{digits[point:]}" + ("" if exponent is None else f"e{exponent}")
        between = (Decimal(halfway) + Decimal(math.nextafter(halfway, math.inf))) / 2
        for number in (text, format(between, ".40e"), format(-between, ".60e")):
            document = f'{{"x": [{number}]}}'
            try:
                expected = json.loads(document)
            except ValueError:
                continue
            assert _same(loads_within(document, 100, exact_numbers=False)[0], expected), number

    def test_a_long_integer_is_read_as_the_c_reader_reads_it(self):
        text = '{"id": 123456789012345678901234, "n": 18446744073709551615}'
        assert loads_within(text, 100) == ({"id": 123456789012345678901234, "n": 2**64 - 1}, False)
        value, vouched = loads_within(text, 100, exact_numbers=False)
        assert value == {"id": 1.2345678901234568e23, "n": 2**64 - 1} and type(value["id"]) is float and vouched

    @pytest.mark.parametrize(
        "text",
        ["[NaN, Infinity]", "[1e400]", '["\\ud800"]', '{"a": ' + "9" * 4300 + "}"],
    )
    def test_what_orjson_refuses_is_read_as_json_loads_reads_it(self, text):
        try:
            expected = json.loads(text)
        except (ValueError, RecursionError) as error:
            with pytest.raises(type(error)):
                loads_within(text, 100, exact_numbers=False)
        else:
            assert _same(loads_within(text, 100, exact_numbers=False)[0], expected)

    def test_nesting_json_loads_may_refuse_is_read_up_to_orjson_s_limit(self):
        """1,000 levels and a run of 19 digits: the exact reading leaves the text to json.loads, which raises
        RecursionError on 3.10 and 3.11; without exact integers orjson reads it (up to 1,024 levels)."""
        text = "[" * 1000 + '"1234567890123456789012"' + "]" * 1000
        value, vouched = loads_within(text, 100, exact_numbers=False)
        levels = 0
        while isinstance(value, list):  # (counted in a loop: a recursive walk passes Python's limit)
            levels, value = levels + 1, value[0]
        assert (levels, value, vouched) == (1000, "1234567890123456789012", False)
        try:
            loads_within(text, 100)
        except RecursionError:
            assert sys.version_info < (3, 12)  # 3.12's json.loads reads it: the two readings agree there

    def test_a_long_halfway_number_is_within_one_ulp(self):
        """More than 768 significant digits exactly halfway between two floats: the exact reading rounds to even
        (json.loads), orjson may round the other way; one ulp apart at most."""
        import math
        from decimal import Decimal

        digits = "4.6582680617756284420096" + "0" * 746 + "e22"
        exact = loads_within(f"[{digits}]", 100)[0][0]
        assert exact == float(Decimal(digits))
        fast = loads_within(f"[{digits}]", 100, exact_numbers=False)[0][0]
        assert fast in (exact, math.nextafter(exact, math.inf), math.nextafter(exact, -math.inf))

    def test_nesting_past_orjson_s_limit_is_read_as_json_loads_reads_it(self):
        """orjson refuses 1,024 levels and more; json.loads reads them on 3.12+ and raises on 3.10 and 3.11."""
        text = "[" * 1100 + "]" * 1100
        try:
            json.loads(text)
        except RecursionError:
            with pytest.raises(RecursionError):
                loads_within(text, 100, exact_numbers=False)
            return
        value, vouched = loads_within(text, 100, exact_numbers=False)
        levels = 0
        while value is not None:  # (counted in a loop: comparing 1,100 levels recursively passes Python's limit)
            levels, value = levels + 1, value[0] if value else None
        assert levels == 1100 and not vouched

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(text=st.text(alphabet='"{}[]x', max_size=40))
    def test_the_shape_drops_quote_pairs_as_replace_pairs_them(self, text):
        """`_shape` deletes the quotes when the `""` pairs are every quote, else replaces the pairs: the same bytes
        either way, on any run of quotes and brackets."""
        from structsim_nb._jsonload import _shape

        data = text.encode()
        brackets = data.translate(bytes(range(256)).translate(bytes.maketrans(b"{}[]", b"()()")), b"x")
        assert _shape(data) == brackets.replace(b'""', b"")


class TestShallow:
    def test_vouches_only_for_plain_values_within_the_limit(self):
        assert shallow({"a": [1, "x", None, 2.5, True, {}]}, 100)
        assert shallow([[[]]], 4) and not shallow([[[]]], 3)  # a container at depth 2 sits at limit - 1 = 2
        assert not shallow({"a": (1,)}, 100) and not shallow([{1, 2}], 100)  # not decoded JSON
        assert not shallow(5, 100) and not shallow("x", 100)  # a scalar root is not vouched for

    @settings(max_examples=200, deadline=None, derandomize=True)
    @given(value=JSON)
    def test_what_it_vouches_for_is_plain(self, value):
        from structsim_nb.json_match.values import as_json

        if shallow(value, 100):
            ok, plain = as_json(value)
            assert ok and plain is value


def test_loads_within_walks_only_text_with_enough_brackets():
    deep = "[" * 120 + "]" * 120
    assert loads_within(deep, 100) == (loads(deep), False)  # 120 openers: walked, and too deep
    assert loads_within("[" * 98 + "]" * 98, 100)[1]  # 98 openers cannot nest to depth 99
    assert loads_within('{"a": "[[[[[[", "b": [1]}', 5)[1] is True  # 8 openers, but walked: depth 1


def test_only_what_orjson_read_is_vouched_for():
    """json.loads reads integers of any length the readers refuse (past Python's digit limit to write),
    so text it reads is never vouched for; nor is anything under a depth limit below 2."""
    long_int = '{"a": ' + "9" * 4300 + "}"
    assert loads_within(long_int, 100) == (json.loads(long_int), False)
    assert loads_within("[1, 2]", 100) == ([1, 2], True)
    assert loads_within("[1, 2]", 1) == ([1, 2], False) and not shallow([1, 2], 0) and not shallow([1], 1)


# Strings rich in what the text-level depth count must see through: brackets, quotes, backslashes.
_TRICKY_TEXT = st.text(alphabet='[]{}"\\ab\n/\u00e9\u2028', max_size=8)
TRICKY = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**18) + 1, 10**18 - 1), _TRICKY_TEXT),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(_TRICKY_TEXT, children, max_size=3)),
    max_leaves=25,
)


def _levels(value):
    """Nesting levels of a decoded value, the slow and obvious way: `[]` is 1, `[{}]` is 2, a scalar 0."""
    if isinstance(value, dict):
        return 1 + max((_levels(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_levels(item) for item in value), default=0)
    return 0


def _writers(value):
    """The value as JSON text, written the ways answers come: compact, indented, ASCII-only or not, by orjson."""
    import orjson

    yield json.dumps(value)
    yield json.dumps(value, indent=2, ensure_ascii=False)
    yield json.dumps(value, separators=(",", ":"))
    yield orjson.dumps(value).decode()


class TestTextDepth:
    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(value=TRICKY)
    def test_counts_the_levels_or_says_it_cannot(self, value):
        from structsim_nb import _jsonload

        brackets_in_strings = any(set(text) & set("[]{}") for text in _strings(value))
        with pytest.MonkeyPatch.context() as patch:  # no leaving to the walk for cost: every escape is counted
            patch.setattr(_jsonload, "_ESCAPE_SHARE", 0)
            patch.setattr(_jsonload, "_MOST_PASSES", 10**6)
            patch.setattr(_jsonload, "_MOST_LEFT_AFTER_A_PASS", 1.0)
            for text in _writers(value):
                levels = _jsonload._text_depth(text, 1000)
                if brackets_in_strings:
                    assert levels is None
                else:
                    assert levels == _levels(value), text

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(value=TRICKY, limit=st.integers(2, 7))
    def test_loads_within_vouches_as_shallow_does(self, value, limit):
        for text in _writers(value):
            decoded, vouched = loads_within(text, limit)
            assert _same(decoded, json.loads(text))
            if isinstance(decoded, (dict, list)):
                assert vouched == shallow(decoded, limit), text

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(value=TRICKY, escapes=st.sampled_from(["", "\n", "é", "\\", '"', "\n\\", "é" * 70]))
    def test_few_plain_escapes_give_the_shape_that_dropping_them_gives(self, value, escapes):
        """Few escapes, none of a backslash or a quote, are found one by one (`_plain_escapes`); the shape is
        the one counting and dropping every escape gives."""
        from structsim_nb._jsonload import _ESCAPE_SHARE, _shape

        def dropped(data: bytes) -> bytes | None:
            if b"\\" in data:
                if data.count(b"\\") * _ESCAPE_SHARE > len(data):
                    return None
                data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
            return data.translate(
                bytes(range(256)).translate(bytes.maketrans(b"{}[]", b"()()")),
                bytes(byte for byte in range(256) if byte not in b'"{}[]'),
            ).replace(b'""', b"")

        for text in _writers([value, escapes, "x" * 2000]):
            data = text.encode("utf-8", "surrogatepass")
            assert _shape(data) == dropped(data), text

    def test_plain_escapes_are_counted_only_when_few_and_dropping_nothing(self):
        from structsim_nb._jsonload import _FEW_ESCAPES, _plain_escapes

        assert _plain_escapes(json.dumps(["café\n", "\t"]).encode()) == 3
        assert _plain_escapes(b'["\\\\"]') is None and _plain_escapes(b'["\\""]') is None  # dropped by `_shape`
        assert _plain_escapes(b'["\\u00e9\\\\"]') is None  # found after a plain one
        assert _plain_escapes(json.dumps("é" * _FEW_ESCAPES).encode()) == _FEW_ESCAPES
        assert _plain_escapes(json.dumps("é" * (_FEW_ESCAPES + 1)).encode()) is None  # many: counted in C

    def test_stops_counting_past_the_most_asked(self, monkeypatch):
        from structsim_nb import _jsonload
        from structsim_nb._jsonload import _text_depth

        monkeypatch.setattr(_jsonload, "_ESCAPE_SHARE", 0)  # these short texts are mostly escapes
        monkeypatch.setattr(_jsonload, "_MOST_LEFT_AFTER_A_PASS", 1.0)  # and one long chain

        assert _text_depth("[" * 50 + "]" * 50, 10) == 11
        assert _text_depth("[" * 10 + "]" * 10, 10) == 10
        assert _text_depth('[["\\\\"], {"\\"": ["\\u005b"]}]', 10) == 3  # escapes read as a JSON reader reads them
        assert _text_depth('["]"]', 10) is None and _text_depth('{"k": "]", "x": "y"}', 10) is None
        assert _text_depth('["\\\\", "["]', 10) is None  # an escaped backslash does not hide the next quote

    def test_costly_texts_are_left_to_the_walk(self):
        from structsim_nb._jsonload import _MOST_PASSES, _text_depth

        deep = "[" * (_MOST_PASSES + 1) + "]" * (_MOST_PASSES + 1)
        assert _text_depth(deep, 1000) is None and _text_depth(deep, 0) == 1  # past the limit asked: said at once
        wide = json.dumps([[[1]] * 3] * 40)  # each pass takes off the innermost level: most of what is left
        assert _text_depth(wide, 1000) == 3
        chains = json.dumps([[[[[[1]]]]]] * 40)  # a pass takes off one link of each chain: left to the walk
        assert _text_depth(chains, 1000) is None
        assert _text_depth(json.dumps(["\\" * 50]), 1000) is None  # escapes: two replacements each
        long_strings = json.dumps([{"text": "lorem ipsum " * 100} for _ in range(200)])
        assert loads_within(long_strings, 3) == (json.loads(long_strings), True)  # walked: 200 bytes per container
        assert loads_within(long_strings, 2) == (json.loads(long_strings), False)

    def test_repeated_keys_can_only_send_the_text_to_the_walk(self, monkeypatch):
        from structsim_nb import _jsonload

        monkeypatch.setattr(_jsonload, "_MOST_LEFT_AFTER_A_PASS", 1.0)  # count this chain on the text
        text = '{"a": [[[[]]]], "a": 1}'  # the value keeps {"a": 1}: depth 1, the text's levels 5
        assert loads_within(text, 3) == ({"a": 1}, False)  # not vouched for: the reader walks it
        assert shallow({"a": 1}, 3)  # and the walk passes it

    def test_the_limit_is_where_shallow_puts_it(self):
        text = json.dumps([[[1]]] * 40)  # 120 openers: measured on the text, 3 levels
        assert loads_within(text, 4)[1] and not loads_within(text, 3)[1]


def _strings(value):
    """Every string in a decoded value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
