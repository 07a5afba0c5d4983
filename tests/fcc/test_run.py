"""The FCC run: live, replay or record, the run settings, and re-recording the notebook."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest

from structsim_nb.fcc import prompts
from structsim_nb.fcc import run as fcc_run
from structsim_nb.fcc.loader import FCCDocument, fcc_cases
from structsim_nb.fcc.models import FCCInvoice
from structsim_nb.fcc.run import Mode, choose_mode


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
            fcc_run.MODE_ENV,
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
        monkeypatch.setenv(fcc_run.MODEL_ID_ENV, "us.anthropic.claude-test")
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
        monkeypatch.setenv(fcc_run.MODE_ENV, "replay")
        assert choose_mode().mode is Mode.REPLAY

    def test_live_requested_without_credentials_is_an_error(self, no_credentials: None) -> None:
        with pytest.raises(ValueError, match="live mode needs AWS credentials"):
            choose_mode(requested="live")

    def test_a_bedrock_api_key_counts_as_credentials(
        self, no_credentials: None, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSKQmVkcm9ja0FQSUtleS1mYWtl")
        choice = choose_mode(requested="record")
        assert choice.mode is Mode.RECORD and "AWS_BEARER_TOKEN_BEDROCK" in choice.reason

    def test_unknown_mode_lists_the_valid_ones(self, no_credentials: None) -> None:
        with pytest.raises(ValueError, match="'auto', 'live', 'replay'"):
            choose_mode(requested="rewind")


class TestRunSettings:
    def test_live_reads_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(fcc_run.SOURCE_ENV, "hub")
        monkeypatch.setenv(fcc_run.N_DOCS_ENV, "5")
        monkeypatch.setenv(fcc_run.MAX_LINE_ITEMS_ENV, "")
        monkeypatch.setenv(fcc_run.MODEL_ID_ENV, "us.anthropic.claude-test")
        settings = fcc_run.run_settings(Mode.LIVE)
        assert settings == fcc_run.RunSettings(source="hub", n_docs=5, model_id="us.anthropic.claude-test")

    def test_a_cap_that_is_not_a_number_is_named(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(fcc_run.N_DOCS_ENV, "five")
        with pytest.raises(ValueError, match=r"\$STRUCTSIM_NB_FCC_N_DOCS must be a whole number; got 'five'"):
            fcc_run.run_settings(Mode.LIVE)

    def test_replay_reads_the_settings_it_was_recorded_with(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = tmp_path / "s.json"
        path.write_text(fcc_run.RunSettings(n_docs=3).to_json())
        monkeypatch.setenv(fcc_run.N_DOCS_ENV, "7")
        assert fcc_run.run_settings(Mode.REPLAY, settings_path=path).n_docs == 3

    def test_load_passes_progress_on(self, cache: Path, capfd: pytest.CaptureFixture[str]) -> None:
        docs = fcc_run.RunSettings(n_docs=2).load(cache_dir=cache, progress=False)
        assert len(docs) == 2 and "Generating" not in capfd.readouterr().err

    def test_replay_without_settings_says_how_to_record(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="structsim-nb record-fcc"):
            fcc_run.run_settings(Mode.REPLAY, settings_path=tmp_path / "missing.json")

    def test_the_committed_recordings_are_complete_and_labelled_hand_authored(self) -> None:
        from structsim_nb.replay.cassette import load_recording

        settings = fcc_run.run_settings(
            Mode.REPLAY, settings_path=fcc_run.RECORDINGS_DIR / fcc_run.RECORDING_NAMES["settings"]
        )
        assert settings == fcc_run.RunSettings()
        for kind, model in (("plain", "FCCInvoice"), ("tuned", "FCCInvoiceTuned")):
            recording = load_recording(fcc_run.RECORDINGS_DIR / fcc_run.RECORDING_NAMES[kind])
            assert recording.provenance.source == "hand_authored"
            assert "NOT a recording of any model" in recording.provenance.note
            assert recording.provenance.rerecord_command == fcc_run.RERECORD_COMMAND
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


def aws_secrets_absent(path: Path) -> bool:
    from fake_services import aws

    text = path.read_text()
    return not [secret for secret in (aws.ACCESS_KEY, aws.SECRET_KEY, aws.SESSION_TOKEN, aws.API_KEY) if secret in text]


def _run(docs: list[FCCDocument], model: object) -> object:
    """The notebook's extraction task, on `docs`, through a real Experiment."""
    from strands import Agent
    from strands_evals import Experiment, eval_task

    from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity

    @eval_task()
    def extract(case):
        agent = Agent(model=model, system_prompt=prompts.SYSTEM_PROMPT, callback_handler=None)
        result = agent(prompts.user_prompt(case.input), structured_output_model=FCCInvoice)
        return {"output": result.structured_output}

    experiment = Experiment(
        cases=fcc_cases(docs), evaluators=[StructuredOutputSimilarity(FCCInvoice)], report_cls=StructuredOutputReport
    )
    return experiment.run_evaluations(extract)


