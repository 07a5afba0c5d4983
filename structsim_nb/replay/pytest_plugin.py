"""A pytest plugin: your tests replay recorded agent exchanges offline and re-record them on demand.

Installed with the package (entry point `pytest11`), in the conventions of vcrpy/pytest-recording:

- `recorded_model`: a Strands model for the test. It replays the test's recording, or records it
  against the model `live_model` builds, depending on the record mode. Recording happens only if
  the test passed; replay fails the test (at teardown) when recorded calls were never requested.
- `recording_path`: the test's recording, `<test folder>/recordings/<module>/<test name>.json`
  by default; `@pytest.mark.recording("path.json")` names another (relative to the test file).
- `live_model`: override it (in a `conftest.py`) to return a factory of your live model, such as
  `lambda: BedrockModel(model_id=...)`. It is called only when recording.
- `--record-mode`: `none` replays only (a missing recording is an error, nothing live is built),
  `once` records the recordings that are missing and replays the others, `rewrite` re-records
  every recording the selected tests use. Default: `none` when `CI` is set, else `once`; the
  `STRUCTSIM_NB_RECORD_MODE` variable (`replay`, `once`, `rewrite`) overrides that default.

If pytest-recording is installed too, its `--record-mode` option is shared (`all` means `rewrite`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..errors import RecordingNotFoundError
from .recorder import RECORD_MODE_ENV, RecordMode, open_model

__all__ = ["MODES", "effective_mode"]

#: The option's choices and the record mode each runs.
MODES: dict[str, RecordMode] = {"none": RecordMode.REPLAY, "once": RecordMode.ONCE, "rewrite": RecordMode.REWRITE}
_ALIASES = {"all": "rewrite", "replay": "none"}  # pytest-recording's name; the toolkit's own name


class _TestFailed(Exception):
    """Thrown into the recording block when the test failed, so nothing is written."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("structsim-nb", "replay and record agent exchanges (structsim-nb)")
    try:
        group.addoption(
            "--record-mode",
            action="store",
            default=None,
            choices=sorted(MODES),
            help="none: replay only; once: record missing recordings; rewrite: re-record. "
            "Default: none when CI is set, else once ($STRUCTSIM_NB_RECORD_MODE overrides the default).",
        )
    except ValueError:  # pytest-recording already added it; its value is read the same way
        pass


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "recording(path): the recording this test's recorded_model uses (relative to the test file)"
    )


def effective_mode(option: str | None, environ: dict[str, str] | os._Environ[str] | None = None) -> RecordMode:
    """The record mode: `--record-mode`, else `$STRUCTSIM_NB_RECORD_MODE`, else `none` in CI and `once` elsewhere.

    Raises:
        pytest.UsageError: For a mode this plugin does not run (pytest-recording's `new_episodes`).

    Examples:
        >>> effective_mode(None, {"CI": "true"}).value, effective_mode(None, {}).value
        ('replay', 'once')
    """
    env = os.environ if environ is None else environ
    chosen = option or env.get(RECORD_MODE_ENV) or ("none" if env.get("CI") else "once")
    chosen = _ALIASES.get(chosen, chosen)
    if chosen not in MODES:
        raise pytest.UsageError(
            f"--record-mode (or ${RECORD_MODE_ENV}) must be one of {', '.join(sorted(MODES))}; got {chosen!r}"
        )
    return MODES[chosen]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember whether the test body failed, so `recorded_model` never writes a failed run."""
    report: pytest.TestReport = yield
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed
    return report


_CALL_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def structsim_record_mode(request: pytest.FixtureRequest) -> RecordMode:
    """The record mode of this run (see `effective_mode`)."""
    return effective_mode(request.config.getoption("--record-mode", default=None))


@pytest.fixture
def recording_path(request: pytest.FixtureRequest) -> Path:
    """The test's recording: the `recording` marker's path, else `recordings/<module>/<test name>.json` beside it."""
    folder = Path(str(request.node.path)).parent
    marker = request.node.get_closest_marker("recording")
    if marker is not None and marker.args:
        return folder / str(marker.args[0])
    name = request.node.name.replace("/", "_").replace("[", "-").replace("]", "").replace(" ", "_")
    return folder / "recordings" / Path(str(request.node.path)).stem / f"{name}.json"


@pytest.fixture
def live_model() -> Callable[[], Any]:
    """Override this fixture to return a factory of your live model; called only when recording."""

    def missing() -> Any:
        raise pytest.UsageError(
            "recording needs a live model: define a `live_model` fixture (in conftest.py) returning a factory, "
            "e.g. `return lambda: BedrockModel(model_id=...)`"
        )

    return missing


@pytest.fixture
def recorded_model(
    request: pytest.FixtureRequest,
    recording_path: Path,
    structsim_record_mode: RecordMode,
    live_model: Callable[[], Any],
) -> Iterator[Any]:
    """A model that replays `recording_path`, or records it (per `--record-mode`); checked or saved at teardown."""
    if structsim_record_mode is RecordMode.REPLAY and not recording_path.exists():
        raise RecordingNotFoundError(
            f"no recording at '{recording_path}' and --record-mode is none (replay only; the default when CI is "
            f"set). Record it with: pytest --record-mode=once {request.node.nodeid}",
            path=str(recording_path),
        )
    context = open_model(
        recording_path,
        mode=structsim_record_mode,
        live=live_model,
        rerecord_command=f"pytest --record-mode=rewrite {request.node.nodeid}",
        note=f"Live capture by the structsim-nb pytest plugin for {request.node.nodeid}; review before committing.",
    )
    model = context.__enter__()
    yield model
    if request.node.stash.get(_CALL_FAILED, False):
        context.__exit__(_TestFailed, _TestFailed("the test failed"), None)  # writes nothing, checks nothing
    else:
        context.__exit__(None, None, None)
