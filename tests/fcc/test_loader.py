"""The FCC loader: every input form through the real `datasets` API, the sample, bad input, and the cases.

Every file here is written by `datasets` or pyarrow into `tmp_path`, in the format it claims to be.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import Dataset, DatasetDict, Features, Sequence, Value

from structsim_nb.errors import DatasetFormatError, DatasetUnavailableError, StructsimError
from structsim_nb.fcc.data import build_sample
from structsim_nb.fcc.loader import SAMPLE_PATH, FCCDocument, fcc_cases, load_fcc, unknown_keys
from structsim_nb.fcc.models import FCCInvoice, FCCLineItem

SAMPLE_IDS = build_sample.IDS


def sample_rows() -> list[dict[str, Any]]:
    """The sample's rows as the hub's Parquet file holds them (dicts, floats, nulls)."""
    return pq.read_table(SAMPLE_PATH).to_pylist()


def ids(docs: list[FCCDocument]) -> list[str]:
    return [doc.id for doc in docs]


# -- the bundled sample -----------------------------------------------------------------------


class TestSampleFile:
    def test_the_committed_file_is_what_build_sample_writes(self) -> None:
        assert pq.read_table(SAMPLE_PATH).equals(build_sample.table())
        assert SAMPLE_PATH.stat().st_size < 40_000, "keep the package data small"

    def test_it_has_the_hubs_columns_and_types(self) -> None:
        schema = pq.read_schema(SAMPLE_PATH)
        assert schema.names == ["id", "text", "json_response", "json_schema"]
        response = schema.field("json_response").type
        assert pa.types.is_struct(response) and pa.types.is_struct(schema.field("json_schema").type)
        for amount in ("GrossTotal", "AgencyCommission", "NetAmountDue"):
            assert response.field(amount).type == pa.float64()
        line = response.field("LineItems").type.value_type
        assert line.field("LineItemRate").type == pa.float64()
        assert line.field("LineItemStartDate").type == pa.string()

    def test_values_are_in_the_hubs_form(self) -> None:
        rows = sample_rows()
        assert all(len(row["id"]) == 36 and row["id"].endswith(".pdf") for row in rows)
        assert int(rows[0]["id"][:32], 16) >= 0  # hash-like: hexadecimal
        first = rows[0]["json_response"]
        assert first["GrossTotal"] == 7150.0 and first["LineItems"][0]["LineItemStartDate"] == "10/03/16"
        assert rows[2]["json_response"]["LineItems"] is None
        assert rows[0]["json_schema"]["properties"]["GrossTotal"]["anyOf"] == [{"type": "float"}, {"type": "null"}]

    def test_the_readme_documents_every_row_and_says_it_is_invented(self) -> None:
        readme = (SAMPLE_PATH.parent / "README.md").read_text(encoding="utf-8")
        assert "Invented. Not real FCC filings." in readme
        for row_id in SAMPLE_IDS:
            assert row_id[:8] in readme
        assert "fcc_sample.parquet" in readme and "build_sample.py" in readme

    def test_sample_exercises_every_field(self, sample: list[FCCDocument]) -> None:
        labels = [doc.label for doc in sample if doc.label is not None]
        for name in FCCInvoice.model_fields:
            assert any(getattr(label, name) not in (None, []) for label in labels), name
        items = [item for label in labels for item in label.LineItems]
        for name in FCCLineItem.model_fields:
            assert all(getattr(item, name) is not None for item in items), name


class TestLoadSample:
    def test_reads_every_row_through_datasets(self, sample: list[FCCDocument], cache: Path) -> None:
        assert ids(sample) == SAMPLE_IDS
        assert cache.is_dir(), "datasets must cache where it is told"

    def test_labels_validate_and_keep_their_values(self, sample: list[FCCDocument]) -> None:
        first = sample[0].label
        assert isinstance(first, FCCInvoice)
        assert first.GrossTotal == 7150.0 and first.NetAmountDue == 6077.5
        assert first.LineItems[0].LineItemStartDate.isoformat() == "2016-10-03"
        month_name = sample[1].label
        assert month_name is not None and month_name.LineItems[4].LineItemStartDate.isoformat() == "2016-10-30"
        assert [doc.id for doc in sample if doc.label is None] == [SAMPLE_IDS[3], SAMPLE_IDS[6]]

    def test_a_label_that_does_not_validate_is_kept_with_the_reason(self, sample: list[FCCDocument]) -> None:
        bad = sample[3]
        assert bad.label is None and bad.expected is bad.raw_label
        assert bad.problem is not None and "LineItems.0.LineItemEndDate" in bad.problem and "09/31/16" in bad.problem
        assert "11/05/16 - 11/06/16" in (sample[6].problem or "")

    def test_null_line_items_are_none(self, sample: list[FCCDocument]) -> None:
        summary = sample[2]
        assert summary.raw_label["LineItems"] is None and summary.n_line_items == 0
        assert summary.label is not None and summary.label.LineItems == []

    def test_problems_are_logged_with_the_document_id(self, cache: Path, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level("INFO", logger="structsim_nb.fcc"):
            load_fcc("sample", cache_dir=cache)
        messages = [record.getMessage() for record in caplog.records]
        assert any(SAMPLE_IDS[3] in m and "reads it leniently" in m for m in messages)
        assert any(SAMPLE_IDS[2] in m and "no line items" in m for m in messages)

    def test_every_document_carries_the_normalized_json_schema(self, sample: list[FCCDocument]) -> None:
        schema = sample[0].json_schema
        assert schema is not None and all(doc.json_schema == schema for doc in sample)
        assert schema["properties"]["GrossTotal"]["anyOf"][0] == {"type": "number"}


# -- every input form -------------------------------------------------------------------------


def _as_text(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with `json_response` and `json_schema` as JSON text, as a CSV or hand-made file holds them."""
    return [
        {**row, "json_response": json.dumps(row["json_response"]), "json_schema": json.dumps(row["json_schema"])}
        for row in rows
    ]


