"""Headless Chromium for the page and JupyterLab tests (importable as `browser`).

Debian's `chromium` driven by playwright (`executable_path`; playwright never downloads a browser
here). `.ci/run` installs chromium when it is missing, so CI runs these tests; a local machine
without it skips them with the install command.
"""

from __future__ import annotations

import os
import shutil
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
