"""AWS credentials for the tests, set the ways a user sets them: environment keys, a session token,
a named profile in config files (with its region), and a Bedrock API key.

`clean_aws_environment` removes every AWS setting of the machine running the tests (variables,
shared files, instance metadata), so only what a test sets is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

ACCESS_KEY = "AKIAFAKEFAKEFAKE0001"
SECRET_KEY = "fAkE/SeCrEt+KeY0000000000000000000000001"
TEMP_ACCESS_KEY = "ASIAFAKEFAKEFAKE0002"
TEMP_SECRET_KEY = "fAkE/TeMp+SeCrEt000000000000000000000002"
SESSION_TOKEN = "IQoJb3JpZ2luX2VjEFAKEFAKEsessionTOKENfor/tests+only=="
PROFILE_ACCESS_KEY = "AKIAFAKEFAKEFAKE0003"
PROFILE_SECRET_KEY = "fAkE/PrOfIlE+SeCrEt0000000000000000000003"
API_KEY = "ABSKQmVkcm9ja0FQSUtleS1mYWtlLWtleS1mb3ItdGVzdHMtb25seQ=="
ACCOUNT_ID = "123456789012"

AUTH_METHODS = ("env_keys", "session_token", "profile", "api_key")


@dataclass(frozen=True)
class Auth:
    """One way of authenticating: its name, the region it signs for, the values that must never be written."""

    method: str
    region: str
    secrets: tuple[str, ...]
    profile: str | None = None


def clean_aws_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    empty = tmp_path / "aws-empty"
    empty.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def use_auth(method: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Auth:
    """Configure `method` in the environment (and files under `tmp_path`), as a user would."""
    if method == "env_keys":
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        monkeypatch.setenv("AWS_REGION", "us-east-1")
        return Auth(method, "us-east-1", (ACCESS_KEY, SECRET_KEY))
    if method == "session_token":
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", TEMP_ACCESS_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", TEMP_SECRET_KEY)
        monkeypatch.setenv("AWS_SESSION_TOKEN", SESSION_TOKEN)
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
        return Auth(method, "us-west-2", (TEMP_ACCESS_KEY, TEMP_SECRET_KEY, SESSION_TOKEN))
    if method == "profile":
        config, credentials = tmp_path / "aws-config", tmp_path / "aws-credentials"
        config.write_text("[default]\nregion = us-east-1\n\n[profile recorder]\nregion = eu-west-1\n")
        credentials.write_text(
            f"[recorder]\naws_access_key_id = {PROFILE_ACCESS_KEY}\naws_secret_access_key = {PROFILE_SECRET_KEY}\n"
        )
        monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
        monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
        return Auth(method, "eu-west-1", (PROFILE_ACCESS_KEY, PROFILE_SECRET_KEY), profile="recorder")
    if method == "api_key":
        monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", API_KEY)
        monkeypatch.setenv("AWS_REGION", "us-east-1")
        return Auth(method, "us-east-1", (API_KEY,))
    raise ValueError(f"unknown auth method {method!r}")