class TestInputForms:
    """Each form a user may hold the dataset in gives the same documents as the hub's own Parquet file."""

    @pytest.fixture
    def expected(self, sample: list[FCCDocument]) -> list[tuple[str, Any, Any]]:
        return [(doc.id, doc.raw_label, doc.json_schema) for doc in sample]

    @staticmethod
    def same(docs: list[FCCDocument], expected: list[tuple[str, Any, Any]]) -> None:
        assert [(doc.id, doc.raw_label, doc.json_schema) for doc in docs] == expected

    def test_a_parquet_file(self, tmp_path: Path, cache: Path, expected) -> None:
        path = tmp_path / "test-00000-of-00001.parquet"
        pq.write_table(pa.Table.from_pylist(sample_rows()), path)
        self.same(load_fcc(path, cache_dir=cache), expected)

    def test_a_json_lines_file_written_by_datasets(self, tmp_path: Path, cache: Path, expected) -> None:
        path = tmp_path / "rows.jsonl"
        Dataset.from_list(sample_rows()).to_json(path, lines=True)
        self.same(load_fcc(path, cache_dir=cache), expected)

    def test_a_json_file_written_by_datasets(self, tmp_path: Path, cache: Path, expected) -> None:
        path = tmp_path / "rows.json"
        Dataset.from_list(sample_rows()).to_json(path, lines=False)
        assert path.read_text(encoding="utf-8").lstrip().startswith("[")
        self.same(load_fcc(path, cache_dir=cache), expected)

    def test_labels_as_json_text_in_a_csv_file(self, tmp_path: Path, cache: Path, expected) -> None:
        path = tmp_path / "rows.csv"
        rows = _as_text(sample_rows())
        Dataset.from_list(rows).to_csv(path)
        self.same(load_fcc(path, cache_dir=cache), expected)

    def test_a_hub_snapshot_folder(self, tmp_path: Path, cache: Path, expected) -> None:
        snapshot = tmp_path / "RealKIE-FCC-Verified"
        (snapshot / "data").mkdir(parents=True)
        (snapshot / "pdfs").mkdir()
        shutil.copyfile(SAMPLE_PATH, snapshot / "data" / "test-00000-of-00001.parquet")
        (snapshot / "pdfs" / SAMPLE_IDS[0]).write_bytes(b"%PDF-1.4 placeholder")
        (snapshot / "README.md").write_text(
            "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test-*\n---\n",
            encoding="utf-8",
        )
        self.same(load_fcc(snapshot, cache_dir=cache), expected)
        with pytest.raises(ValueError, match="'train'"):
            load_fcc(snapshot, split="train", cache_dir=cache)

    def test_a_dataset_object(self, expected) -> None:
        dataset = Dataset.from_list(sample_rows())
        self.same(load_fcc(dataset), expected)

    def test_a_dataset_dict_picks_the_split(self, expected) -> None:
        rows = sample_rows()
        splits = DatasetDict({"test": Dataset.from_list(rows), "other": Dataset.from_list(rows[:1])})
        self.same(load_fcc(splits), expected)
        assert ids(load_fcc(splits, split="other")) == SAMPLE_IDS[:1]
        with pytest.raises(ValueError, match=r"split must be one of \['other', 'test'\]"):
            load_fcc(splits, split="validation")

    def test_list_items_read_as_columns_are_turned_back_into_items(self) -> None:
        # What a `Sequence` feature over a dict (and older datasets versions) gives for LineItems.
        features = Features(
            {
                "id": Value("string"),
                "text": Value("string"),
                "json_response": {
                    "Agency": Value("string"),
                    "LineItems": Sequence({"LineItemDays": Value("string"), "LineItemRate": Value("float64")}),
                },
            }
        )
        columns = {"LineItemDays": ["M-F", "Sa"], "LineItemRate": [2.0, 3.0]}
        row = {"id": "x", "text": "t", "json_response": {"Agency": "A", "LineItems": columns}}
        dataset = Dataset.from_list([row], features=features)
        assert isinstance(dataset[0]["json_response"]["LineItems"], dict)
        (doc,) = load_fcc(dataset)
        assert doc.label is not None and [item.LineItemRate for item in doc.label.LineItems] == [2.0, 3.0]

    def test_the_model_from_the_json_schema_column(self, cache: Path) -> None:
        docs = load_fcc("sample", model="json_schema", cache_dir=cache)
        model = docs[0].model
        assert model.__name__ == "FCCSchemaInvoice" and all(doc.model is model for doc in docs)
        assert docs[0].label is not None and docs[0].label.LineItems[0].LineItemStartDate == "10/03/16"
        # The schema makes Agency a required string and LineItems a list: the direct buy (Agency null)
        # and the summary invoice (LineItems null) do not validate, and are read leniently when scored.
        assert [doc.id for doc in docs if doc.label is None] == [SAMPLE_IDS[2], SAMPLE_IDS[4]]
        cases = fcc_cases(docs)
        assert cases[0].expected_output is docs[0].label

    def test_json_schema_model_needs_the_column(self) -> None:
        rows = [{key: value for key, value in row.items() if key != "json_schema"} for row in sample_rows()]
        with pytest.raises(ValueError, match="needs a json_schema column"):
            load_fcc(Dataset.from_list(rows), model="json_schema")


