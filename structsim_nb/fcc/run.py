"""The FCC notebook's run: live, replay or record, the run settings, and `structsim-nb record-fcc`."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .loader import FCCDocument, load_fcc

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_MODEL_ID",
    "MODEL_ID_ENV",
    "MODE_ENV",
    "Mode",
    "ModeChoice",
    "HAND_AUTHORED_NOTE",
    "RERECORD_COMMAND",
    "RunSettings",
    "choose_mode",
    "describe_answers",
    "model_id",
    "open_fcc_model",
    "record_notebook",
    "recording_path",
    "run_settings",
]

#: A current Claude Haiku on Bedrock (cross-region inference profile); override with `MODEL_ID_ENV`.
DEFAULT_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
MODEL_ID_ENV = "STRUCTSIM_NB_FCC_MODEL_ID"
#: `auto` (default), `live` or `replay`; forces the notebook's mode.
MODE_ENV = "STRUCTSIM_NB_FCC_MODE"
#: botocore's variable for a Bedrock API key; a key there is enough to run live or record.
BEARER_ENV = "AWS_BEARER_TOKEN_BEDROCK"


def model_id() -> str:
    """The Bedrock model id to run live: `$STRUCTSIM_NB_FCC_MODEL_ID`, else `DEFAULT_MODEL_ID`."""
    return os.environ.get(MODEL_ID_ENV, "").strip() or DEFAULT_MODEL_ID


class Mode(str, enum.Enum):
    """How the notebook gets its extractions.

    Attributes:
        LIVE: Call Bedrock; write nothing.
        REPLAY: Replay the committed recordings; no credentials read, no network.
        RECORD: Call Bedrock and rewrite the recordings (what `structsim-nb record-fcc` runs).
    """

    LIVE = "live"
    REPLAY = "replay"
    RECORD = "record"


@dataclass(frozen=True)
class ModeChoice:
    """The mode picked, and why, in a sentence a notebook can print."""

    mode: Mode
    reason: str


_MODES = ("auto", "live", "replay", "record")


def choose_mode(*, requested: str | None = None, session: Any = None) -> ModeChoice:
    """Live when Bedrock credentials resolve, otherwise replay.

    Args:
        requested: `"auto"`, `"live"`, `"replay"` or `"record"`. Default None:
            `$STRUCTSIM_NB_FCC_MODE`, else `"auto"`. `"replay"` never reads credentials; `"live"`
            and `"record"` still require them.
        session: A `boto3.Session` to resolve credentials with. Default None (a new default
            session: environment, shared files, SSO, instance roles, as boto3 resolves them).

    Returns:
        `ModeChoice`. Credentials count as resolving when a Bedrock API key is set
        (`AWS_BEARER_TOKEN_BEDROCK`) or boto3 returns an access key and secret (refreshable
        credentials are refreshed, so an expired SSO session falls back to replay). Static
        credentials that have expired still resolve; the live calls then fail, each case says
        why, and the run goes on.

    Raises:
        ValueError: If the mode is unknown, or `"live"`/`"record"` is requested without credentials.
    """
    wanted = (requested or os.environ.get(MODE_ENV, "") or "auto").strip().lower()
    if wanted not in _MODES:
        valid = ", ".join(map(repr, _MODES))
        raise ValueError(f"mode must be one of {valid} (argument or ${MODE_ENV}); got {wanted!r}")
    if wanted == "replay":
        return ModeChoice(Mode.REPLAY, "replay requested; credentials were not read")
    found, why = _credentials(session)
    if found:
        mode = Mode.RECORD if wanted == "record" else Mode.LIVE
        return ModeChoice(mode, f"{mode.value}: {why}; model {model_id()}")
    if wanted in ("live", "record"):
        raise ValueError(
            f"{wanted} mode needs AWS credentials that boto3 can resolve or a Bedrock API key; {why}. "
            "Configure them or use replay"
        )
    return ModeChoice(Mode.REPLAY, f"replay: {why}; replaying the committed recordings")


def _credentials(session: Any) -> tuple[bool, str]:
    """(resolved, a phrase saying what was found or why not); a Bedrock API key counts."""
    try:
        # optional extra: live
        import boto3
        import botocore.exceptions
    except ImportError:
        return False, 'boto3 is not installed (pip install "structsim-nb[live]")'
    if os.environ.get(BEARER_ENV, "").strip():
        return True, f"a Bedrock API key is set ({BEARER_ENV})"
    try:
        session = session if session is not None else boto3.Session()
        credentials = session.get_credentials()
        frozen = credentials.get_frozen_credentials() if credentials is not None else None
    except botocore.exceptions.BotoCoreError as exc:
        return False, f"AWS credentials did not resolve ({type(exc).__name__}: {exc})"
    if frozen is None or not frozen.access_key or not frozen.secret_key:
        return False, f"no AWS credentials found (environment, shared files, SSO, instance role or {BEARER_ENV})"
    method = getattr(credentials, "method", "unknown")
    return True, f"AWS credentials resolved (via {method})"


# -- settings and recordings --------------------------------------------------------------

#: Where the notebook's recordings live in a source checkout; `$STRUCTSIM_NB_FCC_RECORDINGS_DIR` overrides it.
RECORDINGS_DIR = Path(__file__).resolve().parent.parent.parent / "recordings"
RECORDINGS_DIR_ENV = "STRUCTSIM_NB_FCC_RECORDINGS_DIR"
RECORDING_NAMES = {
    "plain": "fcc_invoices.json",
    "tuned": "fcc_invoices_tuned.json",
    "settings": "fcc_invoices.settings.json",
}


def recordings_dir() -> Path:
    """`$STRUCTSIM_NB_FCC_RECORDINGS_DIR`, else `RECORDINGS_DIR` (the repository's `recordings/`)."""
    override = os.environ.get(RECORDINGS_DIR_ENV, "").strip()
    return Path(override) if override else RECORDINGS_DIR


def recording_path(kind: str = "plain") -> Path:
    """The notebook's file of `kind`: `plain` (FCCInvoice run), `tuned` (FCCInvoiceTuned run) or `settings`."""
    if kind not in RECORDING_NAMES:
        raise ValueError(f"kind must be one of {sorted(RECORDING_NAMES)}; got {kind!r}")
    return recordings_dir() / RECORDING_NAMES[kind]


SOURCE_ENV = "STRUCTSIM_NB_FCC_SOURCE"
N_DOCS_ENV = "STRUCTSIM_NB_FCC_N_DOCS"
MAX_LINE_ITEMS_ENV = "STRUCTSIM_NB_FCC_MAX_LINE_ITEMS"
MAX_TEXT_CHARS_ENV = "STRUCTSIM_NB_FCC_MAX_TEXT_CHARS"


@dataclass(frozen=True)
class RunSettings:
    """What a notebook run loads and which model it calls; replay reads them back from `recording_path("settings")`.

    Attributes:
        source: `"sample"`, `"hub"`, or a local file or snapshot folder in any form `load_fcc` reads.
        n_docs, max_line_items, max_text_chars: The `load_fcc` options; None means no cap.
        model_id: The Bedrock model id.
    """

    source: str = "sample"
    n_docs: int | None = None
    max_line_items: int | None = None
    max_text_chars: int | None = None
    model_id: str = DEFAULT_MODEL_ID

    def load(self, *, cache_dir: str | os.PathLike[str] | None = None, progress: bool = True) -> list[FCCDocument]:
        """`load_fcc` with these settings; `cache_dir` and `progress` are passed on (see there)."""
        return load_fcc(
            self.source,
            n_docs=self.n_docs,
            max_line_items=self.max_line_items,
            max_text_chars=self.max_text_chars,
            cache_dir=cache_dir,
            progress=progress,
        )

    def to_json(self) -> str:
        """The settings file text (sorted keys, trailing newline)."""
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\n"


def _cap(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"${name} must be a whole number; got {raw!r}") from None


def run_settings(mode: Mode, *, settings_path: str | os.PathLike[str] | None = None) -> RunSettings:
    """The settings for a run in `mode`.

    Replay reads `settings_path` (default `recording_path("settings")`), written when the
    recordings were made, so it loads exactly
    the documents that were recorded (the environment variables are ignored). Live and record
    read `$STRUCTSIM_NB_FCC_SOURCE` (default `sample`), `$STRUCTSIM_NB_FCC_N_DOCS`,
    `$STRUCTSIM_NB_FCC_MAX_LINE_ITEMS`, `$STRUCTSIM_NB_FCC_MAX_TEXT_CHARS` (default: no cap)
    and `model_id()`.

    Raises:
        FileNotFoundError: In replay, if `settings_path` is missing (re-record to create it).
        ValueError: If a cap variable is not a number, or the settings file is malformed.
    """
    if mode is Mode.REPLAY:
        path = Path(settings_path) if settings_path is not None else recording_path("settings")
        if not path.is_file():
            raise FileNotFoundError(
                f"replay needs the settings the recordings were made with at {str(path)!r}; it is missing. "
                "Re-record with `structsim-nb record-fcc` (needs AWS credentials)"
            )
        try:
            return RunSettings(**json.loads(path.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, TypeError) as exc:
            raise ValueError(f"settings file {str(path)!r} must hold the RunSettings fields as JSON; {exc}") from exc
    return RunSettings(
        source=os.environ.get(SOURCE_ENV, "").strip() or "sample",
        n_docs=_cap(N_DOCS_ENV),
        max_line_items=_cap(MAX_LINE_ITEMS_ENV),
        max_text_chars=_cap(MAX_TEXT_CHARS_ENV),
        model_id=model_id(),
    )


RERECORD_COMMAND = "structsim-nb record-fcc"

HAND_AUTHORED_NOTE = (
    "NOT a recording of any model: hand-authored, since the session that wrote it had no Bedrock access. "
    "The requests are what strands-agents passed to Model.stream() for each document of the bundled "
    "synthetic sample, captured with a stub provider that sets _supports_structured_output like "
    "BedrockModel; the responses were written by hand in the Bedrock ConverseStream wire format "
    "(recordings/fcc_hand_authored.py), with deliberate extraction errors so the scores spread. Its "
    "figures demonstrate the evaluator and measure no model. Re-record against your own Bedrock access "
    "with `structsim-nb record-fcc`."
)


def _note(settings: RunSettings) -> str:
    return (
        f"Live capture of the FCC notebook run by {RERECORD_COMMAND} (source {settings.source!r}, model "
        f"{settings.model_id}); review the scrubbed content before committing."
    )


@contextlib.contextmanager
def open_fcc_model(mode: Mode, recording: str | os.PathLike[str], *, settings: RunSettings) -> Iterator[Any]:
    """The Strands model for one notebook run in `mode`.

    - `REPLAY`: a `ReplayModel` over `recording`; on a clean exit every recorded call must have
      been played. Never reads credentials.
    - `LIVE`: a `BedrockModel` for `settings.model_id`; nothing is written.
    - `RECORD`: that `BedrockModel` wrapped by the recorder; on a clean exit `recording` is
      written (atomically, secrets and the credentials in use scrubbed), with provenance naming
      `structsim-nb record-fcc` as the re-record command. It need not exist beforehand.

    Raises:
        RecordingNotFoundError, UnplayedCallsError: In replay, see `structsim_nb.replay.open_model`.
        CredentialsMissingError: In live or record mode without credentials.
    """
    from ..replay.providers.bedrock import bedrock_live_model
    from ..replay.recorder import open_model

    if mode is Mode.LIVE:
        yield bedrock_live_model(settings.model_id).model
        return
    if mode is Mode.REPLAY:
        with open_model(recording, mode="replay") as model:
            yield model
        return
    with open_model(
        recording,
        mode="rewrite",
        live=lambda: bedrock_live_model(settings.model_id),
        rerecord_command=RERECORD_COMMAND,
        note=_note(settings),
    ) as model:
        yield model


#: How much of a recording's provenance note `describe_answers` prints, in whole sentences.
NOTE_CHARS = 700


def _whole_sentences(note: str, limit: int, path: Path) -> str:
    """`note` up to the last sentence that ends within `limit` characters, saying where the rest is."""
    if len(note) <= limit:
        return note
    end = note.rfind(". ", 0, limit)
    kept = note[: end + 1] if end > 0 else note[:limit].rstrip() + "..."
    return f"{kept} (The whole note: provenance.note in {path.name}.)"


def describe_answers(mode: Mode, settings: RunSettings, *, recording: str | os.PathLike[str] | None = None) -> str:
    """Where the notebook's answers come from in `mode`, in a few lines a notebook can print.

    Replay describes the recording's provenance (its note cut at the last whole sentence within
    `NOTE_CHARS` characters, saying where the rest is); record names the model called and the file
    about to be written (and what it replaces, if anything); live names the model. Never raises
    for a missing file in record mode: the run is what creates it.

    Args:
        mode: The run's mode.
        settings: The run settings (the model id).
        recording: The recording. Default None: `recording_path("plain")`.

    Raises:
        RecordingNotFoundError, RecordingFormatError: In replay, if the recording is missing or invalid.
    """
    from ..errors import ReplayError
    from ..replay.cassette import load_recording

    path = Path(recording) if recording is not None else recording_path("plain")
    if mode is Mode.LIVE:
        return f"live: every answer below comes from {settings.model_id} on Bedrock now; nothing is written"
    if mode is Mode.REPLAY:
        provenance = load_recording(path).provenance
        return (
            f"recordings: source={provenance.source}, model_id={provenance.model_id}, "
            f"recorded_at={provenance.recorded_at}, re-record: {provenance.rerecord_command}\n"
            f"{_whole_sentences(provenance.note, NOTE_CHARS, path)}"
        )
    try:
        previous = load_recording(path).provenance
        replacing = f"replacing a {previous.source} recording of {previous.recorded_at or 'no date'}"
    except ReplayError:
        replacing = "no readable recording there yet"
    return (
        f"record: every answer below comes from {settings.model_id} on Bedrock now and is written to {path} "
        f"({replacing})"
    )


#: The notebook `record_notebook` re-records, in a source checkout.
NOTEBOOK = Path(__file__).resolve().parent.parent.parent / "examples" / "notebooks" / "03_fcc_invoices_bedrock.ipynb"


def record_notebook(
    *,
    settings: RunSettings,
    out_dir: str | os.PathLike[str] | None = None,
    notebook: str | os.PathLike[str] = NOTEBOOK,
    profile: str | None = None,
    region: str | None = None,
    save: bool = True,
    timeout: int = 1800,
) -> list[Path]:
    """Re-record the whole FCC notebook run against live Bedrock, then replay it to check it.

    Steps: resolve credentials (no call yet); execute `notebook` in a fresh kernel in record
    mode, writing both recordings and the settings into a staging folder; only if every cell
    succeeded, move the three files into `out_dir`; finally execute the notebook again in
    replay mode against them (and save its outputs when `save`). Any failure leaves the
    files in `out_dir` as they were.

    Args:
        settings: What to load and which model to call (see `RunSettings`).
        out_dir: Where the recordings go. Default None: `recordings_dir()`.
        notebook: The notebook to run. Default `NOTEBOOK`.
        profile: AWS profile to use. Default None (`AWS_PROFILE` or the default chain).
        region: AWS region. Default None (the profile's or `AWS_REGION`).
        save: Save the replayed notebook's outputs in place. Default True.
        timeout: Seconds allowed per cell. Default 1800.

    Returns:
        The files written: the plain recording, the tuned recording, the settings.

    Raises:
        CredentialsMissingError, LiveExtraMissingError: Before anything runs.
        nbclient.exceptions.CellExecutionError: If a cell fails, live or in the replay check.
    """
    import shutil
    import tempfile

    from .._io import write_text_atomic
    from .._notebooks import execute_notebook
    from ..replay.providers.bedrock import bedrock_live_model

    bedrock_live_model(settings.model_id, profile=profile, region=region)  # fail fast on credentials, before any call
    target = Path(out_dir) if out_dir is not None else recordings_dir()
    env = {
        MODE_ENV: Mode.RECORD.value,
        MODEL_ID_ENV: settings.model_id,
        SOURCE_ENV: settings.source,
        N_DOCS_ENV: "" if settings.n_docs is None else str(settings.n_docs),
        MAX_LINE_ITEMS_ENV: "" if settings.max_line_items is None else str(settings.max_line_items),
        MAX_TEXT_CHARS_ENV: "" if settings.max_text_chars is None else str(settings.max_text_chars),
    }
    if profile:
        env["AWS_PROFILE"] = profile
    if region:
        env["AWS_REGION"] = env["AWS_DEFAULT_REGION"] = region
    with tempfile.TemporaryDirectory(prefix="fcc-record-") as staging:
        with _environ({**env, RECORDINGS_DIR_ENV: staging}):
            write_text_atomic(Path(staging) / RECORDING_NAMES["settings"], settings.to_json())
            logger.info("notebook=<%s>, staging=<%s> | recording the fcc notebook run", notebook, staging)
            execute_notebook(notebook, timeout=timeout)
        written = []
        for kind in ("plain", "tuned", "settings"):
            name = RECORDING_NAMES[kind]
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(staging) / name, target / f".{name}.new")
            written.append(target / name)
        for path in written:
            os.replace(path.with_name(f".{path.name}.new"), path)
    with _environ({MODE_ENV: Mode.REPLAY.value, RECORDINGS_DIR_ENV: str(target)}):
        execute_notebook(notebook, timeout=timeout, save=save)
    return written


@contextlib.contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the block (a kernel started inside inherits them)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
