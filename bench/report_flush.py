"""What flushing `evaluate`'s reports costs while another program has unwritten data on another file system.

`ReportsFolder.publish` makes the staged reports durable with one flush before it moves them into place.
Two ways to flush, timed on the same reports folder:

- `os.sync()` (the flush before 2026-12-06): every mounted file system, so a run waits for whatever other
  programs have written and not yet flushed, on any disk.
- `syncfs` (now, Linux): the file system the reports folder is on, through `_libc_syncfs`.

Before each timing, `--dirty-mb` MiB are written (not flushed) to a file in `--dirty-in`, as a program
writing a dataset or a model checkpoint would; the time of the flush alone is recorded. Pass a `--reports-in`
on another file system than `--dirty-in` (the default is a RAM disk, `/dev/shm`) to see the difference; on
the same file system both flushes wait for the same data.

Run: `python bench/report_flush.py [--dirty-mb 256] [--runs 7] [--dirty-in /var/tmp] [--reports-in /dev/shm]`.
Linux only. Timing is printed, never asserted; what a flush costs depends on the disk and the moment.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from structsim_nb.trajectories.reports_dir import _libc_syncfs, _synced_fs


def _dirty(path: str, mib: int) -> None:
    """Write `mib` MiB to `path`, unflushed."""
    chunk = os.urandom(1 << 20)
    with open(path, "wb") as handle:
        for _ in range(mib):
            handle.write(chunk)


def _timed_os_sync(_folder: str) -> float:
    start = time.perf_counter()
    os.sync()
    return time.perf_counter() - start


def _timed_syncfs(folder: str) -> float:
    """The flush `publish` makes now (`reports_dir._synced_fs`: open the folder, syncfs, close)."""
    syncfs = _libc_syncfs()
    assert syncfs is not None
    start = time.perf_counter()
    if not _synced_fs(syncfs, Path(folder)):
        raise OSError(f"syncfs failed on {folder}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dirty-mb", type=int, default=256, help="MiB written, unflushed, before each flush (256)")
    parser.add_argument("--runs", type=int, default=7, help="timings per way; the median is printed (7)")
    parser.add_argument("--dirty-in", default="/var/tmp", help="where the other program writes (/var/tmp)")
    parser.add_argument("--reports-in", default="/dev/shm", help="where the reports folder is (/dev/shm)")
    args = parser.parse_args()
    if _libc_syncfs() is None:
        sys.exit("this C library has no syncfs (it is Linux's); nothing to compare")
    ways: dict[str, Callable[[str], float]] = {"os.sync()": _timed_os_sync, "syncfs": _timed_syncfs}
    times: dict[str, list[float]] = {name: [] for name in ways}
    same = os.stat(args.dirty_in).st_dev == os.stat(args.reports_in).st_dev
    with (
        tempfile.TemporaryDirectory(dir=args.reports_in) as reports,
        tempfile.TemporaryDirectory(dir=args.dirty_in) as other,
    ):
        dirty = os.path.join(other, "dirty.bin")
        for run in range(args.runs):
            order = list(ways) if run % 2 == 0 else list(reversed(ways))
            for name in order:
                os.sync()  # start each timing from nothing unwritten
                _dirty(dirty, args.dirty_mb)
                times[name].append(ways[name](reports))
    print(
        f"flushing a reports folder in {args.reports_in} with {args.dirty_mb} MiB unwritten in {args.dirty_in}"
        f" ({'the same' if same else 'another'} file system); median of {args.runs}"
    )
    before = statistics.median(times["os.sync()"])
    for name, values in times.items():
        median = statistics.median(values)
        ratio = f"{median / before:6.3f}x" if before > 0 else "     -"
        spread = ", ".join(f"{value * 1000:.1f}" for value in values)
        print(f"{name:10s} {median * 1000:9.2f} ms  {ratio} of os.sync()   ({spread} ms)")


if __name__ == "__main__":
    main()