# -- bad input ---------------------------------------------------------------------------------


class TestBadInput:
    def test_a_label_key_the_model_lacks_is_reported_with_the_document(self, caplog: pytest.LogCaptureFixture) -> None:
        rows = sample_rows()[:2]
        rows[1]["json_response"] = {**rows[1]["json_response"], "Station": "WQRT-TV"}
        rows[1]["json_response"]["LineItems"][0]["Spots"] = 10
        dataset = Dataset.from_list([{**row, "json_response": json.dumps(row["json_response"])} for row in rows])
        with caplog.at_level(logging.WARNING, logger="structsim_nb.fcc"):
            first, second = load_fcc(dataset)
        assert first.unknown_keys == ()
        assert second.unknown_keys == ("LineItems[0].Spots", "Station")  # in the label's order
        (message,) = [r.getMessage() for r in caplog.records if "no field for" in r.getMessage()]
        assert SAMPLE_IDS[1] in message and "LineItems[0].Spots, Station" in message and "FCCInvoice" in message
        assert fcc_cases([second])[0].metadata["unknown_keys"] == ["LineItems[0].Spots", "Station"]

    def test_unknown_keys_follow_aliases_and_nesting(self) -> None:
        assert unknown_keys({"Agency": "A", "LineItems": None, "X": 1}, FCCInvoice) == ["X"]
        assert unknown_keys("not a label", FCCInvoice) == []

    def test_a_file_datasets_cannot_read_names_the_file_and_the_formats(self, tmp_path: Path, cache: Path) -> None:
        broken = tmp_path / "broken.parquet"
        broken.write_bytes(b"this is not parquet")
        with pytest.raises(DatasetFormatError) as caught:
            load_fcc(broken, cache_dir=cache)
        message = str(caught.value)
        assert str(broken) in message and ".parquet, .jsonl" in message and "ArrowInvalid" in message
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, StructsimError)

    def test_a_format_datasets_does_not_read_is_refused_before_loading(self, tmp_path: Path) -> None:
        sheet = tmp_path / "labels.xlsx"
        sheet.write_bytes(b"PK")
        with pytest.raises(
            DatasetFormatError, match=r"format datasets reads \(\.parquet, \.jsonl.*labels\.xlsx' is not"
        ):
            load_fcc(sheet)

    def test_a_label_that_is_not_json_is_kept_with_the_reason(self) -> None:
        (doc,) = load_fcc(Dataset.from_list([{"id": "x", "text": "t", "json_response": "{not json"}]))
        assert doc.label is None and doc.problem is not None and doc.problem.startswith("json_response is not JSON")

    def test_missing_column_is_named(self) -> None:
        with pytest.raises(ValueError, match=r"lacks \['json_response'\]"):
            load_fcc(Dataset.from_list([{"id": "x", "text": "t"}]))

    def test_missing_file_says_what_sources_exist(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="'hub', 'sample', a datasets.Dataset or DatasetDict"):
            load_fcc(tmp_path / "nope.parquet")

    def test_other_objects_are_refused(self) -> None:
        with pytest.raises(TypeError, match="source must be 'hub', 'sample'"):
            load_fcc([{"id": "x"}])
        with pytest.raises(TypeError, match="model must be a Pydantic model class or 'json_schema'"):
            load_fcc("sample", model="FCCInvoice")  # type: ignore[arg-type]


