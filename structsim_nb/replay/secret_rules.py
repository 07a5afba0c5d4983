"""The secret kinds a recording must never hold, as named rules.

Most patterns come from detect-secrets' plugins (`detect_secrets.plugins.*`, their `denylist`),
so they are maintained where secret formats are tracked; `DETECT_SECRETS_PLUGINS` names the
plugins used. Rules are added here only for what those plugins miss or match too loosely to
replace safely: AWS session tokens and account ids inside ARNs, bearer tokens and Bedrock API
keys, Anthropic keys and current OpenAI keys (`sk-proj-...`), GitHub fine-grained tokens, Google
API keys, whole private-key blocks, JWTs with their signature, and `password`/`secret`-named
values written as text (`password: hunter2`). Values stored under a secret-sounding key in
structured data (`{"api_key": "..."}`) are handled by `is_secret_key`.

Each rule replaces one span (the whole match, or one group) with a fixed placeholder such as
`<AWS_ACCESS_KEY_ID>`, so scrubbed JSON stays valid, placeholders never match a rule again
(scrubbing twice changes nothing), and an ARN keeps its shape: only the account id becomes
`<AWS_ACCOUNT_ID>`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ACCOUNT_PLACEHOLDER",
    "DETECT_SECRETS_PLUGINS",
    "REDACTED",
    "ScrubRule",
    "builtin_rules",
    "check_rules",
    "is_secret_key",
    "literal_rules",
]

ACCOUNT_PLACEHOLDER = "<AWS_ACCOUNT_ID>"
REDACTED = "<REDACTED>"
CREDENTIAL_PLACEHOLDER = "<CREDENTIAL_IN_USE>"


@dataclass(frozen=True)
class ScrubRule:
    """A named pattern whose match (or group `group` of it) is replaced by `placeholder`.

    Attributes:
        name: Reported in a recording's `provenance.scrubbed` with the number of replacements.
        pattern: The compiled pattern.
        placeholder: The fixed replacement text.
        group: 0 replaces the whole match; n replaces only group n (the secret after its label).
    """

    name: str
    pattern: re.Pattern[str]
    placeholder: str
    group: int = 0


#: detect-secrets plugin class -> (rule name, placeholder, group replaced in each denylist pattern).
#: Left out: the entropy and keyword plugins (they flag ids and prose), the public-IP plugin (an
#: address is not a credential), OpenAIDetector's pattern (only legacy keys; see `_OWN_RULES`),
#: JwtTokenDetector's (it stops before the signature), PrivateKeyDetector's (only the header
#: line), and vendor keys whose patterns match ordinary words (Artifactory, Twilio).
DETECT_SECRETS_PLUGINS: dict[str, tuple[str, str, int]] = {
    "AWSKeyDetector": ("aws_access_key", "<AWS_ACCESS_KEY>", -1),
    "AzureStorageKeyDetector": ("azure_storage_key", "AccountKey=<AZURE_STORAGE_KEY>", 0),
    "BasicAuthDetector": ("basic_auth_password", "<PASSWORD>", 1),
    "DiscordBotTokenDetector": ("discord_bot_token", "<DISCORD_BOT_TOKEN>", 0),
    "GitHubTokenDetector": ("github_token", "<GITHUB_TOKEN>", 0),
    "GitLabTokenDetector": ("gitlab_token", "<GITLAB_TOKEN>", 0),
    "MailchimpDetector": ("mailchimp_key", "<MAILCHIMP_KEY>", 0),
    "PypiTokenDetector": ("pypi_token", "<PYPI_TOKEN>", 0),
    "SendGridDetector": ("sendgrid_key", "<SENDGRID_KEY>", 0),
    "SlackDetector": ("slack_token", "<SLACK_TOKEN>", 0),
    "SquareOAuthDetector": ("square_oauth_secret", "<SQUARE_OAUTH_SECRET>", 0),
    "StripeDetector": ("stripe_key", "<STRIPE_KEY>", 0),
    "TelegramBotTokenDetector": ("telegram_bot_token", "<TELEGRAM_BOT_TOKEN>", 0),
}

_OWN_RULES: list[tuple[str, str, str, int]] = [
    # (name, pattern, placeholder, group); order matters: longer, more specific formats first.
    (
        "private_key",
        # to its END line, or to the end of the text when it was cut off
        r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK|)-----.*?(?:-----END \1PRIVATE KEY\2-----|\Z)",
        "<PRIVATE_KEY>",
        0,
    ),
    ("private_key", r"PuTTY-User-Key-File-\d: .*?Private-MAC: [0-9a-fA-F]+", "<PRIVATE_KEY>", 0),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*", "<JWT>", 0),
    ("aws_session_token", r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9/+=]{16,}", "<AWS_SESSION_TOKEN>", 0),
    ("aws_account_id", r"\barn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:(\d{12}):", ACCOUNT_PLACEHOLDER, 1),
    (
        "aws_secret_access_key",
        r"(?i)\b(?:aws_)?secret_?access_?key[\"']?\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        "<AWS_SECRET_ACCESS_KEY>",
        1,
    ),
    ("bedrock_api_key", r"\bABSK[A-Za-z0-9+/=]{24,}", "<BEDROCK_API_KEY>", 0),
    ("bedrock_api_key", r"\bbedrock-api-key-[A-Za-z0-9+/=_%&.-]{24,}", "<BEDROCK_API_KEY>", 0),
    ("anthropic_api_key", r"\bsk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_-]{20,}", "<ANTHROPIC_API_KEY>", 0),
    ("openai_api_key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{32,}", "<OPENAI_API_KEY>", 0),
    ("github_token", r"\bgithub_pat_[A-Za-z0-9_]{60,}", "<GITHUB_TOKEN>", 0),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}", "<GOOGLE_API_KEY>", 0),
    # A token holds a digit or a symbol, or is long: "bearer certificates" is English, not a credential.
    (
        "bearer_token",
        r"(?i)\bbearer\s+((?=[A-Za-z]*[0-9._~+/-]|[A-Za-z]{20})[A-Za-z0-9._~+/-]{12,}=*)",
        "<BEARER_TOKEN>",
        1,
    ),
    (
        "secret_assignment",
        r"(?i)\b(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
        r"[\"']?\s*[:=]\s*[\"']?([^\s\"'<>,;]{4,})",
        REDACTED,
        1,
    ),
]

#: Words that name a secret wherever they stand in a key (`db_password`, `secretKey`, `credentials`), as whole
#: words: `secretary` and `passwordless` are not secrets.
_SECRET_WORDS = frozenset({"password", "passwd", "passphrase", "secret", "secrets", "credential", "credentials"})
#: Secrets named by two words, and single words above written together with others: a key whose letters end so
#: names one (`x-api-key`, `refresh_token`, `dbpassword`, `clientsecret`); `access_key_holder` or `private_key_id`
#: does not.
_SECRET_ENDINGS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "credentials",
    "apikey",
    "accesstoken",
    "authtoken",
    "refreshtoken",
    "sessiontoken",
    "bearertoken",
    "privatekey",
    "accesskey",
)
_SECRET_KEYS_EXACT = frozenset({"pwd", "token", "authorization", "xapikey"})
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def is_secret_key(key: str) -> bool:
    """Whether a mapping key names a secret (`password`, `db_password`, `apiKey`, `client_secret`, ...).

    A key names a secret when one of its words is `password`, `secret`, `credential` (or a close
    form), or when it ends with a secret's name (`api_key`, `refreshToken`, `privatekey`, ...), or
    is `token`, `pwd` or `authorization`. Words are split at `_`, `-`, spaces and camelCase, so
    `secretary`, `token_count`, `access_key_holder` and `private_key_id` are not secrets.

    Examples:
        >>> is_secret_key("apiKey"), is_secret_key("x-api-key"), is_secret_key("description")
        (True, True, False)
        >>> is_secret_key("secretary"), is_secret_key("client_secret"), is_secret_key("private_key_id")
        (False, True, False)
    """
    letters = re.sub(r"[^a-z]", "", key.lower())
    if letters in _SECRET_KEYS_EXACT or letters.endswith(_SECRET_ENDINGS):
        return True
    return any(word.lower() in _SECRET_WORDS for word in _KEY_WORDS.findall(key))


def _plugin_classes() -> dict[str, Any]:
    """detect-secrets' plugin classes by class name."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    mapping: dict[str, Any] = dict(get_mapping_from_secret_type_to_class())
    return {str(plugin.__name__): plugin for plugin in mapping.values()}


