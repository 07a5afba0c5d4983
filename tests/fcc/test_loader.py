"""The FCC loader through the real `datasets` API, its filters, hub failure, and the cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structsim_nb.errors import DatasetUnavailableError, StructsimError
from structsim_nb.fcc.loader import SAMPLE_PATH, FCCDocument, fcc_cases, load_fcc
from structsim_nb.fcc.models import FCCInvoice

SAMPLE_IDS = [f"fcc-sample-{n:03d}" for n in range(1, 9)]


class TestSampleFile:
    def test_every_row_is_labelled_synthetic(self) -> None:
        rows = [json.loads(line) for line in SAMPLE_PATH.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 8
        assert all("not a real FCC filing" in row["provenance"] for row in rows)
        assert (SAMPLE_PATH.parent / "README.md").is_file()

    def test_sample_exercises_every_field(self, sample: list[FCCDocument]) -> None:
        labels = [doc.label for doc in sample if doc.label is not None]
        for name in FCCInvoice.model_fields:
            assert any(getattr(label, name) not in (None, []) for label in labels), name
            assert name in {"LineItems", "Advertiser", "GrossTotal", "NetAmountDue"} or any(
                getattr(label, name) is None for label in labels
            ), f"{name} is never blank in the sample"
        items = [item for label in labels for item in label.LineItems]
        for name in items[0].__class__.model_fields:
            assert all(getattr(item, name) is not None for item in items), name


class TestLoadSample:
    def test_reads_every_row_through_datasets(self, sample: list[FCCDocument], cache: Path) -> None:
        assert [doc.id for doc in sample] == SAMPLE_IDS
        assert cache.is_dir(), "datasets must cache where it is told"

    def test_valid_labels_validate_and_keep_their_values(self, sample: list[FCCDocument]) -> None:
        first = sample[0].label
        assert first is not None
        assert first.GrossTotal == 7150.0 and first.NetAmountDue == 6077.5
        assert first.LineItems[0].LineItemStartDate.isoformat() == "2016-10-03"
        assert [doc.id for doc in sample if doc.label is None] == ["fcc-sample-004"]

    def test_label_that_does_not_validate_is_kept_with_the_reason(
        self, sample: list[FCCDocument], caplog: pytest.LogCaptureFixture
    ) -> None:
        bad = next(doc for doc in sample if doc.id == "fcc-sample-004")
        assert bad.label is None and bad.expected is bad.raw_label
        assert bad.problem is not None and "LineItems.0.LineItemEndDate" in bad.problem and "09/31/16" in bad.problem

    def test_problems_are_logged_with_the_document_id(self, cache: Path, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level("INFO", logger="structsim_nb.fcc"):
            load_fcc("sample", cache_dir=cache)
        messages = [record.getMessage() for record in caplog.records]
        assert any("fcc-sample-004" in m and "does not validate" in m for m in messages)
        assert any("fcc-sample-003" in m and "no line items" in m for m in messages)

    def test_document_without_line_items_loads(self, sample: list[FCCDocument]) -> None:
        empty = next(doc for doc in sample if doc.id == "fcc-sample-003")
        assert empty.label is not None and empty.label.LineItems == [] and empty.n_line_items == 0

    def test_a_local_path_loads_like_the_sample(self, tmp_path: Path, cache: Path) -> None:
        rows = SAMPLE_PATH.read_text(encoding="utf-8").splitlines()[:2]
        path = tmp_path / "rows.jsonl"
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        assert [doc.id for doc in load_fcc(path, cache_dir=cache)] == SAMPLE_IDS[:2]

    def test_label_as_a_json_object_is_accepted(self, tmp_path: Path, cache: Path) -> None:
        row = json.loads(SAMPLE_PATH.read_text(encoding="utf-8").splitlines()[0])
        row["json_response"] = json.loads(row["json_response"])
        path = tmp_path / "object.jsonl"
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        (doc,) = load_fcc(path, cache_dir=cache)
        assert doc.label is not None and doc.label.Agency == "Harbor Line Media LLC"

    def test_label_that_is_not_json_is_kept_with_the_reason(self, tmp_path: Path, cache: Path) -> None:
        path = tmp_path / "broken.jsonl"
        path.write_text(json.dumps({"id": "x", "text": "t", "json_response": "{not json"}) + "\n", encoding="utf-8")
        (doc,) = load_fcc(path, cache_dir=cache)
        assert doc.label is None and doc.problem is not None and doc.problem.startswith("json_response is not JSON")

    def test_missing_column_is_named(self, tmp_path: Path, cache: Path) -> None:
        path = tmp_path / "nolabel.jsonl"
        path.write_text(json.dumps({"id": "x", "text": "t"}) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=r"lacks \['json_response'\]"):
            load_fcc(path, cache_dir=cache)

    def test_missing_file_says_what_sources_exist(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="'hub', 'sample' or an existing JSON Lines file"):
            load_fcc(tmp_path / "nope.jsonl")


class TestFilters:
    def test_n_docs_keeps_the_first(self, cache: Path) -> None:
        assert [doc.id for doc in load_fcc("sample", n_docs=3, cache_dir=cache)] == SAMPLE_IDS[:3]

    def test_max_line_items_skips_longer_documents_without_truncating(self, cache: Path) -> None:
        docs = load_fcc("sample", max_line_items=4, cache_dir=cache)
        assert "fcc-sample-002" not in [d.id for d in docs] and "fcc-sample-008" not in [d.id for d in docs]
        assert all(doc.n_line_items <= 4 for doc in docs)
        kept = next(doc for doc in docs if doc.id == "fcc-sample-007")
        assert kept.label is not None and len(kept.label.LineItems) == 4

    def test_max_text_chars_skips_longer_documents_without_cutting(self, cache: Path) -> None:
        docs = load_fcc("sample", max_text_chars=700, cache_dir=cache)
        assert docs and all(len(doc.text) <= 700 for doc in docs)
        full = {doc.id: doc.text for doc in load_fcc("sample", cache_dir=cache)}
        assert all(full[doc.id] == doc.text for doc in docs)

    def test_filters_apply_before_n_docs(self, cache: Path) -> None:
        docs = load_fcc("sample", n_docs=2, max_line_items=2, cache_dir=cache)
        assert [doc.id for doc in docs] == ["fcc-sample-003", "fcc-sample-004"]

    @pytest.mark.parametrize("name", ["n_docs", "max_line_items", "max_text_chars"])
    def test_negative_cap_is_refused(self, name: str) -> None:
        with pytest.raises(ValueError, match=f"{name} must be a non-negative integer"):
            load_fcc("sample", **{name: -1})


class TestHubFailure:
    def test_offline_hub_says_how_to_run_offline(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import datasets

        calls = []

        def offline(path: str, **kwargs: object) -> None:
            calls.append(path)
            # What datasets 5 raises when the hub's host does not resolve (seen on this machine).
            raise ConnectionError(f"Couldn't reach '{path}' on the Hub (LocalEntryNotFoundError)")

        monkeypatch.setattr(datasets, "load_dataset", offline)
        with pytest.raises(DatasetUnavailableError) as caught:
            load_fcc("hub")
        assert calls == ["amazon-agi/RealKIE-FCC-Verified"]
        message = str(caught.value)
        assert "Couldn't reach" in message and "load_fcc('sample')" in message
        assert isinstance(caught.value, ConnectionError) and isinstance(caught.value, StructsimError)


class TestCases:
    def test_every_document_becomes_a_case(self, sample: list[FCCDocument]) -> None:
        cases = fcc_cases(sample)
        assert [case.name for case in cases] == SAMPLE_IDS
        assert isinstance(cases[0].expected_output, FCCInvoice)
        bad = cases[SAMPLE_IDS.index("fcc-sample-004")]
        assert isinstance(bad.expected_output, dict) and "09/31/16" in bad.metadata["problem"]

    def test_report_counts_every_case(self, sample: list[FCCDocument], run_experiment) -> None:
        from structsim_nb import StructuredOutputSimilarity

        pairs = {doc.id: (doc.expected, doc.label or FCCInvoice()) for doc in sample}
        report = run_experiment(pairs, [StructuredOutputSimilarity(FCCInvoice)])
        summary = report.summary()
        assert summary["cases"] == 8 and summary["unreadable"] == 1 and summary["scored"] == 7
