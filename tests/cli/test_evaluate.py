"""`structsim-nb evaluate` end to end on the committed trajectories/scenarios tree."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import communicate_or_kill, still_alive
from pydantic import BaseModel

from structsim_nb.cli import EXIT_BAD_INPUT, EXIT_FAILURES, EXIT_OK, main

TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"
MODELS = __name__  # the module name pytest imported this file under (tests.cli.test_evaluate)


class Counts(BaseModel):
    """The --schema target; importable by its dotted path (MODELS.Counts)."""

    energy: int | None = None
    material: int | None = None


def _args(reports: Path, *extra: str) -> list[str]:
    return [
        "evaluate",
        "--trajectories",
        str(TREE / "trajectories"),
        "--scenarios",
        str(TREE / "scenarios"),
        "--reports-dir",
        str(reports),
        "--no-progress",
        *extra,
    ]


def test_static_json_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(tmp_path / "r")) == EXIT_FAILURES
    out = capsys.readouterr().out
    assert "scenario-34.json" in out and "Unmatched trajectories:\n  99.json" in out
    assert "Unmatched scenarios:\n  scenario_21: no trajectory joins this scenario" in out
    assert "21: scenario id '21' is given again by" in " ".join(out.split())
    assert "10 runs with static_json: 4 passed (40.0%), 1 failed, 5 errors (not scored)" in out
    # (a path too long for the line is wrapped onto its own line: compare with the white space joined)
    assert f"Page written: {tmp_path / 'r' / '_aggregate.html'}" in " ".join(out.split())
    written = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert written[0] == "11.json" and {"_aggregate.json", "_aggregate.html"} <= set(written) and len(written) == 12
    assert not [p for p in (tmp_path / "r").iterdir() if p.name.endswith(".tmp")]


def test_the_closing_lines_fit_a_narrow_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each closing line fits the terminal; a path too long for it stands whole on a line of its own."""
    monkeypatch.setenv("COLUMNS", "60")
    reports = tmp_path / ("a-long-folder-name-" * 3) / "r"
    assert main(_args(reports)) == EXIT_FAILURES
    out = capsys.readouterr().out
    closing = out[out.index("10 runs with") :].splitlines()
    assert all(len(line) <= 60 or len(line.split()) == 1 for line in closing), closing
    assert f"Page written: {reports / '_aggregate.html'}" in " ".join(out.split())


def test_reference_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """--scorer-default, several --scenarios paths, --scenario-ids, -v after the command, and generated_at."""
    (tmp_path / "extra.jsonl").write_text(json.dumps({"id": "99", "text": "q", "expected_answer": "42"}) + "\n")
    argv = _args(tmp_path / "r", "--scorer-default", "static_json", "--scenario-ids", "11,99", "-v")
    argv[argv.index(str(TREE / "scenarios")) + 1 : argv.index(str(TREE / "scenarios")) + 1] = [
        str(tmp_path / "extra.jsonl")
    ]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    assert main(argv) == EXIT_FAILURES  # 11 fails, 99 passes
    aggregate = json.loads((tmp_path / "r" / "_aggregate.json").read_text())
    assert aggregate["generated_at"] == "1970-01-02T00:00:00+00:00"
    assert [(r["scenario_id"], r["score"]["passed"]) for r in aggregate["results"]] == [("11", False), ("99", True)]
    out = " ".join(capsys.readouterr().out.split())
    assert "2 runs with static_json: 1 passed (50.0%)" in out and f"Reports written: 2 in {tmp_path / 'r'}" in out
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert main([*argv, "--timestamp"]) == EXIT_FAILURES
    stamp = json.loads((tmp_path / "r" / "_aggregate.json").read_text())["generated_at"]
    assert stamp.endswith("+00:00") and stamp[:4] >= "2024"


def test_clean_run_exits_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "5.json").write_text(json.dumps({"run_id": "5", "answer": "Final Answer: {'a': 1}"}))
    (tmp_path / "s" / "scenario_5").mkdir(parents=True)
    (tmp_path / "s" / "scenario_5" / "groundtruth.txt").write_text('{"a": 1}')
    argv = ["evaluate", "--trajectories", str(tmp_path / "t"), "--scenarios", str(tmp_path / "s")]
    assert main([*argv, "--reports-dir", str(tmp_path / "r"), "--no-progress"]) == EXIT_OK
    assert "1 run with static_json: 1 passed (100.0%), 0 failed, 0 errors" in capsys.readouterr().out


