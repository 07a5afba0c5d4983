"""find_json_files: every *.json found, and everything in the way named, never skipped in silence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from structsim_nb.trajectories.walk import find_json_files

ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def _tree(root: Path) -> Path:
    (root / "a" / "deep").mkdir(parents=True)
    for name in ("1.json", "a/2.json", "a/deep/3.json", "notes.txt", ".hidden.json"):
        (root / name).write_text("{}")
    return root


def test_sorted_as_rglob_would_be(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    found, skipped = find_json_files(root)
    assert [f.relative for f in found] == [p.relative_to(root).as_posix() for p in sorted(root.rglob("[!.]*.json"))]
    assert all(f.error is None for f in found)
    assert [(s.relative, s.error) for s in skipped] == [(".hidden.json", "hidden file (its name starts with '.')")]


def test_links_that_go_nowhere_or_loop_are_named(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    (root / "dangling.json").symlink_to(root / "gone.json")
    (root / "self.json").symlink_to(root / "self.json")
    (root / "loop").symlink_to(root)  # a folder link back up the tree
    (root / "ok.json").symlink_to(root / "1.json")
    found = {f.relative: f.error for f in find_json_files(root)[0]}
    assert "does not exist" in found["dangling.json"] and "gone.json" in found["dangling.json"]
    assert "cannot be followed" in found["self.json"]
    assert found["loop/"].startswith("symbolic link to a folder, not followed")
    assert found["ok.json"] is None  # a link to a file is read


def test_a_fifo_is_named_and_never_opened(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    root = _tree(tmp_path / "t")
    os.mkfifo(root / "pipe.json")  # opening it to read would block forever
    found = {f.relative: f.error for f in find_json_files(root)[0]}
    assert found["pipe.json"] == "not a regular file (a FIFO); not opened"


def test_an_unreadable_folder_is_an_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "t")
    real = os.scandir

    def scandir(path: object) -> object:
        if Path(str(path)) == root / "a":
            raise PermissionError(13, "Permission denied")
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    found = {f.relative: f.error for f in find_json_files(root)[0]}
    assert found["a/"] == "folder cannot be read (Permission denied); the trajectories in it were not scored"
    assert "a/2.json" not in found and "1.json" in found


@pytest.mark.skipif(ROOT_USER or not hasattr(os, "geteuid"), reason="root reads any folder")
def test_an_unreadable_folder_for_real(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    (root / "a").chmod(0)
    try:
        found = {f.relative: f.error for f in find_json_files(root)[0]}
    finally:
        (root / "a").chmod(0o755)
    assert found["a/"].startswith("folder cannot be read")


def test_an_unreadable_root_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "t")

    def scandir(path: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(PermissionError):
        find_json_files(root)


def test_own_and_skipped_folders_are_listed_not_read(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    (root / "reports").mkdir()
    (root / "reports" / "11.json").write_text("{}")
    (root / ".reports.structsim-staging-1-ab").mkdir()
    (root / ".reports.structsim-staging-1-ab" / "12.json").write_text("{}")
    found, skipped = find_json_files(root, skip=[root / "reports"])
    assert not [f for f in found if "11.json" in f.relative or "12.json" in f.relative]
    assert {s.relative for s in skipped} >= {"reports/", ".reports.structsim-staging-1-ab/"}


def test_an_earlier_runs_reports_folder_is_listed_not_read(tmp_path: Path) -> None:
    """A run written into the trajectories once (`--reports-dir runs/reports`) is not read back as runs later."""
    from structsim_nb.trajectories.reports_dir import AGGREGATE_NAME

    root = _tree(tmp_path / "t")
    (root / "a" / "old" / "nested").mkdir(parents=True)
    for name in ("11.json", AGGREGATE_NAME, "nested/12.json"):
        (root / "a" / "old" / name).write_text("{}")
    (root / "a" / "kept").mkdir()
    (root / "a" / "kept" / "_aggregate.json.bak").write_text("{}")  # only the exact name marks a reports folder
    found, skipped = find_json_files(root)
    assert [f.relative for f in found] == ["1.json", "a/2.json", "a/deep/3.json"]
    assert [(s.relative, s.error) for s in skipped if s.relative.startswith("a/")] == [
        ("a/old/", "a reports folder of an earlier run (it holds _aggregate.json); its reports are not trajectories")
    ]


def test_an_upper_case_suffix_is_a_json_file_too(tmp_path: Path) -> None:
    """A single `--trajectories` file is taken as `.JSON`; a folder's files are read the same way."""
    root = _tree(tmp_path / "t")
    (root / "4.JSON").write_text("{}")
    (root / "5.Json").write_text("{}")
    (root / "6.jsonl").write_text("{}")  # JSON Lines is not one run a file
    found, _ = find_json_files(root)
    assert [f.relative for f in found] == ["1.json", "4.JSON", "5.Json", "a/2.json", "a/deep/3.json"]


def test_json_lines_files_are_listed_with_how_to_read_them(tmp_path: Path) -> None:
    """Runs saved many to a file (`.jsonl`, `.ndjson`) would vanish without a word: they are listed in `skipped`."""
    root = _tree(tmp_path / "t")
    (root / "runs.jsonl").write_text("{}\n{}\n")
    (root / "a" / "more.NDJSON").write_text("{}\n")
    (root / "folder.jsonl").mkdir()  # a folder is walked, whatever its name
    (root / "folder.jsonl" / "7.json").write_text("{}")
    found, skipped = find_json_files(root)
    assert "folder.jsonl/7.json" in [f.relative for f in found]
    lines = {s.relative: s.error for s in skipped if s.relative != ".hidden.json"}
    assert set(lines) == {"runs.jsonl", "a/more.NDJSON"}
    assert all(
        "JSON Lines file" in (reason or "") and "a file of its own" in (reason or "") for reason in lines.values()
    )


def test_hidden_folders_are_listed_not_entered(tmp_path: Path) -> None:
    # JupyterLab keeps a copy of every file opened in it in `.ipynb_checkpoints`; they were read as runs.
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "34-checkpoint.json").write_text("{}")
    (tmp_path / "34.json").write_text("{}")
    found, skipped = find_json_files(tmp_path)
    assert [item.relative for item in found] == ["34.json"]
    assert [(item.relative, item.error) for item in skipped] == [
        (".ipynb_checkpoints/", "hidden folder (its name starts with '.'); not entered")
    ]


def test_the_reports_folder_inside_is_listed_before_it_exists(tmp_path: Path) -> None:
    # Listed only once it existed, the second run's aggregate differed from the first's on the same inputs.
    (tmp_path / "1.json").write_text("{}")
    _, skipped = find_json_files(tmp_path, skip=[tmp_path / "out" / "reports"])
    assert [(item.relative, item.error) for item in skipped] == [
        ("out/reports/", "a folder this run writes its reports to")
    ]
    assert find_json_files(tmp_path, skip=[tmp_path.parent / "elsewhere"])[1] == []
