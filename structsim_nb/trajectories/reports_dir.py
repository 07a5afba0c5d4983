"""The reports folder of a run: written whole into a staging folder, then moved into place at once.

A run's reports (one file per run plus `_aggregate.json`) are written into a hidden staging folder
beside the reports folder, flushed to disk at once (one `syncfs` of its file system on Linux, else
one `os.sync()`; not one fsync per file), and moved into place with renames while SIGINT and SIGTERM
are held. So a reader, a crash, `kill -9` or Ctrl-C sees either the previous reports or the new
ones, never a mix, and an interrupted run writes nothing (its staging folder is removed; a `kill -9`
leaves it for the next run to remove).

The rule for a reports folder that already exists (checked before any scoring):

- it is replaced as a whole when it is empty, or when everything in it was written by an earlier
  run (`_aggregate.json` and the report files it lists; leftover temporary files count too), so
  a smaller second run never leaves the first run's reports beside an aggregate that does not
  list them;
- otherwise the run is refused, naming files it would lose: pass a new or empty folder;
- a path that is a file, or a folder that is not writable, is refused too.

Where the folder cannot be swapped (its parent is not writable, it is a mount point or a symbolic
link), the staging folder is made inside it and the files are moved in one by one (`_aggregate.json`
last), the previous run's other files removed, signals held throughout: not one atomic step, but
nothing is cut by an interrupt. Leftovers of runs that died (`.<name>.structsim-staging-<pid>-...`
whose process is gone, old temporary files) are removed when the next run starts.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import secrets
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from .._io import write_bytes
from .._signals import deferred_signals
from ..errors import ReportsFolderError
from .walk import AGGREGATE_NAME, OWN_FOLDER_MARKERS

logger = logging.getLogger(__name__)

__all__ = ["ReportsFolder"]

PAGE_NAME = "_aggregate.html"  # written with the reports by `runner` (`runs_page`)
_STAGING = ".structsim-staging-"
_OLD = ".structsim-old-"


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    except OSError:
        return True
    return True


def _owner_pid(name: str) -> int | None:
    """The process id in a staging or old folder name (`...structsim-staging-<pid>-<token>`), or None."""
    for marker in OWN_FOLDER_MARKERS:
        if marker in name:
            head = name.split(marker, 1)[1].split("-", 1)[0]
            return int(head) if head.isdigit() else None
    return None


def _listed_reports(folder: Path) -> set[str] | None:
    """The file names the folder's `_aggregate.json` says a run wrote, or None if there is none to read."""
    try:
        aggregate = json.loads((folder / AGGREGATE_NAME).read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(aggregate, dict) or not isinstance(aggregate.get("results"), list):
        return None
    names = {AGGREGATE_NAME, PAGE_NAME}
    for result in aggregate["results"]:
        if isinstance(result, dict) and isinstance(result.get("report"), str):
            names.add(result["report"])
    return names


def _is_leftover(name: str) -> bool:
    """A temporary file or staging folder a run of this package leaves when it is killed."""
    return name.startswith(".") and (name.endswith(".tmp") or _STAGING in name)


@functools.cache
def _libc_syncfs() -> Callable[[int], int] | None:
    """libc's `syncfs(fd)` (Linux, glibc 2.14+ and musl), or None where the C library has none."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # (only here: a run that never publishes does not pay for it)

    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
    return function


def _sync(folder: Path, files: Iterable[Path]) -> None:
    """Flush the files written in `folder` to disk.

    Linux: one `syncfs` of the file system `folder` is on, so a run waits only for its own disk, not for what
    other programs wrote to other disks (`os.sync()` flushes every mounted file system). Where syncfs is missing
    or fails: one system-wide `os.sync()`; without that (Windows): an fsync per file.
    """
    syncfs = _libc_syncfs()
    if syncfs is not None and _synced_fs(syncfs, folder):
        return
    if hasattr(os, "sync"):
        os.sync()
        return
    for path in files:  # pragma: no cover - platforms without os.sync (Windows)
        with open(path, "rb+") as handle:
            os.fsync(handle.fileno())


def _synced_fs(syncfs: Callable[[int], int], folder: Path) -> bool:
    """Whether `syncfs` flushed the file system `folder` is on; a failure is logged (at debug level)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        logger.debug("cannot open %s for syncfs (%s); flushing with os.sync()", folder, exc)
        return False
    try:
        if syncfs(fd) == 0:
            return True
    finally:
        os.close(fd)
    import ctypes

    logger.debug("syncfs(%s) failed (errno %d); flushing with os.sync()", folder, ctypes.get_errno())
    return False


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX: fsync the folder); a no-op where folders cannot be opened."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class ReportsFolder:
    """One run's reports folder; see the module docstring. Use `check`, `stage`, `write`, then `publish` or `discard`.

    Args:
        path: The reports folder (`--reports-dir`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.abspath(path))
        self.parent = self.path.parent
        self._token = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._stage: Path | None = None
        self._in_place = False
        self._previous: set[str] = set()
        self._written: list[str] = []

    # -- before scoring ---------------------------------------------------------------------------

    def check(self) -> None:
        """Apply the reuse rule, and remove leftovers of runs that died; before any scoring.

        Raises:
            ReportsFolderError: If the path is a file, the folder is not writable, or it holds
                files no earlier run wrote.
        """
        where = str(self.path)
        if self.path.is_symlink() or self.path.exists():
            if not self.path.is_dir():
                raise ReportsFolderError(
                    f"--reports-dir must be a folder; {where!r} exists and is not one. Pass a folder path (it is "
                    "created if missing)"
                )
            if not os.access(self.path, os.W_OK | os.X_OK):
                raise ReportsFolderError(
                    f"--reports-dir {where!r} is not writable; make it writable or pass another folder"
                )
            self._previous = self._check_reusable()
        elif not self.parent.exists():
            try:
                self.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ReportsFolderError(f"--reports-dir {where!r} cannot be created: {exc.strerror or exc}") from None
        self._in_place = not self._can_swap()
        if self._in_place and not self.path.exists():
            try:
                self.path.mkdir()
            except OSError as exc:
                raise ReportsFolderError(f"--reports-dir {where!r} cannot be created: {exc.strerror or exc}") from None
        self._remove_leftovers()

    def _check_reusable(self) -> set[str]:
        """The names the previous run wrote; raises if anything else is in the folder."""
        try:
            names = set(os.listdir(self.path))
        except OSError as exc:
            where = str(self.path)
            raise ReportsFolderError(f"--reports-dir {where!r} cannot be read: {exc.strerror or exc}") from None
        listed = _listed_reports(self.path) or set()
        foreign = sorted(name for name in names if name not in listed and not _is_leftover(name))
        if foreign:
            shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
            reason = (
                "its _aggregate.json does not list them"
                if listed
                else "it holds no _aggregate.json from an earlier run"
            )
            raise ReportsFolderError(
                f"--reports-dir {str(self.path)!r} holds files an earlier evaluate did not write ({shown}; {reason}). "
                "evaluate replaces the whole folder, so pass a new or empty folder, or one only evaluate wrote"
            )
        return names & listed

    def _can_swap(self) -> bool:
        """Whether the folder can be replaced by renaming a sibling into its place."""
        if self.path.is_symlink() or (self.path.exists() and os.path.ismount(self.path)):
            return False
        return os.access(self.parent, os.W_OK | os.X_OK)

    def _remove_leftovers(self) -> None:
        """Remove what runs that died left: staging and replaced folders beside the folder whose process is
        gone, and inside it, dead in-place staging folders and temporary files."""
        beside = f".{self.path.name}.structsim-"
        for folder, inside in ((self.parent, False), (self.path, True)):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                pid = _owner_pid(name)
                dead = pid is not None and pid != os.getpid() and not _process_alive(pid)
                if inside:
                    leftover = (name.startswith(_STAGING) and dead) or (name.startswith(".") and name.endswith(".tmp"))
                else:
                    leftover = name.startswith(beside) and dead
                if not leftover:
                    continue
                target = folder / name
                logger.info("path=<%s> | removing what an interrupted run left behind", target)
                if target.is_dir() and not target.is_symlink():
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        target.unlink()

    # -- writing --------------------------------------------------------------------------------

    def stage(self) -> Path:
        """Create the staging folder; the run writes into it."""
        if self._in_place:
            self._stage = self.path / f"{_STAGING}{self._token}"
        else:
            self._stage = self.parent / f".{self.path.name}{_STAGING}{self._token}"
        try:
            self._stage.mkdir()
        except OSError as exc:
            raise ReportsFolderError(
                f"--reports-dir {str(self.path)!r}: cannot create the staging folder {str(self._stage)!r}: "
                f"{exc.strerror or exc}"
            ) from None
        return self._stage

    def write(self, name: str, data: bytes) -> Path:
        """Write one file into the staging folder (no fsync: `publish` flushes them all at once)."""
        if self._stage is None:
            raise RuntimeError("stage() must be called before write()")
        write_bytes(os.path.join(self._stage, name), data)  # (no buffered writer: thousands of files)
        self._written.append(name)
        return self.path / name

    def publish(self) -> None:
        """Flush the staged files, then move them into place with SIGINT and SIGTERM held.

        Raises:
            ReportsFolderError: If the folder changed since `check` (someone wrote into it), or
                the move failed; the previous reports are left in place.
        """
        if self._stage is None:
            raise RuntimeError("stage() must be called before publish()")
        _sync(self._stage, (self._stage / name for name in self._written))
        if self.path.is_dir() and not self._in_place:
            self._check_reusable()  # the same rule, in case the folder changed during the run
        if self._in_place:
            self._publish_in_place()
        else:
            self._publish_swap()
        self._stage = None

    def _publish_swap(self) -> None:
        assert self._stage is not None
        old = self.parent / f".{self.path.name}{_OLD}{self._token}"
        moved = False
        with deferred_signals():
            try:
                if self.path.exists():
                    os.rename(self.path, old)
                    moved = True
                os.rename(self._stage, self.path)
            except OSError as exc:
                if moved:
                    with contextlib.suppress(OSError):
                        os.rename(old, self.path)
                why = exc.strerror or exc
                raise ReportsFolderError(
                    f"--reports-dir {str(self.path)!r}: could not move the new reports into place: {why}"
                ) from None
        _sync_folder(self.parent)
        if moved:
            shutil.rmtree(old, ignore_errors=True)

    def _publish_in_place(self) -> None:
        assert self._stage is not None
        order = sorted(self._written, key=lambda name: name == AGGREGATE_NAME)  # the aggregate last
        with deferred_signals():
            for name in order:
                os.replace(self._stage / name, self.path / name)
            for name in self._previous - set(self._written):
                with contextlib.suppress(FileNotFoundError):
                    (self.path / name).unlink()
        shutil.rmtree(self._stage, ignore_errors=True)
        _sync_folder(self.path)

    def discard(self) -> None:
        """Remove the staging folder and everything written into it; the reports folder is untouched."""
        if self._stage is not None:
            shutil.rmtree(self._stage, ignore_errors=True)
            self._stage = None
