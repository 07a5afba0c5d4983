"""`structsim-nb record`: one exit code and message per failure, the old file kept on every one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import boto3
import pytest
from bedrock_stub import (  # noqa: E402
    MODEL_ID,
    BedrockStreamStubber,  # noqa: E402
    text_events,
    tool_events,
)
from strands.models.bedrock import BedrockModel

from structsim_nb import cli
from structsim_nb.replay.cassette import load_recording

SCHEMA = "tests/replay/test_recorder.py:Person"


@pytest.fixture
def stubbed(monkeypatch):
    """Make the CLI's live model a BedrockModel whose client is stubbed; returns the stubber."""
    session = boto3.Session(
        aws_access_key_id="AKIAFAKEFAKEFAKEFAKE", aws_secret_access_key="y" * 40, region_name="us-east-1"
    )
    model = BedrockModel(model_id=MODEL_ID, boto_session=session)
    stubber = BedrockStreamStubber(model.client)
    stubber.activate()
    monkeypatch.setattr("structsim_nb.replay.bedrock.bedrock_model", lambda *a, **k: (model, ["y" * 40]))
    monkeypatch.chdir(Path(__file__).resolve().parent.parent.parent)
    yield stubber
    stubber.deactivate()


def record(path: Path, *extra: str, schema: str = SCHEMA) -> int:
    return cli.main(["record", str(path), "--schema", schema, "--model-id", MODEL_ID, *extra])


PLAIN_SCHEMA = "examples/notebooks/walkthrough_schema.py:Invoice"  # imports no boto3


def test_records_then_rerecords_reusing_prompt_and_system(stubbed, tmp_path: Path, capsys) -> None:
    path = tmp_path / "p.json"
    stubbed.add_stream_response(tool_events('{"name": "Al", "age": 3}', [4]))
    assert record(path, "--prompt", "Al is 3.", "--system-prompt", "Extract the person.") == cli.EXIT_OK
    assert "wrote" in capsys.readouterr().out
    stubbed.add_stream_response(tool_events('{"name": "Al", "age": 3}', [9]))
    assert cli.main(["record", str(path), "--schema", SCHEMA]) == cli.EXIT_OK  # prompt, system, model from the file
    request = load_recording(path).interactions[0].request
    assert request.messages[0]["content"][0]["text"] == "Al is 3."
    assert request.system == [{"text": "Extract the person."}]


@pytest.mark.parametrize(
    ("responses", "code", "message"),
    [
        ([("error", "ValidationException")], cli.EXIT_CALL_FAILED, "failed: ValidationException"),
        ([("error", "ExpiredTokenException")], cli.EXIT_NO_CREDENTIALS, "credentials must be present and valid"),
        ([("text", "no"), ("text", "still no")], cli.EXIT_NO_STRUCTURED_OUTPUT, "never produced the structured output"),
        ([("tool", '{"name": "A'), ("tool", '{"name": "A", "age": 1}')], cli.EXIT_INVALID_RECORDING, "not valid JSON"),
    ],
)
def test_failures_exit_distinctly_and_keep_the_old_file(stubbed, tmp_path: Path, capsys, responses, code, message):
    path = tmp_path / "p.json"
    path.write_text("previous\n")
    for kind, value in responses:
        if kind == "error":
            stubbed.add_client_error("converse_stream", value, "boom")
        elif kind == "text":
            stubbed.add_stream_response(text_events(value))
        else:
            stubbed.add_stream_response(tool_events(value, []))
    assert record(path, "--prompt", "p") == code
    err = capsys.readouterr().err
    assert message in err and "is unchanged" in err
    assert path.read_text() == "previous\n"


def test_missing_live_extra(monkeypatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)
    monkeypatch.chdir(Path(__file__).resolve().parent.parent.parent)
    assert record(tmp_path / "p.json", "--prompt", "p", schema=PLAIN_SCHEMA) == cli.EXIT_LIVE_MISSING
    assert 'pip install "structsim-nb[live]"' in capsys.readouterr().err


def test_missing_credentials(monkeypatch, tmp_path: Path, capsys) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.chdir(Path(__file__).resolve().parent.parent.parent)
    assert record(tmp_path / "p.json", "--prompt", "p", "--region", "us-east-1") == cli.EXIT_NO_CREDENTIALS
    assert "needs AWS credentials" in capsys.readouterr().err


def test_bad_schema_and_missing_prompt_are_bad_input(tmp_path: Path, capsys) -> None:
    assert cli.main(["record", str(tmp_path / "p.json"), "--schema", "nope", "--prompt", "p"]) == cli.EXIT_BAD_INPUT
    assert "--schema must be MODULE:CLASS" in capsys.readouterr().err
    assert cli.main(["record", str(tmp_path / "p.json"), "--schema", "json:JSONDecoder", "--prompt", "p"]) == 2
    code = cli.main(["record", str(tmp_path / "p.json"), "--schema", "structsim_nb.demo:Invoice", "--model-id", "m"])
    assert code == cli.EXIT_BAD_INPUT
    assert "--prompt or --prompt-file is required" in capsys.readouterr().err


def test_once_keeps_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"kept": True}))
    assert record(path, "--prompt", "p", "--mode", "once") == cli.EXIT_OK
    assert json.loads(path.read_text()) == {"kept": True}
