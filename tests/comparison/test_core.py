"""Tests for `structsim_nb.compare`: pairing, every view, the verdict rules, bad input, and the page."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from strands_evals import Case, Experiment

from structsim_nb import Comparison, JsonFieldMatch, StructuredOutputSimilarity, compare, score_dataset
from structsim_nb.comparison.core import FIELD_COLUMNS, OVERALL_COLUMNS
from structsim_nb.demo import Invoice, run_reference, synthetic_invoice_pairs
from structsim_nb.errors import ComparisonError, ReportFileError
from structsim_nb.trajectories.runner import run_evaluation

TREE = Path(__file__).resolve().parent.parent / "data" / "trajectories_tree"
PAIRS = synthetic_invoice_pairs(40, line_items=(1, 3), seed=7)


class RenamedInvoice(Invoice):
    """The same fields under another schema name."""


def _score(pairs, model_cls=Invoice):
    return score_dataset(pairs, model_cls=model_cls, workers=1, progress=False)


def _with(pairs, change):
    return [{**pair, "actual": change(index, pair)} for index, pair in enumerate(pairs)]


@pytest.fixture(scope="module")
def baseline():
    return _score(PAIRS)


@pytest.fixture(scope="module")
def improved():
    """Every other case extracted perfectly."""
    return _score(_with(PAIRS, lambda i, p: p["expected"] if i % 2 == 0 else p["actual"]))


@pytest.fixture(scope="module")
def vendor_broken():
    """The vendor name wrong in 30 of 40 cases; nothing else changed."""
    return _score(
        _with(PAIRS, lambda i, p: p["actual"] if i % 4 == 0 else p["actual"].model_copy(update={"vendor_name": "Zq"}))
    )


# -- identical runs ---------------------------------------------------------------------------


def test_identical_runs_differ_by_exactly_zero_and_nothing_flips(baseline):
    result = compare(baseline, baseline)
    summary = result.summary()
    assert (summary["delta"], summary["ci_low"], summary["ci_high"]) == (0.0, 0.0, 0.0)
    assert (summary["fixed"], summary["broken"], summary["mcnemar_p"]) == (0, 0, 1.0)
    assert summary["verdict"] == "no evidence"
    fields = result.fields_frame()
    assert (fields["delta"] == 0.0).all() and (fields["ci_low"] == 0.0).all() and (fields["ci_high"] == 0.0).all()
    assert set(fields["verdict"]) == {"no evidence"}
    assert result.regressions().empty and result.non_matches_frame().empty
    assert (result.cases_frame()["delta"] == 0.0).all() and result.cases_frame()["flip"].isna().all()


# -- overall ----------------------------------------------------------------------------------


def test_overall_is_the_paired_difference_with_flips_and_an_exact_mcnemar_p(baseline, improved):
    result = compare(baseline, improved)
    overall = result.overall_frame()
    assert list(overall.columns) == OVERALL_COLUMNS and overall["measure"].tolist() == ["score", "pass rate"]
    score, rate = overall.to_dict("records")
    assert score["baseline"] == pytest.approx(np.mean(baseline.scores))
    assert score["candidate"] == pytest.approx(np.mean(improved.scores))
    assert score["delta"] == pytest.approx(np.mean(improved.scores) - np.mean(baseline.scores))
    assert score["ci_low"] > 0 and score["verdict"] == "better" and score["n_cases"] == 40
    changed = sum(a != b for a, b in zip(baseline.scores, improved.scores, strict=True))
    assert score["n_changed"] == changed == score["improved"] and score["worsened"] == 0
    fixed = sum(not b and a for b, a in zip(baseline.test_passes, improved.test_passes, strict=True))
    broken = sum(b and not a for b, a in zip(baseline.test_passes, improved.test_passes, strict=True))
    assert (rate["improved"], rate["worsened"]) == (fixed, broken) and fixed > 0
    assert rate["p_value"] == pytest.approx(stats.binomtest(fixed, fixed + broken, 0.5).pvalue)
    assert rate["baseline"] == pytest.approx(np.mean(baseline.test_passes))
    summary = result.summary()
    assert (summary["fixed"], summary["broken"], summary["verdict"]) == (fixed, broken, "better")


def test_a_regression_reads_worse_overall_and_the_interval_lies_below_zero(baseline, vendor_broken):
    summary = compare(baseline, vendor_broken).summary()
    assert summary["verdict"] == "worse" and summary["ci_high"] < 0 and summary["broken"] > 0


# -- per field --------------------------------------------------------------------------------


def test_per_field_names_the_field_that_got_worse_and_leaves_the_rest_at_no_evidence(baseline, vendor_broken):
    fields = compare(baseline, vendor_broken).fields_frame()
    assert list(fields.columns) == FIELD_COLUMNS
    assert {"path", "delta", "ci_low", "ci_high", "verdict", "n_cases"} <= set(fields.columns)  # the forest plot
    vendor = fields.iloc[0]
    assert vendor["path"] == "vendor_name" and vendor["verdict"] == "worse" and vendor["ci_high"] < 0
    assert vendor["n_cases"] == 40 and vendor["fd_after"] > vendor["fd_before"]
    assert vendor["mean_before"] == pytest.approx(baseline.metrics().field_metrics["vendor_name"]["mean_score"])
    assert vendor["mean_after"] == pytest.approx(vendor_broken.metrics().field_metrics["vendor_name"]["mean_score"])
    rest = fields.iloc[1:]
    assert set(rest["verdict"]) == {"no evidence"} and (rest["delta"] == 0).all()


def test_fields_of_list_elements_are_compared_by_accuracy_over_the_cases_that_have_them(baseline, improved):
    fields = compare(baseline, improved).fields_frame().set_index("path")
    assert fields.loc["line_items.sku", "measure"] == "accuracy" and fields.loc["vendor_name", "measure"] == "score"
    assert fields.loc["line_items.sku", "n_cases"] <= 40
    assert (fields["ci_low"] <= fields["delta"]).all() and (fields["delta"] <= fields["ci_high"]).all()


def test_a_field_moved_in_fewer_than_six_cases_is_no_evidence_even_when_every_move_is_the_same_way(baseline):
    few = _score(
        _with(PAIRS, lambda i, p: p["actual"].model_copy(update={"invoice_id": "X"}) if i < 5 else p["actual"])
    )
    row = compare(baseline, few).fields_frame().set_index("path").loc["invoice_id"]
    assert row["n_changed"] <= 5 and row["delta"] < 0 and row["verdict"] == "no evidence"


# -- per case and non-matches -----------------------------------------------------------------


def test_per_case_has_both_scores_the_flip_and_the_non_matches_that_changed(baseline, vendor_broken):
    result = compare(baseline, vendor_broken)
    cases = result.cases_frame().set_index("case")
    name = PAIRS[1]["name"]
    assert cases.loc[name, "score_before"] == baseline.scores[1]
    assert cases.loc[name, "score_after"] == vendor_broken.scores[1]
    assert cases.loc[name, "delta"] == pytest.approx(vendor_broken.scores[1] - baseline.scores[1])
    assert cases.loc[name, "run"] == "both" and cases.loc[name, "status_after"] == "scored"
    flips = cases["flip"].dropna()
    assert set(flips) == {"broken"} and len(flips) == result.summary()["broken"]
    changes = result.non_matches_frame()
    vendor = changes[(changes["case"] == name) & (changes["path"] == "vendor_name")].iloc[0]
    assert vendor["change"] in ("appeared", "changed")
    assert vendor["expected"] == PAIRS[1]["expected"].vendor_name and vendor["predicted_after"] == "Zq"
    assert cases.loc[name, "appeared"] + cases.loc[name, "changed"] >= 1


def test_fixed_non_matches_show_the_value_before_and_the_value_now(baseline, improved):
    changes = compare(baseline, improved).non_matches_frame()
    fixed = changes[changes["change"] == "fixed"]
    assert not fixed.empty and set(fixed["kind_after"].dropna()) == set()
    plain = fixed[~fixed["path"].str.contains(r"\[")].iloc[0]
    assert plain["predicted_after"] == plain["expected"] and plain["predicted_before"] != plain["expected"]


def test_editing_an_object_in_the_non_matches_frame_changes_neither_the_comparison_nor_the_reports(baseline, improved):
    comparison = compare(baseline, improved)
    saved, page = baseline.model_dump_json(), comparison.to_json()
    changes = comparison.non_matches_frame()
    edited = 0
    for column in ("expected", "predicted_before", "predicted_after"):
        for value in changes[column]:
            if isinstance(value, (dict, list)):
                value.clear()
                edited += 1
    assert edited
    assert baseline.model_dump_json() == saved and comparison.to_json() == page
    assert comparison.non_matches_frame().equals(compare(baseline, improved).non_matches_frame())


# -- regressions ------------------------------------------------------------------------------


def test_regressions_list_worse_fields_first_then_broken_cases_then_lower_scores(baseline, vendor_broken):
    regressions = compare(baseline, vendor_broken).regressions()
    assert regressions.iloc[0][["kind", "name"]].tolist() == ["field", "vendor_name"]
    cases = regressions[regressions["kind"] == "case"]
    broken = cases["detail"].str.startswith("broken")
    assert broken.any() and not broken.iloc[broken.sum() :].any()  # every broken case before the rest
    assert (cases["delta"] < 0).all()
    rest = cases[~broken.to_numpy()]
    assert rest["delta"].is_monotonic_increasing
    assert "vendor_name" in cases.iloc[0]["detail"]


# -- cases in one run, statuses ---------------------------------------------------------------


def test_cases_in_one_run_only_are_listed_not_compared(baseline):
    shorter = _score([*PAIRS[2:], {**PAIRS[0], "name": "new-case"}])
    result = compare(baseline, shorter)
    summary = result.summary()
    assert (summary["paired"], summary["only_baseline"], summary["only_candidate"]) == (38, 2, 1)
    cases = result.cases_frame().set_index("case")
    assert cases.loc[PAIRS[0]["name"], "run"] == "baseline only" and math.isnan(cases.loc[PAIRS[0]["name"], "delta"])
    assert cases.loc["new-case", "run"] == "candidate only"
    assert result.overall_frame().loc[0, "n_cases"] == 38
    missing = result.regressions().query("detail.str.startswith('missing')", engine="python")
    assert sorted(missing["name"]) == sorted(p["name"] for p in PAIRS[:2])


def test_unreadable_and_not_applicable_cases_are_paired_and_shown_with_their_status(baseline):
    def change(index, pair):
        return "no structure here" if index == 3 else pair["actual"]

    candidate = _score(_with(PAIRS, change))
    result = compare(baseline, candidate)
    row = result.cases_frame().set_index("case").loc[PAIRS[3]["name"]]
    assert (row["status_before"], row["status_after"], row["score_after"]) == ("scored", "unreadable", 0.0)
    assert "no JSON object" in row["reason_after"]
    assert result.summary()["compared"] == 40 and result.summary()["field_cases"] == 39
    first = result.regressions().query("kind == 'case'").iloc[0]
    assert first["name"] == PAIRS[3]["name"] and "now unreadable" in first["detail"]
    no_truth = _score([{**pair, "expected": None} if i == 0 else pair for i, pair in enumerate(PAIRS)])
    summary = compare(no_truth, baseline).summary()
    assert (summary["paired"], summary["compared"]) == (40, 39)


# -- bad input --------------------------------------------------------------------------------


def test_duplicate_case_names_are_an_error_naming_the_file_and_the_name(tmp_path, baseline):
    path = _score([PAIRS[0], *PAIRS[:3]]).to_file(tmp_path / "dup.json")
    with pytest.raises(ComparisonError, match=rf"baseline '{re.escape(str(path))}' repeats '{PAIRS[0]['name']}' x2"):
        compare(path, baseline)


def test_unnamed_cases_are_an_error(baseline):
    report = Experiment(
        cases=[Case(input="x", expected_output=PAIRS[0]["expected"])],
        evaluators=[StructuredOutputSimilarity(Invoice)],
        report_cls=type(baseline),
    ).run_evaluations(lambda case: {"output": PAIRS[0]["actual"]})
    with pytest.raises(ComparisonError, match="candidate .in memory. has 1 unnamed"):
        compare(baseline, report)


def test_a_truncated_file_is_an_error_naming_it(tmp_path, baseline):
    path = baseline.to_file(tmp_path / "base.json")
    path.write_bytes(path.read_bytes()[:5000])
    with pytest.raises(ReportFileError, match=re.escape(str(path)) + ".*must be JSON"):
        compare(path, baseline)
    with pytest.raises(ReportFileError, match="was not found"):
        compare(tmp_path / "missing.json", baseline)


def test_different_schemas_are_an_error_naming_both_unless_the_change_is_the_point(tmp_path, baseline):
    other = _score(PAIRS, RenamedInvoice)
    path = other.to_file(tmp_path / "renamed.json")
    with pytest.raises(
        ComparisonError, match=r"baseline \(in memory\) used Invoice and candidate '.*renamed.json' used"
    ):
        compare(baseline, path)
    allowed = compare(baseline, path, allow_schema_change=True)
    assert allowed.summary()["delta"] == 0.0
    assert any("schema changed: Invoice -> RenamedInvoice" in note for note in allowed.notes)


def test_different_evaluators_are_an_error_naming_both(baseline):
    cases = [Case(name=p["name"], input="", expected_output=p["expected"].model_dump(mode="json")) for p in PAIRS]
    other = Experiment(cases=cases, evaluators=[JsonFieldMatch(fields=["vendor_name"])]).run_evaluations(
        lambda case: {"output": json.dumps(PAIRS[0]["actual"].model_dump(mode="json"))}
    )
    with pytest.raises(
        ComparisonError, match="baseline .in memory. was scored by StructuredOutputSimilarity and candidate"
    ):
        compare(baseline, other)


def test_a_report_with_two_evaluators_needs_one_named():
    report = run_reference(with_equals=True)
    with pytest.raises(ComparisonError, match=r"carries 2 evaluators \(Equals, StructuredOutputSimilarity\)"):
        compare(report, report)
    assert compare(report, report, evaluator="StructuredOutputSimilarity").summary()["compared"] == 6
    assert compare(report, report, evaluator="Equals").fields_frame().empty
    with pytest.raises(ComparisonError, match="has no 'Nope' rows"):
        compare(report, report, evaluator="Nope")


def test_arguments_are_checked(baseline):
    with pytest.raises(ValueError, match="confidence must be a number between 0 and 1"):
        compare(baseline, baseline, confidence=95)
    with pytest.raises(ValueError, match="n_resamples must be a whole number"):
        compare(baseline, baseline, n_resamples=0)
    with pytest.raises(TypeError, match="baseline must be a StructuredOutputReport"):
        compare(42, baseline)
    with pytest.raises(ComparisonError, match="share none"):
        compare(baseline, _score([{**PAIRS[0], "name": "elsewhere"}]))


# -- files, folders, determinism --------------------------------------------------------------


def test_saved_files_compare_as_the_reports_do_and_the_same_seed_gives_the_same_bytes(tmp_path, baseline, improved):
    base, cand = baseline.to_file(tmp_path / "a.json"), improved.to_file(tmp_path / "b.json")
    from_files = compare(base, cand, seed=3)
    in_memory = compare(baseline, improved, seed=3)
    assert from_files.fields_frame().equals(in_memory.fields_frame())
    assert from_files.overall_frame().equals(in_memory.overall_frame())
    assert compare(base, cand, seed=3).to_json() == from_files.to_json()
    assert compare(base, cand, seed=3).to_html() == from_files.to_html()
    assert compare(base, cand, seed=4).summary()["ci_low"] != from_files.summary()["ci_low"]
    data = json.loads(from_files.to_json())
    assert set(data) == {"summary", "notes", "overall", "regressions", "fields", "cases", "non_matches"}
    assert len(data["cases"]) == 40 and data["summary"]["seed"] == 3


@pytest.fixture(scope="module")
def evaluate_folders(tmp_path_factory):
    """Two evaluate reports folders of the test tree: the candidate fixes scenario 11 and breaks 12."""
    root = tmp_path_factory.mktemp("folders")
    runs = root / "runs"
    shutil.copytree(TREE / "trajectories", runs)
    for name, old, new in (("11.json", '\\"material\\":27', '\\"material\\":48'), ("12.json", "21}", "22}")):
        text = (runs / name).read_text(encoding="utf-8")
        assert old in text
        (runs / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    run_evaluation(TREE / "trajectories", TREE / "scenarios", root / "base")
    run_evaluation(runs, TREE / "scenarios", root / "cand")
    return root / "base", root / "cand"


def test_evaluate_folders_pair_by_scenario_id_with_error_runs_paired_and_shown(evaluate_folders):
    base, cand = evaluate_folders
    result = compare(base, cand)
    cases = result.cases_frame().set_index("case")
    assert cases.loc["11", "flip"] == "fixed" and cases.loc["12", "flip"] == "broken"
    assert (cases.loc["14", "status_before"], cases.loc["14", "status_after"]) == ("error", "error")
    assert "not JSON" in cases.loc["14", "reason_after"]
    changes = result.non_matches_frame().set_index(["case", "path"])
    assert changes.loc[("11", "answer.material"), "change"] == "fixed"
    assert changes.loc[("12", "answer[0].count"), "change"] == "appeared"
    assert changes.loc[("12", "answer[0].count"), "predicted_after"] == "22"
    assert "answer.material" in set(result.fields_frame()["path"])
    assert any("did not join" in note for note in result.notes)
    assert str(base) in result.summary()["baseline"]


def test_similarity_scored_folders_compare_field_by_field(tmp_path, evaluate_folders):
    schema = tmp_path / "counts.json"
    properties = {"energy": {"type": "integer"}, "material": {"type": "integer"}}
    schema.write_text(json.dumps({"title": "Counts", "type": "object", "properties": properties}), encoding="utf-8")
    runs = evaluate_folders[1].parent / "runs"
    folders = []
    for name, source in (("base", TREE / "trajectories"), ("cand", runs)):
        options = {"schema": str(schema)}
        run_evaluation(
            source, TREE / "scenarios", tmp_path / name, scorer="similarity", options=options, scenario_ids=["11"]
        )
        folders.append(tmp_path / name)
    result = compare(*folders)
    fields = result.fields_frame().set_index("path")
    assert fields.loc["material", ["mean_before", "mean_after", "n_cases"]].tolist() == [0.0, 1.0, 1]
    assert fields.loc["material", "verdict"] == "no evidence"  # one case
    change = result.non_matches_frame().iloc[0]
    assert (change["case"], change["path"], change["change"], change["predicted_before"]) == (
        "11",
        "material",
        "fixed",
        27,
    )
    assert result.summary()["fixed"] == 1


def test_a_folder_without_an_aggregate_or_with_a_truncated_one_is_an_error(tmp_path, evaluate_folders):
    with pytest.raises(ReportFileError, match="must hold _aggregate.json"):
        compare(tmp_path, evaluate_folders[1])
    broken = tmp_path / "broken"
    shutil.copytree(evaluate_folders[0], broken)
    aggregate = broken / "_aggregate.json"
    aggregate.write_bytes(aggregate.read_bytes()[:300])
    with pytest.raises(ReportFileError, match=f"evaluate aggregate '{re.escape(str(aggregate))}' must be JSON"):
        compare(broken, evaluate_folders[1])


# -- rendering --------------------------------------------------------------------------------


def test_the_page_is_standalone_and_says_how_many_cases_each_interval_rests_on(baseline, vendor_broken):
    result = compare(baseline, vendor_broken)
    page = result.to_html(title="prompt v2 against v1")
    assert page.startswith("<!DOCTYPE html>") and "<title>prompt v2 against v1</title>" in page
    assert not re.search(r"(src|href)=['\"]https?:", page)  # nothing fetched: charts are data URIs
    for heading in ("Summary", "Regressions, worst first", "Per field", "Per case", "Non-matches", "How to read"):
        assert f"<h2>{heading}" in page
    assert "over 40 cases" in page and "the number of cases each interval rests on" in page
    shown = result._repr_html_()
    assert "over 40 cases" in shown and "vendor_name" in shown and "<html" not in shown
    assert repr(result).startswith("<Comparison 40 cases: score")
    assert isinstance(result, Comparison)


def test_statuses_follow_the_report_rules(baseline):
    from structsim_nb.comparison.runs import row_status

    mixed = run_reference(with_equals=True)
    unreadable = _score([{**PAIRS[0], "actual": "nothing"}, {**PAIRS[1], "expected": None}, PAIRS[2]])
    for report in (mixed, unreadable, baseline):
        frame = report.cases_frame()["status"].replace("other evaluator", "scored").tolist()
        assert [row_status(row) for rows in report.detailed_results for row in rows] == frame
    assert set(unreadable.cases_frame()["status"]) == {"scored", "unreadable", "not applicable"}
    assert row_status(None) == "error"


def test_structsim_nb_compare_is_the_function_whatever_is_imported_first():
    # The package holding it is `comparison`, so no submodule import can shadow the function.
    code = (
        "import structsim_nb.comparison; from structsim_nb.comparison import Comparison; "
        "import structsim_nb; from structsim_nb import compare; "
        "print(callable(compare), compare is structsim_nb.compare, compare.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "compare"]
