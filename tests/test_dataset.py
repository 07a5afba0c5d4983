"""`score_dataset`: the Experiment's report on every core, on Dask, and through bad input."""

from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel
from strands_evals import Case, Experiment

import structsim_nb
from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity, score_dataset
from structsim_nb.cli import main
from structsim_nb.dataset import MIN_PARALLEL_DOCS, read_pairs
from structsim_nb.demo import DOCUMENT_ERROR_RATES, LINE_ITEM_ERROR_RATES, Invoice, synthetic_invoice_pairs
from structsim_nb.errors import PairsFileError

MODEL = "structsim_nb.demo.Invoice"
TREE = Path(__file__).parent / "data" / "trajectories_tree"
DOCS = 240


def make_pairs(count: int = DOCS) -> list[dict[str, Any]]:
    """The synthetic corpus these tests score: short lists (0 to 5 line items) keep the suite quick."""
    return synthetic_invoice_pairs(count, line_items=(0, 5), seed=3)


def run_experiment(pairs: list[dict[str, Any]], **settings: Any) -> StructuredOutputReport:
    """The sequential path `score_dataset` must reproduce."""
    actual = {pair["name"]: pair["actual"] for pair in pairs}
    cases = [Case(name=pair["name"], input=None, expected_output=pair["expected"]) for pair in pairs]
    experiment = Experiment(
        cases=cases, evaluators=[StructuredOutputSimilarity(Invoice, **settings)], report_cls=StructuredOutputReport
    )
    return experiment.run_evaluations(lambda case: {"output": actual[case.name]})


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return make_pairs()


def test_the_corpus_has_clean_documents_errors_of_every_kind_and_varied_lengths(pairs):
    """What the tests below rely on: something to document, and documents of unequal cost."""
    kinds = {kind for pair in pairs for kind in pair["errors"]}
    assert kinds == set(DOCUMENT_ERROR_RATES) | set(LINE_ITEM_ERROR_RATES)
    assert any(not pair["errors"] for pair in pairs)
    assert {len(pair["expected"].line_items) for pair in pairs} == set(range(6))


@pytest.fixture(scope="module")
def reference(pairs: list[dict[str, Any]]) -> StructuredOutputReport:
    return run_experiment(pairs)


def assert_same_report(report: StructuredOutputReport, expected: StructuredOutputReport, tmp_path: Any) -> None:
    assert (
        report.to_file(tmp_path / "ours.json").read_bytes() == expected.to_file(tmp_path / "theirs.json").read_bytes()
    )
    assert report.per_case() == expected.per_case()
    assert report.metrics().field_metrics == expected.metrics().field_metrics
    assert report.non_matches_frame().equals(expected.non_matches_frame())


class TestSameAsExperiment:
    def test_in_process(self, pairs, reference, tmp_path):
        assert_same_report(score_dataset(pairs, model_cls=Invoice, workers=1), reference, tmp_path)

    def test_on_a_process_pool(self, pairs, reference, tmp_path):
        report = score_dataset(pairs, model_cls=MODEL, workers=2, chunk_size=5)
        assert_same_report(report, reference, tmp_path)
        assert report.non_matches_frame().shape[0] > 0  # the corpus has errors to document

    def test_default_workers_on_a_large_dataset(self, pairs, reference, tmp_path):
        assert_same_report(score_dataset(pairs, model_cls=Invoice), reference, tmp_path)

    def test_settings_are_forwarded(self, pairs, tmp_path):
        sample = pairs[:80]
        settings = {"match_threshold": 0.9, "weight_hints": True, "non_matches": False, "name": "strict"}
        report = score_dataset(sample, model_cls=MODEL, workers=2, **settings)
        assert_report_bytes = report.to_file(tmp_path / "a.json").read_bytes()
        assert assert_report_bytes == run_experiment(sample, **settings).to_file(tmp_path / "b.json").read_bytes()
        assert {case["evaluator"] for case in report.cases} == {"strict"}


