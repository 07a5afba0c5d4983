"""_workers: a document that raises is one error row; a model workers cannot import travels by value."""

from __future__ import annotations

import enum
import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from helpers import Order
from invoice_corpus import MODEL, assert_only_row_failed, experiment_report, head, make_pairs
from pydantic import BaseModel
from stickler import ComparableField, StructuredModel
from stickler.comparators import NumericComparator

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity, score_dataset
from structsim_nb._workers import ModelNotLoaded, WorkerSettings, _class_name, _evaluator, fingerprint
from structsim_nb.dataset import MIN_PARALLEL_DOCS
from structsim_nb.demo import Invoice


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return make_pairs()


@pytest.fixture(scope="module")
def reference(pairs: list[dict[str, Any]]) -> StructuredOutputReport:
    return experiment_report(pairs)


class Exploding(BaseModel):
    """A value whose reading raises something the evaluator does not catch."""

    invoice_id: str = "x"

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:  # the evaluator's path for another model
        raise RuntimeError("boom while reading")


class TestBadDocuments:
    @pytest.mark.parametrize("workers", [1, 2])
    def test_a_document_that_raises_is_one_error_row(self, pairs, reference, workers):
        bad = [dict(pair) for pair in pairs[:100]]
        bad[57]["actual"] = Exploding()
        report = score_dataset(bad, model_cls=MODEL, workers=workers)
        assert_only_row_failed(
            report, head(reference, 100), 57, "raised", ["Evaluator error", "RuntimeError", "boom while reading"]
        )
        assert report.per_case()  # the rollups skip the error row
        assert len(report.per_case()) == 99


class TestBadInput:
    def test_a_model_that_cannot_travel_is_refused_when_workers_were_asked_for(self):
        class Locked(BaseModel):
            guard: ClassVar[Any] = threading.Lock()  # no process can receive a lock
            name: str

        pairs = [({"name": "a"}, {"name": "a"})] * 3
        with pytest.raises(TypeError, match="importable by dotted path or picklable by value") as error:
            score_dataset(pairs, model_cls=Locked, workers=2)
        assert "lock" in str(error.value) and "workers=1" in str(error.value)


class OnlyHere:
    """A class attribute that unpickles only in the process that made it, as a module built in a notebook cell."""

    def __init__(self) -> None:
        self.pid = os.getpid()

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return _only_in, (self.pid,)


def _only_in(pid: int) -> OnlyHere:
    if os.getpid() != pid:
        raise ImportError("No module named 'nb_helpers'")
    return OnlyHere()


def _unloadable_model() -> type[BaseModel]:
    class Doc(BaseModel):  # defined in a function: sent by value; it unpickles here, not in a worker
        marker: ClassVar[Any] = OnlyHere()
        name: str

    return Doc


class TestModelsWorkersCannotLoad:
    def test_workers_asked_for_give_a_type_error_naming_why(self):
        pairs = [({"name": f"n{i}"}, {"name": f"n{i}"}) for i in range(6)]
        with pytest.raises(TypeError, match="must load in the worker processes") as error:
            score_dataset(pairs, model_cls=_unloadable_model(), workers=2, chunk_size=2, progress=False)
        assert "nb_helpers" in str(error.value) and "workers=1" in str(error.value)

    def test_by_default_the_run_moves_into_this_process_with_a_warning(self):
        pairs = [({"name": f"n{i}"}, {"name": f"n{i % 7}"}) for i in range(MIN_PARALLEL_DOCS)]
        model = _unloadable_model()
        here = score_dataset(pairs, model_cls=model, workers=1, progress=False)
        with pytest.warns(UserWarning, match="Scoring in this process, on one core"):
            fell_back = score_dataset(pairs, model_cls=model, chunk_size=4, progress=False)
        assert fell_back.model_dump_json() == here.model_dump_json()

    def test_a_changed_comparator_setting_changes_the_fingerprint(self):
        def bill(tolerance: float) -> type[StructuredModel]:
            class Bill(StructuredModel):
                total: float | None = ComparableField(
                    default=None, comparator=NumericComparator(absolute_tolerance=tolerance), threshold=0.9
                )

            return Bill

        def of(tolerance: float) -> str:
            return fingerprint(StructuredOutputSimilarity(bill(tolerance)))

        assert of(5.0) == of(5.0) != of(0.0)

    def test_a_worker_with_another_class_refuses_to_score(self):
        evaluator = StructuredOutputSimilarity(MODEL)
        settings = WorkerSettings(MODEL, 0.7, False, None, True, model_fingerprint=fingerprint(evaluator))
        assert _evaluator(settings).model_cls is evaluator.model_cls

        class Edited(Invoice):  # the class a worker would import after a field was added to the file
            reference: str | None = None

        stale = settings._replace(model_fingerprint=fingerprint(StructuredOutputSimilarity(Edited)))
        with pytest.raises(ModelNotLoaded, match="another class than this process's"):
            _evaluator(stale)


