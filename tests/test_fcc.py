"""The FCC loader through the real `datasets` API, its filters, hub failure, and the mode choice."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest

from structsim_nb import fcc
from structsim_nb.errors import DatasetUnavailableError, StructsimError
from structsim_nb.fcc import SAMPLE_PATH, FCCDocument, Mode, choose_mode, fcc_cases, load_fcc
from structsim_nb.fcc_models import FCCInvoice

SAMPLE_IDS = [f"fcc-sample-{n:03d}" for n in range(1, 9)]


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "hf-cache"


@pytest.fixture
def sample(cache: Path) -> list[FCCDocument]:
    return load_fcc("sample", cache_dir=cache)


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


class TestChooseMode:
    @pytest.fixture
    def no_credentials(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in (
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_PROFILE",
            "AWS_DEFAULT_PROFILE",
            "AWS_ROLE_ARN",
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            fcc.MODE_ENV,
        ):
            monkeypatch.delenv(name, raising=False)
        empty_credentials, empty_config = tmp_path / "credentials", tmp_path / "config"
        empty_credentials.write_text("")
        empty_config.write_text("")
        monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty_credentials))
        monkeypatch.setenv("AWS_CONFIG_FILE", str(empty_config))
        # No instance-metadata lookup: it would try the network.
        monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")

    def test_replay_without_credentials(self, no_credentials: None) -> None:
        choice = choose_mode()
        assert choice.mode is Mode.REPLAY and "no AWS credentials" in choice.reason

    def test_live_when_credentials_resolve(self, no_credentials: None, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEEXAMPLE00")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-a-real-secret")
        monkeypatch.setenv(fcc.MODEL_ID_ENV, "us.anthropic.claude-test")
        choice = choose_mode()
        assert choice.mode is Mode.LIVE and "via env" in choice.reason and "us.anthropic.claude-test" in choice.reason

    def test_live_from_a_shared_credentials_file(self, no_credentials: None, tmp_path: Path) -> None:
        path = tmp_path / "credentials"
        path.write_text("[default]\naws_access_key_id = AKIAEXAMPLEEXAMPLE00\naws_secret_access_key = x\n")
        assert choose_mode().mode is Mode.LIVE

    def test_an_explicit_session_is_used(self, no_credentials: None) -> None:
        session = boto3.Session(aws_access_key_id="AKIAEXAMPLEEXAMPLE00", aws_secret_access_key="x")
        assert choose_mode(session=session).mode is Mode.LIVE

    def test_partial_credentials_are_not_live(self, no_credentials: None, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEEXAMPLE00")
        choice = choose_mode()
        assert choice.mode is Mode.REPLAY and "did not resolve" in choice.reason

    def test_replay_requested_never_reads_credentials(
        self, no_credentials: None, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEEXAMPLE00")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
        monkeypatch.setenv(fcc.MODE_ENV, "replay")
        assert choose_mode().mode is Mode.REPLAY

    def test_live_requested_without_credentials_is_an_error(self, no_credentials: None) -> None:
        with pytest.raises(ValueError, match="live mode needs AWS credentials"):
            choose_mode(requested="live")

    def test_unknown_mode_lists_the_valid_ones(self, no_credentials: None) -> None:
        with pytest.raises(ValueError, match="'auto', 'live', 'replay'"):
            choose_mode(requested="rewind")


class TestRunSettings:
    def test_live_reads_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(fcc.SOURCE_ENV, "hub")
        monkeypatch.setenv(fcc.N_DOCS_ENV, "5")
        monkeypatch.setenv(fcc.MAX_LINE_ITEMS_ENV, "")
        monkeypatch.setenv(fcc.MODEL_ID_ENV, "us.anthropic.claude-test")
        settings = fcc.run_settings(Mode.LIVE)
        assert settings == fcc.RunSettings(source="hub", n_docs=5, model_id="us.anthropic.claude-test")

    def test_a_cap_that_is_not_a_number_is_named(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(fcc.N_DOCS_ENV, "five")
        with pytest.raises(ValueError, match=r"\$STRUCTSIM_NB_FCC_N_DOCS must be a whole number; got 'five'"):
            fcc.run_settings(Mode.LIVE)

    def test_replay_reads_the_settings_it_was_recorded_with(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = tmp_path / "s.json"
        path.write_text(fcc.RunSettings(n_docs=3).to_json())
        monkeypatch.setenv(fcc.N_DOCS_ENV, "7")
        assert fcc.run_settings(Mode.REPLAY, settings_path=path).n_docs == 3

    def test_replay_without_settings_says_how_to_record(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="structsim-nb record-fcc"):
            fcc.run_settings(Mode.REPLAY, settings_path=tmp_path / "missing.json")

    def test_the_committed_recordings_are_complete_and_labelled_hand_authored(self) -> None:
        from structsim_nb.cassette import load_recording

        settings = fcc.run_settings(Mode.REPLAY, settings_path=fcc.RECORDINGS_DIR / fcc.RECORDING_NAMES["settings"])
        assert settings == fcc.RunSettings()
        for kind, model in (("plain", "FCCInvoice"), ("tuned", "FCCInvoiceTuned")):
            recording = load_recording(fcc.RECORDINGS_DIR / fcc.RECORDING_NAMES[kind])
            assert recording.provenance.source == "hand_authored"
            assert "NOT a recording of any model" in recording.provenance.note
            assert recording.provenance.rerecord_command == fcc.RERECORD_COMMAND
            assert len(recording.interactions) == 8
            assert {i.request.structured_output_model for i in recording.interactions} == {None}
            assert {spec["name"] for i in recording.interactions for spec in i.request.tool_specs} == {model}


def _tool_events(answer: dict, tool_id: str, name: str = "FCCInvoice") -> list[dict]:
    payload = json.dumps(answer)
    cut = len(payload) // 2
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": tool_id, "name": name}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": payload[:cut]}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": payload[cut:]}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 9, "outputTokens": 9, "totalTokens": 18}, "metrics": {"latencyMs": 3}}},
    ]


def _run(docs: list[FCCDocument], model: object) -> object:
    """The notebook's extraction task, on `docs`, through a real Experiment."""
    from strands import Agent
    from strands_evals import Experiment, eval_task

    from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity

    @eval_task()
    def extract(case):
        agent = Agent(model=model, system_prompt=fcc.SYSTEM_PROMPT, callback_handler=None)
        result = agent(fcc.user_prompt(case.input), structured_output_model=FCCInvoice)
        return {"output": result.structured_output}

    experiment = Experiment(
        cases=fcc_cases(docs), evaluators=[StructuredOutputSimilarity(FCCInvoice)], report_cls=StructuredOutputReport
    )
    return experiment.run_evaluations(extract)


