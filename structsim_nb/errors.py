"""Exceptions raised by structsim_nb.

Each subclasses a builtin as well as `StructsimError`, so callers can catch either the
project's base class or the builtin they would expect (`FileNotFoundError`, `ValueError`).
"""

from __future__ import annotations

__all__ = ["ReportFileError", "StructsimError"]


class StructsimError(Exception):
    """Base class of every error this package raises on purpose."""


class ReportFileError(StructsimError, ValueError):
    """A saved report file is missing, unreadable, or not a report.

    The message names the file and what was wrong with it.
    """