@pytest.fixture(scope="module")
def cluster():
    """A real local Dask cluster: two worker processes, one thread each."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local_cluster:
        yield local_cluster


class TestDask:
    def test_local_cluster_of_processes(self, cluster, pairs, reference, tmp_path):
        import distributed

        with distributed.Client(cluster) as client:
            with client.get_executor() as executor:
                report = score_dataset(pairs, model_cls=MODEL, executor=executor)
            pids = set(client.run(os.getpid).values())
        assert len(pids) == 2 and os.getpid() not in pids
        assert_same_report(report, reference, tmp_path)

    def test_a_client_is_an_executor_sized_by_its_public_nthreads(self, cluster, pairs, reference, tmp_path):
        import distributed

        from structsim_nb.dataset import _capacity

        with distributed.Client(cluster) as client:
            assert _capacity(client, None) == 2  # two single-threaded workers, read through Client.nthreads()
            assert _capacity(client, 5) == 5  # workers= wins
            report = score_dataset(pairs, model_cls=MODEL, executor=client)
        assert_same_report(report, reference, tmp_path)

    def test_cli_evaluate_on_a_scheduler_and_on_workers_writes_the_same_reports(self, cluster, tmp_path, capsys):
        runs = {
            "sequential": [],
            "workers": ["--workers", "2"],
            "dask": ["--scheduler", cluster.scheduler_address],
        }
        for label, extra in runs.items():
            argv = ["evaluate", "--trajectories", str(TREE / "trajectories"), "--scenarios", str(TREE / "scenarios")]
            main([*argv, "--reports-dir", str(tmp_path / label), "--no-progress", *extra])
        outputs = {label: _folder(tmp_path / label) for label in runs}
        assert len(outputs["sequential"]) == 12  # ten reports, _aggregate.json and _aggregate.html
        assert outputs["workers"] == outputs["sequential"] and outputs["dask"] == outputs["sequential"]


def _folder(path) -> dict[str, bytes]:
    return {child.name: child.read_bytes() for child in sorted(path.iterdir())}


def test_cli_demo_on_workers_writes_the_same_report(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "a")]) == 0
    assert main(["demo", "--out", str(tmp_path / "b"), "--workers", "2"]) == 0
    assert _folder(tmp_path / "a") == _folder(tmp_path / "b")


class TestOrder:
    def test_results_come_back_in_input_order(self, pairs, reference):
        # Heavy documents first, one per task, on four threads: they finish out of order.
        order = sorted(range(60), key=lambda index: -len(pairs[index]["expected"].line_items))
        shuffled = [pairs[index] for index in order]
        with concurrent.futures.ThreadPoolExecutor(4) as executor:
            report = score_dataset(shuffled, model_cls=MODEL, executor=executor, chunk_size=1)
        assert [case["name"] for case in report.cases] == [pair["name"] for pair in shuffled]
        assert report.scores == [reference.scores[index] for index in order]


class Exploding(BaseModel):
    """A value whose reading raises something the evaluator does not catch."""

    invoice_id: str = "x"

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:  # the evaluator's path for another model
        raise RuntimeError("boom while reading")


class ExitOnUnpickle:
    """Kills the worker process that receives it: unpickling calls `os._exit`."""

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (os._exit, (13,))


def _head(report: StructuredOutputReport, count: int) -> StructuredOutputReport:
    return report.model_copy(
        update={key: getattr(report, key)[:count] for key in ("cases", "scores", "detailed_results")}
    )


def assert_only_row_failed(report, reference, index: int, kind: str, words: list[str]) -> None:
    assert len(report.cases) == len(reference.cases)
    assert report.scores[index] == 0.0 and report.test_passes[index] is False
    [row] = report.detailed_results[index]
    assert row.metadata == {"error": kind}
    for word in words:
        assert word in report.reasons[index]
    frame = report.cases_frame()
    assert frame.loc[index, "status"] == "error"
    assert (frame["status"] == "error").sum() == 1
    assert report.summary()["errors"] == 1
    assert "<div class='ss-tile-label'>errors</div><div class='ss-tile-value'>1</div>" in report._repr_html_()
    others = [i for i in range(len(reference.cases)) if i != index]
    assert [report.scores[i] for i in others] == [reference.scores[i] for i in others]
    assert [report.detailed_results[i] for i in others] == [reference.detailed_results[i] for i in others]
    assert [report.cases[i]["name"] for i in range(len(report.cases))] == [c["name"] for c in reference.cases]


class TestBadDocuments:
    @pytest.mark.parametrize("workers", [1, 2])
    def test_a_document_that_raises_is_one_error_row(self, pairs, reference, workers):
        bad = [dict(pair) for pair in pairs[:100]]
        bad[57]["actual"] = Exploding()
        report = score_dataset(bad, model_cls=MODEL, workers=workers)
        assert_only_row_failed(
            report, _head(reference, 100), 57, "raised", ["Evaluator error", "RuntimeError", "boom while reading"]
        )
        assert report.per_case()  # the rollups skip the error row
        assert len(report.per_case()) == 99

    def test_a_document_that_kills_its_worker_is_one_error_row(self, pairs, reference):
        bad = [dict(pair) for pair in pairs[:100]]
        bad[37]["actual"] = ExitOnUnpickle()
        report = score_dataset(bad, model_cls=MODEL, workers=2, chunk_size=8)
        assert_only_row_failed(report, _head(reference, 100), 37, "crashed", ["BrokenProcessPool", "scored alone"])

    def test_interrupt_stops_the_run_and_returns_nothing(self, pairs):
        def interrupted():
            yield from pairs[:70]
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            score_dataset(interrupted(), model_cls=MODEL, workers=2)
        # The pool was shut down: a new run works at once.
        assert len(score_dataset(pairs[:3], model_cls=MODEL, workers=2).cases) == 3


_INTERRUPTED_RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from test_dataset import MODEL, make_pairs
from structsim_nb import score_dataset

pairs = make_pairs(4000)
print("scoring", flush=True)
try:
    report = score_dataset(pairs, model_cls=MODEL, workers=2, progress=False)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
report.to_file(sys.argv[2])
"""


