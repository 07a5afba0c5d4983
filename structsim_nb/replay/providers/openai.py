"""OpenAI-compatible chat completions as the live model behind a recording (`strands.models.openai.OpenAIModel`).

The API key is `api_key=` or `OPENAI_API_KEY`; the endpoint `endpoint_url=` or the SDK's
`OPENAI_BASE_URL`, so any OpenAI-compatible server works. Streaming (the default) or not.
"""

from __future__ import annotations

import os

from ...errors import CredentialsMissingError, LiveExtraMissingError
from . import LiveModel

__all__ = ["INSTALL", "openai_live_model"]

INSTALL = 'pip install "structsim-nb[openai]"'


def openai_live_model(
    model_id: str, *, streaming: bool = True, endpoint_url: str | None = None, api_key: str | None = None
) -> LiveModel:
    """A live `OpenAIModel` and its API key (for scrubbing, never stored).

    Raises:
        LiveExtraMissingError: If the `openai` package is not installed.
        CredentialsMissingError: If no API key is given or set in `OPENAI_API_KEY`.
    """
    try:
        # optional extra: openai
        import openai  # noqa: F401
        from strands.models.openai import OpenAIModel
    except ImportError as exc:
        raise LiveExtraMissingError(f"recording with OpenAI needs the openai package: {INSTALL} ({exc})") from None
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        raise CredentialsMissingError(
            "recording with OpenAI needs an API key; set OPENAI_API_KEY (or pass api_key). It is used for the "
            "call only and never written."
        )
    client_args = {"api_key": key, **({"base_url": endpoint_url} if endpoint_url else {})}
    model = OpenAIModel(client_args=client_args, model_id=model_id, stream=streaming)
    return LiveModel(model=model, provider="openai", secrets=(key,), auth="API key")
