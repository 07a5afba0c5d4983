"""`structsim-nb record` against loopback fakes of the services (tests/fake_services), as a user runs it:
credentials and endpoints from the environment, one exit code per failure, the old file kept on every one."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from fake_services import aws
from fake_services.bedrock import FakeBedrock, converse_text, converse_tool, text_events, tool_events
from fake_services.openai import FakeOpenAI
from pydantic import BaseModel
from strands import Agent

from structsim_nb import cli
from structsim_nb.replay import ReplayModel
from structsim_nb.replay.cassette import load_recording

REPO = Path(__file__).resolve().parent.parent.parent
SCHEMA = "tests/cli/test_record.py:Person"  # a schema given as a file path, the README's form
MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
PLAIN_SCHEMA = "examples/notebooks/walkthrough_schema.py:Invoice"  # imports no boto3


class Person(BaseModel):
    """A person."""

    name: str
    age: int


@pytest.fixture(autouse=True)
def at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


@pytest.fixture
def keys(fake_bedrock: FakeBedrock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> aws.Auth:
    return aws.use_auth("env_keys", monkeypatch, tmp_path)


def record(path: Path, *extra: str, schema: str = SCHEMA) -> int:
    return cli.main(["record", str(path), "--schema", schema, "--model-id", MODEL_ID, "--retry-delay", "0", *extra])


def replays(path: Path, prompt: str, system: str | None = None) -> Person:
    model = ReplayModel(path)
    result = Agent(model=model, system_prompt=system, callback_handler=None)(prompt, structured_output_model=Person)
    model.assert_all_played()
    assert isinstance(result.structured_output, Person)
    return result.structured_output


def test_records_then_rerecords_with_the_stored_command(keys, fake_bedrock, tmp_path: Path, capsys) -> None:
    path = tmp_path / "p.json"
    fake_bedrock.stream(tool_events("Person", '{"name": "Al", "age": 3}', [4]))
    assert record(path, "--prompt", "Al is 3.", "--system-prompt", "Extract the person.") == cli.EXIT_OK
    out = capsys.readouterr().out
    assert "wrote" in out and '"name": "Al"' in out
    command = load_recording(path).provenance.rerecord_command
    assert command == f"structsim-nb record {path} --schema {SCHEMA} --model-id {MODEL_ID}"
    # the stored command, run as is: prompt and system prompt come from the file
    fake_bedrock.stream(tool_events("Person", '{"name": "Al", "age": 3}', [9]))
    assert cli.main(shlex.split(command)[1:]) == cli.EXIT_OK
    request = load_recording(path).interactions[0].request
    assert request.messages[0]["content"][0]["text"] == "Al is 3."
    assert request.system == [{"text": "Extract the person."}]
    assert replays(path, "Al is 3.", "Extract the person.") == Person(name="Al", age=3)


@pytest.mark.parametrize("method", aws.AUTH_METHODS)
@pytest.mark.parametrize("streaming", [True, False], ids=["stream", "converse"])
def test_every_auth_method(method, streaming, fake_bedrock, monkeypatch, tmp_path: Path) -> None:
    auth = aws.use_auth(method, monkeypatch, tmp_path)
    fake_bedrock.region = auth.region
    if streaming:
        fake_bedrock.stream(text_events("Al is three.", [3]))
        fake_bedrock.stream(tool_events("Person", '{"name": "Al", "age": 3}', [4]))
    else:
        fake_bedrock.converse(converse_text("Al is three."))
        fake_bedrock.converse(converse_tool("Person", {"name": "Al", "age": 3}))
    path = tmp_path / "p.json"
    extra = ["--profile", auth.profile] if auth.profile else []
    extra += [] if streaming else ["--no-streaming"]
    assert record(path, "--prompt", "Al is 3.", *extra) == cli.EXIT_OK
    assert {r.notes["auth"] for r in fake_bedrock.model_requests()} == {"bearer" if method == "api_key" else "sigv4"}
    text = path.read_text()
    assert not [secret for secret in auth.secrets if secret in text]
    recording = load_recording(path)
    assert recording.provenance.streaming is streaming and len(recording.interactions) == 2
    assert ("--no-streaming" in recording.provenance.rerecord_command) is not streaming
    assert replays(path, "Al is 3.") == Person(name="Al", age=3)


def test_endpoint_url_option(keys, fake_bedrock, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME")
    fake_bedrock.stream(tool_events("Person", '{"name": "Al", "age": 3}', [4]))
    assert record(tmp_path / "p.json", "--prompt", "p", "--endpoint-url", fake_bedrock.url) == cli.EXIT_OK
    assert len(fake_bedrock.model_requests()) == 1


def _answers(fake: FakeBedrock, kind: str) -> None:
    if kind == "403":
        fake.error("AccessDeniedException", "You don't have access to the model with the specified model ID.")
    elif kind == "400":
        fake.error("ValidationException", "The provided model identifier is invalid.")
    elif kind == "429":
        for _ in range(2):  # botocore's two attempts, one agent attempt (--max-attempts 1)
            fake.error("ThrottlingException", "Too many requests, please wait before trying again.")
    elif kind == "mid-stream":
        fake.stream(text_events("Al")[:2], exception=("throttlingException", "Too many tokens, please wait."))
        fake.stream(text_events("Al")[:2], exception=("throttlingException", "Too many tokens, please wait."))
    elif kind == "no structured output":
        fake.stream(text_events("no"))
        fake.stream(text_events("still no"))
    elif kind == "invalid JSON":
        fake.stream(tool_events("Person", '{"name": "A', []))
        fake.stream(tool_events("Person", '{"name": "A", "age": 1}', [], tool_id="tooluse_2"))


@pytest.mark.parametrize(
    ("kind", "code", "message"),
    [
        ("403", cli.EXIT_NO_CREDENTIALS, "AccessDeniedException"),
        ("400", cli.EXIT_CALL_FAILED, "failed: ValidationException"),
        ("429", cli.EXIT_CALL_FAILED, "throttled and retries ran out"),
        ("mid-stream", cli.EXIT_CALL_FAILED, "Too many tokens"),
        ("no structured output", cli.EXIT_NO_STRUCTURED_OUTPUT, "never produced the structured output"),
        ("invalid JSON", cli.EXIT_INVALID_RECORDING, "not valid JSON"),
    ],
)
def test_failures_exit_distinctly_and_keep_the_old_file(
    keys, fake_bedrock, tmp_path: Path, capsys, kind, code, message
):
    path = tmp_path / "p.json"
    path.write_text("previous\n")
    _answers(fake_bedrock, kind)
    assert record(path, "--prompt", "p", "--max-attempts", "2" if kind == "mid-stream" else "1") == code
    err = capsys.readouterr().err
    assert message in err and "is unchanged" in err
    assert path.read_text() == "previous\n"
    assert fake_bedrock.pending == 0


def test_wrong_secret_key_exits_with_the_credentials_code(keys, fake_bedrock, monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y" * 40)
    assert record(tmp_path / "p.json", "--prompt", "p") == cli.EXIT_NO_CREDENTIALS
    assert "InvalidSignatureException" in capsys.readouterr().err


def test_openai_provider(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.tool_call("Person", '{"name": "Al", "age": 3}', cuts=(5,))
    path = tmp_path / "o.json"
    code = cli.main(
        ["record", str(path), "--provider", "openai", "--model-id", "gpt-4o-mini", "--schema", SCHEMA, "--prompt", "p"]
    )
    assert code == cli.EXIT_OK
    provenance = load_recording(path).provenance
    assert provenance.provider == "strands.models.openai.OpenAIModel"
    # re-recording reuses the provider of the file
    fake_openai.tool_call("Person", '{"name": "Al", "age": 3}', cuts=(7,))
    assert cli.main(["record", str(path), "--schema", SCHEMA]) == cli.EXIT_OK
    assert len(fake_openai.requests) == 2 and replays(path, "p") == Person(name="Al", age=3)


def test_anthropic_provider(fake_anthropic, tmp_path: Path) -> None:
    fake_anthropic.tool_use("Person", '{"name": "Al", "age": 3}', cuts=(5,))
    path = tmp_path / "a.json"
    argv = ["record", str(path), "--provider", "anthropic", "--model-id", "claude-haiku-4-5", "--schema", SCHEMA]
    assert cli.main([*argv, "--prompt", "p"]) == cli.EXIT_OK
    assert replays(path, "p") == Person(name="Al", age=3)


def test_a_scrubbed_account_id_without_a_way_to_resolve_it_is_bad_input(fake_bedrock, monkeypatch, tmp_path, capsys):
    aws.use_auth("api_key", monkeypatch, tmp_path)
    arn = "arn:aws:bedrock:us-east-1:<AWS_ACCOUNT_ID>:application-inference-profile/abc"
    assert cli.main(["record", str(tmp_path / "p.json"), "--schema", SCHEMA, "--model-id", arn, "--prompt", "p"]) == 2
    assert "--model-id" in capsys.readouterr().err


def test_missing_live_extra(monkeypatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)
    assert record(tmp_path / "p.json", "--prompt", "p", schema=PLAIN_SCHEMA) == cli.EXIT_LIVE_MISSING
    assert 'pip install "structsim-nb[live]"' in capsys.readouterr().err


def test_missing_credentials(fake_bedrock, tmp_path: Path, capsys) -> None:
    assert record(tmp_path / "p.json", "--prompt", "p", "--region", "us-east-1") == cli.EXIT_NO_CREDENTIALS
    err = capsys.readouterr().err
    assert "needs AWS credentials or a Bedrock API key" in err and "AWS_BEARER_TOKEN_BEDROCK" in err
    assert fake_bedrock.requests == []


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


def test_a_folder_recording_an_unreadable_prompt_file_and_a_bad_delay_are_bad_input(tmp_path: Path, capsys) -> None:
    schema = ["--schema", "structsim_nb.demo:Invoice", "--model-id", "m"]
    assert cli.main(["record", str(tmp_path), *schema, "--prompt", "p"]) == cli.EXIT_BAD_INPUT
    assert "RECORDING must name a .json file" in capsys.readouterr().err
    missing = tmp_path / "nope.txt"
    assert cli.main(["record", str(tmp_path / "p.json"), *schema, "--prompt-file", str(missing)]) == 2
    assert f"--prompt-file must be a readable UTF-8 text file; {str(missing)!r} failed" in capsys.readouterr().err
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9")
    assert cli.main(["record", str(tmp_path / "p.json"), *schema, "--prompt-file", str(tmp_path / "latin.txt")]) == 2
    assert "readable UTF-8" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()
    for delay in ("nan", "-3", "inf"):
        with pytest.raises(SystemExit) as caught:
            cli.main(["record", str(tmp_path / "p.json"), *schema, "--prompt", "p", "--retry-delay", delay])
        assert caught.value.code == 2
        assert "must be a finite number, at least 0" in capsys.readouterr().err