@functools.lru_cache(maxsize=1)
def builtin_rules() -> tuple[ScrubRule, ...]:
    """Every built-in rule: the private-key, token and ARN rules first, then detect-secrets' patterns.

    Built once per process (the detect-secrets plugins are imported on the first call).
    """
    rules = [
        ScrubRule(name, re.compile(pattern, re.DOTALL if name == "private_key" else 0), placeholder, group)
        for name, pattern, placeholder, group in _OWN_RULES
    ]
    plugins = _plugin_classes()
    for class_name, (name, placeholder, group) in DETECT_SECRETS_PLUGINS.items():
        for pattern in plugins[class_name]().denylist:
            # AWSKeyDetector: the key id pattern has no group, the secret-key pattern captures the key.
            chosen = (1 if pattern.groups else 0) if group == -1 else group
            rules.append(ScrubRule(name, pattern, placeholder, chosen))
    return tuple(rules)


#: detect-secrets plugins whose patterns only detect (they match a label, not the secret's extent):
#: run by the post-write check, so a file holding one is refused rather than written.
CHECK_ONLY_PLUGINS = ("PrivateKeyDetector", "CloudantDetector", "IbmCloudIamDetector", "IbmCosHmacDetector")


@functools.lru_cache(maxsize=1)
def check_rules() -> tuple[ScrubRule, ...]:
    """`builtin_rules()` plus detect-secrets' detection-only patterns (`CHECK_ONLY_PLUGINS`)."""
    plugins = _plugin_classes()
    extra = [
        ScrubRule(name.removesuffix("Detector").lower(), pattern, "")
        for name in CHECK_ONLY_PLUGINS
        for pattern in plugins[name]().denylist
    ]
    return (*builtin_rules(), *extra)


def literal_rules(secrets: tuple[str, ...] | list[str]) -> list[ScrubRule]:
    """One rule per literal secret (the credentials in use); values shorter than 8 characters are skipped."""
    unique = sorted({secret for secret in secrets if secret and len(secret) >= 8}, key=len, reverse=True)
    return [ScrubRule("credentials_in_use", re.compile(re.escape(secret)), CREDENTIAL_PLACEHOLDER) for secret in unique]
