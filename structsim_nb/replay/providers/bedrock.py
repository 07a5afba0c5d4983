"""Bedrock as the live model behind a recording: credentials resolved by boto3, never stored.

Every way boto3 authenticates works, because boto3 does the resolving: access keys (with or
without a session token) from the environment, a named profile from the shared files (with its
region), SSO and role profiles, and a Bedrock API key, either `AWS_BEARER_TOKEN_BEDROCK` (which
botocore sends as `Authorization: Bearer ...` over HTTPS) or `api_key=` (strands' own bearer
path). The endpoint is boto3's too (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, a profile's
`endpoint_url`), or `endpoint_url=`.

A model id that is an ARN is stored with its account id scrubbed
(`arn:aws:bedrock:us-east-1:<AWS_ACCOUNT_ID>:application-inference-profile/abc`);
`resolve_model_id` fills the account of the credentials in use back in when such an id is
re-recorded.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from ...errors import CredentialsMissingError, LiveExtraMissingError, ModelIdError
from ..secret_rules import ACCOUNT_PLACEHOLDER
from . import LiveModel

logger = logging.getLogger(__name__)

__all__ = ["BEARER_ENV", "LIVE_INSTALL", "bedrock_live_model", "bedrock_model", "credential_values", "resolve_model_id"]

LIVE_INSTALL = 'pip install "structsim-nb[live]"'
#: botocore's variable for a Bedrock API key (bearer token).
BEARER_ENV = "AWS_BEARER_TOKEN_BEDROCK"


def credential_values(session: Any) -> list[str]:
    """The access key, secret key and session token `session` resolves (empty if none)."""
    credentials = session.get_credentials()
    if credentials is None:
        return []
    frozen = credentials.get_frozen_credentials()
    return [value for value in (frozen.access_key, frozen.secret_key, frozen.token) if value]


def _account_id(session: Any) -> str | None:
    """The account of the credentials in use: from the credentials (`AWS_ACCOUNT_ID`, a profile's
    `aws_account_id`, SSO), else STS GetCallerIdentity."""
    credentials = session.get_credentials()
    if credentials is None:
        return None
    account = getattr(credentials.get_frozen_credentials(), "account_id", None)
    if account:
        return str(account)
    try:
        region = session.region_name or os.environ.get("AWS_REGION") or "us-east-1"
        return str(session.client("sts", region_name=region).get_caller_identity()["Account"])
    except Exception as exc:  # the caller turns a missing account into a clear error
        logger.debug("error=<%s> | sts get-caller-identity failed", exc)
        return None


def resolve_model_id(model_id: str, session: Any) -> str:
    """`model_id` with a scrubbed `<AWS_ACCOUNT_ID>` replaced by the account of the credentials in use.

    Raises:
        ModelIdError: If the account cannot be found (a Bedrock API key alone does not name one).
    """
    if ACCOUNT_PLACEHOLDER not in model_id:
        return model_id
    account = _account_id(session)
    if account is None:
        raise ModelIdError(
            f"the model id {model_id!r} is an ARN whose account id was scrubbed when it was recorded, and the "
            "account of the credentials in use could not be found (set AWS_ACCOUNT_ID, or use credentials STS can "
            "identify). Or pass the full ARN with --model-id."
        )
    return model_id.replace(ACCOUNT_PLACEHOLDER, account)


def bedrock_live_model(
    model_id: str,
    *,
    region: str | None = None,
    profile: str | None = None,
    streaming: bool = True,
    endpoint_url: str | None = None,
    api_key: str | None = None,
) -> LiveModel:
    """A live `BedrockModel` and the credentials it uses (for scrubbing, never stored).

    Args:
        model_id: A model id, inference profile id or ARN (a scrubbed account id is filled in).
        region: AWS region. Default None: the profile's, else `AWS_REGION`/`AWS_DEFAULT_REGION`.
        profile: AWS profile. Default None: `AWS_PROFILE`, else the default chain.
        streaming: ConverseStream (True, the default) or Converse.
        endpoint_url: bedrock-runtime endpoint. Default None: boto3's configuration.
        api_key: A Bedrock API key. Default None: `AWS_BEARER_TOKEN_BEDROCK` if set.

    Raises:
        LiveExtraMissingError: If boto3 (the `live` extra) is not installed.
        CredentialsMissingError: If neither AWS credentials nor a Bedrock API key resolve, or the
            profile does not exist.
        ModelIdError: If `model_id` holds a scrubbed account id that cannot be resolved.
    """
    try:
        # optional extra: live
        import boto3
        import botocore.exceptions
    except ImportError as exc:
        raise LiveExtraMissingError(f"recording needs boto3; install the live extra: {LIVE_INSTALL} ({exc})") from None
    from strands.models.bedrock import BedrockModel

    bearer = api_key or os.environ.get(BEARER_ENV) or None
    try:
        session = boto3.Session(profile_name=profile, region_name=region)
        secrets = credential_values(session)
    except botocore.exceptions.BotoCoreError as exc:
        raise CredentialsMissingError(
            f"AWS credentials must resolve; got {type(exc).__name__}: {exc}. Name a profile that exists in "
            "~/.aws/config (--profile NAME or AWS_PROFILE), set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or set a "
            f"Bedrock API key in {BEARER_ENV}."
        ) from None
    if not secrets and not bearer:
        raise CredentialsMissingError(
            "recording needs AWS credentials or a Bedrock API key; none were found in the environment "
            f"(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, {BEARER_ENV}), the shared files or "
            f"{'profile ' + repr(profile) if profile else 'AWS_PROFILE'}. Set them, or pass --profile NAME. "
            "They are used for the call only and never written."
        )
    if bearer:
        secrets.append(bearer)
    resolved = resolve_model_id(model_id, session)
    if bearer and api_key:
        auth = "Bedrock API key (api_key)"
    elif bearer and not secrets[:-1]:
        auth = f"Bedrock API key ({BEARER_ENV})"
    else:
        method = getattr(session.get_credentials(), "method", "unknown")
        auth = f"SigV4 ({method})" + (f", or {BEARER_ENV} where botocore prefers it" if bearer else "")
    model = BedrockModel(
        model_id=resolved,
        boto_session=session,
        streaming=streaming,
        endpoint_url=endpoint_url,
        api_key=api_key or None,
    )
    region_name = model.client.meta.region_name
    logger.debug("model_id=<%s>, region=<%s>, auth=<%s> | bedrock model built", resolved, region_name, auth)
    return LiveModel(model=model, provider="bedrock", secrets=tuple(secrets), region=region_name, auth=auth)


def bedrock_model(
    model_id: str, *, region: str | None = None, profile: str | None = None, streaming: bool = True
) -> tuple[Any, list[str]]:
    """`(model, secrets)` from `bedrock_live_model`, for callers that want the pair."""
    live = bedrock_live_model(model_id, region=region, profile=profile, streaming=streaming)
    return live.model, list(live.secrets)