def test_similarity_with_a_dotted_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_args(tmp_path / "r", "--scorer", "similarity", "--schema", f"{MODELS}.Counts"))
    assert code == EXIT_FAILURES
    report = json.loads((tmp_path / "r" / "11.json").read_text())
    assert report["score"]["scorer"] == "similarity" and report["score"]["score"] == 0.5
    assert "similarity" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--scorer", "llm_judge"], "scorer must be a registered name"),
        (["--scorer", "similarity"], "needs a schema"),
        (["--scorer", "similarity", "--schema", "missing.json"], "JSON Schema"),
        (["--scenario-ids", ""], "must name at least one scenario id"),  # not "no filter"
        (["--scenario-ids", "nofile.txt"], "names a file that does not exist"),
        (["--fields", "a.b"], "--fields is not read by --scorer static_json, only by json_field_match"),
        (["--scorer", "json_diff", "--ignore-case"], "--ignore-case is not read by --scorer json_diff"),
        (["--scorer", "contains_json", "--threshold", "0.5", "--strip"], "--threshold, --strip are not read"),
        (["--scorer", "exact_match", "--schema", "x.Y"], "--schema is not read by --scorer exact_match"),
    ],
)
def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    assert main(_args(tmp_path / "r", *extra)) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "--trajectories", str(tmp_path / "x"), "--scenarios", str(tmp_path), "--no-progress"]
    assert main(argv) == EXIT_BAD_INPUT
    assert "does not exist" in capsys.readouterr().err


def test_progress_bar_stays_off_the_output_when_not_a_tty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = _args(tmp_path / "r")
    argv.remove("--no-progress")
    assert not sys.stderr.isatty()
    main(argv)
    assert "scoring" not in capsys.readouterr().err


def test_the_summary_says_why_each_run_errored_naming_its_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    main(_args(tmp_path / "r"))
    out = capsys.readouterr().out
    block = out.split("Errors (5 runs not scored):\n", 1)[1].split("\n\n", 1)[0]
    errors = [line for line in block.splitlines() if not line.startswith("      ")]  # wrapped lines are indented
    assert len(errors) == 5
    assert "  14.json -> scenario_14: trajectory file is not JSON" in errors[0]
    assert "  17.json -> scenario_17: scenario folder has no groundtruth.txt" in errors
    # A duplicate scenario id names both places it was found.
    problem = out.split("Problems:\n", 1)[1]
    assert str(TREE / "scenarios" / "21") in problem and str(TREE / "scenarios" / "scenario_21") in problem


def _tree(root: Path, count: int) -> tuple[Path, Path]:
    for index in range(count):
        (root / "s" / f"scenario_{index}").mkdir(parents=True)
        (root / "s" / f"scenario_{index}" / "groundtruth.txt").write_text('{"a": 1}')
    (root / "t").mkdir()
    for index in range(count):
        (root / "t" / f"{index}.json").write_text(json.dumps({"run_id": str(index), "answer": "{'a': 1}"}))
    return root / "t", root / "s"


def test_reports_dir_rules_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trajectories, scenarios = _tree(tmp_path, 2)
    argv = ["evaluate", "--trajectories", str(trajectories), "--scenarios", str(scenarios), "--no-progress"]
    (tmp_path / "file").write_text("x")
    assert main([*argv, "--reports-dir", str(tmp_path / "file")]) == EXIT_BAD_INPUT
    assert "exists and is not one" in capsys.readouterr().err
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("x")
    assert main([*argv, "--reports-dir", str(tmp_path / "mine")]) == EXIT_BAD_INPUT
    assert "holds files an earlier evaluate did not write (thesis.tex" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["thesis.tex"]


def test_full_results_and_a_rerun_into_the_same_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trajectories, scenarios = _tree(tmp_path, 3)
    argv = ["evaluate", "--trajectories", str(trajectories), "--scenarios", str(scenarios), "--no-progress"]
    assert main([*argv, "--reports-dir", str(tmp_path / "r"), "--full-results"]) == EXIT_OK
    aggregate = json.loads((tmp_path / "r" / "_aggregate.json").read_text())
    assert aggregate["full_results"] and "details" in aggregate["results"][0]["score"]
    (trajectories / "2.json").unlink()
    assert main([*argv, "--reports-dir", str(tmp_path / "r")]) == EXIT_FAILURES  # scenario 2 is now unmatched
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "0.json",
        "1.json",
        "_aggregate.html",
        "_aggregate.json",
    ]
    assert "details" not in json.loads((tmp_path / "r" / "_aggregate.json").read_text())["results"][0]["score"]
    capsys.readouterr()


