"""The emulation of Agenta's evaluators that the notes compare against (`json_match.agenta`)."""

from __future__ import annotations

import pytest

from structsim_nb.json_match import agenta, json_field_match, paths


@pytest.mark.parametrize("digit", ["²", "③"])
def test_a_digit_int_does_not_read_resolves_to_none_as_agenta(digit):
    # `str.isdigit` takes these, `int()` refuses them; Agenta's `_get_nested_value` turns the ValueError into None.
    # Raised here, the caller took Agenta's score as 0 where Agenta gives 1 (None == None) and the note said so.
    assert agenta.resolve(f"a.{digit}", {"a": [1, 2, 3, 4]}) is None
    result = json_field_match({"a": [1]}, {"a": [1]}, fields=[f"a.{digit}"], both_absent="miss")
    assert result.notes == (f"a.{digit}: absent on both sides, scored 0 (Agenta scores 1.0)",)


def test_a_json_path_is_parsed_once_for_every_pair(monkeypatch):
    parsed: list[str] = []
    original = paths.parse_field_path

    def counted(text):
        parsed.append(text)
        return original(text)

    monkeypatch.setattr(agenta, "parse_field_path", counted)
    agenta._parsed.cache_clear()
    fields = ["$..city", "$.items[0].sku"]
    truth = {"address": {"city": "Oslo"}, "items": [{"sku": "A"}]}
    for city in ("Oslo", "Bergen", "Oslo"):
        output = {"address": {"city": city}, "items": [{"sku": "A"}]}
        assert agenta.field_scores(output, truth, fields) == {"$..city": float(city == "Oslo"), "$.items[0].sku": 1.0}
    assert sorted(parsed) == sorted(fields)  # (it was twice per field and pair: 12 parses of a millisecond each)