class TestFilters:
    def test_n_docs_keeps_the_first(self, cache: Path) -> None:
        assert ids(load_fcc("sample", n_docs=3, cache_dir=cache)) == SAMPLE_IDS[:3]

    def test_max_line_items_skips_longer_documents_without_truncating(self, cache: Path) -> None:
        docs = load_fcc("sample", max_line_items=4, cache_dir=cache)
        assert SAMPLE_IDS[1] not in ids(docs) and SAMPLE_IDS[7] not in ids(docs)
        assert all(doc.n_line_items <= 4 for doc in docs)
        kept = next(doc for doc in docs if doc.id == SAMPLE_IDS[5])
        assert kept.label is not None and len(kept.label.LineItems) == 2

    def test_max_text_chars_skips_longer_documents_without_cutting(self, cache: Path) -> None:
        docs = load_fcc("sample", max_text_chars=700, cache_dir=cache)
        assert docs and all(len(doc.text) <= 700 for doc in docs)
        full = {doc.id: doc.text for doc in load_fcc("sample", cache_dir=cache)}
        assert all(full[doc.id] == doc.text for doc in docs)

    def test_filters_apply_before_n_docs(self, cache: Path) -> None:
        docs = load_fcc("sample", n_docs=2, max_line_items=2, cache_dir=cache)
        assert ids(docs) == [SAMPLE_IDS[2], SAMPLE_IDS[3]]

    @pytest.mark.parametrize("name", ["n_docs", "max_line_items", "max_text_chars"])
    def test_negative_cap_is_refused(self, name: str) -> None:
        with pytest.raises(ValueError, match=f"{name} must be a non-negative integer"):
            load_fcc("sample", **{name: -1})


