"""Headless Chromium for the page and JupyterLab tests (importable as `browser`).

Debian's `chromium` driven by playwright (`executable_path`; playwright never downloads a browser
here). `.ci/run` installs chromium when it is missing, so CI runs these tests; a local machine
without it skips them with the install command.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = os.environ.get("STRUCTSIM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
LOCAL_HOSTS = {None, "", "127.0.0.1", "localhost", "[::1]", "::1"}
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# What JupyterLab itself says while it starts, none of it ours: requests it aborts while the page loads, and
# the warning Chromium logs when JupyterLab closes a kernel websocket it is still opening (it opens another at
# once; a kernel that never connects fails the test sooner, when its cell gives no output). CI saw that warning
# once, on a run where everything else passed. And a warning JupyterLab 4.6 logs from its own windowed
# notebook (`TypeError ... reading 'cellRef'`, every frame of its stack in jlab_core) when it measures a cell
# not yet attached: seen once, in a whole-suite run on Python 3.13 under load; our outputs hold no such name.
JUPYTERLAB_CHATTER = (
    "requestfailed: http",
    "Failed to load resource",
    "WebSocket is closed before the connection is established",
    "Cannot read properties of undefined (reading 'cellRef')",
)


@dataclass
class Console:
    """What a page said: console errors and warnings, uncaught exceptions, failed requests."""

    messages: list[str] = field(default_factory=list)

    def problems(self, *, ignore: tuple[str, ...] = ()) -> list[str]:
        return [m for m in self.messages if not any(part in m for part in ignore)]


def launch(playwright: Any) -> Any:
    """Debian's chromium through playwright, headless, with the flags the brief asks for."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)


def require_chromium() -> Any:
    """playwright's sync API, or a skip (a failure on CI) saying what to install."""
    if not Path(CHROMIUM).exists():
        message = "Debian's chromium is needed for the browser tests: apt-get install -y chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return pytest.importorskip("playwright.sync_api", reason='pip install -e ".[dev]" brings playwright')


def open_page(chromium: Any, url: str, *, width: int = 1280, height: int = 900) -> tuple[Any, Console]:
    """A new page at `url` whose console problems are collected; requests off this machine are refused."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    # Tests use this machine only: anything else (an nbconvert page's CDN scripts) is refused at once.
    context.route(lambda url: urlsplit(url).hostname not in LOCAL_HOSTS, lambda route: route.abort())
    page = context.new_page()
    console = Console()
    page.on(
        "console", lambda m: console.messages.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda error: console.messages.append(f"pageerror: {error}"))
    page.on("requestfailed", lambda request: console.messages.append(f"requestfailed: {request.url}"))
    page.goto(url)
    return page, console


def notebook_html(folder: Path, displays: dict[str, Any]) -> Path:
    """A notebook whose cells display `displays` (name -> object), as nbconvert's HTML; no kernel runs.

    Each cell's output is what IPython saves for an object with `_repr_html_`: its HTML and its repr.
    """
    import nbformat
    from nbconvert import HTMLExporter

    notebook = nbformat.v4.new_notebook()
    for count, (name, shown) in enumerate(displays.items(), start=1):
        data = {"text/html": shown._repr_html_(), "text/plain": repr(shown)}
        output = nbformat.v4.new_output("execute_result", data=data, execution_count=count)
        notebook.cells.append(nbformat.v4.new_code_cell(name, outputs=[output], execution_count=count))
    body, _ = HTMLExporter().from_notebook_node(notebook)
    path = folder / "displays.html"
    path.write_text(body, encoding="utf-8")
    return path


#: Per notebook output: table cells whose content spills out of them (text under a neighbour), and
#: tables wider than their output (a part only a sideways scroll shows).
LAYOUT_PROBLEMS = """() => [...document.querySelectorAll('.jp-OutputArea-output')].map(output => {
    const spilled = [...output.querySelectorAll('table.ss-grid td, table.ss-grid th')]
        .filter(cell => cell.scrollWidth > cell.clientWidth + 1)
        .map(cell => cell.textContent.trim().slice(0, 60));
    const hidden = [...output.querySelectorAll('.ss-scroll')]
        .filter(box => box.scrollWidth > box.clientWidth + 1)
        .map(box => box.querySelector('th') ? box.querySelector('tr').textContent.trim().slice(0, 60) : '');
    return {spilled, hidden};
})"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(url: str, server: subprocess.Popen, log: Path, *, seconds: float) -> None:
    """Until `url` answers; fails at once, with the server's log, if the server exits."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310  (loopback only)
                return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not come up at {url}:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)


@contextmanager
def jupyterlab(root: Path) -> Iterator[str]:
    """A real JupyterLab serving `root` on 127.0.0.1 with its own settings (under `root/jupyter`).

    Yields the URL of the notebook `name` as `url.format(name=...)`: `http://127.0.0.1:<port>/lab/tree/{name}?token=...`.
    Its own data folder means a fresh notebook-trust database: every notebook it opens is untrusted.
    """
    port, token = _free_port(), secrets.token_hex(16)
    home = root / "jupyter"
    # No "get official Jupyter news?" prompt over the page.
    notification = home / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text('{"fetchNews": "false", "checkForUpdates": false}', encoding="utf-8")
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}", "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly",
        "--allow-root",  # CI runs as root
    ]  # fmt: skip
    with (home / "server.log").open("wb") as log:
        server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_for(f"http://127.0.0.1:{port}/api/status?token={token}", server, home / "server.log", seconds=90)
            yield f"http://127.0.0.1:{port}/lab/tree/{{name}}?token={token}&reset"
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
