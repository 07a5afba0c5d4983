"""scenarios: scenario folders and files, the problems found reading them, and the scenario id selector."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import write_json

from structsim_nb.trajectories.scenarios import load_scenarios, read_scenario_ids

TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"


class TestLoad:
    def test_scenarios(self) -> None:
        scenarios, problems = load_scenarios(TREE / "scenarios")
        by_id = {s.id: s for s in scenarios}
        assert by_id["11"].groundtruth == "{'energy': 14, 'material': 48}" and by_id["11"].folder == "scenario_11"
        assert by_id["13"].evaluation_metadata["mode"] == "clarification"
        assert by_id["17"].error == "scenario folder has no groundtruth.txt"
        # Id 21 twice (`21/`, then `scenario_21/`): the last one is used, as AssetOpsBench's loader keeps it, in
        # the first one's place.
        assert by_id["21"].folder == "scenario_21" and by_id["21"].groundtruth == '{"b": 3}'
        assert [s.id for s in scenarios].index("21") < [s.id for s in scenarios].index("11")
        assert problems == [
            {
                "kind": "duplicate_scenario_id",
                "source": "21",
                # Both places are named, so the user can open them: the folder used and the one left out.
                "message": f"scenario id '21' is given again by {TREE / 'scenarios' / 'scenario_21'}, which is used "
                f"(the last one, as AssetOpsBench uses it); this one ({TREE / 'scenarios' / '21'}) is not. Give one "
                "of them another id",
            }
        ]

    def test_invalid_eval_metadata_is_reported_against_its_scenario(self, tmp_path: Path) -> None:
        (tmp_path / "scenario_1").mkdir()
        (tmp_path / "scenario_1" / "groundtruth.txt").write_text('{"a": 1}')
        (tmp_path / "scenario_1" / "groundtruth_eval.json").write_text("{not json")
        (scenario,), _ = load_scenarios(tmp_path)
        assert scenario.error.startswith("groundtruth_eval.json is not valid JSON")

    def test_scenario_files_and_several_paths(self, tmp_path: Path) -> None:
        lines = [
            {"id": 1, "text": "q", "type": "count", "expected_answer": "34"},
            {"id": "2", "text": "q", "characteristic_form": {"a": 1}},
            {"id": "3", "text": "q"},
        ]
        (tmp_path / "s.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
        write_json(tmp_path / "one.json", {"id": "11", "text": "q", "expected_answer": "x"})
        scenarios, problems = load_scenarios([tmp_path / "s.jsonl", tmp_path / "one.json", TREE / "scenarios"])
        by_id = {s.id: s for s in scenarios}
        assert (by_id["1"].groundtruth, by_id["1"].type, by_id["1"].folder) == ("34", "count", "s.jsonl:1")
        assert by_id["2"].groundtruth == '{"a": 1}' and by_id["2"].type is None
        assert "neither expected_answer nor characteristic_form" in by_id["3"].error
        assert by_id["11"].folder == "scenario_11" and by_id["12"].type == "structured"  # the folder is the last 11
        assert "one.json#0" in [p["source"] for p in problems]  # the folder repeats id 11: the entry is left out
        (tmp_path / "bad.json").write_text("[1]")
        assert load_scenarios(tmp_path / "bad.json") == (
            [],
            [
                {
                    "kind": "bad_scenario_entry",
                    "source": "bad.json#0",
                    "message": "scenario entries must be objects with a non-blank id (text or a whole number); "
                    "bad.json#0 is 1. Fix the file",
                }
            ],
        )
        (tmp_path / "empty.json").write_text("")
        assert load_scenarios(tmp_path / "empty.json") == ([], [])

    def test_scenario_id_selector(self, tmp_path: Path) -> None:
        assert read_scenario_ids("11, 12+34") == ["11", "12", "34"]
        (tmp_path / "ids.yaml").write_text("# lite\n- 11\n- '12'\n")
        assert read_scenario_ids(str(tmp_path / "ids.yaml")) == ["11", "12"]
        (tmp_path / "ids.json").write_text("[13, 11]")
        assert read_scenario_ids(str(tmp_path / "ids.json")) == ["13", "11"]
        with pytest.raises(ValueError, match="at least one"):
            read_scenario_ids(" , ")
        with pytest.raises(ValueError, match="names a file that does not exist: 'nofile.txt'"):
            read_scenario_ids("nofile.txt")  # it was taken as the id "nofile.txt"
        (tmp_path / "latin.txt").write_bytes(b"caf\xe9\n")
        with pytest.raises(ValueError, match=r"--scenario-ids file must be UTF-8 text; '.*latin.txt' failed"):
            read_scenario_ids(str(tmp_path / "latin.txt"))
        (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf11\n12\n")  # a Windows editor's byte-order mark
        assert read_scenario_ids(str(tmp_path / "bom.txt")) == ["11", "12"]


class TestHostileInput:
    """One poisoned file never ends a run; everything found is in the aggregate with its reason."""

    def test_fifos_among_the_scenarios_are_never_opened(self, tmp_path: Path) -> None:
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        (tmp_path / "s" / "scenario_1").mkdir(parents=True)
        os.mkfifo(tmp_path / "s" / "scenario_1" / "groundtruth.txt")
        os.mkfifo(tmp_path / "more.jsonl")
        scenarios, problems = load_scenarios([tmp_path / "s", tmp_path / "more.jsonl"])
        assert (
            scenarios[0].error
            == "groundtruth.txt cannot be read: not a regular file (a FIFO, socket or device is never opened)"
        )
        assert problems == [
            {
                "kind": "bad_scenario_file",
                "source": str(tmp_path / "more.jsonl"),
                "message": "not a regular file; not opened",
            }
        ]

    def test_one_bad_entry_never_hides_the_rest_of_the_folder(self, tmp_path: Path) -> None:
        root = tmp_path / "s"
        for ident in ("1", "2"):
            (root / f"scenario_{ident}").mkdir(parents=True)
            (root / f"scenario_{ident}" / "groundtruth.txt").write_text('{"a": 1}')
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / "groundtruth.txt").write_text('{"b": 2}')
        os.symlink(tmp_path / "elsewhere", root / "scenario_linked")
        os.symlink("scenario_loop", root / "scenario_loop")  # a link to itself: every lookup loops
        os.symlink("nowhere", root / "scenario_broken")
        (root / "scenario_file").write_text("not a folder")
        (root / "inline.json").write_text('[{"id": "9", "expected_answer": "{}"}]')
        (root / "README.md").write_text("notes")  # not meant as a scenario: left out without a word
        scenarios, problems = load_scenarios(root)
        assert [s.id for s in scenarios] == ["1", "2", "linked"]
        assert scenarios[2].groundtruth == '{"b": 2}' and scenarios[2].error is None
        listed = {(p["kind"], Path(p["source"]).name): p["message"] for p in problems}
        assert sorted(listed) == [
            ("not_a_scenario_folder", "inline.json"),
            ("not_a_scenario_folder", "scenario_file"),
            ("unreadable_scenario", "scenario_broken"),
            ("unreadable_scenario", "scenario_loop"),
        ]
        assert listed["unreadable_scenario", "scenario_broken"].startswith("broken symbolic link: its target 'nowhere'")
        assert "Too many levels of symbolic links" in listed["unreadable_scenario", "scenario_loop"]
        assert "passed as its own --scenarios argument" in listed["not_a_scenario_folder", "inline.json"]

    def test_one_scenario_folder_given_is_that_scenario(self, tmp_path: Path) -> None:
        (tmp_path / "scenario_11").mkdir()
        (tmp_path / "scenario_11" / "groundtruth.txt").write_text('{"a": 1}')
        scenarios, problems = load_scenarios(tmp_path / "scenario_11")
        assert [(s.id, s.folder, s.groundtruth) for s in scenarios] == [("11", "scenario_11", '{"a": 1}')]
        assert problems == []
        # A folder of scenario folders with a stray groundtruth.txt beside them is still a folder of scenarios.
        (tmp_path / "groundtruth.txt").write_text('{"stray": 1}')
        scenarios, _ = load_scenarios(tmp_path)
        assert [s.id for s in scenarios] == ["11"]

    def test_json_lines_entries_are_named_by_their_line(self, tmp_path: Path) -> None:
        lines = [
            '{"id": "1", "expected_answer": "a"}',
            "{not json",
            "",
            "[1, 2]",
            '{"id": " ", "expected_answer": "b"}',
        ]
        (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n")
        scenarios, problems = load_scenarios(tmp_path / "s.jsonl")
        assert [s.folder for s in scenarios] == ["s.jsonl:1"]
        assert [p["source"] for p in problems] == [f"{tmp_path / 's.jsonl'}:2", "s.jsonl:4", "s.jsonl:5"]
        assert problems[1]["message"].endswith("s.jsonl:4 is [1, 2]. Fix the file")
        assert 's.jsonl:5 is {"id": " ", "expected_answer": "b"}' in problems[2]["message"]
