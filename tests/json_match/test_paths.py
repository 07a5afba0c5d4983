"""Tests for structsim_nb.json_match.paths: dot notation, JSON Path and JSON Pointer, parsed once and resolved."""

from __future__ import annotations

import pytest

from structsim_nb.errors import FieldPathError, StructsimError
from structsim_nb.json_match.paths import parse_field_path, parse_fields, render_path, resolve_path


class TestPathFormats:
    DATA = {
        "items": [{"name": "a", "tags": ["x", "y"]}, {"name": "b"}],
        "": None,
        "a.b": "literal",
        "a": {"b": "nested"},
        "0": "zero-key",
        "c/d": 1,
        "t~": 2,
        " sp": 3,
        "user's": 4,
        'say "hi"': 5,
    }

    @pytest.mark.parametrize(
        ("path", "value"),
        [
            ("items.0.name", "a"),
            ("items[0].name", "a"),
            ("items[-1].name", "b"),
            ("items.-1.name", "b"),
            ("items[0].tags[1]", "y"),
            ("items..0.name", "a"),  # empty segments are dropped, as Agenta does
            (".a.b", "nested"),
            ("a.b.", "nested"),
            ("$", DATA),
            ("/", None),
            ("a.b", "nested"),
            ('["a.b"]', "literal"),
            ("['a.b']", "literal"),
            ("0", "zero-key"),
            ('[" sp"]', 3),
            ("user's", 4),  # quotes in a dot segment are part of the key, as in Agenta's dot notation
            ('say "hi"', 5),
            ("items.01.name", "b"),  # digits index a list as Agenta's isdigit/int reads them
            ("items.\u0661.name", "b"),
            ("$.items[0].name", "a"),
            ("$.items[-1].name", "b"),
            ("$.items[*].name", ["a", "b"]),
            ("$..name", ["a", "b"]),
            ("$['a.b']", "literal"),
            ("$.items[?(@.name == 'b')].name", "b"),
            ("/items/0/name", "a"),
            ("/a.b", "literal"),
            ("/c~1d", 1),
            ("/t~0", 2),
        ],
    )
    def test_resolves(self, path, value):
        assert resolve_path(parse_field_path(path), self.DATA) == (True, value, "")

    @pytest.mark.parametrize(
        "path",
        ["", " name", "name ", ".", "..", "a[0", "a[x]", "a[0]b", '["a.b]', "$items", "$.", "$.a b", "/t~2"],
    )
    def test_malformed_path_is_an_error_at_construction(self, path):
        with pytest.raises(FieldPathError) as info:
            parse_field_path(path)
        assert repr(path) in str(info.value) or path == ""
        assert isinstance(info.value, ValueError) and isinstance(info.value, StructsimError)

    @pytest.mark.parametrize("fields", [[], "name", ["a", "a"], [3]])
    def test_bad_field_lists(self, fields):
        with pytest.raises(FieldPathError):
            parse_fields(fields)

    def test_render_path_round_trips(self):
        for steps in [("items", 0, "name"), ("a.b",), (" sp", "x"), ("0",), ("q\"'",)]:
            path = parse_field_path(render_path(steps))
            rebuilt = tuple(token if kind != "index" else token for kind, token in path.steps)
            assert rebuilt == steps

    def test_pointer_index_rules(self):
        data = {"items": [1, 2]}
        for path in ["/items/-1", "/items/01", "/items/-"]:
            found, _, why = resolve_path(parse_field_path(path), data)
            assert not found and "RFC 6901" in why
