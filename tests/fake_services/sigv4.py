"""Check an AWS Signature Version 4 `Authorization` header, independently of botocore.

The fake service recomputes the signature from the request it received (method, path, query,
the signed headers, the payload hash) and the secret key it knows for the access key id, as AWS
does (docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote

_AUTH = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request, "
    r"SignedHeaders=(?P<signed>[^,]+), Signature=(?P<signature>[0-9a-f]{64})$"
)


@dataclass(frozen=True)
class Signature:
    """What a SigV4 header claims."""

    access_key: str
    date: str
    region: str
    service: str
    signed_headers: list[str]
    signature: str


def parse(authorization: str) -> Signature | None:
    """The parts of a SigV4 `Authorization` header, or None if it is not one."""
    match = _AUTH.match(authorization or "")
    if not match:
        return None
    return Signature(
        access_key=match["key"],
        date=match["date"],
        region=match["region"],
        service=match["service"],
        signed_headers=match["signed"].split(";"),
        signature=match["signature"],
    )


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def expected_signature(
    signature: Signature, *, secret_key: str, method: str, raw_path: str, headers: dict[str, str], body: bytes
) -> str:
    """The signature AWS computes for this request; `headers` keys are lower-case."""
    path, _, query = raw_path.partition("?")
    canonical_uri = quote(path, safe="/~")  # every service but S3 encodes the (already encoded) path again
    pairs = sorted(parse_qsl(query, keep_blank_values=True))
    canonical_query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in pairs)
    canonical_headers = "".join(
        f"{name}:{' '.join(headers.get(name, '').split())}\n" for name in signature.signed_headers
    )
    payload_hash = headers.get("x-amz-content-sha256") or hashlib.sha256(body).hexdigest()
    if payload_hash != "UNSIGNED-PAYLOAD" and payload_hash != hashlib.sha256(body).hexdigest():
        return "payload hash does not match the body"
    canonical_request = "\n".join(
        [method, canonical_uri, canonical_query, canonical_headers, ";".join(signature.signed_headers), payload_hash]
    )
    scope = f"{signature.date}/{signature.region}/{signature.service}/aws4_request"
    string_to_sign = "\n".join(
        [
            "AWS4-HMAC-SHA256",
            headers.get("x-amz-date", ""),
            scope,
            hashlib.sha256(canonical_request.encode()).hexdigest(),
        ]
    )
    key = _hmac(("AWS4" + secret_key).encode("utf-8"), signature.date)
    for part in (signature.region, signature.service, "aws4_request"):
        key = _hmac(key, part)
    return hmac.new(key, string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
