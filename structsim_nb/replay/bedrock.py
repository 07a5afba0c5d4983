"""Bedrock as the live model behind a recording: credentials resolved by boto3, never stored."""

from __future__ import annotations

from typing import Any

from strands.models import Model

from ..errors import CredentialsMissingError, LiveExtraMissingError

__all__ = ["LIVE_INSTALL", "bedrock_model", "credential_values"]

LIVE_INSTALL = 'pip install "structsim-nb[live]"'


def credential_values(session: Any) -> list[str]:
    credentials = session.get_credentials()
    if credentials is None:
        return []
    frozen = credentials.get_frozen_credentials()
    return [value for value in (frozen.access_key, frozen.secret_key, frozen.token) if value]


def bedrock_model(
    model_id: str, *, region: str | None = None, profile: str | None = None, streaming: bool = True
) -> tuple[Model, list[str]]:
    """A live `BedrockModel` and the credential strings in use (for scrubbing, never stored).

    Credentials come from the environment or the AWS profile (`profile`, else `AWS_PROFILE`),
    resolved by boto3 as usual.

    Raises:
        LiveExtraMissingError: If boto3 (the `live` extra) is not installed.
        CredentialsMissingError: If no credentials resolve, or the profile does not exist.
    """
    try:
        # optional extra: live
        import boto3
        import botocore.exceptions
    except ImportError as exc:
        raise LiveExtraMissingError(f"recording needs boto3; install the live extra: {LIVE_INSTALL} ({exc})") from None
    from strands.models.bedrock import BedrockModel

    try:
        session = boto3.Session(profile_name=profile, region_name=region)
        secrets = credential_values(session)
    except (botocore.exceptions.ProfileNotFound, botocore.exceptions.BotoCoreError) as exc:
        raise CredentialsMissingError(
            f"AWS credentials must resolve; got {type(exc).__name__}: {exc}. Name a profile that exists in "
            "~/.aws/config (--profile NAME or AWS_PROFILE), or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY."
        ) from None
    if not secrets:
        raise CredentialsMissingError(
            "recording needs AWS credentials; none were found in the environment "
            "(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), the shared files or "
            f"{'profile ' + repr(profile) if profile else 'AWS_PROFILE'}. Set them, or pass --profile NAME. "
            "They are used for the call only and never written."
        )
    model = BedrockModel(model_id=model_id, boto_session=session, streaming=streaming)
    return model, secrets
