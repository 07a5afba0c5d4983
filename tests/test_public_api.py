"""The public surface is exactly what `structsim_nb.__all__` lists, and every name is importable."""

import importlib
import subprocess
import sys

import structsim_nb

EXPECTED = [
    "Comparison",
    "ContainsJson",
    "ExactMatch",
    "FCCInvoice",
    "FCCInvoiceTuned",
    "FCCLineItem",
    "FCCLineItemTuned",
    "JsonDiff",
    "JsonFieldMatch",
    "ParsedAnswer",
    "RecordMode",
    "RecordingModel",
    "ReplayModel",
    "StaticJsonEvaluator",
    "StructuredOutputReport",
    "StructuredOutputSimilarity",
    "compare",
    "contains_json",
    "evaluate_static_json",
    "exact_match",
    "json_diff",
    "json_field_match",
    "load_fcc",
    "open_model",
    "parse_answer",
    "record_exchange",
    "register_scorer",
    "run_evaluation",
    "score_dataset",
]


def test_all_is_the_documented_surface():
    assert sorted(structsim_nb.__all__) == EXPECTED


def test_every_public_name_resolves_and_has_a_docstring():
    for name in structsim_nb.__all__:
        value = getattr(structsim_nb, name)
        assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_star_import_brings_exactly_the_public_names():
    namespace: dict = {}
    exec("from structsim_nb import *", namespace)
    assert sorted(key for key in namespace if not key.startswith("__")) == EXPECTED


def test_importing_the_package_does_not_import_optional_extras():
    code = (
        "import sys, structsim_nb; "
        "print(','.join(m for m in ('datasets', 'distributed', 'nbclient', 'ipywidgets') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""


def test_the_module_entry_point_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "structsim_nb", "--help"], capture_output=True, text=True, check=True)
    for command in ("demo", "evaluate", "record"):
        assert command in out.stdout
    assert importlib.import_module("structsim_nb.cli").main is not None


def test_every_public_name_says_where_it_lives():
    assert sorted(structsim_nb._EXPORTS) == EXPECTED
    assert all(getattr(structsim_nb, name).__module__.startswith("structsim_nb.") for name in EXPECTED)


def test_an_unknown_name_is_an_attribute_error():
    try:
        structsim_nb.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown attribute must raise AttributeError")


def test_importing_the_package_loads_no_engine_until_a_name_is_used():
    code = (
        "import sys, structsim_nb; "
        "print(','.join(m for m in ('pandas', 'stickler', 'strands', 'strands_evals') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "", f"import structsim_nb must stay cheap; it imported {loaded}"


def test_sigterms_interrupt_is_public_in_errors_and_imported_only_when_asked() -> None:
    import subprocess
    import sys

    import structsim_nb._signals
    import structsim_nb.errors

    assert structsim_nb.errors.Terminated is structsim_nb._signals.Terminated
    assert issubclass(structsim_nb.errors.Terminated, KeyboardInterrupt)
    assert "Terminated" in structsim_nb.errors.__all__
    probe = "import sys, structsim_nb.errors; print('structsim_nb._signals' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "False"