class TestOpenFccModel:
    """Record against the loopback bedrock-runtime (real BedrockModel, boto3, SigV4, event-stream frames), replay."""

    @pytest.fixture
    def stubbed(self, fake_bedrock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
        from fake_services import aws

        aws.use_auth("env_keys", monkeypatch, tmp_path)
        return fake_bedrock

    def test_record_then_replay_gives_the_same_report(self, stubbed, tmp_path: Path, cache: Path) -> None:
        settings = fcc_run.RunSettings(n_docs=2)
        docs = settings.load(cache_dir=cache)
        answers = [doc.label.model_dump(mode="json") for doc in docs]
        answers[1]["GrossTotal"] = 1.0  # one wrong field, so the replayed scores are not all 1.0
        for n, answer in enumerate(answers):
            stubbed.stream(_tool_events(answer, f"tooluse_{n}"))
        path = tmp_path / "fcc.json"
        assert not path.exists()  # record mode must not need the file it is about to write
        with fcc_run.open_fcc_model(Mode.RECORD, path, settings=settings) as model:
            recorded = _run(docs, model)
        assert {r.notes["model_id"] for r in stubbed.model_requests()} == {fcc_run.DEFAULT_MODEL_ID}
        assert stubbed.pending == 0

        from structsim_nb.replay.cassette import load_recording

        recording = load_recording(path)
        assert recording.provenance.source == "recorded" and recording.provenance.recorded_at
        assert recording.provenance.rerecord_command == fcc_run.RERECORD_COMMAND
        assert "record-fcc" in recording.provenance.note and len(recording.interactions) == 2
        assert aws_secrets_absent(path)

        with fcc_run.open_fcc_model(Mode.REPLAY, path, settings=settings) as model:
            replayed = _run(docs, model)
        assert list(replayed.cases_frame()["score"]) == list(recorded.cases_frame()["score"])
        assert replayed.cases_frame()["score"].iloc[1] < 1.0

    def test_live_writes_nothing(self, stubbed, tmp_path: Path, cache: Path) -> None:
        docs = fcc_run.RunSettings(n_docs=1).load(cache_dir=cache)
        stubbed.stream(_tool_events(docs[0].label.model_dump(mode="json"), "tooluse_0"))
        path = tmp_path / "never.json"
        with fcc_run.open_fcc_model(Mode.LIVE, path, settings=fcc_run.RunSettings(n_docs=1)) as model:
            report = _run(docs, model)
        assert report.cases_frame()["score"].tolist() == [1.0]
        assert not path.exists()

    def test_expired_credentials_on_one_live_call_fail_that_case_only(
        self, stubbed, tmp_path: Path, cache: Path
    ) -> None:
        from strands import Agent
        from strands_evals import Experiment, eval_task

        from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity

        docs = fcc_run.RunSettings(n_docs=2).load(cache_dir=cache)
        stubbed.error("ExpiredTokenException", "The security token included in the request is expired")
        stubbed.stream(_tool_events(docs[1].label.model_dump(mode="json"), "tooluse_1"))
        failures = {}
        with fcc_run.open_fcc_model(
            Mode.LIVE, tmp_path / "never.json", settings=fcc_run.RunSettings(n_docs=2)
        ) as model:

            @eval_task()
            def extract(case):
                # As the notebook's task does in live mode: say why, score the case 0.0, go on.
                try:
                    agent = Agent(model=model, system_prompt=prompts.SYSTEM_PROMPT, callback_handler=None)
                    result = agent(prompts.user_prompt(case.input), structured_output_model=FCCInvoice)
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
        assert list(failures) == [docs[0].id] and "ExpiredTokenException" in failures[docs[0].id]
        table = report.cases_frame()
        assert table["status"].tolist() == ["unreadable", "scored"] and table["score"].tolist() == [0.0, 1.0]

    def test_replay_of_a_changed_prompt_fails_loudly(self, tmp_path: Path, cache: Path) -> None:
        from structsim_nb.errors import ReplayMismatchError

        docs = fcc_run.RunSettings(n_docs=1).load(cache_dir=cache)
        changed = [FCCDocument(docs[0].id, docs[0].text + " (edited)", docs[0].label, docs[0].raw_label, None, 3)]
        path = fcc_run.RECORDINGS_DIR / fcc_run.RECORDING_NAMES["plain"]
        from structsim_nb.replay import ReplayModel

        model = ReplayModel(path)
        from strands import Agent

        with pytest.raises(ReplayMismatchError, match="messages"):
            Agent(model=model, system_prompt=prompts.SYSTEM_PROMPT, callback_handler=None)(
                prompts.user_prompt(changed[0].text), structured_output_model=FCCInvoice
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


class TestDescribeAnswers:
    def test_record_mode_needs_no_recording_yet(self, tmp_path: Path) -> None:
        text = fcc_run.describe_answers(Mode.RECORD, fcc_run.RunSettings(), recording=tmp_path / "new.json")
        assert "written to" in text and "no readable recording there yet" in text

    def test_replay_describes_the_provenance(self) -> None:
        text = fcc_run.describe_answers(
            Mode.REPLAY, fcc_run.RunSettings(), recording=fcc_run.RECORDINGS_DIR / fcc_run.RECORDING_NAMES["plain"]
        )
        assert text.startswith("recordings: source=") and "re-record: structsim-nb record-fcc" in text

    def test_a_long_note_is_cut_at_a_whole_sentence_and_says_where_the_rest_is(self) -> None:
        from structsim_nb.replay.cassette import load_recording

        path = fcc_run.RECORDINGS_DIR / fcc_run.RECORDING_NAMES["plain"]
        note = load_recording(path).provenance.note
        assert len(note) > fcc_run.NOTE_CHARS  # the hand-authored note lists every deliberate error
        printed = fcc_run.describe_answers(Mode.REPLAY, fcc_run.RunSettings(), recording=path).split("\n", 1)[1]
        kept, pointer = printed.split(" (The whole note: ")
        assert note.startswith(kept) and kept.endswith(".") and len(kept) <= fcc_run.NOTE_CHARS
        assert pointer == f"provenance.note in {path.name}.)"

    def test_a_short_note_is_printed_whole(self) -> None:
        assert fcc_run._whole_sentences("Captured. Fine.", 700, Path("r.json")) == "Captured. Fine."

    def test_live_writes_nothing(self) -> None:
        assert "nothing is written" in fcc_run.describe_answers(Mode.LIVE, fcc_run.RunSettings(model_id="m"))


class TestRecordFccEndToEnd:
    """`structsim-nb record-fcc` as a user runs it: the notebook executes in a fresh kernel in record mode against
    the loopback bedrock-runtime (the kernel inherits the endpoint and credentials from the environment), writes
    both recordings to --out, then executes again in replay mode against them. Outputs go to tmp_path only."""

    @pytest.mark.notebook
    @pytest.mark.parametrize("method", ["api_key", "profile"])
    def test_records_both_runs_and_the_notebook_replays_them(
        self, method: str, fake_bedrock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cache: Path
    ) -> None:
        from fake_services import aws

        from structsim_nb.cli import EXIT_OK, main
        from structsim_nb.replay.cassette import load_recording

        auth = aws.use_auth(method, monkeypatch, tmp_path)
        fake_bedrock.region = auth.region
        docs = fcc_run.RunSettings(n_docs=2).load(cache_dir=cache)
        for name in ("FCCInvoice", "FCCInvoiceTuned"):
            for n, doc in enumerate(docs):
                fake_bedrock.stream(_tool_events(doc.label.model_dump(mode="json"), f"tooluse_{name}_{n}", name))
        out = tmp_path / "recordings"
        argv = ["record-fcc", "--out", str(out), "--n-docs", "2", "--no-save"]
        argv += ["--profile", auth.profile] if auth.profile else []
        assert main(argv) == EXIT_OK
        assert fake_bedrock.pending == 0 and len(fake_bedrock.model_requests()) == 4
        assert {r.notes["auth"] for r in fake_bedrock.model_requests()} == {
            "bearer" if method == "api_key" else "sigv4"
        }
        assert sorted(p.name for p in out.iterdir()) == sorted(fcc_run.RECORDING_NAMES.values())
        for kind, model in (("plain", "FCCInvoice"), ("tuned", "FCCInvoiceTuned")):
            path = out / fcc_run.RECORDING_NAMES[kind]
            recording = load_recording(path)
            assert recording.provenance.source == "recorded" and recording.provenance.region == auth.region
            assert recording.provenance.rerecord_command == fcc_run.RERECORD_COMMAND
            assert [i.request.tool_specs[0]["name"] for i in recording.interactions] == [model, model]
            assert not [secret for secret in auth.secrets if secret in path.read_text()]
        settings = fcc_run.run_settings(Mode.REPLAY, settings_path=out / fcc_run.RECORDING_NAMES["settings"])
        assert settings.n_docs == 2
