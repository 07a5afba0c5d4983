"""ReportsFolder: staged then moved into place; the reuse rule; leftovers of dead runs removed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from structsim_nb._signals import deferred_signals
from structsim_nb.errors import ReportsFolderError
from structsim_nb.trajectories.reports_dir import ReportsFolder


def _run(folder: Path, files: dict[str, dict[str, object]]) -> ReportsFolder:
    """Write `files` (and an aggregate listing them) the way run_evaluation does."""
    out = ReportsFolder(folder)
    out.check()
    out.stage()
    for name, data in files.items():
        out.write(name, json.dumps(data).encode())
    aggregate = {"results": [{"report": name} for name in files]}
    out.write("_aggregate.json", json.dumps(aggregate).encode())
    out.publish()
    return out


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_new_folder_holds_exactly_the_run(tmp_path: Path) -> None:
    _run(tmp_path / "r", {"1.json": {"a": 1}})
    assert sorted(os.listdir(tmp_path / "r")) == ["1.json", "_aggregate.json"]
    assert sorted(os.listdir(tmp_path)) == ["r"]  # no staging left beside it


def test_a_second_smaller_run_replaces_the_first(tmp_path: Path) -> None:
    _run(tmp_path / "r", {"1.json": {}, "2.json": {}, "3.json": {}})
    _run(tmp_path / "r", {"9.json": {}})
    assert sorted(os.listdir(tmp_path / "r")) == ["9.json", "_aggregate.json"]
    assert sorted(os.listdir(tmp_path)) == ["r"]


def test_a_folder_holding_other_files_is_refused_before_anything(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "notes.txt").write_text("mine")
    with pytest.raises(ReportsFolderError, match=r"holds files an earlier evaluate did not write \(notes\.txt"):
        ReportsFolder(tmp_path / "r").check()
    _run(tmp_path / "r2", {"1.json": {}})
    (tmp_path / "r2" / "extra.json").write_text("{}")  # not in the aggregate
    with pytest.raises(ReportsFolderError, match="its _aggregate.json does not list them"):
        ReportsFolder(tmp_path / "r2").check()
    assert (tmp_path / "r" / "notes.txt").read_text() == "mine"


def test_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r").write_text("x")
    with pytest.raises(ReportsFolderError, match="exists and is not one"):
        ReportsFolder(tmp_path / "r").check()


def test_a_read_only_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "r").mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == tmp_path / "r" else real(path, mode))
    with pytest.raises(ReportsFolderError, match="is not writable"):
        ReportsFolder(tmp_path / "r").check()


def test_leftovers_of_dead_runs_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    _run(tmp_path / "r", {"1.json": {}})
    dead, alive = _dead_pid(), os.getppid()
    (tmp_path / f".r.structsim-staging-{dead}-aa").mkdir()
    (tmp_path / f".r.structsim-staging-{dead}-aa" / "1.json").write_text("{}")
    (tmp_path / f".r.structsim-old-{dead}-bb").mkdir()
    (tmp_path / f".r.structsim-staging-{alive}-cc").mkdir()  # another run, still going
    (tmp_path / "r" / ".1.json.x1y2.tmp").write_text("half")  # what an older version left on kill -9
    _run(tmp_path / "r", {"2.json": {}})
    assert sorted(os.listdir(tmp_path)) == [f".r.structsim-staging-{alive}-cc", "r"]
    assert sorted(os.listdir(tmp_path / "r")) == ["2.json", "_aggregate.json"]


def test_an_interrupted_write_leaves_nothing(tmp_path: Path) -> None:
    _run(tmp_path / "r", {"1.json": {"old": True}})
    out = ReportsFolder(tmp_path / "r")
    out.check()
    out.stage()
    out.write("2.json", b"{}")
    out.discard()  # what run_evaluation does on Ctrl-C or SIGTERM
    assert sorted(os.listdir(tmp_path)) == ["r"]
    assert json.loads((tmp_path / "r" / "1.json").read_text()) == {"old": True}


def test_a_linked_folder_is_filled_in_place(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    (tmp_path / "r").symlink_to(tmp_path / "target")
    _run(tmp_path / "r", {"1.json": {}, "2.json": {}})
    _run(tmp_path / "r", {"3.json": {}})
    assert (tmp_path / "r").is_symlink()  # the link is kept, not replaced by a folder
    assert sorted(os.listdir(tmp_path / "target")) == ["3.json", "_aggregate.json"]


def test_signals_are_held_during_the_move_and_delivered_after() -> None:
    moved = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_signals():
            os.kill(os.getpid(), signal.SIGINT)
            moved.append("still here")  # the interrupt waits for the step to finish
    assert moved == ["still here"]


def test_a_file_is_written_whole_and_a_failed_write_is_not_listed(tmp_path: Path) -> None:
    out = ReportsFolder(tmp_path / "r")
    out.check()
    out.stage()
    big = os.urandom(3 << 20)  # several writes' worth for some systems
    assert out.write("a.json", big) == tmp_path / "r" / "a.json"
    assert out.write("a.json", b"shorter") == tmp_path / "r" / "a.json"  # rewritten, truncated, as "wb" does
    with pytest.raises(FileNotFoundError):
        out.write("no-such-folder/b.json", b"{}")
    out.write("_aggregate.json", b'{"results": [{"report": "a.json"}]}')
    out.publish()
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["_aggregate.json", "a.json"]
    assert (tmp_path / "r" / "a.json").read_bytes() == b"shorter"


# -- flushing: one syncfs of the reports' file system on Linux, else one os.sync() ------------------------------


def _no_system_wide_sync() -> None:
    pytest.fail("os.sync() flushed every file system")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="syncfs is Linux's")
def test_publishing_flushes_the_reports_file_system_alone(tmp_path: Path, monkeypatch) -> None:
    from structsim_nb.trajectories import reports_dir

    real = reports_dir._libc_syncfs()
    assert real is not None  # glibc 2.14+ and musl have it
    flushed: list[tuple[int, str]] = []

    def recording(fd: int) -> int:
        flushed.append((os.fstat(fd).st_dev, os.readlink(f"/proc/self/fd/{fd}")))
        return real(fd)

    monkeypatch.setattr(reports_dir, "_libc_syncfs", lambda: recording)
    monkeypatch.setattr(os, "sync", _no_system_wide_sync)
    _run(tmp_path / "r", {"1.json": {"a": 1}})
    assert len(flushed) == 1
    device, folder = flushed[0]
    assert device == os.stat(tmp_path).st_dev and ".structsim-staging-" in Path(folder).name


def test_a_failed_or_missing_syncfs_falls_back_to_one_os_sync(tmp_path: Path, monkeypatch) -> None:
    from structsim_nb.trajectories import reports_dir

    if not hasattr(os, "sync"):
        pytest.skip("no os.sync on this platform")
    synced: list[str] = []
    monkeypatch.setattr(os, "sync", lambda: synced.append("sync"))
    monkeypatch.setattr(reports_dir, "_libc_syncfs", lambda: lambda fd: -1)  # a failing syncfs
    _run(tmp_path / "r", {"1.json": {}})
    monkeypatch.setattr(reports_dir, "_libc_syncfs", lambda: None)  # a C library without it
    _run(tmp_path / "r", {"2.json": {}})
    assert synced == ["sync", "sync"]
    assert sorted(os.listdir(tmp_path / "r")) == ["2.json", "_aggregate.json"]
