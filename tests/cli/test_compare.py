"""Tests for `structsim-nb compare`: what it prints and writes, the --fail-on exit codes, bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from structsim_nb import score_dataset
from structsim_nb.cli import EXIT_BAD_INPUT, EXIT_FAILURES, EXIT_OK, main
from structsim_nb.demo import Invoice, synthetic_invoice_pairs
from structsim_nb.trajectories.runner import run_evaluation

TREE = Path(__file__).resolve().parent.parent / "data" / "trajectories_tree"
PAIRS = synthetic_invoice_pairs(40, line_items=(1, 3), seed=7)


def _save(path: Path, pairs, model_cls=Invoice) -> Path:
    return score_dataset(pairs, model_cls=model_cls, workers=1, progress=False).to_file(path)


class OtherInvoice(Invoice):
    """Another schema name for the same fields."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Saved reports: the baseline, an improvement, a vendor-name regression, and one case broken."""
    root = tmp_path_factory.mktemp("runs")
    vendor = [
        {**p, "actual": p["actual"] if i % 4 == 0 else p["actual"].model_copy(update={"vendor_name": "Zq"})}
        for i, p in enumerate(PAIRS)
    ]
    base = score_dataset(PAIRS, model_cls=Invoice, workers=1, progress=False)
    passing = next(i for i, passed in enumerate(base.test_passes) if passed)
    one_broken = [{**p, "actual": "no structure here"} if i == passing else p for i, p in enumerate(PAIRS)]
    return {
        "base": base.to_file(root / "base.json"),
        "better": _save(
            root / "better.json", [{**p, "actual": p["expected"]} if i % 2 == 0 else p for i, p in enumerate(PAIRS)]
        ),
        "vendor": _save(root / "vendor.json", vendor),
        "one_broken": _save(root / "one_broken.json", one_broken),
        "other_schema": _save(root / "other.json", PAIRS, OtherInvoice),
    }


