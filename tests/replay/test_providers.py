"""Recording against OpenAI-compatible and Anthropic services over HTTP (loopback fakes speaking their SSE
formats), replayed without them; the provider registry and how live errors are classified."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ANTHROPIC_KEY, OPENAI_KEY
from fake_services.anthropic import FakeAnthropic
from fake_services.anthropic import ToolUse as AnthropicToolUse
from fake_services.openai import FakeOpenAI
from fake_services.openai import Text as OpenAIText
from pydantic import BaseModel
from strands import Agent
from strands.agent import ModelRetryStrategy

from structsim_nb.errors import CredentialsMissingError, LiveCallError, LiveExtraMissingError
from structsim_nb.replay import ReplayModel
from structsim_nb.replay.cassette import assemble, load_recording
from structsim_nb.replay.providers import classify_error, live_model, secrets_of
from structsim_nb.replay.recorder import record_exchange

SYSTEM = "Extract the person."
NO_RETRY = ModelRetryStrategy(max_attempts=1)


class Person(BaseModel):
    """A person."""

    name: str
    age: int


def replay(path: Path, prompt: str) -> Any:
    model = ReplayModel(path)
    result = Agent(model=model, system_prompt=SYSTEM, callback_handler=None)(prompt, structured_output_model=Person)
    model.assert_all_played()
    return result


def record(path: Path, provider: str, *, streaming: bool = True, prompt: str = "Alice is 30.", **kw: Any) -> Any:
    return record_exchange(
        path,
        model=live_model(provider, "gpt-4o-mini" if provider == "openai" else "claude-haiku-4-5", streaming=streaming),
        schema=Person,
        prompt=prompt,
        system_prompt=SYSTEM,
        **kw,
    )


class TestOpenAI:
    @pytest.mark.parametrize("streaming", [True, False], ids=["stream", "non-stream"])
    def test_tool_call_records_and_replays(self, fake_openai: FakeOpenAI, tmp_path: Path, streaming: bool) -> None:
        fake_openai.tool_call("Person", '{"name": "Alice", "age": 30}', cuts=(4, 13, 20))
        path = tmp_path / "openai.json"
        result = record(path, "openai", streaming=streaming)
        (seen,) = fake_openai.requests
        assert seen.notes["api_key"] == OPENAI_KEY and seen.notes["body"]["stream"] is streaming
        assert seen.notes["body"]["tools"][0]["function"]["name"] == "Person"
        recording = load_recording(path)
        assert recording.provenance.provider == "strands.models.openai.OpenAIModel"
        assert recording.provenance.streaming is streaming and recording.provenance.supports_structured_output is False
        assert "--provider openai" in recording.provenance.rerecord_command
        deltas = [e for e in recording.interactions[0].events if "contentBlockDelta" in e]
        fragments = [d["contentBlockDelta"]["delta"]["toolUse"]["input"] for d in deltas]
        expected = ['{"na', 'me": "Ali', 'ce", "a', 'ge": 30}'] if streaming else ['{"name": "Alice", "age": 30}']
        assert [fragment for fragment in fragments if fragment] == expected  # the service's own fragments
        assert OPENAI_KEY not in path.read_text()
        assert (
            replay(path, "Alice is 30.").structured_output == result.structured_output == Person(name="Alice", age=30)
        )

    def test_text_then_forced_retry(self, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
        fake_openai.text("Alice, aged 30.", cuts=(6,))
        fake_openai.tool_call("Person", '{"name": "Alice", "age": 30}', cuts=(9,))
        path = tmp_path / "retry.json"
        record(path, "openai")
        forced = fake_openai.requests[1].notes["body"]
        assert forced["tool_choice"] == {"type": "function", "function": {"name": "Person"}}
        assert [i.request.tool_choice_kind for i in load_recording(path).interactions] == ["auto", "forced"]
        assert replay(path, "Alice is 30.").structured_output == Person(name="Alice", age=30)

    def test_rate_limited_once_is_retried_by_the_sdk(self, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
        fake_openai.error(429, "requests", "Rate limit reached for gpt-4o-mini", code="rate_limit_exceeded")
        fake_openai.tool_call("Person", '{"name": "A", "age": 1}')
        record(tmp_path / "r.json", "openai")
        assert len(fake_openai.requests) == 2

    @pytest.mark.parametrize(
        ("script", "raised", "match"),
        [
            (
                lambda f: f.error(401, "invalid_request_error", "Incorrect API key", "invalid_api_key"),
                CredentialsMissingError,
                "AuthenticationError",
            ),
            (
                lambda f: f.error(400, "invalid_request_error", "Invalid schema for function"),
                LiveCallError,
                "BadRequestError",
            ),
            (
                lambda f: [f.error(429, "requests", "Rate limit reached", "rate_limit_exceeded") for _ in range(3)],
                LiveCallError,
                "throttled",
            ),
            (
                lambda f: f.mid_stream_error(OpenAIText("Alice", (2,)), "The server had an error"),
                LiveCallError,
                "server had an error",
            ),
        ],
        ids=["401", "400", "429", "mid-stream"],
    )
    def test_failures_write_nothing(self, fake_openai: FakeOpenAI, tmp_path: Path, script, raised, match) -> None:
        script(fake_openai)
        with pytest.raises(raised, match=match):
            record(tmp_path / "x.json", "openai", retry_strategy=NO_RETRY)
        assert not (tmp_path / "x.json").exists()

    def test_missing_key(self, monkeypatch) -> None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        with pytest.raises(CredentialsMissingError, match="OPENAI_API_KEY"):
            live_model("openai", "gpt-4o-mini")

    def test_missing_sdk(self, monkeypatch) -> None:
        monkeypatch.setitem(sys.modules, "openai", None)
        with pytest.raises(LiveExtraMissingError, match=r"structsim-nb\[openai\]"):
            live_model("openai", "gpt-4o-mini", api_key="k")


class TestAnthropic:
    def test_tool_call_records_and_replays(self, fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
        fake_anthropic.tool_use("Person", '{"name": "Alice", "age": 30}', cuts=(3, 11, 22))
        path = tmp_path / "anthropic.json"
        result = record(path, "anthropic")
        (seen,) = fake_anthropic.requests
        assert seen.notes["api_key"] == ANTHROPIC_KEY and seen.notes["body"]["stream"] is True
        recording = load_recording(path)
        assert recording.provenance.provider == "strands.models.anthropic.AnthropicModel"
        assert recording.provenance.supports_structured_output is True
        deltas = [e for e in recording.interactions[0].events if "contentBlockDelta" in e]
        assert len(deltas) == 4
        assert ANTHROPIC_KEY not in path.read_text()
        assert (
            replay(path, "Alice is 30.").structured_output == result.structured_output == Person(name="Alice", age=30)
        )

    def test_text_then_forced_retry(self, fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
        fake_anthropic.text("Alice, aged 30.", cuts=(5,))
        fake_anthropic.tool_use("Person", '{"name": "Alice", "age": 30}', cuts=(9,))
        path = tmp_path / "retry.json"
        record(path, "anthropic")
        forced = fake_anthropic.requests[1].notes["body"]
        assert forced["tool_choice"] == {"type": "tool", "name": "Person"}
        assert [i.request.tool_choice_kind for i in load_recording(path).interactions] == ["auto", "forced"]
        assert replay(path, "Alice is 30.").structured_output == Person(name="Alice", age=30)

    @pytest.mark.parametrize(
        ("script", "raised", "match"),
        [
            (
                lambda f: f.error(401, "authentication_error", "invalid x-api-key"),
                CredentialsMissingError,
                "AuthenticationError",
            ),
            (
                lambda f: f.error(403, "permission_error", "no access to this model"),
                CredentialsMissingError,
                "PermissionDenied",
            ),
            (lambda f: f.error(400, "invalid_request_error", "tools.0: bad schema"), LiveCallError, "BadRequestError"),
            (
                lambda f: [f.error(429, "rate_limit_error", "Number of requests exceeded") for _ in range(3)],
                LiveCallError,
                "throttled",
            ),
            (
                lambda f: f.mid_stream_error(
                    AnthropicToolUse("Person", '{"name": "A", "age": 1}', (4,)), "overloaded_error", "Overloaded"
                ),
                LiveCallError,
                "Overloaded",
            ),
        ],
        ids=["401", "403", "400", "429", "mid-stream"],
    )
    def test_failures_write_nothing(self, fake_anthropic: FakeAnthropic, tmp_path: Path, script, raised, match) -> None:
        script(fake_anthropic)
        with pytest.raises(raised, match=match):
            record(tmp_path / "x.json", "anthropic", retry_strategy=NO_RETRY)
        assert not (tmp_path / "x.json").exists()


class TestProviderIndependence:
    def test_recordings_from_every_provider_hold_the_same_message_and_replay_alike(
        self, fake_bedrock, fake_openai: FakeOpenAI, fake_anthropic: FakeAnthropic, monkeypatch, tmp_path: Path
    ) -> None:
        """Strands normalises each stream into the same events, so a recording does not depend on the service,
        and replaying it needs neither the service nor its SDK."""
        from fake_services import aws
        from fake_services.bedrock import tool_events

        aws.use_auth("env_keys", monkeypatch, tmp_path)
        payload = json.dumps({"name": "Alice", "age": 30})
        fake_bedrock.stream(tool_events("Person", payload, [9], tool_id="tooluse_same"))
        fake_openai.tool_call("Person", payload, cuts=(9,), call_id="tooluse_same")
        fake_anthropic.tool_use("Person", payload, cuts=(9,), tool_id="tooluse_same")
        messages, outputs = {}, {}
        for provider in ("bedrock", "openai", "anthropic"):
            path = tmp_path / f"{provider}.json"
            model_id = {"bedrock": "us.anthropic.claude-haiku-4-5-20251001-v1:0", "openai": "gpt-4o-mini"}
            record_exchange(
                path,
                model=live_model(provider, model_id.get(provider, "claude-haiku-4-5")),
                schema=Person,
                prompt="Alice is 30.",
                system_prompt=SYSTEM,
            )
            messages[provider] = assemble(load_recording(path).interactions[0].events).content
            with pytest.MonkeyPatch.context() as blocked:
                for name in ("boto3", "openai", "anthropic"):  # replay imports no provider SDK
                    blocked.setitem(sys.modules, name, None)
                outputs[provider] = replay(path, "Alice is 30.").structured_output
        assert messages["bedrock"] == messages["openai"] == messages["anthropic"]
        assert messages["bedrock"][0]["toolUse"]["input"] == {"name": "Alice", "age": 30}
        assert set(map(repr, outputs.values())) == {repr(Person(name="Alice", age=30))}


class TestErrorsAndSecrets:
    def test_classify_unwraps_the_event_loop_wrapper(self) -> None:
        class Wrapped(Exception):
            def __init__(self, original: Exception) -> None:
                super().__init__(str(original))
                self.original_exception = original

        class AuthenticationError(Exception):
            status_code = 401

        assert isinstance(
            classify_error(Wrapped(AuthenticationError("bad key")), "m", provider="openai"), CredentialsMissingError
        )

    def test_secrets_of_reads_client_keys(self, monkeypatch) -> None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        model = live_model("openai", "gpt-4o-mini", api_key="sk-proj-literal-key-for-the-test-000").model
        assert "sk-proj-literal-key-for-the-test-000" in secrets_of(model)