class TestOpenFccModel:
    """Record against a stubbed Bedrock client (botocore Stubber, real event-stream frames), then replay."""

    @pytest.fixture
    def stubbed(self, monkeypatch: pytest.MonkeyPatch):
        import sys

        from strands.models.bedrock import BedrockModel

        sys.path.insert(0, str(Path(__file__).parent))
        from bedrock_stub import BedrockStreamStubber

        session = boto3.Session(
            aws_access_key_id="AKIAFAKEFAKEFAKEFAKE", aws_secret_access_key="x" * 40, region_name="us-east-1"
        )
        model = BedrockModel(model_id=fcc.DEFAULT_MODEL_ID, boto_session=session)
        stubber = BedrockStreamStubber(model.client)
        stubber.activate()
        built = []

        def fake_bedrock_model(model_id: str, **kwargs: object) -> tuple[object, list[str]]:
            built.append(model_id)
            return model, []

        monkeypatch.setattr("structsim_nb.record.bedrock_model", fake_bedrock_model)
        yield stubber, built
        stubber.deactivate()

    def test_record_then_replay_gives_the_same_report(self, stubbed, tmp_path: Path, cache: Path) -> None:
        stubber, built = stubbed
        settings = fcc.RunSettings(n_docs=2)
        docs = settings.load(cache_dir=cache)
        answers = [doc.label.model_dump(mode="json") for doc in docs]
        answers[1]["GrossTotal"] = 1.0  # one wrong field, so the replayed scores are not all 1.0
        for n, answer in enumerate(answers):
            stubber.add_stream_response(_tool_events(answer, f"tooluse_{n}"))
        path = tmp_path / "fcc.json"
        with fcc.open_fcc_model(Mode.RECORD, path, settings=settings) as model:
            recorded = _run(docs, model)
        assert built == [fcc.DEFAULT_MODEL_ID]
        stubber.assert_no_pending_responses()

        from structsim_nb.cassette import load_recording

        recording = load_recording(path)
        assert recording.provenance.source == "recorded" and recording.provenance.recorded_at
        assert recording.provenance.rerecord_command == fcc.RERECORD_COMMAND
        assert "record-fcc" in recording.provenance.note and len(recording.interactions) == 2

        with fcc.open_fcc_model(Mode.REPLAY, path, settings=settings) as model:
            replayed = _run(docs, model)
        assert list(replayed.cases_frame()["score"]) == list(recorded.cases_frame()["score"])
        assert replayed.cases_frame()["score"].iloc[1] < 1.0

    def test_live_writes_nothing(self, stubbed, tmp_path: Path, cache: Path) -> None:
        stubber, built = stubbed
        docs = fcc.RunSettings(n_docs=1).load(cache_dir=cache)
        stubber.add_stream_response(_tool_events(docs[0].label.model_dump(mode="json"), "tooluse_0"))
        path = tmp_path / "never.json"
        with fcc.open_fcc_model(Mode.LIVE, path, settings=fcc.RunSettings(n_docs=1)) as model:
            report = _run(docs, model)
        assert report.cases_frame()["score"].tolist() == [1.0]
        assert not path.exists()

    def test_expired_credentials_on_one_live_call_fail_that_case_only(
        self, stubbed, tmp_path: Path, cache: Path
    ) -> None:
        from strands import Agent
        from strands_evals import Experiment, eval_task

        from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity

        stubber, _ = stubbed
        docs = fcc.RunSettings(n_docs=2).load(cache_dir=cache)
        stubber.add_client_error(
            "converse_stream", service_error_code="ExpiredTokenException", service_message="The token has expired"
        )
        stubber.add_stream_response(_tool_events(docs[1].label.model_dump(mode="json"), "tooluse_1"))
        failures = {}
        with fcc.open_fcc_model(Mode.LIVE, tmp_path / "never.json", settings=fcc.RunSettings(n_docs=2)) as model:

            @eval_task()
            def extract(case):
                # As the notebook's task does in live mode: say why, score the case 0.0, go on.
                try:
                    agent = Agent(model=model, system_prompt=fcc.SYSTEM_PROMPT, callback_handler=None)
                    result = agent(fcc.user_prompt(case.input), structured_output_model=FCCInvoice)
                    return {"output": result.structured_output}
                except Exception as exc:
                    failures[case.name] = f"{type(exc).__name__}: {exc}"
                    return {"output": None}

            experiment = Experiment(
                cases=fcc_cases(docs),
                evaluators=[StructuredOutputSimilarity(FCCInvoice)],
                report_cls=StructuredOutputReport,
            )
            report = experiment.run_evaluations(extract)
        assert list(failures) == ["fcc-sample-001"] and "ExpiredTokenException" in failures["fcc-sample-001"]
        table = report.cases_frame()
        assert table["status"].tolist() == ["unreadable", "scored"] and table["score"].tolist() == [0.0, 1.0]

    def test_replay_of_a_changed_prompt_fails_loudly(self, tmp_path: Path, cache: Path) -> None:
        from structsim_nb.errors import ReplayMismatchError

        docs = fcc.RunSettings(n_docs=1).load(cache_dir=cache)
        changed = [FCCDocument(docs[0].id, docs[0].text + " (edited)", docs[0].label, docs[0].raw_label, None, 3)]
        path = fcc.RECORDINGS_DIR / fcc.RECORDING_NAMES["plain"]
        from structsim_nb.replay import ReplayModel

        model = ReplayModel(path)
        from strands import Agent

        with pytest.raises(ReplayMismatchError, match="messages"):
            Agent(model=model, system_prompt=fcc.SYSTEM_PROMPT, callback_handler=None)(
                fcc.user_prompt(changed[0].text), structured_output_model=FCCInvoice
            )


class TestRecordNotebook:
    def test_without_credentials_nothing_runs_and_nothing_is_written(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from structsim_nb.cli import EXIT_NO_CREDENTIALS, main

        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            monkeypatch.delenv(name, raising=False)
        empty = tmp_path / "empty"
        empty.write_text("")
        monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty))
        monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
        monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
        out = tmp_path / "recordings"
        assert main(["record-fcc", "--out", str(out), "--n-docs", "2"]) == EXIT_NO_CREDENTIALS
        assert not out.exists()
