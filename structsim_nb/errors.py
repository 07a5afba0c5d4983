"""Exceptions raised by structsim_nb.

Each subclasses a builtin as well as `StructsimError`, so callers can catch either the
project's base class or the builtin they would expect (`FileNotFoundError`, `ValueError`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (imported on first use below: `_signals` costs more than the rest of this module)
    from ._signals import Terminated

__all__ = [
    "DatasetFormatError",
    "DatasetUnavailableError",
    "ReportFileError",
    "StructsimError",
    # replay and record (structsim_nb.replay)
    "CredentialsMissingError",
    "InvalidRecordingError",
    "LiveCallError",
    "LiveExtraMissingError",
    "ModelIdError",
    "NoStructuredOutputError",
    "RecordError",
    "RecordModeError",
    "RecordingAssemblyError",
    "RecordingFormatError",
    "RecordingNotFoundError",
    "RecordingVersionError",
    "ReplayError",
    "ReplayExhaustedError",
    "ReplayMismatchError",
    "UnplayedCallsError",
    "UnplayedCallsWarning",
    # static_json scorer and saved trajectories (structsim_nb.trajectories)
    "ReportsFolderError",
    "SchemaLoadError",
    "ScoringError",
    "StaticJsonError",
    "UnknownScorerError",
    # JSON match evaluators (structsim_nb.json_match)
    "FieldPathError",
    "GroundTruthError",
    # datasets of pairs (structsim_nb.dataset)
    "PairsFileError",
    "WorkerStartError",
    # comparing two runs (structsim_nb.comparison)
    "ComparisonError",
    # interrupts: SIGTERM as a KeyboardInterrupt, so cleanup runs as for Ctrl-C (structsim_nb._signals)
    "Terminated",
]


class StructsimError(Exception):
    """Base class of every error this package raises on purpose."""


class ReportFileError(StructsimError, ValueError):
    """A saved report file is missing, unreadable, or not a report.

    The message names the file and what was wrong with it.
    """


# --- replay and record -------------------------------------------------------------------
# None of these subclasses strands' ModelThrottledException: the agent would retry them.


class ReplayError(StructsimError, RuntimeError):
    """Base class of everything that goes wrong reading or replaying a recording.

    Attributes:
        path: The recording file, when one is involved.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class RecordingNotFoundError(ReplayError, FileNotFoundError):
    """No recording exists at the path; replay never falls back to a live call."""


class RecordingFormatError(ReplayError, ValueError):
    """A recording file is corrupt, fails validation, or does not assemble into valid model output."""


class RecordingVersionError(RecordingFormatError):
    """A recording was written in a format version this package cannot read."""


class RecordingAssemblyError(RecordingFormatError):
    """A recording validates, but one call's events do not assemble into a valid model message.

    For example a tool block without `toolUseId`, or tool input fragments that do not join into one
    JSON object. Strands would drop such a block or turn the input into `{}` and ask again; replay
    refuses the file instead.
    """


class ReplayMismatchError(ReplayError, LookupError):
    """The request of a replayed model call differs from the recorded one.

    Attributes:
        call: The 1-based model call index.
        field_path: The first differing field, like `messages[0].content[0].text`.
        recorded: The recorded value at `field_path`.
        actual: The value the agent sent now.
        sdk_text_only: True if every difference lies in text the Strands SDK generates.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        call: int = 0,
        field_path: str = "",
        recorded: object = None,
        actual: object = None,
        sdk_text_only: bool = False,
    ) -> None:
        super().__init__(message, path=path)
        self.call = call
        self.field_path = field_path
        self.recorded = recorded
        self.actual = actual
        self.sdk_text_only = sdk_text_only


class ReplayExhaustedError(ReplayError, LookupError):
    """The agent asked for more model calls than the recording holds; answers are never repeated."""


class UnplayedCallsError(ReplayError, AssertionError):
    """Recorded model calls were never requested: the agent took a shorter path than when recorded."""


class UnplayedCallsWarning(StructsimError, UserWarning):
    """Warned when a replay ends with recorded model calls never requested (`ReplayModel.check_all_played`)."""


class RecordModeError(StructsimError, ValueError):
    """A record mode is not one of the valid modes."""


class RecordError(StructsimError, RuntimeError):
    """Base class of everything that stops the recorder; the existing recording is left untouched."""


class LiveExtraMissingError(RecordError, ImportError):
    """Recording needs the provider's SDK: boto3 (`live` extra), `openai` or `anthropic` (extras of those names)."""


