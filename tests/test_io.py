"""Tests for `structsim_nb._io`: atomic writes, and whole-file reads and writes through `os.open`."""

from __future__ import annotations

import os

import pytest

from structsim_nb import _io
from structsim_nb._io import read_bytes, write_bytes, write_text_atomic


def test_writes_text_and_returns_path(tmp_path):
    path = write_text_atomic(str(tmp_path / "out.txt"), "héllo\n")
    assert path == tmp_path / "out.txt"
    assert path.read_bytes() == "héllo\n".encode()


def test_creates_parent_folders(tmp_path):
    path = write_text_atomic(tmp_path / "a" / "b" / "out.txt", "x")
    assert path.read_text() == "x"


def test_replaces_existing_file(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")
    write_text_atomic(path, "new")
    assert path.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_newlines_are_written_as_given(tmp_path):
    path = write_text_atomic(tmp_path / "out.txt", "a\nb\r\n")
    assert path.read_bytes() == b"a\nb\r\n"


def test_encoding(tmp_path):
    path = write_text_atomic(tmp_path / "out.txt", "é", encoding="latin-1")
    assert path.read_bytes() == b"\xe9"


def test_failed_rename_keeps_old_file_and_removes_temp(tmp_path, monkeypatch):
    path = tmp_path / "out.txt"
    path.write_text("old")

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(_io.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_text_atomic(path, "new")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_failed_write_midway_keeps_old_file_and_removes_temp(tmp_path, monkeypatch):
    path = tmp_path / "out.txt"
    path.write_text("old")
    real_fdopen = os.fdopen

    class HalfWriter:
        """A handle that writes half of the text, then fails like a full disk."""

        def __init__(self, handle):
            self._handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._handle.close()
            return False

        def write(self, text):
            self._handle.write(text[: len(text) // 2])
            self._handle.flush()
            raise OSError("no space left on device")

    monkeypatch.setattr(_io.os, "fdopen", lambda *args, **kwargs: HalfWriter(real_fdopen(*args, **kwargs)))
    with pytest.raises(OSError, match="no space left"):
        write_text_atomic(path, "new content that will not fit")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_interrupt_is_not_swallowed_and_cleans_up(tmp_path, monkeypatch):
    def interrupt(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(_io.os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(tmp_path / "out.txt", "new")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_new_file_gets_the_mode_a_plain_open_would(tmp_path):
    umask = os.umask(0o022)
    try:
        path = write_text_atomic(tmp_path / "out.txt", "x")
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_replacing_keeps_the_old_file_mode(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")
    path.chmod(0o640)
    write_text_atomic(path, "new")
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_temporary_file_a_killed_process_left_is_removed_by_the_next_write(tmp_path):
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / f".out.txt.{dead.pid}.abc123.tmp").write_text("half")
    (tmp_path / f".out.txt.{os.getppid()}.def456.tmp").write_text("a live writer's")
    (tmp_path / ".other.txt.1.x.tmp").write_text("another file's")
    write_text_atomic(tmp_path / "out.txt", "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".other.txt.1.x.tmp",
        f".out.txt.{os.getppid()}.def456.tmp",
        "out.txt",
    ]


@pytest.mark.parametrize("looked_up", [0, 10, 999, 1000, 1001, 5000])
def test_read_bytes_reads_to_the_end_whatever_size_was_looked_up(tmp_path, looked_up):
    # A size looked up before the file grew (0, 10, 999) or shrank (1001, 5000): the file as it is now.
    data = os.urandom(1000)
    (tmp_path / "f").write_bytes(data)
    assert read_bytes(tmp_path / "f", looked_up) == data
    assert read_bytes(str(tmp_path / "f"), looked_up) == data


def test_read_bytes_of_an_empty_file(tmp_path):
    (tmp_path / "f").write_bytes(b"")
    assert read_bytes(tmp_path / "f", 0) == b""


def test_write_bytes_creates_or_truncates_as_open_wb_does(tmp_path):
    data = os.urandom(3 << 20) + b"\r\n\n"  # newlines kept as given
    write_bytes(tmp_path / "f", data)
    assert (tmp_path / "f").read_bytes() == data
    write_bytes(str(tmp_path / "f"), b"short")
    assert (tmp_path / "f").read_bytes() == b"short"
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o666 & ~umask
    with pytest.raises(FileNotFoundError):
        write_bytes(tmp_path / "missing" / "f", b"x")
