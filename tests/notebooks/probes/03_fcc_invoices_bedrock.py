# Probe for 03_fcc_invoices_bedrock.ipynb: runs after the notebook's cells, in its namespace (see conftest.py).
# It reads the figures the prose states off the notebook's own variables (report, tuned_report, comparison,
# dates, ...), and rescores the "Try it yourself" variants the prose predicts, so the test can check both.
from strands_evals.types.evaluation import EvaluationData as _EvaluationData

from structsim_nb.plot import whatif as _whatif


def _short(name):
    return str(name)[:8]


def _r(value):
    return None if value is None or value != value else round(float(value), 3)


_plain = report.cases_frame().set_index("case")
_fields = report.fields_frame().set_index("path")
_summary = report.summary()
_rates = _whatif.pass_rates(_whatif.similarity_cases(report), thresholds=[0.68, 0.7, 0.714, 0.72])
_cmp = comparison.summary()
_cmp_cases = comparison.cases_frame()
_cmp_fields = comparison.fields_frame()
_regressions = comparison.regressions()


def _variant(*, days_threshold=0.4, dates_by_edit_distance=False, line_items_weight=2.0):
    """The Try-it cell's model with one change applied, as a reader would edit it; the tuned answers rescored."""
    annotations, fields = {}, {}
    if days_threshold is not None:
        annotations["LineItemDays"] = models.Text
        fields["LineItemDays"] = ComparableField(
            default=None, comparator=LevenshteinComparator(), threshold=days_threshold
        )
    if dates_by_edit_distance:
        for key in ("LineItemStartDate", "LineItemEndDate"):
            annotations[key] = models.DateText
            fields[key] = ComparableField(default=None, comparator=LevenshteinComparator(), threshold=0.7)
    line = type("ProbeLine", (models.FCCLineItemTuned,), {"__annotations__": annotations, **fields})
    invoice = type(
        "ProbeInvoice",
        (models.FCCInvoiceTuned,),
        {
            "__annotations__": {"LineItems": list[line]},
            "LineItems": ComparableField(default=[], weight=line_items_weight),
        },
    )
    rescored_variant = structsim_nb.score_dataset(answers, model_cls=invoice, workers=1)
    frame = structsim_nb.compare(tuned_report, rescored_variant, allow_schema_change=True).cases_frame()
    return {
        _short(row.case): [_r(row.score_before), _r(row.score_after), bool(row.pass_after)]
        for row in frame.itertuples()
    }


_strict = structsim_nb.StructuredOutputSimilarity(models.FCCInvoice, strict=True)
_strict_rows = {
    _short(case["name"]): _strict.evaluate(
        _EvaluationData(
            input=case["input"],
            expected_output=case["expected_output"],
            actual_output=case["actual_output"],
            name=case["name"],
        )
    )[0]
    for case in report.cases
}
_tuned_cases = fcc.fcc_cases(docs, output_model=models.FCCInvoiceTuned)


def _printed_dates(output):
    """Whether every air date in an answer is written as printed (`10/03/16`), not ISO."""
    days = [item.get(key) for item in output.get("LineItems") or [] for key in ("LineItemStartDate", "LineItemEndDate")]
    days = [day for day in days if day]
    return bool(days) and all("/" in str(day) for day in days)


FIGURES = {
    "mode": choice.mode.value,
    "docs": len(docs),
    "max_line_items": max(doc.n_line_items for doc in docs),
    "problems": {_short(doc.id): doc.problem for doc in docs if doc.problem},
    "cases": _summary["cases"],
    "passed": _summary["passed"],
    "overall_score": _r(_summary["overall_score"]),
    "scores": {_short(case): _r(score) for case, score in _plain["score"].items()},
    "recall": {_short(case): _r(value) for case, value in _plain["recall"].items()},
    "tp": {_short(case): int(value) for case, value in _plain["tp"].items()},
    "fn": {_short(case): int(value) for case, value in _plain["fn"].items()},
    "fa": {_short(case): int(value) for case, value in _plain["fa"].items()},
    "reason": {_short(case): str(value) for case, value in _plain["reason"].items()},
    "top_level_fields": len(models.FCCInvoice.model_fields),
    "pass_rate_at": {f"{t:.3f}": int(p) for t, p in zip(_rates["threshold"], _rates["passed"], strict=True)},
    "fields_worst_first": list(_fields.index[_fields["depth"] == 0][:3]),
    "worst_line_field": _fields.index[_fields["depth"] == 1][0],
    "field_errors": {
        path: [int(_fields.loc[path, "errors"]), int(_fields.loc[path, ["tp", "fn", "fa", "fd"]].sum())]
        for path in ("LineItems", "Agency", "AgencyCommission")
    },
    "misses": [[_short(row.case), row.path, row.kind, _r(row.similarity)] for row in misses.itertuples()],
    "explain": {
        path: [row.comparator, _r(row.threshold), _r(row.weight), str(row.why)]
        for path, row in evaluator.explain_frame().iterrows()
    },
    "tuned_explain": {
        path: [row.comparator, _r(row.threshold), _r(row.weight)]
        for path, row in tuned_evaluator.explain_frame().iterrows()
    },
    "dates": [
        [
            row["answer"],
            row["truth"],
            _r(row["edit distance"]),
            bool(row["match at 0.7"]),
            _r(row["DateComparator"]),
            bool(row["match at 0.95"]),
        ]
        for row in dates.to_dict(orient="records")
    ],
    "comparison": {key: _r(_cmp[key]) if isinstance(_cmp[key], float) else _cmp[key] for key in _cmp},
    "overall_frame": comparison.overall_frame()
    .set_index("measure")[["n_changed", "improved", "worsened"]]
    .astype(int)
    .to_dict(orient="index"),
    "unchanged_cases": int((_cmp_cases["delta"] == 0).sum()),
    "regressions": [[row.kind, _short(row.name), _r(row.delta), row.detail] for row in _regressions.itertuples()],
    "field_deltas": {row.path: _r(row.delta) for row in _cmp_fields.itertuples()},
    "movers": {
        _short(row.case): [_r(row.score_before), _r(row.score_after), _r(row.delta)] for row in movers.itertuples()
    },
    "tuned_label_problems": [case.metadata["problem"] for case in _tuned_cases],
    "tuned_printed_dates": sorted(_short(c["name"]) for c in tuned_report.cases if _printed_dates(c["actual_output"])),
    "tuned_notes": comparison.notes,
    "try_moved": {
        _short(row.case): [_r(row.score_before), _r(row.score_after), bool(row.pass_before), bool(row.pass_after)]
        for row in moved.itertuples()
    },
    "try_threshold_05": _variant(days_threshold=0.5),
    "try_dates_by_edit_distance": _variant(dates_by_edit_distance=True),
    "try_line_items_weight_1": _variant(line_items_weight=1.0),
    "try_strict": {name: [_r(row.score), (row.metadata or {}).get("error")] for name, row in _strict_rows.items()},
}