def test_ctrl_c_stops_a_pool_run_without_writing_a_report(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "report.json"
    process = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED_RUN, str(Path(__file__).parent), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "scoring"
    time.sleep(1.5)  # workers are busy scoring
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stdout
    assert not out.exists() and list(tmp_path.iterdir()) == []


def _workers_of(process_id: int, count: int, timeout: float = 60.0) -> list[Any]:
    """The child processes of `process_id` once there are `count` of them (psutil)."""
    import time

    import psutil

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = psutil.Process(process_id).children(recursive=True)
        if len(children) >= count:
            return children
        time.sleep(0.1)
    raise AssertionError(f"process {process_id} never started {count} workers")


def _gone(processes: list[Any], timeout: float = 20.0) -> list[Any]:
    """The processes still alive after `timeout` seconds (zombies count as gone)."""
    import psutil

    _, alive = psutil.wait_procs(processes, timeout=timeout)
    return [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_signal_stops_every_worker_of_a_pool_run(tmp_path, signal_name):
    """SIGTERM (a CI cancel, a kernel restart) and Ctrl-C stop the workers with the run: none survives."""
    import signal
    import subprocess
    import sys

    out = tmp_path / "report.json"
    process = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED_RUN, str(Path(__file__).parent), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "scoring"
    workers = _workers_of(process.pid, 2)
    process.send_signal(getattr(signal, signal_name))
    stdout, stderr = process.communicate(timeout=60)
    if signal_name == "SIGTERM":
        assert process.returncode == -signal.SIGTERM, stderr  # ended by SIGTERM, as without us
    else:
        assert process.returncode == 130 and "interrupted" in stdout, stderr
    assert _gone(workers) == []
    assert not out.exists() and list(tmp_path.iterdir()) == []


_KILLED_RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from test_dataset import MODEL, make_pairs
from structsim_nb import score_dataset

print("scoring", flush=True)
score_dataset(make_pairs(4000), model_cls=MODEL, workers=2, progress=False)
"""


def test_workers_die_with_a_parent_killed_outright(tmp_path):
    """kill -9 runs no cleanup at all; on Linux the workers still follow their parent (PR_SET_PDEATHSIG)."""
    import signal
    import subprocess
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("parent-death signals are Linux only")
    process = subprocess.Popen(
        [sys.executable, "-c", _KILLED_RUN, str(Path(__file__).parent)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "scoring"
    workers = _workers_of(process.pid, 2)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert _gone(workers) == []


class TestInputForms:
    def test_instances_dicts_json_text_and_tuples_score_the_same(self, pairs):
        sample = pairs[:20]
        as_dicts = [
            {
                "name": p["name"],
                "expected": p["expected"].model_dump(mode="json"),
                "actual": p["actual"].model_dump(mode="json"),
            }
            for p in sample
        ]
        as_text = [
            {"name": p["name"], "expected": p["expected"].model_dump_json(), "actual": p["actual"].model_dump_json()}
            for p in sample
        ]
        as_tuples = [(p["name"], p["expected"], p["actual"]) for p in sample]
        reports = [score_dataset(form, model_cls=Invoice, workers=1) for form in (sample, as_dicts, as_text, as_tuples)]
        for report in reports[1:]:
            assert report.scores == reports[0].scores
            assert report.detailed_results == reports[0].detailed_results
            assert [case["name"] for case in report.cases] == [p["name"] for p in sample]

    def test_a_jsonl_file_gives_the_report_of_the_same_dicts(self, pairs, tmp_path):
        records = [
            {
                "name": p["name"],
                "expected": p["expected"].model_dump(mode="json"),
                "actual": p["actual"].model_dump(mode="json"),
            }
            for p in pairs[:30]
        ]
        path = tmp_path / "pairs.jsonl"
        path.write_text("".join(json.dumps(record) + "\n" for record in records) + "\n", encoding="utf-8")
        from_file = score_dataset(path, model_cls=MODEL, workers=2)
        from_dicts = score_dataset(records, model_cls=MODEL, workers=1)
        assert from_file.model_dump_json() == from_dicts.model_dump_json()
        assert [p["name"] for p in read_pairs(path)] == [r["name"] for r in records]

    def test_unnamed_pairs_are_named_by_index_and_keep_input_and_metadata(self):
        truth = {"invoice_id": "1", "vendor_name": "Acme"}
        report = score_dataset(
            [(truth, truth), {"expected": truth, "actual": truth, "input": "page 1", "metadata": {"batch": 7}}],
            model_cls=Invoice,
        )
        assert [case["name"] for case in report.cases] == ["case_0", "case_1"]
        assert report.cases[1]["input"] == "page 1" and report.cases[1]["metadata"] == {"batch": 7}

    def test_score_dataset_is_public(self):
        assert "score_dataset" in structsim_nb.__all__


class TestBadInput:
    def test_unreadable_line_names_the_line(self, tmp_path):
        path = tmp_path / "pairs.jsonl"
        good = json.dumps({"expected": {"invoice_id": "1", "vendor_name": "A"}, "actual": {"invoice_id": "1"}})
        path.write_text(f"{good}\n\n{{not json\n{good}\n", encoding="utf-8")
        with pytest.raises(PairsFileError, match=r"pairs\.jsonl', line 3 must be one JSON object"):
            score_dataset(path, model_cls=Invoice)

    @pytest.mark.parametrize(
        ("line", "message"),
        [
            ('{"expected": {}}', "must have keys 'expected' and 'actual'; it lacks 'actual'"),
            ("[1, 2]", "must be a JSON object; got a JSON list"),
            ('{"expected": {}, "actual": {}, "name": 3}', "'name' must be a string"),
        ],
    )
    def test_a_line_that_is_not_a_pair_names_the_line(self, tmp_path, line, message):
        path = tmp_path / "pairs.jsonl"
        path.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(PairsFileError, match="line 1") as error:
            score_dataset(path, model_cls=Invoice)
        assert message in str(error.value)

    def test_a_missing_file(self, tmp_path):
        with pytest.raises(PairsFileError, match="was not found"):
            score_dataset(tmp_path / "nope.jsonl", model_cls=Invoice)

    def test_a_bad_byte_is_reported_on_its_own_line(self, tmp_path):
        path = tmp_path / "pairs.jsonl"
        good = json.dumps({"expected": {"invoice_id": "1"}, "actual": {"invoice_id": "1"}}).encode()
        path.write_bytes(b"\n".join([good] * 2000 + [b'{"expected": "\xff"}'] + [good] * 5) + b"\n")
        with pytest.raises(PairsFileError, match=r"line 2001 is not: invalid start byte at byte 15 of the line"):
            list(read_pairs(path))

    def test_a_byte_order_mark_is_read(self, tmp_path):
        path = tmp_path / "pairs.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"expected": {}, "actual": {}}).encode() + b"\n")
        assert [pair["expected"] for pair in read_pairs(path)] == [{}]

    @pytest.mark.parametrize(
        ("line", "message"),
        [
            ('{"expected": ' + "9" * 5000 + ', "actual": {}}', "line 1 cannot be read: Exceeds the limit"),
            ('{"expected": ' + "[" * 100_000 + "]" * 100_000 + ', "actual": {}}', "line 1 nests too deeply"),
        ],
    )
    def test_huge_numbers_and_deep_lines_are_pairs_file_errors(self, tmp_path, line, message):
        path = tmp_path / "pairs.jsonl"
        path.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(PairsFileError, match=message):
            list(read_pairs(path))

    def test_a_bad_item_is_named_before_scoring(self):
        with pytest.raises(TypeError, match=r"pairs\[1\] must be a mapping"):
            score_dataset([({}, {}), "oops"], model_cls=Invoice)

    @pytest.mark.parametrize(("argument", "value"), [("workers", 0), ("chunk_size", 0), ("workers", 1.5)])
    def test_out_of_range_settings(self, argument, value):
        with pytest.raises(ValueError, match=argument):
            score_dataset([], model_cls=Invoice, **{argument: value})

    def test_a_model_that_cannot_travel_is_refused_when_workers_were_asked_for(self):
        class Locked(BaseModel):
            guard: ClassVar[Any] = threading.Lock()  # no process can receive a lock
            name: str

        pairs = [({"name": "a"}, {"name": "a"})] * 3
        with pytest.raises(TypeError, match="importable by dotted path or picklable by value") as error:
            score_dataset(pairs, model_cls=Locked, workers=2)
        assert "lock" in str(error.value) and "workers=1" in str(error.value)

    def test_and_said_out_loud_when_every_core_was_only_the_default(self):
        class Locked(BaseModel):
            guard: ClassVar[Any] = threading.Lock()
            name: str

        pairs = [({"name": "a"}, {"name": "b"})] * MIN_PARALLEL_DOCS
        with pytest.warns(UserWarning, match="Scoring in this process, on one core"):
            report = score_dataset(pairs, model_cls=Locked, progress=False)
        assert len(report.scores) == MIN_PARALLEL_DOCS


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


def test_progress_bar_when_asked(pairs, capsys):
    score_dataset(pairs[:5], model_cls=Invoice, workers=1, progress=True)
    assert "scoring" in capsys.readouterr().err


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