ODD_MODELS = r"""
import dataclasses
import enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict


def clean(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


class Handle:  # an arbitrary type: pydantic can make no JSON Schema of the model
    pass


class Shade(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"
    CYAN = "cyan"


class Paint(BaseModel):
    shades: set[Shade] = set(Shade)  # a default printed in hash order
    kind: Literal["a", "b"] | None = None


@dataclasses.dataclass(frozen=True)
class OneOf:  # a constraint marker, as validation libraries write them
    allowed: frozenset


class Raw(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    handle: Handle | None = None
    tags: list[Annotated[str, BeforeValidator(clean)]] = []  # its repr holds the function's address
    codes: list[Annotated[str, OneOf(frozenset({"usd", "eur", "gbp", "jpy", "chf"}))]] = []  # a set in hash order
"""

FINGERPRINT_OF = r"""
import sys
sys.path.insert(0, sys.argv[1])
from odd_models import Paint, Raw
from structsim_nb import StructuredOutputSimilarity
from structsim_nb._workers import fingerprint
print([fingerprint(StructuredOutputSimilarity(model)) for model in (Paint, Raw)])
"""


def test_the_same_class_has_the_same_fingerprint_in_any_process(tmp_path):
    # A fingerprint that differed for the same class (a set default in hash order, a function's address in an
    # annotation) would make spawned workers refuse a model they have: every process must agree.
    (tmp_path / "odd_models.py").write_text(ODD_MODELS, encoding="utf-8")
    prints = set()
    for seed in ("0", "1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", FINGERPRINT_OF, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert done.returncode == 0, done.stderr
        prints.add(done.stdout.strip())
    assert len(prints) == 1


FINGERPRINT_SCRIPT = r"""
import importlib, json, multiprocessing, pathlib, sys
multiprocessing.set_start_method("spawn")  # as on macOS: workers import the model's file afresh
where = pathlib.Path(sys.argv[1])
sys.path.insert(0, str(where))
(where / "models_edited.py").write_text(
    "from pydantic import BaseModel\nclass Doc(BaseModel):\n    description: str\n    qty: int | None = None\n"
)
import models_edited
from structsim_nb import score_dataset

if __name__ == "__main__":
    truth = {"description": "blue widget", "qty": 1, "ref": "A1"}
    pairs = [(truth, {**truth, "ref": "B2"})] * 4
    before = score_dataset(pairs, model_cls=models_edited.Doc, workers=2, progress=False).scores
    (where / "models_edited.py").write_text(  # edited in the editor; the notebook does not re-import it
        "from pydantic import BaseModel\nclass Doc(BaseModel):\n    description: str\n    qty: int | None = None\n"
        "    ref: str | None = None\n"
    )
    importlib.invalidate_caches()
    try:
        score_dataset(pairs, model_cls=models_edited.Doc, workers=2, progress=False)
        after = "scored"
    except TypeError as exc:
        after = str(exc)
    print(json.dumps({"before": before, "after": after}))
"""


def test_spawned_workers_that_import_an_edited_model_file_refuse_it(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", FINGERPRINT_SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["before"] == [1.0] * 4  # the same class in the workers: they score
    assert "another class than this process's" in result["after"] and "importlib.reload" in result["after"]


# -- models defined where workers cannot import them -------------------------------------------

NOTEBOOK_MODEL = r"""
import os, pathlib
from pydantic import BaseModel, field_serializer

class LineItem(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: float | None = None

class Invoice(BaseModel):
    invoice_id: str
    vendor_name: str
    total_amount: float | None = None
    line_items: list[LineItem] = []

    @field_serializer("invoice_id")
    def note_process(self, value):  # which processes dump documents to score them: the proof
        with open(PIDS, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        return value
"""

NOTEBOOK_RUN = """
from structsim_nb import score_dataset
from structsim_nb.demo import synthetic_invoice_pairs

def as_notebook_model(value):
    return Invoice.model_validate(value.model_dump(mode="json"))

pairs = [
    {"name": p["name"], "expected": as_notebook_model(p["expected"]), "actual": as_notebook_model(p["actual"])}
    for p in synthetic_invoice_pairs(96, line_items=(0, 6), seed=5)
]
open(PIDS, "w").close()
on_workers = score_dataset(pairs, model_cls=Invoice, workers=2, chunk_size=8, progress=False)
worker_pids = set(open(PIDS).read().split())
in_process = score_dataset(pairs, model_cls=Invoice, workers=1, progress=False)
result = {
    "same": on_workers.model_dump_json() == in_process.model_dump_json(),
    "module": Invoice.__module__,
    "worker_pids": sorted(worker_pids - {str(os.getpid())}),
    "rows": len(on_workers.scores),
    "documented": sum(len(r[0].metadata.get("non_matches", [])) for r in on_workers.detailed_results),
}
"""


def _pids_file(tmp_path: Path) -> str:
    return str(tmp_path / "pids.txt")


class TestModelsDefinedInMain:
    """A model defined in a notebook or a script's `__main__` scores on every core, by value."""

    def test_a_local_class_scores_on_workers(self, tmp_path):
        # Cells run as a kernel runs them: in a namespace named __main__ that no module file holds.
        namespace: dict[str, Any] = {"PIDS": _pids_file(tmp_path), "__name__": "__main__"}
        for cell in (NOTEBOOK_MODEL, NOTEBOOK_RUN):
            exec(compile(cell, "<notebook cell>", "exec", dont_inherit=True), namespace)
        result = namespace["result"]
        assert result["module"] == "__main__"
        assert result["same"] and result["rows"] == 96 and result["documented"] > 0
        assert len(result["worker_pids"]) >= 1

    def test_a_script_main_module_under_spawn(self, tmp_path):
        script = "\n".join(
            [
                "import json, multiprocessing, os",
                "multiprocessing.set_start_method('spawn')  # workers start empty: only by value can they score",
                f"PIDS = {_pids_file(tmp_path)!r}",
                NOTEBOOK_MODEL,
                "if __name__ == '__main__':",
                textwrap.indent(NOTEBOOK_RUN, "    "),
                "    print(json.dumps(result))",
            ]
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert result["module"] == "__main__"
        assert result["same"] and result["rows"] == 96 and result["documented"] > 0
        assert len(result["worker_pids"]) >= 1

    @pytest.mark.notebook
    def test_in_a_jupyter_kernel(self, tmp_path):
        nbformat = pytest.importorskip("nbformat")
        pytest.importorskip("nbclient")
        from structsim_nb._notebooks import execute_notebook

        notebook = nbformat.v4.new_notebook()
        notebook.cells = [
            nbformat.v4.new_code_cell(f"PIDS = {_pids_file(tmp_path)!r}\n" + NOTEBOOK_MODEL),
            nbformat.v4.new_code_cell("import os\n" + NOTEBOOK_RUN + "\nimport json\nprint(json.dumps(result))"),
        ]
        path = tmp_path / "scale.ipynb"
        nbformat.write(notebook, path)
        executed = execute_notebook(path, timeout=600)
        text = "".join(output.get("text", "") for output in executed.cells[-1].outputs)
        result = json.loads(text.strip().splitlines()[-1])
        assert result["module"] == "__main__"
        assert result["same"] and result["rows"] == 96 and result["documented"] > 0
        assert len(result["worker_pids"]) >= 1


def _order_model_in_a_function() -> type[BaseModel]:
    class Item(BaseModel):
        sku: str | None = None
        quantity: int | None = None

    class Order(BaseModel):
        order_id: str
        items: list[Item] = []

    return Order


@pytest.mark.parametrize(
    "method", [method for method in ("spawn", "forkserver") if method in multiprocessing.get_all_start_methods()]
)
def test_a_model_defined_in_a_function_scores_on_workers_started_afresh(method, monkeypatch):
    """cloudpickle rebuilds a class sent by value as `Order`, not `_order_model_in_a_function.<locals>.Order`: a
    worker that did not fork from this process (spawn on macOS, forkserver on Linux from Python 3.14) must still
    see the same model, not refuse it as an edited file."""
    from structsim_nb import _pool

    context = multiprocessing.get_context(method)
    monkeypatch.setattr(_pool.multiprocessing, "get_context", lambda: context)
    order = _order_model_in_a_function()
    assert "<locals>" in order.__qualname__
    truth = {"order_id": "A1", "items": [{"sku": "x", "quantity": 2}, {"sku": "y", "quantity": 1}]}
    pairs = [
        (truth, {**truth, "items": [{"sku": "y", "quantity": index}, {"sku": "x", "quantity": 2}]})
        for index in range(6)
    ]
    on_workers = score_dataset(pairs, model_cls=order, workers=2, chunk_size=2, progress=False)  # raised TypeError
    assert (
        on_workers.model_dump_json()
        == score_dataset(pairs, model_cls=order, workers=1, progress=False).model_dump_json()
    )


class _Old:
    class Status(str, enum.Enum):
        OPEN = "open"


class _New:
    class Status(str, enum.Enum):
        OPEN = "OPEN"


def test_only_classes_sent_by_value_lose_their_qualified_names_in_the_fingerprint():
    # A field retyped to another class of the same bare name, in a file edited after import, is still refused:
    # only a class that travels by value (whose qualname cloudpickle drops) is named by its bare name.
    class Doc(BaseModel):
        status: _Old.Status | None = None

    class Edited(BaseModel):
        status: _New.Status | None = None

    Edited.__name__ = Edited.__qualname__ = "Doc"  # the same class name: only the field's type differs
    assert fingerprint(StructuredOutputSimilarity(Doc)) != fingerprint(StructuredOutputSimilarity(Edited))
    assert _class_name(_Old.Status) == "_Old.Status"
    assert _class_name(Doc) == "Doc" and "<locals>" in Doc.__qualname__


def test_strict_reading_reaches_the_evaluator_in_process_and_on_workers():
    pairs = [
        {
            "name": f"d{i}",
            "expected": {"invoice_id": "A", "vendor_name": "V", "total_amount": "N/A"},
            "actual": {"invoice_id": "A", "vendor_name": "V", "total_amount": 1.0},
        }
        for i in range(3)
    ]
    lenient = score_dataset(pairs, model_cls="structsim_nb.demo.Invoice", workers=1, progress=False)
    strict = score_dataset(pairs, model_cls="structsim_nb.demo.Invoice", workers=1, progress=False, strict=True)
    on_workers = score_dataset(pairs, model_cls="structsim_nb.demo.Invoice", workers=2, progress=False, strict=True)
    assert set(lenient.cases_frame()["status"]) == {"scored"}
    assert set(strict.cases_frame()["status"]) == {"unreadable"} == set(on_workers.cases_frame()["status"])


def test_a_non_match_holding_a_nested_model_comes_back_from_a_worker():
    # The invented `bill_to` is one of stickler's run-time classes in the row: it failed to pickle on its way back,
    # so every such document was a "crashed" row scoring 0.0 on workers and 0.5 in this process.
    pairs = [({"order_id": str(i)}, {"order_id": str(i), "bill_to": {"street": "x"}}) for i in range(6)]
    on_workers = score_dataset(pairs, model_cls=Order, workers=2, chunk_size=2, progress=False)
    here = score_dataset(pairs, model_cls=Order, workers=1, progress=False)
    assert on_workers.scores == here.scores == [0.5] * 6
    assert on_workers.model_dump_json() == here.model_dump_json()
