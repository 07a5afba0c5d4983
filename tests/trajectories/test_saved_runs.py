"""saved_runs: trajectory files read as records, unreadable ones included with their reason."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from helpers import write_json

from structsim_nb.trajectories.saved_runs import load_trajectories, read_text
from structsim_nb.trajectories.scenarios import load_scenarios

TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"


class TestLoad:
    def test_tree(self) -> None:
        loaded = {t.file: t for t in load_trajectories(TREE / "trajectories")}
        assert "nested/34.json" in loaded  # recursive
        assert loaded["nested/34.json"].scenario_id is None and loaded["nested/34.json"].stem == "34"
        assert loaded["19.json"].run_id == "19"  # an int run_id is kept as text
        assert "not JSON" in loaded["14.json"].error
        assert "not UTF-8" in loaded["15.json"].error
        assert "no answer" in loaded["16.json"].error

    def test_structured_answer_is_kept_as_json_text(self, tmp_path: Path) -> None:
        (trajectory,) = load_trajectories(write_json(tmp_path / "t.json", {"run_id": "1", "answer": {"a": 1}}))
        assert trajectory.answer == '{"a": 1}'

    @pytest.mark.parametrize(("written", "answer"), [("true", "true"), ("34", "34"), ("3.5", "3.5"), ("null", None)])
    def test_a_scalar_answer_is_kept_as_json_writes_it(self, tmp_path: Path, written: str, answer: str | None) -> None:
        (tmp_path / "t.json").write_text(f'{{"run_id": "1", "answer": {written}}}', encoding="utf-8")
        (trajectory,) = load_trajectories(tmp_path / "t.json")
        assert trajectory.answer == answer

    @pytest.mark.parametrize("written", ["NaN", "Infinity", "-Infinity"])
    def test_an_answer_json_cannot_hold_is_an_error(self, tmp_path: Path, written: str) -> None:
        """Python's reader takes `NaN` and `Infinity`; as an answer they are no value to score, said so."""
        (tmp_path / "t.json").write_text(f'{{"run_id": "1", "answer": {written}}}', encoding="utf-8")
        (trajectory,) = load_trajectories(tmp_path / "t.json")
        assert trajectory.answer is None and f"the answer is {written}, a number JSON cannot hold" in trajectory.error

    def test_missing_inputs(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="does not exist"):
            load_trajectories(tmp_path / "nope")
        with pytest.raises(NotADirectoryError, match="does not exist"):
            load_scenarios(tmp_path / "nope")
        write_json(tmp_path / "t.txt", {})
        with pytest.raises(ValueError, match=r"\.json file"):
            load_trajectories(tmp_path / "t.txt")

    def test_think_blocks_are_removed_from_the_answer(self) -> None:
        loaded = {t.file: t for t in load_trajectories(TREE / "trajectories")}
        assert loaded["nested/34.json"].answer == "The answer is 34."


class TestHostileInput:
    """One poisoned file never ends a run; everything found is in the aggregate with its reason."""

    def test_a_fifo_named_as_the_trajectories_file_is_never_opened(self, tmp_path: Path) -> None:
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(tmp_path / "run.json")
        (trajectory,) = load_trajectories(tmp_path / "run.json")
        assert trajectory.error == "not a regular file; not opened"


class TestReadText:
    def test_the_whole_file_as_utf8(self, tmp_path: Path) -> None:
        path = tmp_path / "a.txt"
        path.write_bytes("naïve ✓\r\nline two\n".encode() * 5000)  # bytes as written: no newline translation
        assert read_text(path) == "naïve ✓\r\nline two\n" * 5000
        assert read_text(str(path)) == read_text(path)
        (tmp_path / "empty.txt").write_bytes(b"")
        assert read_text(tmp_path / "empty.txt") == ""

    def test_not_utf8_raises_the_decode_error(self, tmp_path: Path) -> None:
        (tmp_path / "b.txt").write_bytes(b"ok \xff")
        with pytest.raises(UnicodeDecodeError):
            read_text(tmp_path / "b.txt")


class TestPlainWords:
    def test_a_byte_order_mark_is_read_past_and_a_folder_or_a_non_object_is_named(self, tmp_path: Path) -> None:
        from structsim_nb.trajectories.saved_runs import load_trajectories, read_text

        (tmp_path / "bom.json").write_bytes(b'\xef\xbb\xbf{"run_id": "1", "answer": "{}"}')
        (tmp_path / "list.json").write_text("[1, 2]")
        (tmp_path / "null.json").write_text("null")
        (tmp_path / "huge.json").write_text('{"answer": ' + "9" * 5000 + "}")
        by_file = {t.file: t for t in load_trajectories(tmp_path)}
        assert by_file["bom.json"].error is None and by_file["bom.json"].run_id == "1"
        assert (
            by_file["list.json"].error
            == "trajectory must be a JSON object ({...}) with an answer; got a JSON array. Fix the file"
        )
        assert "got a JSON null" in by_file["null.json"].error
        limit = f"{sys.get_int_max_str_digits():,}"
        assert (
            by_file["huge.json"].error == f"trajectory file holds a number with more digits than Python reads ({limit})"
        )
        (tmp_path / "folder").mkdir()
        with pytest.raises(OSError, match="a folder, not a file"):
            read_text(tmp_path / "folder")
