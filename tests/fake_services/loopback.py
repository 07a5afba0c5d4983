"""A scripted HTTP/1.1 server on 127.0.0.1: the shared base of the fake services.

With `tls=True` it serves HTTPS with a certificate from a throwaway CA (trustme); `ca_bundle` is
that CA's PEM file, which a client trusts through its usual setting (`AWS_CA_BUNDLE`,
`SSL_CERT_FILE`). A subclass implements `handle(request) -> Reply | None`: a complete reply (status, headers, body)
or a streamed one (`chunks`, sent with `Transfer-Encoding: chunked`, flushed one by one, as a
service streams). Every request is logged in `requests` with its headers and body.
"""

from __future__ import annotations

import collections
import json
import ssl
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Imported here, not when a service starts: pytester's in-process runs drop modules imported during them, and a
# re-imported cryptography no longer accepts its own curve objects.
import trustme


@dataclass
class Received:
    """One request as the server read it; `headers` keys are lower-case."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    notes: dict[str, Any] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body or b"null")


@dataclass
class Reply:
    """What to send back: `body` at once, or `chunks` one at a time with chunked transfer encoding."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: Iterable[bytes] | None = None


def json_reply(status: int, value: Any, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(value).encode())


class LoopbackService:
    """Start with `with Service(...) as service:`; `service.url` is `http://127.0.0.1:<port>`.

    Scripted replies are queued with `queue(...)` and consumed in order; a request that finds the
    queue empty gets a 500 and is recorded in `problems`, so a test fails loudly instead of hanging.
    """

    name = "fake"

    def __init__(self, *, tls: bool = False) -> None:
        self.tls = tls
        self.ca_bundle: str | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.requests: list[Received] = []
        self.problems: list[str] = []
        self._script: collections.deque[Any] = collections.deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------------
    def queue(self, item: Any) -> None:
        with self._lock:
            self._script.append(item)

    def next_scripted(self) -> Any:
        with self._lock:
            return self._script.popleft() if self._script else None

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._lock:
            return len(self._script)

    def handle(self, request: Received) -> Reply:  # pragma: no cover - subclasses implement it
        raise NotImplementedError

    # -- serving ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "start the service first (with ... as service)"
        host, port = self._server.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def __enter__(self) -> LoopbackService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the default stderr log
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                received = Received(
                    method=self.command,
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                with service._lock:
                    service.requests.append(received)
                try:
                    reply = service.handle(received)
                except Exception as exc:  # a bug in the fake must show up in the test, not as a hang
                    service.problems.append(f"{type(exc).__name__}: {exc}")
                    reply = json_reply(500, {"message": f"fake service error: {exc}"})
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.chunks is None:
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                    self.wfile.flush()
                    return
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for chunk in _nonempty(reply.chunks):
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            do_POST = _serve
            do_GET = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        if self.tls:
            authority = trustme.CA()
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            authority.issue_cert("127.0.0.1").configure_cert(context)
            self._tmp = tempfile.TemporaryDirectory(prefix=f"fake-{self.name}-ca-")
            self.ca_bundle = f"{self._tmp.name}/ca.pem"
            authority.cert_pem.write_to_path(self.ca_bundle)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, name=f"{self.name}-server", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        if self._tmp is not None:
            self._tmp.cleanup()


def _nonempty(chunks: Iterable[bytes]) -> Iterator[bytes]:
    for chunk in chunks:
        if chunk:  # a zero-length chunk would end the chunked body
            yield chunk