class TestProgressBars:
    """`progress=False` hides datasets' bars ("Generating test split") for that call only."""

    def test_bars_show_by_default(self, cache: Path, capfd: pytest.CaptureFixture[str]) -> None:
        load_fcc("sample", cache_dir=cache)
        assert "Generating test split" in capfd.readouterr().err

    def test_progress_false_hides_them_and_puts_the_setting_back(
        self, cache: Path, capfd: pytest.CaptureFixture[str]
    ) -> None:
        import datasets
        from huggingface_hub import utils as hub

        before = (datasets.are_progress_bars_disabled(), hub.are_progress_bars_disabled())
        docs = load_fcc("sample", cache_dir=cache, progress=False)
        assert len(docs) == len(SAMPLE_IDS)
        assert "Generating" not in capfd.readouterr().err
        assert (datasets.are_progress_bars_disabled(), hub.are_progress_bars_disabled()) == before

    def test_bars_a_user_turned_off_stay_off(self, cache: Path) -> None:
        import datasets

        datasets.disable_progress_bars()
        try:
            load_fcc("sample", cache_dir=cache, progress=False)
            assert datasets.are_progress_bars_disabled()
        finally:
            datasets.enable_progress_bars()


_HUB_SCRIPT = """
import json, sys, time
# huggingface_hub retries a refused connection five times, waiting 1, 2, 4, 8 and 8 s (its http_backoff):
# keep every retry, skip the waiting, so an unreachable hub fails in a second instead of 25.
_wait = time.sleep
time.sleep = lambda seconds: _wait(min(seconds, 0.01))
from structsim_nb.fcc import load_fcc
try:
    docs = load_fcc("hub", cache_dir=sys.argv[1])
except Exception as exc:
    bases = [c.__name__ for c in type(exc).__mro__]
    print(json.dumps({"error": type(exc).__name__, "message": str(exc), "bases": bases}))
else:
    print(json.dumps({"ids": [doc.id for doc in docs], "labels": [doc.raw_label for doc in docs]}))
"""


