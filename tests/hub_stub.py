"""A HuggingFace hub on 127.0.0.1 that speaks the hub's HTTP API for one dataset repository.

`datasets.load_dataset("owner/name")` (through `huggingface_hub`) asks a hub for: the card
(`HEAD`/`GET /datasets/{repo}/resolve/{rev}/README.md`, answered with `X-Repo-Commit` and `ETag`),
the repository at a revision (`GET /api/datasets/{repo}/revision/{rev}`), folder listings
(`GET /api/datasets/{repo}/tree/{rev}/{path}`), optional files it probes for (a loading script,
`.huggingface.yaml`, `dataset_infos.json`: 404 with `X-Error-Code: EntryNotFound`), and the data files
(`resolve/{rev}/data/...`). This server answers those from an in-memory file map, and records every
request, so a test can point `HF_ENDPOINT` at it and run the real client end to end, offline.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import urllib.parse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

SHA = "5" * 40


def _etag(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    repo: str = ""
    files: Mapping[str, bytes] = {}
    requests: list[str] = []

    def _send(self, code: int, body: bytes, headers: Mapping[str, str], head: bool) -> None:
        self.send_response(code)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _json(self, code: int, value: object, head: bool = False, headers: Mapping[str, str] | None = None) -> None:
        self._send(code, json.dumps(value).encode(), {"Content-Type": "application/json", **(headers or {})}, head)

    def _route(self, head: bool) -> None:
        url = urllib.parse.urlparse(self.path)
        path = urllib.parse.unquote(url.path)
        self.requests.append(f"{self.command} {path}")
        resolve = f"/datasets/{self.repo}/resolve/"
        api = f"/api/datasets/{self.repo}"
        if path.startswith(resolve):
            _, _, name = path[len(resolve) :].partition("/")
            if name in self.files:
                data = self.files[name]
                headers = {"ETag": f'"{_etag(data)}"', "X-Repo-Commit": SHA, "Content-Type": "application/octet-stream"}
                return self._send(200, data, headers, head)
            return self._json(404, {"error": "Entry not found"}, head, {"X-Error-Code": "EntryNotFound"})
        if path in (api, f"{api}/revision/main", f"{api}/revision/{SHA}"):
            info = {"id": self.repo, "sha": SHA, "private": False, "gated": False, "disabled": False}
            return self._json(200, {**info, "siblings": [{"rfilename": name} for name in self.files]}, head)
        if path.startswith(f"{api}/tree/"):
            _, _, folder = path[len(f"{api}/tree/") :].partition("/")
            return self._json(200, self._listing(folder.strip("/"), "recursive=true" in url.query.lower()), head)
        return self._json(404, {"error": "Repository not found"}, head, {"X-Error-Code": "RepoNotFound"})

    def _listing(self, folder: str, recursive: bool) -> list[dict[str, object]]:
        entries: list[dict[str, object]] = []
        folders: set[str] = set()
        for name, data in self.files.items():
            if folder and not name.startswith(folder + "/"):
                continue
            rest = name[len(folder) + 1 :] if folder else name
            if "/" in rest and not recursive:
                folders.add(f"{folder}/{rest.split('/')[0]}" if folder else rest.split("/")[0])
                continue
            entries.append({"type": "file", "oid": _etag(data), "size": len(data), "path": name})
        entries += [{"type": "directory", "oid": "d" * 40, "size": 0, "path": name} for name in sorted(folders)]
        return entries

    def do_GET(self) -> None:  # noqa: N802 - the http.server interface
        self._route(head=False)

    def do_HEAD(self) -> None:  # noqa: N802 - the http.server interface
        self._route(head=True)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve_dataset(repo: str, files: Mapping[str, bytes]) -> Iterator[tuple[str, list[str]]]:
    """Serve `files` as the dataset repository `repo` on 127.0.0.1; yields `(endpoint, requests)`."""
    requests: list[str] = []
    handler = type("Handler", (_Handler,), {"repo": repo, "files": dict(files), "requests": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
