"""The pytest plugin, run as a user's test suite (pytester), recording over HTTP against the loopback
bedrock-runtime and replaying offline: record modes, the CI default, failures that must write nothing."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest
from fake_services import aws
from fake_services.bedrock import FakeBedrock, text_events, tool_events

from structsim_nb.replay.pytest_plugin import effective_mode
from structsim_nb.replay.recorder import RecordMode

# The example of the README's "In your test suite: the pytest plugin", as a user writes it.
CONFTEST = '''
import pytest
from strands.models.bedrock import BedrockModel


@pytest.fixture
def live_model():
    """How to build the live model when a recording is made (never called on replay)."""
    return lambda: BedrockModel(model_id="us.anthropic.claude-haiku-4-5-20251001-v1:0")
'''

TEST_PERSON = '''
from pydantic import BaseModel
from strands import Agent


class Person(BaseModel):
    """A person."""

    name: str
    age: int


def test_extracts_the_person(recorded_model):
    agent = Agent(model=recorded_model, system_prompt="Extract the person.", callback_handler=None)
    result = agent("Alice is 30.", structured_output_model=Person)
    assert result.structured_output == Person(name="Alice", age=30)
'''

RECORDING = Path("recordings/test_person/test_extracts_the_person.json")


@pytest.fixture
def project(pytester: pytest.Pytester, fake_bedrock: FakeBedrock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    aws.use_auth("env_keys", monkeypatch, tmp_path)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("STRUCTSIM_NB_RECORD_MODE", raising=False)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_person=TEST_PERSON)
    return pytester


def answer(fake: FakeBedrock) -> None:
    fake.stream(tool_events("Person", '{"name": "Alice", "age": 30}', [7]))


def test_the_plugin_is_registered_as_a_pytest11_entry_point() -> None:
    points = importlib.metadata.entry_points(group="pytest11")
    assert "structsim_nb.replay.pytest_plugin" in {point.value for point in points}


def test_record_once_then_replay_in_ci_then_rewrite(project: pytest.Pytester, fake_bedrock, monkeypatch) -> None:
    answer(fake_bedrock)
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)  # not in CI: `once` records it
    path = project.path / RECORDING
    recording = json.loads(path.read_text())
    assert recording["provenance"]["rerecord_command"] == (
        "pytest --record-mode=rewrite test_person.py::test_extracts_the_person"
    )
    assert aws.SECRET_KEY not in path.read_text()
    assert len(fake_bedrock.model_requests()) == 1

    monkeypatch.setenv("CI", "true")  # CI replays only: no live model is built, no request is sent
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert len(fake_bedrock.model_requests()) == 1

    aws.use_auth("env_keys", monkeypatch, project.path)
    answer(fake_bedrock)
    before = path.stat().st_ino  # an atomic rewrite replaces the file: a new inode, even within the same second
    project.runpytest("-p", "no:cacheprovider", "--record-mode=rewrite").assert_outcomes(passed=1)
    assert len(fake_bedrock.model_requests()) == 2 and path.stat().st_ino != before


def test_replay_only_without_a_recording_says_how_to_record(project: pytest.Pytester, fake_bedrock) -> None:
    result = project.runpytest("-p", "no:cacheprovider", "--record-mode=none")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*no recording at*pytest --record-mode=once test_person.py::test_extracts_the_person*"]
    )
    assert fake_bedrock.requests == []


def test_a_failing_test_records_nothing(project: pytest.Pytester, fake_bedrock) -> None:
    fake_bedrock.stream(tool_events("Person", '{"name": "Alice", "age": 31}', [7]))  # the assertion will fail
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(failed=1)
    assert not (project.path / RECORDING).exists()


def test_fewer_calls_than_recorded_fail_the_replay(project: pytest.Pytester, fake_bedrock, monkeypatch) -> None:
    fake_bedrock.stream(text_events("Alice, aged 30."))
    answer(fake_bedrock)
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)  # recorded: text, then the forced retry
    recording = json.loads((project.path / RECORDING).read_text())
    assert len(recording["interactions"]) == 2
    # The agent now gets its answer in one call: drop the first recorded call, keep the tool call as call 1.
    recording["interactions"] = [dict(recording["interactions"][1], call=1)]
    first = recording["interactions"][0]["request"]
    first["messages"], first["tool_choice"], first["tool_choice_kind"] = first["messages"][:1], None, "auto"
    first["structured_output_model"] = None
    recording["interactions"].append(dict(recording["interactions"][0], call=2))
    (project.path / RECORDING).write_text(json.dumps(recording))
    monkeypatch.setenv("CI", "1")
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)  # the test passes; its teardown reports the unplayed call
    result.stdout.fnmatch_lines(["*1 of 2 recorded model calls were never requested*"])


def test_the_recording_marker_names_the_file(project: pytest.Pytester, fake_bedrock) -> None:
    project.makepyfile(
        test_marked=TEST_PERSON.replace(
            "def test_extracts_the_person", '@pytest.mark.recording("data/alice.json")\ndef test_extracts_the_person'
        ).replace("from pydantic", "import pytest\nfrom pydantic")
    )
    answer(fake_bedrock)
    project.runpytest("-p", "no:cacheprovider", "test_marked.py").assert_outcomes(passed=1)
    assert (project.path / "data" / "alice.json").exists()


def test_recording_without_a_live_model_fixture_says_what_to_define(pytester: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile(test_person=TEST_PERSON)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*define a `live_model` fixture*"])


@pytest.mark.parametrize(
    ("option", "environ", "expected"),
    [
        (None, {"CI": "true"}, RecordMode.REPLAY),
        (None, {}, RecordMode.ONCE),
        ("rewrite", {"CI": "true"}, RecordMode.REWRITE),
        (None, {"CI": "1", "STRUCTSIM_NB_RECORD_MODE": "once"}, RecordMode.ONCE),
        ("all", {}, RecordMode.REWRITE),  # pytest-recording's name for re-recording everything
    ],
)
def test_effective_mode(option, environ, expected) -> None:
    assert effective_mode(option, environ) is expected


def test_an_unsupported_mode_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match="must be one of none, once, rewrite; got 'new_episodes'"):
        effective_mode("new_episodes", {})
