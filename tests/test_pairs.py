"""_pairs: pairs from a JSON Lines file or any iterable, every bad line or item named before scoring."""

from __future__ import annotations

import json
from typing import Any

import pytest
from invoice_corpus import MODEL, make_pairs

from structsim_nb import score_dataset
from structsim_nb.dataset import read_pairs
from structsim_nb.demo import Invoice
from structsim_nb.errors import PairsFileError


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return make_pairs()


class TestInputForms:
    def test_instances_dicts_json_text_and_tuples_score_the_same(self, pairs):
        sample = pairs[:20]
        as_dicts = [
            {
                "name": p["name"],
                "expected": p["expected"].model_dump(mode="json"),
                "actual": p["actual"].model_dump(mode="json"),
            }
            for p in sample
        ]
        as_text = [
            {"name": p["name"], "expected": p["expected"].model_dump_json(), "actual": p["actual"].model_dump_json()}
            for p in sample
        ]
        as_tuples = [(p["name"], p["expected"], p["actual"]) for p in sample]
        reports = [score_dataset(form, model_cls=Invoice, workers=1) for form in (sample, as_dicts, as_text, as_tuples)]
        for report in reports[1:]:
            assert report.scores == reports[0].scores
            assert report.detailed_results == reports[0].detailed_results
            assert [case["name"] for case in report.cases] == [p["name"] for p in sample]

    def test_a_jsonl_file_gives_the_report_of_the_same_dicts(self, pairs, tmp_path):
        records = [
            {
                "name": p["name"],
                "expected": p["expected"].model_dump(mode="json"),
                "actual": p["actual"].model_dump(mode="json"),
            }
            for p in pairs[:30]
        ]
        path = tmp_path / "pairs.jsonl"
        path.write_text("".join(json.dumps(record) + "\n" for record in records) + "\n", encoding="utf-8")
        from_file = score_dataset(path, model_cls=MODEL, workers=2)
        from_dicts = score_dataset(records, model_cls=MODEL, workers=1)
        assert from_file.model_dump_json() == from_dicts.model_dump_json()
        assert [p["name"] for p in read_pairs(path)] == [r["name"] for r in records]

    def test_unnamed_pairs_are_named_by_index_and_keep_input_and_metadata(self):
        truth = {"invoice_id": "1", "vendor_name": "Acme"}
        report = score_dataset(
            [(truth, truth), {"expected": truth, "actual": truth, "input": "page 1", "metadata": {"batch": 7}}],
            model_cls=Invoice,
        )
        assert [case["name"] for case in report.cases] == ["case_0", "case_1"]
        assert report.cases[1]["input"] == "page 1" and report.cases[1]["metadata"] == {"batch": 7}


class TestBadInput:
    def test_unreadable_line_names_the_line(self, tmp_path):
        path = tmp_path / "pairs.jsonl"
        good = json.dumps({"expected": {"invoice_id": "1", "vendor_name": "A"}, "actual": {"invoice_id": "1"}})
        path.write_text(f"{good}\n\n{{not json\n{good}\n", encoding="utf-8")
        with pytest.raises(PairsFileError, match=r"pairs\.jsonl', line 3 must be one JSON object"):
            score_dataset(path, model_cls=Invoice)

    @pytest.mark.parametrize(
        ("line", "message"),
        [
            ('{"expected": {}}', "must have keys 'expected' and 'actual'; it lacks 'actual'"),
            ("[1, 2]", "must be a JSON object; got a JSON list"),
            ('{"expected": {}, "actual": {}, "name": 3}', "'name' must be a string"),
        ],
    )
    def test_a_line_that_is_not_a_pair_names_the_line(self, tmp_path, line, message):
        path = tmp_path / "pairs.jsonl"
        path.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(PairsFileError, match="line 1") as error:
            score_dataset(path, model_cls=Invoice)
        assert message in str(error.value)

    def test_a_missing_file(self, tmp_path):
        with pytest.raises(PairsFileError, match="was not found"):
            score_dataset(tmp_path / "nope.jsonl", model_cls=Invoice)

    def test_a_bad_byte_is_reported_on_its_own_line(self, tmp_path):
        path = tmp_path / "pairs.jsonl"
        good = json.dumps({"expected": {"invoice_id": "1"}, "actual": {"invoice_id": "1"}}).encode()
        path.write_bytes(b"\n".join([good] * 2000 + [b'{"expected": "\xff"}'] + [good] * 5) + b"\n")
        with pytest.raises(PairsFileError, match=r"line 2001 is not: invalid start byte at byte 15 of the line"):
            list(read_pairs(path))

    def test_a_byte_order_mark_is_read(self, tmp_path):
        path = tmp_path / "pairs.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"expected": {}, "actual": {}}).encode() + b"\n")
        assert [pair["expected"] for pair in read_pairs(path)] == [{}]

    @pytest.mark.parametrize(
        ("line", "message"),
        [
            ('{"expected": ' + "9" * 5000 + ', "actual": {}}', "line 1 cannot be read: Exceeds the limit"),
            ('{"expected": ' + "[" * 100_000 + "]" * 100_000 + ', "actual": {}}', "line 1 nests too deeply"),
        ],
    )
    def test_huge_numbers_and_deep_lines_are_pairs_file_errors(self, tmp_path, line, message):
        path = tmp_path / "pairs.jsonl"
        path.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(PairsFileError, match=message):
            list(read_pairs(path))

    def test_a_bad_item_is_named_before_scoring(self):
        with pytest.raises(TypeError, match=r"pairs\[1\] must be a mapping"):
            score_dataset([({}, {}), "oops"], model_cls=Invoice)
