"""The live models a recording is made against, one module per Strands provider.

`live_model(provider, model_id, ...)` builds the model with the credentials its SDK resolves
(never stored) and returns a `LiveModel`: the model plus the credential values in use, which the
recorder scrubs from everything it writes. `classify_error` turns what a live call raised into
the recorder's error kinds (credentials, call failed, no structured output).

Strands normalises every provider's stream into the same `StreamEvent`s, so a recording made
against any of these replays without it (and without its SDK).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from strands.models import Model

from ...errors import CredentialsMissingError, LiveCallError, NoStructuredOutputError, RecordError

logger = logging.getLogger(__name__)

__all__ = ["PROVIDERS", "LiveModel", "classify_error", "live_model", "secrets_of"]

#: Provider name -> (module, strands class, install hint).
PROVIDERS: dict[str, tuple[str, str, str]] = {
    "bedrock": ("bedrock", "strands.models.bedrock.BedrockModel", 'pip install "structsim-nb[live]"'),
    "openai": ("openai", "strands.models.openai.OpenAIModel", 'pip install "structsim-nb[openai]"'),
    "anthropic": ("anthropic", "strands.models.anthropic.AnthropicModel", 'pip install "structsim-nb[anthropic]"'),
}


@dataclass(frozen=True)
class LiveModel:
    """A live model and what the recorder needs to know about it.

    Attributes:
        model: The Strands model.
        provider: `bedrock`, `openai` or `anthropic`.
        secrets: The credential values in use (keys, tokens), scrubbed literally; never stored.
        region: The AWS region (Bedrock), else None.
        auth: How it authenticates, for messages (`"SigV4 (env)"`, `"Bedrock API key"`, ...).
    """

    model: Model
    provider: str
    secrets: tuple[str, ...] = ()
    region: str | None = None
    auth: str = ""


def live_model(
    provider: str,
    model_id: str,
    *,
    region: str | None = None,
    profile: str | None = None,
    streaming: bool = True,
    endpoint_url: str | None = None,
    api_key: str | None = None,
) -> LiveModel:
    """The live model of `provider` for `model_id`, with credentials resolved as its SDK does.

    Args:
        provider: `bedrock`, `openai` or `anthropic` (see `PROVIDERS`).
        model_id: The provider's model id.
        region: Bedrock only: the AWS region. Default None (the profile's, else `AWS_REGION`).
        profile: Bedrock only: the AWS profile. Default None (`AWS_PROFILE`, else the default chain).
        streaming: Use the streaming API. Default True. Anthropic's provider always streams.
        endpoint_url: The service endpoint. Default None: the SDK's own setting
            (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`).
        api_key: An API key. Default None: from the environment (`AWS_BEARER_TOKEN_BEDROCK`,
            `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).

    Raises:
        ValueError: For an unknown provider.
        LiveExtraMissingError: If the provider's SDK is not installed.
        CredentialsMissingError: If no credentials resolve.
    """
    if provider not in PROVIDERS:
        raise ValueError(f"provider must be one of {', '.join(PROVIDERS)}; got {provider!r}")
    if provider == "bedrock":
        from .bedrock import bedrock_live_model

        return bedrock_live_model(
            model_id, region=region, profile=profile, streaming=streaming, endpoint_url=endpoint_url, api_key=api_key
        )
    if provider == "openai":
        from .openai import openai_live_model

        return openai_live_model(model_id, streaming=streaming, endpoint_url=endpoint_url, api_key=api_key)
    from .anthropic import anthropic_live_model

    return anthropic_live_model(model_id, endpoint_url=endpoint_url, api_key=api_key)


_ENV_SECRETS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
)


def secrets_of(model: Any) -> list[str]:
    """The credential values a live model may be using, found without any network call.

    Reads the Bedrock client's resolved credentials and bearer token, the OpenAI/Anthropic API
    key in the model's client or client arguments, and the credential variables of the
    environment. Used when a caller hands the recorder a model it built itself (`open_model`).
    """
    found: list[str] = [os.environ[name] for name in _ENV_SECRETS if os.environ.get(name)]
    client = getattr(model, "client", None)
    signer = getattr(client, "_request_signer", None)
    credentials = getattr(signer, "_credentials", None)
    if credentials is not None:
        try:
            frozen = credentials.get_frozen_credentials()
            found += [value for value in (frozen.access_key, frozen.secret_key, frozen.token) if value]
        except Exception as exc:  # a refresh failure here must not stop the recording; the call will say why
            logger.debug("error=<%s> | could not read the bedrock client's credentials", exc)
    token = getattr(signer, "_auth_token", None)
    if token is not None and getattr(token, "token", None):
        found.append(str(token.token))
    for holder in (getattr(model, "client_args", None) or {}, {"api_key": getattr(client, "api_key", None)}):
        value = holder.get("api_key") if isinstance(holder, dict) else None
        if isinstance(value, str) and value:
            found.append(value)
    return found


_CREDENTIAL_ERRORS = frozenset(
    {
        "NoCredentialsError",
        "PartialCredentialsError",
        "TokenRetrievalError",
        "UnauthorizedSSOTokenError",
        "SSOTokenLoadError",
        "CredentialRetrievalError",
        "AuthenticationError",  # openai, anthropic: 401
        "PermissionDeniedError",  # openai, anthropic: 403
    }
)
_CREDENTIAL_CODES = frozenset(
    {
        "UnrecognizedClientException",
        "ExpiredTokenException",
        "InvalidSignatureException",
        "IncompleteSignatureException",
        "MissingAuthenticationTokenException",
        "AccessDeniedException",
    }
)


def classify_error(exc: BaseException, model_id: str, *, provider: str = "bedrock") -> RecordError:
    """The recorder's error for what a live agent call raised (strands' wrapper unwrapped).

    Credentials missing, rejected or not allowed the model (401/403, AWS auth error codes) give
    `CredentialsMissingError`; no structured output gives `NoStructuredOutputError`; anything
    else (throttling after retries, validation, a stream error, the network) `LiveCallError`.
    """
    original = getattr(exc, "original_exception", None) or exc
    kind = type(original).__name__
    if kind == "StructuredOutputException":
        return NoStructuredOutputError(f"the model never produced the structured output: {original}")
    response = getattr(original, "response", None)
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    status = getattr(original, "status_code", None)
    where = f"{provider} model {model_id!r}"
    if kind in _CREDENTIAL_ERRORS or code in _CREDENTIAL_CODES or status in (401, 403):
        return CredentialsMissingError(
            f"credentials must be present, valid and allowed to call the {where}; got {code or kind}: {original}"
        )
    if kind == "ModelThrottledException":
        return LiveCallError(f"the live call to the {where} was throttled and retries ran out: {original}")
    return LiveCallError(f"the live call to the {where} failed: {code or kind}: {original}")


def describe_secrets(secrets: Sequence[str]) -> str:
    """How many credential values are scrubbed, never the values."""
    return f"{len(set(secrets))} credential value(s)"
