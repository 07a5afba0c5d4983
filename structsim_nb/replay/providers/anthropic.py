"""Anthropic's messages API as the live model behind a recording (`strands.models.anthropic.AnthropicModel`).

The API key is `api_key=` or `ANTHROPIC_API_KEY`; the endpoint `endpoint_url=` or the SDK's
`ANTHROPIC_BASE_URL`. Strands' Anthropic provider always streams.
"""

from __future__ import annotations

import os

from ...errors import CredentialsMissingError, LiveExtraMissingError
from . import LiveModel

__all__ = ["DEFAULT_MAX_TOKENS", "INSTALL", "anthropic_live_model"]

INSTALL = 'pip install "structsim-nb[anthropic]"'
#: The messages API requires `max_tokens`; enough for a structured extraction.
DEFAULT_MAX_TOKENS = 4096


def anthropic_live_model(
    model_id: str, *, endpoint_url: str | None = None, api_key: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS
) -> LiveModel:
    """A live `AnthropicModel` and its API key (for scrubbing, never stored).

    Raises:
        LiveExtraMissingError: If the `anthropic` package is not installed.
        CredentialsMissingError: If no API key is given or set in `ANTHROPIC_API_KEY`.
    """
    try:
        # optional extra: anthropic
        import anthropic  # noqa: F401
        from strands.models.anthropic import AnthropicModel
    except ImportError as exc:
        raise LiveExtraMissingError(f"recording with Anthropic needs its SDK: {INSTALL} ({exc})") from None
    key = api_key or os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise CredentialsMissingError(
            "recording with Anthropic needs an API key; set ANTHROPIC_API_KEY (or pass api_key). It is used for "
            "the call only and never written."
        )
    client_args = {"api_key": key, **({"base_url": endpoint_url} if endpoint_url else {})}
    model = AnthropicModel(client_args=client_args, model_id=model_id, max_tokens=max_tokens)
    return LiveModel(model=model, provider="anthropic", secrets=(key,), auth="API key")
