"""The recorder against a stubbed Bedrock client (see bedrock_stub.py), scrubbing, record modes, atomic writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import boto3
import pytest
from bedrock_stub import MODEL_ID, BedrockStreamStubber, text_events, tool_events  # noqa: E402
from botocore.stub import ANY
from pydantic import BaseModel
from strands import Agent
from strands.models import Model
from strands.models.bedrock import BedrockModel

from structsim_nb.errors import (
    CredentialsMissingError,
    InvalidRecordingError,
    LiveCallError,
    LiveExtraMissingError,
    NoStructuredOutputError,
    RecordingNotFoundError,
    RecordModeError,
)
from structsim_nb.replay import ReplayModel, recorder, scrub
from structsim_nb.replay import bedrock as bedrock_module
from structsim_nb.replay.cassette import load_recording
from structsim_nb.replay.recorder import RecordingModel, RecordMode, record_exchange

SECRET_KEY = "AKIAIOSFODNN7EXAMPLE"


class Person(BaseModel):
    """A person."""

    name: str
    age: int


@pytest.fixture
def bedrock() -> tuple[BedrockModel, BedrockStreamStubber]:
    session = boto3.Session(
        aws_access_key_id="AKIAFAKEFAKEFAKEFAKE", aws_secret_access_key="x" * 40, region_name="us-east-1"
    )
    model = BedrockModel(model_id=MODEL_ID, boto_session=session)
    stubber = BedrockStreamStubber(model.client)
    stubber.activate()
    yield model, stubber
    stubber.deactivate()


def replay(path: Path, prompt: str, system: str | None = "Extract the person.") -> Any:
    model = ReplayModel(path)
    result = Agent(model=model, system_prompt=system, callback_handler=None)(prompt, structured_output_model=Person)
    model.assert_all_played()
    return result


class TestRoundTripThroughStubbedBedrock:
    def test_recorded_tool_call_replays_to_the_identical_object(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(
            tool_events('{"name": "Alice", "age": 30}', [5, 11, 19]),
            expected_params={
                "modelId": MODEL_ID,
                "messages": [{"role": "user", "content": [{"text": "Alice is 30."}]}],
                "system": [{"text": "Extract the person."}],
                "toolConfig": ANY,
                "inferenceConfig": ANY,
            },
        )
        path = tmp_path / "person.json"
        result = record_exchange(
            path, model=model, schema=Person, prompt="Alice is 30.", system_prompt="Extract the person."
        )
        stubber.assert_no_pending_responses()
        assert result.structured_output == Person(name="Alice", age=30)
        recording = load_recording(path)
        assert recording.provenance.source == "recorded"
        assert recording.provenance.supports_structured_output is True  # mirrored from BedrockModel
        assert recording.provenance.model_id == MODEL_ID
        assert recording.provenance.region == "us-east-1"
        deltas = [e for e in recording.interactions[0].events if "contentBlockDelta" in e]
        assert len(deltas) == 4  # the streamed fragments, not one blob
        replayed = replay(path, "Alice is 30.")
        assert replayed.structured_output == result.structured_output
        assert replayed.stop_reason == "tool_use"

    def test_text_then_forced_retry_records_two_calls_and_replays_them(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(text_events("Alice, aged 30."))
        stubber.add_stream_response(tool_events('{"name": "Alice", "age": 30}', [14]))
        path = tmp_path / "retry.json"
        live = record_exchange(
            path, model=model, schema=Person, prompt="Alice is 30.", system_prompt="Extract the person."
        )
        calls = load_recording(path).interactions
        assert [c.request.tool_choice_kind for c in calls] == ["auto", "forced"]
        assert calls[1].request.tool_choice == {"tool": {"name": "Person"}}
        assert calls[1].request.structured_output_model == "Person"
        assert replay(path, "Alice is 30.").structured_output == live.structured_output

    def test_non_streaming_converse_is_recorded_as_synthesised_events(self, tmp_path: Path) -> None:
        session = boto3.Session(
            aws_access_key_id="AKIAFAKEFAKEFAKEFAKE", aws_secret_access_key="x" * 40, region_name="us-east-1"
        )
        model = BedrockModel(model_id=MODEL_ID, boto_session=session, streaming=False)
        with BedrockStreamStubber(model.client) as stubber:
            stubber.add_response(
                "converse",
                {
                    "output": {
                        "message": {
                            "role": "assistant",
                            "content": [
                                {
                                    "toolUse": {
                                        "toolUseId": "tooluse_x",
                                        "name": "Person",
                                        "input": {"name": "Bo", "age": 4},
                                    }
                                }
                            ],
                        }
                    },
                    "stopReason": "tool_use",
                    "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                    "metrics": {"latencyMs": 1},
                },
            )
            record_exchange(
                tmp_path / "r.json", model=model, schema=Person, prompt="Bo is 4.", system_prompt="Extract the person."
            )
        assert load_recording(tmp_path / "r.json").provenance.streaming is False
        assert replay(tmp_path / "r.json", "Bo is 4.").structured_output == Person(name="Bo", age=4)


class TestRecorderFailures:
    def test_failed_call_is_a_live_call_error_and_writes_nothing(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_client_error("converse_stream", "ValidationException", "The provided model identifier is invalid.")
        path = tmp_path / "x.json"
        path.write_text("old\n")
        with pytest.raises(LiveCallError, match="ValidationException"):
            record_exchange(path, model=model, schema=Person, prompt="p")
        assert path.read_text() == "old\n"

    def test_rejected_credentials_are_told_apart(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_client_error("converse_stream", "UnrecognizedClientException", "The security token is invalid.")
        with pytest.raises(CredentialsMissingError, match="UnrecognizedClientException"):
            record_exchange(tmp_path / "x.json", model=model, schema=Person, prompt="p")

    def test_no_structured_output(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(text_events("I cannot help."))
        stubber.add_stream_response(text_events("Still prose."))
        with pytest.raises(NoStructuredOutputError, match="never produced the structured output"):
            record_exchange(tmp_path / "x.json", model=model, schema=Person, prompt="p")
        assert not (tmp_path / "x.json").exists()

    def test_events_that_do_not_assemble_are_an_invalid_result(self, bedrock, tmp_path: Path) -> None:
        # strands turns unparseable tool JSON into {} and asks again; the recording must not keep that call
        model, stubber = bedrock
        stubber.add_stream_response(tool_events('{"name": "Al', []))
        stubber.add_stream_response(tool_events('{"name": "Al", "age": 3}', [4], tool_id="tooluse_2"))
        with pytest.raises(InvalidRecordingError, match="model call 1 .*not valid JSON"):
            record_exchange(tmp_path / "x.json", model=model, schema=Person, prompt="p")
        assert not (tmp_path / "x.json").exists()

    def test_interrupted_run_leaves_the_old_file_intact(self, tmp_path: Path) -> None:
        class Interrupted(Model):
            def update_config(self, **kw: Any) -> None: ...
            def get_config(self) -> dict[str, Any]:
                return {"model_id": "m"}

            async def structured_output(self, *a: Any, **k: Any) -> Any:
                yield {}

            async def stream(self, *args: Any, **kwargs: Any) -> Any:
                yield {"messageStart": {"role": "assistant"}}
                raise KeyboardInterrupt

        path = tmp_path / "keep.json"
        path.write_text('{"old": true}\n')
        with pytest.raises(KeyboardInterrupt):
            record_exchange(path, model=Interrupted(), schema=Person, prompt="p")
        assert path.read_text() == '{"old": true}\n'
        assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]

    def test_interrupted_write_leaves_the_old_file_intact(self, bedrock, tmp_path: Path, monkeypatch) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(tool_events('{"name": "A", "age": 1}', [3]))
        path = tmp_path / "keep.json"
        path.write_text("old\n")

        def interrupt(*args: Any) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr("structsim_nb._io.os.replace", interrupt)
        with pytest.raises(KeyboardInterrupt):
            record_exchange(path, model=model, schema=Person, prompt="p")
        assert path.read_text() == "old\n"
        assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]


class TestScrubbing:
    def test_secret_split_across_two_fragments_is_removed_and_json_stays_valid(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        payload = json.dumps({"name": f"key {SECRET_KEY}", "age": 1})
        cut = payload.index("AKIA") + 6  # the key straddles two fragments
        stubber.add_stream_response(tool_events(payload, [cut]))
        path = tmp_path / "s.json"
        result = record_exchange(
            path, model=model, schema=Person, prompt=f"my key is {SECRET_KEY}", system_prompt="Extract the person."
        )
        text = path.read_text()
        assert SECRET_KEY not in text and "AKIAFAKEFAKEFAKEFAKE" not in text
        assert result.scrubbed == {"aws_access_key_id": 2}  # once in the prompt, once in the tool input
        interaction = load_recording(path).interactions[0]
        fragments = [
            e["contentBlockDelta"]["delta"]["toolUse"]["input"] for e in interaction.events if "contentBlockDelta" in e
        ]
        assert len(fragments) == 2
        assert json.loads("".join(fragments))["name"] == "key <AWS_ACCESS_KEY_ID>"

    def test_scrub_fragments_moves_a_boundary_inside_a_secret_to_its_end(self) -> None:
        rules = scrub.default_scrub_rules()
        assert scrub.scrub_fragments(["a AKIAIOSF", "ODNN7EXAMPLE b", " c"], rules) == [
            "a <AWS_ACCESS_KEY_ID>",
            " b",
            " c",
        ]

    @pytest.mark.parametrize(
        ("text", "rule"),
        [
            ("AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"),
            ("ASIAIOSFODNN7EXAMPLE", "aws_access_key_id"),
            ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key"),
            ("IQoJb3JpZ2luX2VjEXAMPLEtokenAAAAAAAAAAAAAA", "aws_session_token"),
            ("arn:aws:bedrock:us-east-1:123456789012:inference-profile/x", "aws_arn"),
            ("account id: 123456789012", "aws_account_id"),
        ],
    )
    def test_each_built_in_rule_fires_and_the_result_is_clean(self, text: str, rule: str) -> None:
        rules = scrub.default_scrub_rules()
        counts: dict[str, int] = {}
        scrubbed = scrub.scrub_text(text, rules, counts)
        assert counts == {rule: 1}
        assert scrub.find_secrets(scrubbed, rules) == []

    def test_literal_credentials_in_use_are_scrubbed(self) -> None:
        rules = scrub.default_scrub_rules(["s3cr3t-value-xyz"])
        assert scrub.scrub_text("token s3cr3t-value-xyz", rules) == "token <AWS_CREDENTIAL>"

    def test_the_credentials_in_use_never_reach_the_file(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        secret = "x" * 40  # the fixture session's secret key, as bedrock_model would return it
        stubber.add_stream_response(tool_events(json.dumps({"name": f"echo {secret}", "age": 1}), [12]))
        path = tmp_path / "c.json"
        result = record_exchange(path, model=model, schema=Person, prompt=f"creds {secret}", secrets=[secret])
        assert secret not in path.read_text()
        assert result.scrubbed == {"credentials_in_use": 2}
        assert load_recording(path).provenance.scrubbed == {"credentials_in_use": 2}  # counts, never values

    def test_a_secret_that_survives_scrubbing_is_refused_and_nothing_is_written(
        self, bedrock, tmp_path: Path, monkeypatch
    ) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(tool_events(json.dumps({"name": f"key {SECRET_KEY}", "age": 1}), [9]))
        # a scrubber that misses the tool input: the check of the file text must still catch it
        monkeypatch.setattr(recorder, "scrub_events", lambda events, rules, counts=None: [dict(e) for e in events])
        path = tmp_path / "s.json"
        path.write_text("old\n")
        with pytest.raises(
            InvalidRecordingError, match=r"must contain no secrets; .* still matches \['aws_access_key_id'\]"
        ):
            record_exchange(path, model=model, schema=Person, prompt="p")
        assert path.read_text() == "old\n"
        assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


class TestModesAndLiveModel:
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

    def test_once_records_when_missing_then_replays(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(tool_events('{"name": "A", "age": 1}', [2]))
        path = tmp_path / "once.json"
        for expected_type in (RecordingModel, ReplayModel):
            with recorder.open_model(path, mode="once", live=lambda: model) as chosen:
                assert isinstance(chosen, expected_type)
                out = Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person).structured_output
            assert out == Person(name="A", age=1)
        stubber.assert_no_pending_responses()

    def test_rewrite_keeps_the_old_file_when_the_block_fails(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(tool_events('{"name": "A", "age": 1}', [2]))
        path = tmp_path / "keep.json"
        path.write_text("old\n")
        with pytest.raises(RuntimeError, match="after the call"):
            with recorder.open_model(path, mode="rewrite", live=lambda: model) as chosen:
                Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person)
                raise RuntimeError("the user's code failed after the call")
        assert path.read_text() == "old\n"
        assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]

    def test_rewrite_replaces_an_unreadable_recording(self, bedrock, tmp_path: Path) -> None:
        model, stubber = bedrock
        stubber.add_stream_response(tool_events('{"name": "A", "age": 1}', [2]))
        path = tmp_path / "corrupt.json"
        path.write_text("{ not json")
        with recorder.open_model(path, mode="rewrite", live=lambda: model) as chosen:
            Agent(model=chosen, callback_handler=None)("p", structured_output_model=Person)
        assert load_recording(path).interactions[0].request.messages[0]["content"][0]["text"] == "p"

    def test_missing_live_extra(self, monkeypatch) -> None:
        monkeypatch.setitem(sys.modules, "boto3", None)
        with pytest.raises(LiveExtraMissingError, match=r'pip install "structsim-nb\[live\]"'):
            bedrock_module.bedrock_model(MODEL_ID)

    def test_missing_credentials(self, monkeypatch, tmp_path: Path) -> None:
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
        monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
        monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
        with pytest.raises(CredentialsMissingError, match="never written"):
            bedrock_module.bedrock_model(MODEL_ID, region="us-east-1")

    def test_recording_model_refuses_stateful_models(self) -> None:
        class Stateful(BedrockModel):
            @property
            def stateful(self) -> bool:
                return True

        session = boto3.Session(aws_access_key_id="a" * 20, aws_secret_access_key="b" * 40, region_name="us-east-1")
        with pytest.raises(ValueError, match="must not be stateful"):
            RecordingModel(Stateful(model_id=MODEL_ID, boto_session=session))
