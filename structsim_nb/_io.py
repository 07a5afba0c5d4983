"""Atomic file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_bytes_atomic", "write_text_atomic"]


def write_text_atomic(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` through a temporary file in the same folder and `os.replace`.

    The parent folder is created if missing. A new file gets the mode `open()` would give it
    (0666 less the umask); an existing file keeps its mode. If anything fails before the rename (a full
    disk, an interrupt), the previous content of `path` is left as it was and the temporary
    file is removed. The temporary file is `.<name>.<pid>.<random>.tmp`; one a killed process
    left (`kill -9` runs no cleanup) is removed by the next write of the same file.

    Args:
        path: Destination file.
        text: Content to write.
        encoding: Text encoding; UTF-8 by default.

    Returns:
        The destination as a `Path`.
    """
    return write_bytes_atomic(path, text.encode(encoding))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write `data` to `path` atomically, as `write_text_atomic` writes text (same guarantees).

    Args:
        path: Destination file.
        data: Content to write.

    Returns:
        The destination as a `Path`.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_temporaries(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            # mkstemp creates the file 0600; give it the mode a plain open() would (or the mode of
            # the file it replaces), so a saved report stays readable to whoever could read it before.
            os.chmod(tmp, _mode_for(target))
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def _mode_for(target: Path) -> int:
    """The permission bits for `target`: its current ones, or 0o666 less the umask for a new file."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove_dead_temporaries(target: Path) -> None:
    """Remove `.<name>.<pid>.<random>.tmp` files beside `target` whose process is gone."""
    prefix = f".{target.name}."
    try:
        names = [name for name in os.listdir(target.parent) if name.startswith(prefix) and name.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix) :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        try:
            os.unlink(target.parent / name)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process, or no way to tell: keep its file
        return True
    return True