def test_compare_prints_the_headline_regressions_and_fields_and_writes_the_page(runs, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compare", str(runs["base"]), str(runs["vendor"]), "--out", str(out)]) == EXIT_OK
    stdout = capsys.readouterr().out
    assert "mean score" in stdout and "over 40 cases" in stdout and ": worse" in stdout
    assert (
        "Regressions, worst first" in stdout and "Per field" in stdout and "the cases each interval rests on" in stdout
    )
    assert "vendor_name" in stdout and "broken" in stdout
    assert sorted(p.name for p in out.iterdir()) == ["comparison.html", "comparison.json"]
    data = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert data["summary"]["verdict"] == "worse" and data["fields"][0]["path"] == "vendor_name"
    assert "vendor_name" in (out / "comparison.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("candidate", "rules", "code"),
    [
        ("better", ["worse-overall", "any-worse-field", "any-broken-case"], EXIT_OK),
        ("vendor", ["worse-overall"], EXIT_FAILURES),
        ("vendor", ["any-worse-field"], EXIT_FAILURES),
        ("one_broken", ["worse-overall", "any-worse-field"], EXIT_OK),  # one case: no evidence of anything
        ("one_broken", ["any-broken-case"], EXIT_FAILURES),
        ("vendor", [], EXIT_OK),  # no rule, no failure: compare only reports
    ],
)
def test_fail_on_rules_set_the_exit_code(runs, tmp_path, capsys, candidate, rules, code):
    argv = ["compare", str(runs["base"]), str(runs[candidate]), "--out", str(tmp_path)]
    for rule in rules:
        argv += ["--fail-on", rule]
    assert main(argv) == code
    captured = capsys.readouterr()
    if code == EXIT_FAILURES:
        assert f"fail-on {rules[0]}:" in captured.err
    elif rules:
        assert "fail-on: no rule matched" in captured.out


def test_the_same_inputs_and_seed_write_byte_identical_files(runs, tmp_path, capsys):
    outputs = []
    for name in ("a", "b"):
        assert (
            main(["compare", str(runs["base"]), str(runs["better"]), "--seed", "7", "--out", str(tmp_path / name)]) == 0
        )
        outputs.append({p.name: p.read_bytes() for p in (tmp_path / name).iterdir()})
    assert outputs[0] == outputs[1]
    main(["compare", str(runs["base"]), str(runs["better"]), "--seed", "8", "--out", str(tmp_path / "c")])
    assert (tmp_path / "c" / "comparison.json").read_bytes() != outputs[0]["comparison.json"]
    capsys.readouterr()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda runs, tmp: (tmp / "missing.json", runs["base"]), "missing.json' was not found"),
        (lambda runs, tmp: (_truncated(runs["base"], tmp), runs["base"]), "cut.json' must be JSON"),
        (lambda runs, tmp: (runs["base"], runs["other_schema"]), "used Invoice and candidate"),
        (lambda runs, tmp: (runs["base"], _duplicated(tmp)), "dup.json' repeats"),
        (lambda runs, tmp: (tmp, runs["base"]), "must hold _aggregate.json"),
    ],
    ids=["missing", "truncated", "schema", "duplicates", "not-a-reports-folder"],
)
def test_bad_input_exits_2_naming_the_file_and_writes_nothing(runs, tmp_path, capsys, make, message):
    baseline, candidate = make(runs, tmp_path)
    out = tmp_path / "out"
    assert main(["compare", str(baseline), str(candidate), "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert not out.exists()


def _truncated(path: Path, tmp: Path) -> Path:
    cut = tmp / "cut.json"
    cut.write_bytes(path.read_bytes()[:4000])
    return cut


def _duplicated(tmp: Path) -> Path:
    return _save(tmp / "dup.json", [PAIRS[0], PAIRS[0], PAIRS[1]])


def test_a_schema_change_compares_when_allowed(runs, tmp_path, capsys):
    argv = ["compare", str(runs["base"]), str(runs["other_schema"]), "--out", str(tmp_path), "--allow-schema-change"]
    assert main(argv) == EXIT_OK
    assert "note: the schema changed: Invoice -> OtherInvoice" in capsys.readouterr().out


def test_bad_options_are_usage_errors(runs, capsys):
    for option in (["--confidence", "95"], ["--resamples", "0"], ["--fail-on", "sometimes"]):
        with pytest.raises(SystemExit) as caught:
            main(["compare", str(runs["base"]), str(runs["base"]), *option])
        assert caught.value.code == EXIT_BAD_INPUT
    assert "must be between 0 and 1" in capsys.readouterr().err


def test_evaluate_folders_compare_by_scenario_and_say_so(tmp_path, capsys, monkeypatch):
    runs = tmp_path / "runs"
    shutil.copytree(TREE / "trajectories", runs)
    answer = runs / "12.json"
    answer.write_text(answer.read_text(encoding="utf-8").replace("21}", "22}", 1), encoding="utf-8")
    run_evaluation(TREE / "trajectories", TREE / "scenarios", tmp_path / "base")
    run_evaluation(runs, TREE / "scenarios", tmp_path / "cand")
    monkeypatch.setenv("COLUMNS", "80")
    argv = ["compare", str(tmp_path / "base"), str(tmp_path / "cand"), "--fail-on", "any-broken-case"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == EXIT_FAILURES
    captured = capsys.readouterr()
    assert "runs pair by scenario id" in captured.out and "1 case passed in the baseline" in captured.err
    assert "answer[0].count" in captured.out  # the newly wrong key, in the regressions


def test_output_fits_an_80_column_terminal(runs, tmp_path):
    env = {**os.environ, "COLUMNS": "80"}
    argv = [sys.executable, "-m", "structsim_nb", "compare", str(runs["base"]), str(runs["vendor"])]
    done = subprocess.run([*argv, "--out", "out"], capture_output=True, text=True, env=env, check=True, cwd=tmp_path)
    too_wide = [line for line in done.stdout.splitlines() if len(line) > 80]
    assert not too_wide, f"lines wider than the terminal: {too_wide}"


def test_a_wrong_kind_of_input_says_what_to_pass_instead(runs, tmp_path, capsys):
    """A demo folder (it holds report.json) and one run's evaluate report each point at what compare reads."""
    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "report.json").write_bytes(runs["base"].read_bytes())
    assert main(["compare", str(demo), str(runs["base"]), "--out", str(tmp_path / "o")]) == EXIT_BAD_INPUT
    assert f"To compare a saved report, pass the file itself ({demo / 'report.json'})" in capsys.readouterr().err
    run = tmp_path / "11.json"
    run.write_text(json.dumps({"scenario_id": "11", "score": {"scorer": "static_json", "score": 1.0}}))
    assert main(["compare", str(run), str(runs["base"]), "--out", str(tmp_path / "o")]) == EXIT_BAD_INPUT
    assert "one run's report from structsim-nb evaluate: pass the folder that holds it" in capsys.readouterr().err