class CredentialsMissingError(RecordError, PermissionError):
    """No credentials were found (environment, profile, API key), or the service rejected them."""


class ModelIdError(RecordError, ValueError):
    """A recorded model id cannot be used as is (an ARN whose scrubbed account id cannot be resolved)."""


class LiveCallError(RecordError):
    """The live model call failed (throttling, access, validation, network)."""


class NoStructuredOutputError(RecordError):
    """The live call finished but the model never produced the structured output."""


class InvalidRecordingError(RecordError, ValueError):
    """A recording about to be written is invalid: a secret survived scrubbing or the events do not assemble."""


# --- datasets (structsim_nb.fcc) ---------------------------------------------------------


class DatasetUnavailableError(StructsimError, ConnectionError):
    """A dataset could not be loaded from the hub; the message says how to run on local data instead."""


class DatasetFormatError(StructsimError, ValueError):
    """A dataset file is in no format `datasets` reads, or `datasets` could not read it.

    The message names the file and the formats accepted.
    """


# --- JSON match evaluators ---------------------------------------------------------------


class FieldPathError(StructsimError, ValueError):
    """A configured field path cannot be parsed; raised when the evaluator is built, before any case runs."""


class GroundTruthError(StructsimError, ValueError):
    """A ground truth is not JSON data (or JSON text) where a JSON evaluator needs it."""


class ScoringError(StructsimError, ValueError):
    """A scorer cannot score one pair (a bad ground truth, say); the runner records it and goes on."""


class StaticJsonError(ScoringError):
    """The static_json scorer cannot score a pair: a bad ground truth, CAR metadata, or too-deep answer."""


class UnknownScorerError(StructsimError, KeyError):
    """A scorer name is not in the registry; the message lists the registered names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class ReportsFolderError(StructsimError, OSError):
    """`--reports-dir` cannot take this run's reports: it is a file, not writable, or holds files no run wrote.

    Raised before any scoring (or when moving the reports into place fails, leaving the previous
    ones as they were); the message names the folder and what to do.
    """


class SchemaLoadError(StructsimError, ValueError):
    """`--schema` names neither an importable Pydantic model nor a readable JSON Schema file."""


# --- datasets of pairs (structsim_nb.dataset) --------------------------------------------


class PairsFileError(StructsimError, ValueError):
    """A pairs file (JSON Lines of expected/actual) is missing, unreadable, or has a line that is not a pair.

    The message names the file and the line.
    """


class WorkerStartError(StructsimError, RuntimeError):
    """Worker processes asked for could not start, so nothing was scored on them.

    Raised by `score_dataset`, `map_ordered` and `run_evaluation` when a fresh worker cannot run even
    a function that does nothing: no document is at fault. The message names the start method, what
    failed, and the likely cause (a main script the workers cannot run again, or one that scores at
    its top level without `if __name__ == "__main__":`).
    """


class ComparisonError(StructsimError, ValueError):
    """Two runs cannot be compared: different evaluators or schemas, duplicate or missing case names.

    The message names both runs (their files, when they came from files) and what to do.
    """


def __getattr__(name: str) -> type:
    """`Terminated` (SIGTERM, a `KeyboardInterrupt`), from `_signals` on first use: this module stays cheap."""
    if name == "Terminated":
        from ._signals import Terminated as terminated

        return terminated
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
