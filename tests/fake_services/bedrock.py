"""A fake bedrock-runtime on 127.0.0.1: Converse and ConverseStream as the service speaks them.

- `POST /model/{modelId}/converse-stream` answers `application/vnd.amazon.eventstream` frames
  (`:event-type`, `:message-type`, CRC-checked prelude and message), sent chunk by chunk; a
  scripted exception is sent as an `:message-type: exception` frame mid-stream.
- `POST /model/{modelId}/converse` answers the Converse JSON document.
- Errors are the service's: the status code, `x-amzn-ErrorType` and a `{"message"}` body
  (403 AccessDeniedException, 400 ValidationException, 429 ThrottlingException, ...).
- Authentication is checked for real: a SigV4 signature is recomputed from the secret key of
  the access key id it names (and must be scoped to this service's region and carry the session
  token when the credentials have one); a bearer token (a Bedrock API key) must be a known one.
  Failures answer 403 `UnrecognizedClientException` / `InvalidSignatureException` like AWS.
- `POST /` with `Action=GetCallerIdentity` answers as STS does (XML), for the account id of a
  caller: point `AWS_ENDPOINT_URL_STS` here too.
- Request bodies and scripted events are validated against botocore's bedrock-runtime service
  model, so neither side can drift from the real shapes unnoticed.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import botocore.session
from botocore.validate import validate_parameters

from . import sigv4
from .eventstream import event_frame, exception_frame
from .loopback import LoopbackService, Received, Reply, json_reply

_SERVICE_MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")

ERROR_STATUS = {
    "AccessDeniedException": 403,
    "UnrecognizedClientException": 403,
    "InvalidSignatureException": 403,
    "ExpiredTokenException": 403,
    "ValidationException": 400,
    "ResourceNotFoundException": 404,
    "ThrottlingException": 429,
    "ModelTimeoutException": 408,
    "InternalServerException": 500,
    "ServiceUnavailableException": 503,
    "ModelNotReadyException": 429,
}


@dataclass
class StreamAnswer:
    """A ConverseStream answer: `events` framed in order, then optionally an exception frame."""

    events: list[dict[str, Any]]
    exception: tuple[str, str] | None = None


@dataclass
class ConverseAnswer:
    """A Converse answer (the JSON document)."""

    response: dict[str, Any]


@dataclass
class ErrorAnswer:
    """An error response before any output: status from `ERROR_STATUS`, `x-amzn-ErrorType`, `{"message"}`."""

    error_type: str
    message: str
    status: int | None = None


@dataclass
class Credentials:
    secret_key: str
    session_token: str | None = None


@dataclass
class FakeBedrock(LoopbackService):
    """The fake service. Configure who may call it, script answers, start it with `with`."""

    region: str = "us-east-1"
    credentials: dict[str, Credentials] = field(default_factory=dict)
    api_keys: set[str] = field(default_factory=set)
    tls: bool = True
    account_id: str = "123456789012"

    def __post_init__(self) -> None:
        LoopbackService.__init__(self, tls=self.tls)
        self.name = "bedrock"

    # -- scripting -------------------------------------------------------------------------
    def stream(self, events: list[dict[str, Any]], *, exception: tuple[str, str] | None = None) -> None:
        stream_shape = _SERVICE_MODEL.operation_model("ConverseStream").output_shape.members["stream"]
        for event in events:
            validate_parameters(event, stream_shape)
        self.queue(StreamAnswer(events, exception))

    def converse(self, response: dict[str, Any]) -> None:
        self.queue(ConverseAnswer(response))

    def error(self, error_type: str, message: str, *, status: int | None = None) -> None:
        self.queue(ErrorAnswer(error_type, message, status))

    def model_requests(self) -> list[Received]:
        """The requests that reached a model operation (authenticated and valid)."""
        return [r for r in self.requests if r.notes.get("operation")]

    # -- serving ---------------------------------------------------------------------------
    def handle(self, request: Received) -> Reply:
        if request.path == "/" and b"Action=GetCallerIdentity" in request.body:
            return self._caller_identity(request)
        parts = request.path.split("?", 1)[0].split("/")
        if request.method != "POST" or len(parts) != 4 or parts[1] != "model":
            return _error("UnknownOperationException", f"no such operation: {request.method} {request.path}", 404)
        model_id, action = unquote(parts[2]), parts[3]
        operation = {"converse-stream": "ConverseStream", "converse": "Converse"}.get(action)
        if operation is None:
            return _error("UnknownOperationException", f"no such operation: {action}", 404)
        refused = self._authenticate(request)
        if refused is not None:
            return refused
        try:
            body = json.loads(request.body or b"{}")
            validate_parameters({"modelId": model_id, **body}, _SERVICE_MODEL.operation_model(operation).input_shape)
        except Exception as exc:
            return _error("ValidationException", str(exc))
        request.notes.update(operation=operation, model_id=model_id, body=body)
        answer = self.next_scripted()
        if answer is None:
            self.problems.append(f"{operation} for {model_id} with no scripted answer")
            return _error("InternalServerException", "the fake service has no scripted answer left")
        if isinstance(answer, ErrorAnswer):
            return _error(answer.error_type, answer.message, answer.status)
        if operation == "ConverseStream" and isinstance(answer, StreamAnswer):
            return Reply(
                200,
                {"Content-Type": "application/vnd.amazon.eventstream", "x-amzn-RequestId": str(uuid.uuid4())},
                chunks=_frames(answer),
            )
        if operation == "Converse" and isinstance(answer, ConverseAnswer):
            return json_reply(200, answer.response, {"x-amzn-RequestId": str(uuid.uuid4())})
        self.problems.append(f"{operation} got a scripted {type(answer).__name__}")
        return _error("InternalServerException", f"scripted {type(answer).__name__} does not answer {operation}")

    def _caller_identity(self, request: Received) -> Reply:
        refused = self._authenticate(request, service="sts")
        if refused is not None:
            return refused
        request.notes["operation"] = "GetCallerIdentity"
        key = request.notes.get("access_key", "")
        xml = (
            '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>'
            f"<Arn>arn:aws:iam::{self.account_id}:user/recorder</Arn><UserId>AIDAFAKE{key[-4:]}</UserId>"
            f"<Account>{self.account_id}</Account></GetCallerIdentityResult>"
            f"<ResponseMetadata><RequestId>{uuid.uuid4()}</RequestId></ResponseMetadata></GetCallerIdentityResponse>"
        )
        return Reply(200, {"Content-Type": "text/xml"}, xml.encode())

    def _authenticate(self, request: Received, service: str = "bedrock") -> Reply | None:
        authorization = request.headers.get("authorization", "")
        if authorization.startswith("Bearer "):
            token = authorization.removeprefix("Bearer ")
            request.notes.update(auth="bearer", token=token)
            if token not in self.api_keys:
                return _error(
                    "UnrecognizedClientException", "Invalid API Key format: Must start with pre-defined prefix"
                )
            return None
        claimed = sigv4.parse(authorization)
        if claimed is None:
            return _error("MissingAuthenticationTokenException", "Missing Authentication Token", 403)
        token = request.headers.get("x-amz-security-token")
        request.notes.update(auth="sigv4", access_key=claimed.access_key, region=claimed.region, session_token=token)
        known = self.credentials.get(claimed.access_key)
        if known is None or (known.session_token or None) != token:
            return _error("UnrecognizedClientException", "The security token included in the request is invalid.")
        if claimed.region != self.region or claimed.service != service:
            return _error(
                "InvalidSignatureException",
                f"Credential should be scoped to a valid region and service ({self.region}/{service}); "
                f"got {claimed.region}/{claimed.service}.",
            )
        expected = sigv4.expected_signature(
            claimed,
            secret_key=known.secret_key,
            method=request.method,
            raw_path=request.path,
            headers=request.headers,
            body=request.body,
        )
        if expected != claimed.signature:
            return _error(
                "InvalidSignatureException",
                "The request signature we calculated does not match the signature you provided. Check your AWS "
                "Secret Access Key and signing method. Consult the service documentation for details.",
            )
        return None


def _frames(answer: StreamAnswer) -> Iterator[bytes]:
    for event in answer.events:
        yield event_frame(event)
    if answer.exception is not None:
        yield exception_frame(*answer.exception)


def _error(error_type: str, message: str, status: int | None = None) -> Reply:
    code = status or ERROR_STATUS.get(error_type, 400)
    return json_reply(
        code,
        {"message": message},
        {
            "x-amzn-ErrorType": f"{error_type}:http://internal.amazon.com/coral/com.amazon.bedrock/",
            "x-amzn-RequestId": str(uuid.uuid4()),
        },
    )


def tool_events(
    name: str, payload: str, cuts: list[int] | tuple[int, ...] = (), tool_id: str = "tooluse_abc123"
) -> list[dict[str, Any]]:
    """A ConverseStream tool call: `payload` (JSON text) split at `cuts`, as Bedrock streams it."""
    pieces = [payload[a:b] for a, b in zip([0, *cuts], [*cuts, len(payload)], strict=True)]
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": tool_id, "name": name}}}},
        *[{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": p}}}} for p in pieces],
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}, "metrics": {"latencyMs": 9}}},
    ]


def text_events(text: str, cuts: list[int] | tuple[int, ...] = ()) -> list[dict[str, Any]]:
    """A ConverseStream text answer split at `cuts`."""
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return [
        {"messageStart": {"role": "assistant"}},
        *[{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": p}}} for p in pieces],
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 3, "totalTokens": 13}, "metrics": {"latencyMs": 5}}},
    ]


def converse_tool(name: str, value: dict[str, Any], tool_id: str = "tooluse_x") -> dict[str, Any]:
    """A Converse response whose message is one tool call."""
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": tool_id, "name": name, "input": value}}],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }


def converse_text(text: str) -> dict[str, Any]:
    """A Converse response whose message is text."""
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }
