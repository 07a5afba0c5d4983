"""Shared test fixtures. Keep this file generic: fixtures here serve every test module."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import launch, require_chromium
from fake_services import aws
from fake_services.anthropic import FakeAnthropic
from fake_services.aws import clean_aws_environment
from fake_services.bedrock import Credentials, FakeBedrock
from fake_services.openai import FakeOpenAI
from helpers import run_pairs

OPENAI_KEY = "sk-proj-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfake0001"
ANTHROPIC_KEY = "sk-ant-api03-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKE-0001"

RunExperiment = Callable[..., Any]


@pytest.fixture
def run_experiment() -> RunExperiment:
    """`run_pairs`, as a fixture."""
    return run_pairs


# -- loopback fakes of the model services (tests/fake_services) ----------------------------------------------


@pytest.fixture
def fake_bedrock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeBedrock]:
    """A fake bedrock-runtime on 127.0.0.1 (HTTPS), and an AWS environment pointing boto3 at it, as a user would:
    `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` and `AWS_CA_BUNDLE`. No credentials are set: call `use_auth`.

    It accepts every credential of `fake_services.aws`, in the region that credential signs for (set
    `fake_bedrock.region`). botocore retries at most once (`AWS_MAX_ATTEMPTS=2`, standard mode), so throttling
    tests stay short.
    """
    clean_aws_environment(monkeypatch, tmp_path)
    credentials = {
        aws.ACCESS_KEY: Credentials(aws.SECRET_KEY),
        aws.TEMP_ACCESS_KEY: Credentials(aws.TEMP_SECRET_KEY, aws.SESSION_TOKEN),
        aws.PROFILE_ACCESS_KEY: Credentials(aws.PROFILE_SECRET_KEY),
    }
    with FakeBedrock(credentials=credentials, api_keys={aws.API_KEY}) as fake:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.url)
        monkeypatch.setenv("AWS_ENDPOINT_URL_STS", fake.url)  # an account lookup must stay on loopback too
        monkeypatch.setenv("AWS_CA_BUNDLE", str(fake.ca_bundle))
        monkeypatch.setenv("AWS_RETRY_MODE", "standard")
        monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
        yield fake
    assert not fake.problems, fake.problems


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """A fake OpenAI chat completions API on 127.0.0.1, with `OPENAI_API_KEY` and `OPENAI_BASE_URL` pointing at it."""
    with FakeOpenAI(api_keys={OPENAI_KEY}) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        yield fake
    assert not fake.problems, fake.problems


@pytest.fixture
def fake_anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    """A fake Anthropic messages API on 127.0.0.1, with `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` pointing at it."""
    with FakeAnthropic(api_keys={ANTHROPIC_KEY}) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        yield fake
    assert not fake.problems, fake.problems


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Chromium (Debian's, through playwright) for one test module; see `browser`.

    Module-scoped, and to be requested after the fixtures that score: playwright's sync API runs an
    event loop in this thread while it is open, so `asyncio.run` (a Strands `Experiment`) fails
    until it closes at the end of the module.
    """
    sync_api = require_chromium()
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()