def _load_hub(endpoint: str, tmp_path: Path) -> dict[str, Any]:
    """`load_fcc("hub")` in a fresh interpreter whose hub is `endpoint` (huggingface_hub reads it at import)."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "HF_ENDPOINT": endpoint,
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HUB_ETAG_TIMEOUT": "5",
        "HF_HUB_DOWNLOAD_TIMEOUT": "5",
    }
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HF_TOKEN"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", _HUB_SCRIPT, str(tmp_path / "cache")],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


class TestHub:
    """`load_fcc("hub")` through the real datasets/huggingface_hub client, against a hub on 127.0.0.1."""

    def test_the_hub_dataset_loads_over_the_hubs_own_protocol(self, tmp_path: Path, sample) -> None:
        from hub_stub import serve_dataset

        card = "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test-*\n---\n"
        files = {"README.md": card.encode(), "data/test-00000-of-00001.parquet": SAMPLE_PATH.read_bytes()}
        with serve_dataset("amazon-agi/RealKIE-FCC-Verified", files) as (endpoint, requests):
            loaded = _load_hub(endpoint, tmp_path)
        assert loaded["ids"] == SAMPLE_IDS
        assert loaded["labels"] == [doc.raw_label for doc in sample]
        assert "GET /datasets/amazon-agi/RealKIE-FCC-Verified/resolve/main/README.md" in requests
        assert any(r.startswith("GET ") and r.endswith("/data/test-00000-of-00001.parquet") for r in requests)

    def test_an_unreachable_hub_says_how_to_run_offline(self, tmp_path: Path) -> None:
        import socket

        with socket.socket() as probe:  # a port nobody listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        failed = _load_hub(f"http://127.0.0.1:{port}", tmp_path)
        assert failed["error"] == "DatasetUnavailableError"
        assert "ConnectionError" in failed["bases"] and "StructsimError" in failed["bases"]
        assert "amazon-agi/RealKIE-FCC-Verified" in failed["message"]
        assert "load_fcc('sample')" in failed["message"] and "snapshot folder" in failed["message"]

    def test_the_hub_id_is_the_hub(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import datasets

        calls = []

        def offline(path: str, **kwargs: object) -> None:
            calls.append(path)
            raise ConnectionError(f"Couldn't reach '{path}' on the Hub (LocalEntryNotFoundError)")

        monkeypatch.setattr(datasets, "load_dataset", offline)
        for source in ("hub", "amazon-agi/RealKIE-FCC-Verified"):
            with pytest.raises(DatasetUnavailableError) as caught:
                load_fcc(source)
            assert isinstance(caught.value, ConnectionError) and isinstance(caught.value, StructsimError)
        assert calls == ["amazon-agi/RealKIE-FCC-Verified"] * 2


# -- cases and scores --------------------------------------------------------------------------


class TestCases:
    def test_every_document_becomes_a_case(self, sample: list[FCCDocument]) -> None:
        cases = fcc_cases(sample)
        assert [case.name for case in cases] == SAMPLE_IDS
        assert isinstance(cases[0].expected_output, FCCInvoice)
        bad = cases[3]
        assert isinstance(bad.expected_output, dict) and "09/31/16" in bad.metadata["problem"]

    def test_no_document_is_zeroed_by_one_odd_value(self, sample: list[FCCDocument], run_experiment) -> None:
        from structsim_nb import StructuredOutputSimilarity

        pairs = {doc.id: (doc.expected, FCCInvoice.model_validate(_iso(doc.raw_label))) for doc in sample}
        report = run_experiment(pairs, [StructuredOutputSimilarity(FCCInvoice)])
        summary = report.summary()
        assert summary["cases"] == 8 and summary["unreadable"] == 0 and summary["scored"] == 8
        assert (summary["lenient_cases"], summary["lenient_values"]) == (2, 2)
        scores = dict(zip(report.cases_frame()["case"], report.cases_frame()["score"], strict=True))
        assert scores[SAMPLE_IDS[3]] > 0.8 and scores[SAMPLE_IDS[6]] > 0.8
        strict = run_experiment(pairs, [StructuredOutputSimilarity(FCCInvoice, strict=True)]).summary()
        assert strict["unreadable"] == 2


def _iso(label: dict[str, Any]) -> dict[str, Any]:
    """The label as a clean extraction writes it: ISO dates, the impossible and range dates read as their first day."""
    from structsim_nb.fcc.models import parse_date

    out = json.loads(json.dumps(label))
    for item in out.get("LineItems") or []:
        for key in ("LineItemStartDate", "LineItemEndDate"):
            printed = item[key].split(" - ")[0]
            item[key] = "2016-09-30" if printed == "09/31/16" else parse_date(printed).isoformat()
    return out


class TestEveryLeafIsCompared:
    """No field of a real-format label is ignored because of a name or type mismatch."""

    def test_every_leaf_of_every_label_reaches_the_comparison(self, sample: list[FCCDocument]) -> None:
        from strands_evals.types.evaluation import EvaluationData

        from structsim_nb import StructuredOutputSimilarity

        evaluator = StructuredOutputSimilarity(FCCInvoice)
        paths = set(evaluator.explain())
        for doc in sample:
            assert doc.unknown_keys == ()
            label = doc.raw_label
            leaves = {key for key in label if key != "LineItems"}
            leaves |= {f"LineItems.{key}" for item in label["LineItems"] or [] for key in item}
            assert leaves <= paths, leaves - paths
            # Blank every leaf in turn: the comparison must notice each one.
            for leaf in sorted(leaves):
                blanked = json.loads(json.dumps(label))
                if leaf.startswith("LineItems."):
                    key = leaf.split(".", 1)[1]
                    if all(item.get(key) is None for item in blanked["LineItems"]):
                        continue
                    for item in blanked["LineItems"]:
                        item[key] = None
                elif blanked[leaf] is None:
                    continue
                else:
                    blanked[leaf] = None
                (row,) = evaluator.evaluate(EvaluationData(input="", actual_output=blanked, expected_output=label))
                missed = {re.sub(r"\[\d+\]", "", record["path"]) for record in row.metadata["non_matches"]}
                assert row.score < 1.0 and leaf in missed, (doc.id, leaf, row.reason)
