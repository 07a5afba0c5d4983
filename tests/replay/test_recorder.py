"""The recorder over HTTP: the real BedrockModel and boto3 against a loopback bedrock-runtime (tests/fake_services).

Every recording made here is replayed through the real Agent; every failure leaves the file as it was.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from fake_services import aws
from fake_services.bedrock import FakeBedrock, converse_text, converse_tool, text_events, tool_events
from pydantic import BaseModel
from strands import Agent
from strands.agent import ModelRetryStrategy
from strands.models import Model

from structsim_nb.errors import (
    CredentialsMissingError,
    InvalidRecordingError,
    LiveCallError,
    LiveExtraMissingError,
    ModelIdError,
    NoStructuredOutputError,
    RecordingNotFoundError,
    RecordModeError,
)
from structsim_nb.replay import ReplayModel, recorder
from structsim_nb.replay.cassette import load_recording
from structsim_nb.replay.providers import live_model
from structsim_nb.replay.recorder import RecordingModel, RecordMode, record_exchange

MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
SYSTEM = "Extract the person."
NO_RETRY = ModelRetryStrategy(max_attempts=1)


class Person(BaseModel):
    """A person."""

    name: str
    age: int


def replay(path: Path, prompt: str, system: str | None = SYSTEM) -> Any:
    model = ReplayModel(path)
    result = Agent(model=model, system_prompt=system, callback_handler=None)(prompt, structured_output_model=Person)
    model.assert_all_played()
    return result


def bedrock(auth: aws.Auth, *, streaming: bool = True, model_id: str = MODEL_ID) -> Any:
    return live_model("bedrock", model_id, profile=auth.profile, streaming=streaming)


@pytest.fixture(params=aws.AUTH_METHODS)
def auth(request: pytest.FixtureRequest, fake_bedrock: FakeBedrock, monkeypatch, tmp_path: Path) -> aws.Auth:
    """Each way a user authenticates, with the fake expecting its region."""
    configured = aws.use_auth(request.param, monkeypatch, tmp_path)
    fake_bedrock.region = configured.region
    return configured


def assert_clean(path: Path, auth: aws.Auth) -> None:
    text = path.read_text()
    for secret in auth.secrets:
        assert secret not in text


class TestEveryAuthMethodRecordsAndReplays:
    @pytest.mark.parametrize("streaming", [True, False], ids=["stream", "converse"])
    def test_tool_call(self, auth: aws.Auth, fake_bedrock: FakeBedrock, tmp_path: Path, streaming: bool) -> None:
        if streaming:
            fake_bedrock.stream(tool_events("Person", '{"name": "Alice", "age": 30}', [5, 11, 19]))
        else:
            fake_bedrock.converse(converse_tool("Person", {"name": "Alice", "age": 30}))
        path = tmp_path / "person.json"
        result = record_exchange(
            path, model=bedrock(auth, streaming=streaming), schema=Person, prompt="Alice is 30.", system_prompt=SYSTEM
        )
        (seen,) = fake_bedrock.model_requests()
        assert seen.notes["operation"] == ("ConverseStream" if streaming else "Converse")
        assert seen.notes["auth"] == ("bearer" if auth.method == "api_key" else "sigv4")
        if auth.method != "api_key":
            assert seen.notes["region"] == auth.region
        assert seen.notes["body"]["messages"][0]["content"][0]["text"] == "Alice is 30."
        assert result.structured_output == Person(name="Alice", age=30)
        recording = load_recording(path)
        assert recording.provenance.source == "recorded" and recording.provenance.streaming is streaming
        assert recording.provenance.supports_structured_output is True  # mirrored from BedrockModel
        assert recording.provenance.region == auth.region
        deltas = [e for e in recording.interactions[0].events if "contentBlockDelta" in e]
        assert len(deltas) == (4 if streaming else 1)  # real fragments when streaming, one synthetic chunk if not
        assert_clean(path, auth)
        replayed = replay(path, "Alice is 30.")
        assert replayed.structured_output == result.structured_output and replayed.stop_reason == "tool_use"

    @pytest.mark.parametrize("streaming", [True, False], ids=["stream", "converse"])
    def test_text_then_forced_retry(self, auth: aws.Auth, fake_bedrock: FakeBedrock, tmp_path: Path, streaming: bool):
        if streaming:
            fake_bedrock.stream(text_events("Alice, aged 30.", [4]))
            fake_bedrock.stream(tool_events("Person", '{"name": "Alice", "age": 30}', [14]))
        else:
            fake_bedrock.converse(converse_text("Alice, aged 30."))
            fake_bedrock.converse(converse_tool("Person", {"name": "Alice", "age": 30}))
        path = tmp_path / "retry.json"
        live = record_exchange(
            path, model=bedrock(auth, streaming=streaming), schema=Person, prompt="Alice is 30.", system_prompt=SYSTEM
        )
        second = fake_bedrock.model_requests()[1].notes["body"]
        assert second["toolConfig"]["toolChoice"] == {"tool": {"name": "Person"}}
        assert second["messages"][1]["content"][0]["text"] == "Alice, aged 30."
        calls = load_recording(path).interactions
        assert [c.request.tool_choice_kind for c in calls] == ["auto", "forced"]
        assert calls[1].request.structured_output_model == "Person"
        assert_clean(path, auth)
        assert replay(path, "Alice is 30.").structured_output == live.structured_output


class TestFailuresOverHttp:
    """Each failure the service can answer: the right error, and nothing written."""

    @pytest.fixture
    def keys(self, fake_bedrock: FakeBedrock, monkeypatch, tmp_path: Path) -> aws.Auth:
        return aws.use_auth("env_keys", monkeypatch, tmp_path)

    def run(self, path: Path, auth: aws.Auth, **kwargs: Any) -> Any:
        return record_exchange(
            path,
            model=bedrock(auth),
            schema=Person,
            prompt="p",
            system_prompt=SYSTEM,
            retry_strategy=NO_RETRY,
            **kwargs,
        )

    @pytest.mark.parametrize(
        ("error_type", "message", "raised", "expected"),
        [
            ("AccessDeniedException", "You don't have access to the model", CredentialsMissingError, "AccessDenied"),
            ("ValidationException", "The provided model identifier is invalid.", LiveCallError, "ValidationExc"),
            ("InternalServerException", "Internal failure", LiveCallError, "InternalServerException"),
        ],
    )
    def test_error_responses(self, keys, fake_bedrock, tmp_path: Path, error_type, message, raised, expected) -> None:
        fake_bedrock.error(error_type, message)
        fake_bedrock.error(error_type, message)  # botocore retries 5xx once
        path = tmp_path / "x.json"
        path.write_text("old\n")
        with pytest.raises(raised, match=expected):
            self.run(path, keys)
        assert path.read_text() == "old\n"

    def test_throttled_once_is_retried_by_botocore_and_recorded(self, keys, fake_bedrock, tmp_path: Path) -> None:
        fake_bedrock.error("ThrottlingException", "Too many requests, please wait before trying again.")
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [3]))
        path = tmp_path / "t.json"
        self.run(path, keys)
        assert len(fake_bedrock.model_requests()) == 2
        assert len(load_recording(path).interactions) == 1  # the throttled attempt is not a model call
        assert replay(path, "p").structured_output == Person(name="A", age=1)

    def test_throttled_past_botocore_is_retried_by_the_agent_and_recorded(self, keys, fake_bedrock, tmp_path: Path):
        for _ in range(2):  # AWS_MAX_ATTEMPTS=2: botocore gives up, strands' retry strategy calls again
            fake_bedrock.error("ThrottlingException", "Too many requests, please wait before trying again.")
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [3]))
        path = tmp_path / "t.json"
        record_exchange(
            path,
            model=bedrock(keys),
            schema=Person,
            prompt="p",
            system_prompt=SYSTEM,
            retry_strategy=ModelRetryStrategy(max_attempts=2, initial_delay=0),
        )
        assert len(fake_bedrock.model_requests()) == 3
        assert len(load_recording(path).interactions) == 1

    def test_throttled_past_every_retry_writes_nothing(self, keys, fake_bedrock, tmp_path: Path) -> None:
        for _ in range(2):
            fake_bedrock.error("ThrottlingException", "Too many requests, please wait before trying again.")
        with pytest.raises(LiveCallError, match="throttled and retries ran out"):
            self.run(tmp_path / "t.json", keys)
        assert not (tmp_path / "t.json").exists()

    def test_exception_event_mid_stream(self, keys, fake_bedrock, tmp_path: Path) -> None:
        events = tool_events("Person", '{"name": "A", "age": 1}', [3])
        fake_bedrock.stream(events[:3], exception=("modelStreamErrorException", "The model stream broke."))
        with pytest.raises(LiveCallError, match="modelStreamErrorException"):
            self.run(tmp_path / "m.json", keys)
        assert not (tmp_path / "m.json").exists()

    def test_wrong_secret_key_is_a_credentials_error(self, keys, fake_bedrock, monkeypatch, tmp_path: Path) -> None:
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x" * 40)
        with pytest.raises(CredentialsMissingError, match="InvalidSignatureException"):
            self.run(tmp_path / "x.json", keys)
        assert fake_bedrock.pending == 0 and not (tmp_path / "x.json").exists()

    def test_unknown_api_key_is_a_credentials_error(self, fake_bedrock, monkeypatch, tmp_path: Path) -> None:
        auth = aws.use_auth("api_key", monkeypatch, tmp_path)
        monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSK" + "x" * 40)
        with pytest.raises(CredentialsMissingError, match="UnrecognizedClientException"):
            self.run(tmp_path / "x.json", auth)

    def test_no_structured_output(self, keys, fake_bedrock, tmp_path: Path) -> None:
        fake_bedrock.stream(text_events("I cannot help."))
        fake_bedrock.stream(text_events("Still prose."))
        with pytest.raises(NoStructuredOutputError, match="never produced the structured output"):
            self.run(tmp_path / "x.json", keys)
        assert not (tmp_path / "x.json").exists()

    def test_events_that_do_not_assemble_are_an_invalid_result(self, keys, fake_bedrock, tmp_path: Path) -> None:
        # strands turns unparseable tool JSON into {} and asks again; the recording must not keep that call
        fake_bedrock.stream(tool_events("Person", '{"name": "Al', []))
        fake_bedrock.stream(tool_events("Person", '{"name": "Al", "age": 3}', [4], tool_id="tooluse_2"))
        with pytest.raises(InvalidRecordingError, match="model call 1 .*not valid JSON"):
            self.run(tmp_path / "x.json", keys)
        assert not (tmp_path / "x.json").exists()

    def test_interrupted_write_leaves_the_old_file_intact(self, keys, fake_bedrock, tmp_path: Path, monkeypatch):
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [3]))
        path = tmp_path / "keep.json"
        path.write_text("old\n")

        def interrupt(*args: Any) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr("structsim_nb._io.os.replace", interrupt)
        with pytest.raises(KeyboardInterrupt):
            self.run(path, keys)
        assert path.read_text() == "old\n"
        assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".json") == ["keep.json"]


SECRETS_IN_PROMPT = {
    "github_token": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "openai_api_key": "sk-proj-" + "Zx9" * 15,
    "anthropic_api_key": "sk-ant-api03-" + "Qw8" * 12,
    "slack_token": "xoxb-1234567890-9876543210-abcdefghijklmnop",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "bearer_token": "Bearer abcdefghijklmnop1234567890",
    "bedrock_api_key": "ABSKQmVkcm9ja0FQSUtleS1vdGhlci1rZXktZm9yLXRlc3Rz",
}


class TestScrubbingOverHttp:
    @pytest.fixture
    def keys(self, fake_bedrock: FakeBedrock, monkeypatch, tmp_path: Path) -> aws.Auth:
        return aws.use_auth("env_keys", monkeypatch, tmp_path)

    def test_every_secret_kind_in_prompt_and_answer_is_scrubbed_and_the_recording_replays(
        self, keys, fake_bedrock, tmp_path: Path
    ) -> None:
        arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/x"
        key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAfake\n-----END RSA PRIVATE KEY-----"
        prompt = "Alice is 30. " + " ".join(SECRETS_IN_PROMPT.values()) + f" password: hunter22 {key}"
        # The answer quotes an ARN inside escaped quotes and one followed by an escaped newline (both broke
        # scrubbing on escaped text), and the model first answers in text that holds secrets too.
        name = f'Alice "{arn}"\n{arn}\nsee {SECRETS_IN_PROMPT["github_token"]}'
        payload = json.dumps({"name": name, "age": 30})
        cut = payload.index("123456789012") + 5  # a secret straddling two fragments
        fake_bedrock.stream(text_events(f"Alice, key {aws.ACCESS_KEY}, token {SECRETS_IN_PROMPT['jwt']}", [9]))
        fake_bedrock.stream(tool_events("Person", payload, [cut]))
        path = tmp_path / "s.json"
        result = record_exchange(path, model=bedrock(keys), schema=Person, prompt=prompt, system_prompt=SYSTEM)
        text = path.read_text()
        for kind, secret in SECRETS_IN_PROMPT.items():
            assert secret.split()[-1] not in text, kind
        for secret in ("hunter22", "MIIEowIBAAKCAQEAfake", "123456789012", aws.ACCESS_KEY, aws.SECRET_KEY):
            assert secret not in text
        scrubbed = load_recording(path).provenance.scrubbed
        assert set(SECRETS_IN_PROMPT) | {"aws_account_id", "private_key", "secret_assignment"} <= set(scrubbed)
        expected = 'Alice "arn:aws:bedrock:us-east-1:<AWS_ACCOUNT_ID>:inference-profile/x"\n'
        assert result.structured_output.name.startswith(expected)  # the ARN keeps its shape
        # replayed with the unscrubbed prompt: the request is matched in scrubbed space, call 2 included
        replayed = replay(path, prompt)
        assert replayed.structured_output == result.structured_output

    def test_redacted_reasoning_records_and_replays_as_bytes(self, keys, fake_bedrock, tmp_path: Path) -> None:
        # Bedrock streams redactedContent as a blob (base64 on the wire, bytes from botocore); strands joins it as
        # bytes, so the recording's {"$bytes": ...} must reach the agent as bytes again, when recording and replaying.
        opaque = base64.b64encode(b"\x00\x01opaque").decode("ascii")
        events = tool_events("Person", '{"name": "Alice", "age": 30}', [9], tool_id="tooluse_r")
        events[1:1] = [
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": opaque}}}},
            {"contentBlockStop": {"contentBlockIndex": 0}},
        ]
        fake_bedrock.stream(events)
        path = tmp_path / "reasoning.json"
        result = record_exchange(path, model=bedrock(keys), schema=Person, prompt="Alice is 30.")
        assert result.structured_output == Person(name="Alice", age=30)
        stored = json.loads(path.read_text())["interactions"][0]["events"][1]["contentBlockDelta"]["delta"]
        assert stored == {"reasoningContent": {"redactedContent": {"$bytes": opaque}}}
        assert replay(path, "Alice is 30.", system=None).structured_output == result.structured_output

    def test_an_invoice_account_number_is_recorded_as_it_is(self, keys, fake_bedrock, tmp_path: Path) -> None:
        # Only an account id inside an ARN is scrubbed: a 12-digit account number is the data being extracted.
        fake_bedrock.stream(tool_events("Person", json.dumps({"name": "Acct 100234567890", "age": 1}), [7]))
        path = tmp_path / "acct.json"
        result = record_exchange(path, model=bedrock(keys), schema=Person, prompt="Account Number: 100234567890")
        assert result.structured_output.name == "Acct 100234567890"
        assert load_recording(path).interactions[0].request.messages[0]["content"][0]["text"].endswith("100234567890")

    def test_the_credentials_in_use_never_reach_the_file(self, keys, fake_bedrock, tmp_path: Path) -> None:
        # a secret no pattern knows (the secret key alone), echoed by the model: only the literal rule catches it
        fake_bedrock.stream(tool_events("Person", json.dumps({"name": f"echo {aws.SECRET_KEY}", "age": 1}), [12]))
        path = tmp_path / "c.json"
        result = record_exchange(path, model=bedrock(keys), schema=Person, prompt="p")
        assert aws.SECRET_KEY not in path.read_text()
        assert result.structured_output.name == "echo <CREDENTIAL_IN_USE>"
        assert load_recording(path).provenance.scrubbed == {"credentials_in_use": 1}  # counts, never values

    def test_a_secret_that_survives_scrubbing_is_refused_and_nothing_is_written(
        self, keys, fake_bedrock, tmp_path: Path, monkeypatch
    ) -> None:
        fake_bedrock.stream(tool_events("Person", json.dumps({"name": "key AKIAIOSFODNN7EXAMPLE", "age": 1}), [9]))
        # a scrubber that misses the events: the check of the file must still catch it
        monkeypatch.setattr(recorder, "scrub_events", lambda events, rules, counts=None: [dict(e) for e in events])
        path = tmp_path / "s.json"
        path.write_text("old\n")
        with pytest.raises(
            InvalidRecordingError, match=r"must contain no secrets; .* still matches \['aws_access_key'\]"
        ):
            record_exchange(path, model=bedrock(keys), schema=Person, prompt="p")
        assert path.read_text() == "old\n"


class TestInferenceProfileArn:
    ARN = f"arn:aws:bedrock:us-east-1:{aws.ACCOUNT_ID}:application-inference-profile/abc123"

    def test_the_account_id_is_scrubbed_but_the_arn_stays_usable(self, fake_bedrock, monkeypatch, tmp_path: Path):
        auth = aws.use_auth("env_keys", monkeypatch, tmp_path)
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [3]))
        path = tmp_path / "arn.json"
        record_exchange(path, model=bedrock(auth, model_id=self.ARN), schema=Person, prompt="p")
        assert fake_bedrock.model_requests()[0].notes["model_id"] == self.ARN
        provenance = load_recording(path).provenance
        assert aws.ACCOUNT_ID not in path.read_text()
        assert provenance.model_id == self.ARN.replace(aws.ACCOUNT_ID, "<AWS_ACCOUNT_ID>")
        assert "--model-id 'arn:aws:bedrock:us-east-1:<AWS_ACCOUNT_ID>:application" in provenance.rerecord_command

    @pytest.mark.parametrize("source", ["AWS_ACCOUNT_ID", "sts"])
    def test_a_scrubbed_account_is_filled_in_from_the_credentials_in_use(
        self, fake_bedrock, monkeypatch, tmp_path: Path, source: str
    ) -> None:
        auth = aws.use_auth("env_keys", monkeypatch, tmp_path)
        if source == "AWS_ACCOUNT_ID":
            monkeypatch.setenv("AWS_ACCOUNT_ID", "210987654321")
        else:
            fake_bedrock.account_id = "210987654321"
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [3]))
        scrubbed = self.ARN.replace(aws.ACCOUNT_ID, "<AWS_ACCOUNT_ID>")
        record_exchange(tmp_path / "arn.json", model=bedrock(auth, model_id=scrubbed), schema=Person, prompt="p")
        operations = [r.notes.get("operation") for r in fake_bedrock.requests]
        assert operations == (
            ["ConverseStream"] if source == "AWS_ACCOUNT_ID" else ["GetCallerIdentity", "ConverseStream"]
        )
        assert fake_bedrock.model_requests()[-1].notes["model_id"] == self.ARN.replace(aws.ACCOUNT_ID, "210987654321")

    def test_an_api_key_alone_cannot_name_the_account(self, fake_bedrock, monkeypatch, tmp_path: Path) -> None:
        auth = aws.use_auth("api_key", monkeypatch, tmp_path)
        with pytest.raises(ModelIdError, match="pass the full ARN with --model-id"):
            bedrock(auth, model_id=self.ARN.replace(aws.ACCOUNT_ID, "<AWS_ACCOUNT_ID>"))
        assert fake_bedrock.requests == []


class TestOpenModel:
    @pytest.fixture
    def keys(self, fake_bedrock: FakeBedrock, monkeypatch, tmp_path: Path) -> aws.Auth:
        return aws.use_auth("env_keys", monkeypatch, tmp_path)

    def test_mode_validation(self, monkeypatch) -> None:
        assert recorder.validate_record_mode("once") is RecordMode.ONCE
        assert recorder.validate_record_mode(RecordMode.REWRITE) is RecordMode.REWRITE
        monkeypatch.delenv(recorder.RECORD_MODE_ENV, raising=False)
        assert recorder.validate_record_mode(None) is RecordMode.REPLAY
        monkeypatch.setenv(recorder.RECORD_MODE_ENV, "rewrite")
        assert recorder.validate_record_mode(None) is RecordMode.REWRITE
        with pytest.raises(
            RecordModeError, match=r"record mode must be one of 'replay', 'once', 'rewrite'; got 'recrod'"
        ):
            recorder.validate_record_mode("recrod")

    def test_replay_mode_never_builds_the_live_model(self, tmp_path: Path) -> None:
        def live() -> Model:
            raise AssertionError("replay must not build a live model")

        with pytest.raises(RecordingNotFoundError, match="no recording at"):
            with recorder.open_model(tmp_path / "missing.json", mode="replay", live=live):
                pass

    def test_once_records_when_missing_then_replays(self, keys, fake_bedrock, tmp_path: Path) -> None:
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [2]))
        path = tmp_path / "once.json"
        for expected_type in (RecordingModel, ReplayModel):
            with recorder.open_model(path, mode="once", live=lambda: bedrock(keys)) as chosen:
                assert isinstance(chosen, expected_type)
                out = Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person).structured_output
            assert out == Person(name="A", age=1)
        assert fake_bedrock.pending == 0 and len(fake_bedrock.model_requests()) == 1

    def test_the_credentials_of_a_bare_model_are_scrubbed(self, keys, fake_bedrock, tmp_path: Path) -> None:
        # `live` returns a plain BedrockModel: the recorder must still find the credentials it signs with
        from strands.models.bedrock import BedrockModel

        fake_bedrock.stream(tool_events("Person", json.dumps({"name": aws.SECRET_KEY, "age": 1}), [9]))
        path = tmp_path / "bare.json"
        with recorder.open_model(path, mode="rewrite", live=lambda: BedrockModel(model_id=MODEL_ID)) as chosen:
            result = Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person)
        assert result.structured_output.name == "<CREDENTIAL_IN_USE>"  # the live run sees what replay will
        assert aws.SECRET_KEY not in path.read_text()
        with recorder.open_model(path, mode="replay") as replayed:
            again = Agent(model=replayed, callback_handler=None)("p", structured_output_model=Person)
        assert again.structured_output == result.structured_output

    def test_rewrite_keeps_the_old_file_when_the_block_fails(self, keys, fake_bedrock, tmp_path: Path) -> None:
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [2]))
        path = tmp_path / "keep.json"
        path.write_text("old\n")
        with pytest.raises(RuntimeError, match="after the call"):
            with recorder.open_model(path, mode="rewrite", live=lambda: bedrock(keys)) as chosen:
                Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person)
                raise RuntimeError("the user's code failed after the call")
        assert path.read_text() == "old\n"

    def test_rewrite_replaces_an_unreadable_recording(self, keys, fake_bedrock, tmp_path: Path) -> None:
        fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [2]))
        path = tmp_path / "corrupt.json"
        path.write_text("{ not json")
        with recorder.open_model(path, mode="rewrite", live=lambda: bedrock(keys)) as chosen:
            Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person)
        assert load_recording(path).interactions[0].request.messages[0]["content"][0]["text"] == "p"

    def test_a_failed_call_in_rewrite_writes_nothing(self, keys, fake_bedrock, tmp_path: Path) -> None:
        fake_bedrock.error("AccessDeniedException", "You don't have access to the model with the specified model ID.")
        path = tmp_path / "denied.json"
        with pytest.raises(Exception, match="AccessDeniedException"):
            with recorder.open_model(path, mode="rewrite", live=lambda: bedrock(keys)) as chosen:
                Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person)
        assert not path.exists()


class TestLiveModel:
    def test_missing_live_extra(self, monkeypatch) -> None:
        import sys

        monkeypatch.setitem(sys.modules, "boto3", None)
        with pytest.raises(LiveExtraMissingError, match=r'pip install "structsim-nb\[live\]"'):
            live_model("bedrock", MODEL_ID)

    def test_missing_credentials_name_every_way_to_authenticate(self, fake_bedrock) -> None:
        with pytest.raises(CredentialsMissingError, match="AWS_BEARER_TOKEN_BEDROCK") as caught:
            live_model("bedrock", MODEL_ID, region="us-east-1")
        assert "never written" in str(caught.value)

    def test_unknown_profile(self, fake_bedrock) -> None:
        with pytest.raises(CredentialsMissingError, match="ProfileNotFound"):
            live_model("bedrock", MODEL_ID, profile="nope")

    def test_unknown_provider(self) -> None:
        with pytest.raises(ValueError, match="provider must be one of bedrock, openai, anthropic; got 'vertex'"):
            live_model("vertex", "m")

    def test_recording_model_refuses_stateful_models(self, fake_bedrock, monkeypatch, tmp_path: Path) -> None:
        auth = aws.use_auth("env_keys", monkeypatch, tmp_path)
        inner = bedrock(auth).model
        monkeypatch.setattr(type(inner), "stateful", property(lambda self: True))
        with pytest.raises(ValueError, match="must not be stateful"):
            RecordingModel(inner)


def test_an_api_key_passed_in_code_uses_strands_bearer_path(fake_bedrock, tmp_path: Path) -> None:
    """`live_model(..., api_key=...)` (BedrockModel's own api_key argument), with no AWS variable set at all."""
    fake_bedrock.stream(tool_events("Person", '{"name": "A", "age": 1}', [3]))
    path = tmp_path / "key.json"
    live = live_model("bedrock", MODEL_ID, region="us-east-1", api_key=aws.API_KEY)
    assert live.auth == "Bedrock API key (api_key)"
    record_exchange(path, model=live, schema=Person, prompt="p", system_prompt=SYSTEM)
    (seen,) = fake_bedrock.model_requests()
    assert seen.notes["auth"] == "bearer" and seen.notes["token"] == aws.API_KEY
    assert aws.API_KEY not in path.read_text()
    assert replay(path, "p").structured_output == Person(name="A", age=1)
