"""`score_dataset`: the Experiment's report in this process, on a pool and on Dask; its settings checked up front."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from invoice_corpus import MODEL, experiment_report, make_pairs
from pydantic import BaseModel

import structsim_nb
from structsim_nb import StructuredOutputReport, score_dataset
from structsim_nb.cli import main
from structsim_nb.dataset import MIN_PARALLEL_DOCS
from structsim_nb.demo import DOCUMENT_ERROR_RATES, LINE_ITEM_ERROR_RATES, Invoice

TREE = Path(__file__).parent / "data" / "trajectories_tree"


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
    return experiment_report(pairs)


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
        assert assert_report_bytes == experiment_report(sample, **settings).to_file(tmp_path / "b.json").read_bytes()
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

        from structsim_nb._pool import executor_capacity

        with distributed.Client(cluster) as client:
            assert executor_capacity(client, None) == 2  # two single-threaded workers, read through Client.nthreads()
            assert executor_capacity(client, 5) == 5  # workers= wins
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


def test_score_dataset_is_public():
    assert "score_dataset" in structsim_nb.__all__


class TestBadInput:
    @pytest.mark.parametrize(("argument", "value"), [("workers", 0), ("chunk_size", 0), ("workers", 1.5)])
    def test_out_of_range_settings(self, argument, value):
        with pytest.raises(ValueError, match=argument):
            score_dataset([], model_cls=Invoice, **{argument: value})

    def test_and_said_out_loud_when_every_core_was_only_the_default(self):
        class Locked(BaseModel):
            guard: ClassVar[Any] = threading.Lock()
            name: str

        pairs = [({"name": "a"}, {"name": "b"})] * MIN_PARALLEL_DOCS
        with pytest.warns(UserWarning, match="Scoring in this process, on one core"):
            report = score_dataset(pairs, model_cls=Locked, progress=False)
        assert len(report.scores) == MIN_PARALLEL_DOCS


def test_progress_bar_when_asked(pairs, capsys):
    score_dataset(pairs[:5], model_cls=Invoice, workers=1, progress=True)
    assert "scoring" in capsys.readouterr().err


def test_the_names_of_its_parts_stay_importable_from_dataset() -> None:
    from structsim_nb import _pairs, _pool, dataset

    assert dataset.read_pairs is _pairs.read_pairs and dataset.map_ordered is _pool.map_ordered
    assert dataset.DEFAULT_CHUNK_SIZE == _pool.DEFAULT_CHUNK_SIZE == 8
    assert {"read_pairs", "map_ordered", "DEFAULT_CHUNK_SIZE", "MIN_PARALLEL_DOCS", "score_dataset"} == set(
        dataset.__all__
    )