def test_an_answer_no_terminal_can_print(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trajectories, scenarios = _tree(tmp_path, 1)
    (trajectories / "0.json").write_text('{"run_id": "\\ud800", "answer": "\\udcff"}')
    (trajectories / ".0.json.swp.json").write_text("{}")
    argv = ["evaluate", "--trajectories", str(trajectories), "--scenarios", str(scenarios), "--no-progress"]
    assert main([*argv, "--reports-dir", str(tmp_path / "r")]) == EXIT_FAILURES
    out = capsys.readouterr().out
    assert "1 run with static_json" in out
    assert "Skipped (not read):\n  .0.json.swp.json: hidden file (its name starts with '.')" in out


@pytest.mark.parametrize("after_writing", [False, True])
def test_ctrl_c_says_exactly_what_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, after_writing: bool
) -> None:
    from structsim_nb.trajectories.reports_dir import ReportsFolder

    trajectories, scenarios = _tree(tmp_path, 3)
    real_write, real_publish = ReportsFolder.write, ReportsFolder.publish

    def write(self: ReportsFolder, name: str, data: bytes) -> Path:
        if name == "1.json" and not after_writing:
            raise KeyboardInterrupt
        return real_write(self, name, data)

    def publish(self: ReportsFolder) -> None:
        real_publish(self)
        raise KeyboardInterrupt  # a Ctrl-C held during the move is delivered right after it

    monkeypatch.setattr(ReportsFolder, "write", write)
    monkeypatch.setattr(ReportsFolder, "publish", publish)
    argv = ["evaluate", "--trajectories", str(trajectories), "--scenarios", str(scenarios), "--no-progress"]
    assert main([*argv, "--reports-dir", str(tmp_path / "r")]) == 130
    captured = capsys.readouterr()
    if after_writing:
        assert f"after the reports were written: {tmp_path / 'r'} holds this run's reports" in captured.out
        assert (tmp_path / "r" / "_aggregate.json").is_file()
    else:
        assert f"interrupted by Ctrl-C: nothing was written; {tmp_path / 'r'} is as it was" in captured.err
        assert not (tmp_path / "r").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


_SLOW_EVALUATE = """
import sys, time
from structsim_nb.cli import main
from structsim_nb.trajectories.scorers import register_scorer, score_static_json

def slow(gold, answer, *, evaluation_metadata, options):
    time.sleep(0.05)
    return score_static_json(gold, answer, evaluation_metadata=evaluation_metadata, options=options)

register_scorer("slow", slow)
print("starting", flush=True)
sys.exit(main(["evaluate", "--trajectories", sys.argv[1], "--scenarios", sys.argv[2], "--reports-dir", sys.argv[3],
               "--scorer", "slow", "--workers", "2", "--no-progress"]))
"""


def test_sigterm_stops_evaluate_workers_and_writes_nothing(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    import psutil

    trajectories, scenarios = _tree(tmp_path, 400)
    reports = tmp_path / "r"
    process = subprocess.Popen(
        [sys.executable, "-c", _SLOW_EVALUATE, str(trajectories), str(scenarios), str(reports)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "starting"
    workers: list[psutil.Process] = []
    for _ in range(600):  # up to 60 s (psutil.wait_procs with no process returns at once: it never waited)
        workers = psutil.Process(process.pid).children(recursive=True)
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert len(workers) >= 2
    time.sleep(0.5)  # let the workers start scoring
    process.send_signal(signal.SIGTERM)
    stdout, stderr = communicate_or_kill(process, 60)
    assert process.returncode == 143, stderr
    assert f"interrupted by SIGTERM: nothing was written; {reports} is as it was" in stderr
    assert stderr.count("interrupted by SIGTERM") == 1, stderr  # said once, by the command that caught it
    assert still_alive(workers) == []
    assert not reports.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_no_run_at_all_is_not_a_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Empty (or mistyped) folders must not turn a CI check green."""
    (tmp_path / "t").mkdir()
    (tmp_path / "s").mkdir()
    code = main(
        ["evaluate", "--trajectories", str(tmp_path / "t"), "--scenarios", str(tmp_path / "s")]
        + ["--reports-dir", str(tmp_path / "r"), "--no-progress"]
    )
    assert code == EXIT_FAILURES
    out = capsys.readouterr().out
    assert "no trajectory joined a scenario" in out and "0 runs with static_json" in out
