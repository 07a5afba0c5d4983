"""Files read and written whole: atomic writes (a reader sees the old file or the new one, never half of
either), and plain reads and writes through `os.open` for runs that touch thousands of small files."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["read_bytes", "write_bytes", "write_bytes_atomic", "write_text_atomic"]

#: Windows opens files in text mode unless told (newlines would be translated); POSIX has no such flag.
_O_BINARY: int = getattr(os, "O_BINARY", 0)
#: What `open(path, "wb")` asks for.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _O_BINARY


def read_bytes(path: str | os.PathLike[str], size: int) -> bytes:
    """The whole of the file at `path`, whose size was looked up as `size`, read with `os.open` and `os.read`.

    No buffered reader (its objects cost more than reading a small file). A file that changed size
    since `size` was looked up is read to its end, and so is one the system reads in parts (over 2 GB).
    The caller decides beforehand whether the file may be opened at all (a FIFO would block).
    """
    fd = os.open(path, os.O_RDONLY | _O_BINARY)
    try:
        data = os.read(fd, size + 1)  # one byte more than it had, so a file that grew shows it
        if len(data) != size:
            parts = [data]
            while more := os.read(fd, 1 << 16):
                parts.append(more)
            data = b"".join(parts)
    finally:
        os.close(fd)
    return data


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` as `open(path, "wb")` would (created or truncated; mode 0666 less the umask),
    with `os.open` and `os.write`: no buffered writer, for runs that write thousands of files. Not atomic,
    not flushed to disk: for files in a folder that is moved into place whole (`write_bytes_atomic` otherwise).
    """
    fd = os.open(path, _WRITE_FLAGS, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


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
