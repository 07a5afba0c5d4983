# Probe for examples/notebooks/01_reference_scoring.ipynb: runs as one extra cell after the notebook's own cells,
# in its namespace (see tests/notebooks/conftest.py), and sets FIGURES: plain JSON values read off the notebook's
# variables, which tests/notebooks/test_01_reference_scoring.py checks against what the prose states.
# Top-level `await` works here, as in any notebook cell.
import math as _math

from strands_evals import Experiment as _Experiment
from strands_evals.evaluators import Equals as _Equals

import structsim_nb.plot.whatif as _whatif


def _plain(value):
    """A value as JSON can hold it: numpy scalars unwrapped, NaN as None, dates and models as text."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and _math.isnan(value):
        return None
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return str(value)


def _records(frame, columns=None):
    frame = frame if columns is None else frame[columns]
    return [{key: _plain(value) for key, value in row.items()} for row in frame.to_dict(orient="records")]


async def _overall_alone(evaluator):
    # The overall the Strands Evals way: `overall_score` of an experiment that runs this evaluator alone.
    alone = _Experiment(cases=reference_cases(), evaluators=[evaluator])
    return (await alone.run_evaluations_async(task, max_workers=1)).overall_score


_sim = "StructuredOutputSimilarity"
_cases = report.cases_frame()
_sparse_rates = _whatif.pass_rates(sparse_report.cases_frame(), thresholds=[0.7, 0.8, 0.81])
_rollup = pd.DataFrame(reloaded.metrics().field_metrics).T

FIGURES = {
    "differing": {
        name: [str(field) for field in truth.columns if truth.loc[name, field] != predicted.loc[name, field]]
        for name in names
    },
    "compare_rows": sorted({str(name) for name, _ in truth.compare(predicted, align_axis=0).index}),
    "line_item_count": {
        "truth": {case.name: len(case.expected_output.line_items) for case in cases},
        "prediction": {name: len(prediction.line_items) for name, prediction in predictions.items()},
    },
    "equals": {
        "scores": {name: _plain(value) for name, value in scores["Equals"].items()},
        "similarity": {name: _plain(value) for name, value in scores[_sim].items()},
        "distinct": {"Equals": int(scores["Equals"].nunique()), _sim: int(scores[_sim].nunique())},
        "overall_alone": {
            "Equals": await _overall_alone(_Equals()),  # noqa: F704 (a notebook cell: top-level await)
            _sim: await _overall_alone(StructuredOutputSimilarity(Invoice)),  # noqa: F704
        },
    },
    "summary": _plain(report.summary()),
    "report_overall_score": report.overall_score,
    "match_threshold": similarity.match_threshold,
    "what_if_085": int(_whatif.pass_rates(_cases, thresholds=[0.85])["passed"].iloc[0]),
    "cases": _records(_cases),
    "fields": _records(report.fields_frame()),
    "worked": {
        "case": str(row.name),
        "field_scores": {field: _plain(value) for field, value in worked["field score"].items()},
        "weights": {field: _plain(value) for field, value in worked["weight"].items()},
        "score": _plain(score),
        "recall": _plain(recall),
    },
    "explain": {
        str(path): {key: _plain(value) for key, value in entry.items()}
        for path, entry in similarity.explain_frame().to_dict(orient="index").items()
    },
    "non_matches": _records(misses.drop(columns=["evaluator"])),
    "sparse": {
        "fields": len(Remittance.model_fields),
        "filled": sum(value is not None for value in filled.model_dump().values()),
        "rows": {
            str(name): {k: _plain(v) for k, v in entry.items()} for name, entry in sparse.to_dict("index").items()
        },
        "pass_rates": _records(_sparse_rates),
        "non_matches": _records(sparse_report.non_matches_frame().drop(columns=["evaluator"])),
    },
    "reload": {
        view: bool(getattr(reloaded, view)().equals(getattr(report, view)()))
        for view in ("cases_frame", "fields_frame", "non_matches_frame")
    },
    "rollup": {
        str(path): {count: int(entry[count]) for count in ("tp", "fn", "fa", "fd", "tn")}
        for path, entry in _rollup.to_dict(orient="index").items()
    },
}
