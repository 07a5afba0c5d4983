"""Tests for `structsim_nb.plot`: what each chart says (bar lengths, positions, labels), read back from the Axes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from pydantic import BaseModel

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity, plot, score_dataset
from structsim_nb.demo import Invoice, run_reference, synthetic_invoice_pairs
from structsim_nb.plot import whatif


class Receipt(BaseModel):
    """`note` is blank in every document below, so its ratios are undefined."""

    receipt_id: str
    merchant: str | None = None
    note: str | None = None


RIGHT = Receipt(receipt_id="R-1", merchant="Shop")


@pytest.fixture(scope="module")
def reference() -> StructuredOutputReport:
    return run_reference()


@pytest.fixture(scope="module")
def corpus() -> StructuredOutputReport:
    """300 synthetic invoices: every error kind, list children, passes and failures."""
    return score_dataset(synthetic_invoice_pairs(300, line_items=(1, 6)), model_cls=Invoice, workers=1, progress=False)


def _containers(ax) -> dict[str, list[float]]:
    """Bar container label -> bar lengths (widths for horizontal bars, heights for vertical ones)."""
    out = {}
    for container in ax.containers:
        horizontal = container.orientation == "horizontal"
        out[container.get_label()] = [patch.get_width() if horizontal else patch.get_height() for patch in container]
    return out


def _tick_labels(ax) -> list[str]:
    return [label.get_text() for label in ax.get_yticklabels()]


class TestFields:
    def test_bar_lengths_are_the_counts_of_fields_frame(self, corpus):
        frame = corpus.fields_frame()
        ax = corpus.plot.fields(normalize=False)
        bars = _containers(ax)
        assert list(bars) == ["missed (fn)", "invented (fa)", "wrong (fd)", "right (tp)"]
        for label, column in (
            ("missed (fn)", "fn"),
            ("invented (fa)", "fa"),
            ("wrong (fd)", "fd"),
            ("right (tp)", "tp"),
        ):
            assert bars[label] == frame[column].astype(float).tolist()
        assert _tick_labels(ax) == frame["path"].tolist()

    def test_segments_stack_errors_first_then_right(self, corpus):
        frame = corpus.fields_frame()
        ax = corpus.plot.fields(normalize=False)
        missed, invented, wrong, right = ax.containers
        for row, (m, i, w, r) in enumerate(zip(missed, invented, wrong, right, strict=True)):
            assert m.get_x() == 0.0
            assert i.get_x() == pytest.approx(frame["fn"].iloc[row])
            assert w.get_x() == pytest.approx(frame["fn"].iloc[row] + frame["fa"].iloc[row])
            assert r.get_x() == pytest.approx(frame["fn"].iloc[row] + frame["fa"].iloc[row] + frame["fd"].iloc[row])

    def test_normalized_bars_are_shares_of_the_values_compared(self, corpus):
        frame = corpus.fields_frame()
        ax = corpus.plot.fields()
        bars = _containers(ax)
        assert list(bars) == ["missed (fn)", "invented (fa)", "wrong (fd)"]
        compared = (frame["tp"] + frame["fn"] + frame["fa"] + frame["fd"]).astype(float)
        for label, column in (("missed (fn)", "fn"), ("invented (fa)", "fa"), ("wrong (fd)", "fd")):
            assert bars[label] == pytest.approx((frame[column] / compared).tolist())
        # The annotation at the end of each bar names the count and the denominator.
        texts = [text.get_text() for text in ax.texts]
        first = frame.iloc[0]
        errors = int(first["fn"] + first["fa"] + first["fd"])
        assert texts[0].startswith(f"{errors} of {int(compared.iloc[0])} (")

    def test_worst_field_on_top_and_children_after_their_parent(self, reference):
        ax = reference.plot.fields()
        labels = _tick_labels(ax)
        assert labels == reference.fields_frame()["path"].tolist()
        parent = labels.index("line_items")
        assert sorted(labels[parent + 1 : parent + 5]) == [
            f"line_items.{name}" for name in ("description", "quantity", "sku", "unit_price")
        ]
        assert labels[0] == "invoice_date"  # 2 of 6 wrong or missed: the worst top-level field
        assert ax.yaxis_inverted()  # row 0 (the worst) is drawn at the top
        colours = {label.get_text(): label.get_color() for label in ax.get_yticklabels()}
        assert colours["line_items.sku"] != colours["line_items"]

    def test_accepts_a_frame_and_top(self, corpus):
        frame = corpus.fields_frame()
        ax = plot.fields(frame, top=3)
        assert _tick_labels(ax) == frame["path"].head(3).tolist()

    def test_draws_into_a_given_axes_and_returns_it(self, reference):
        figure = Figure()
        left, right = figure.subplots(1, 2)
        assert reference.plot.fields(ax=right) is right
        assert not left.containers

    def test_a_frame_without_counts_is_refused(self):
        with pytest.raises(ValueError, match="lacks fa, fd, fn, tp"):
            plot.fields(pd.DataFrame({"path": ["a"], "depth": [0]}))
        with pytest.raises(TypeError, match="got int"):
            plot.fields(3)  # type: ignore[arg-type]


class TestScores:
    def test_stacks_count_every_applicable_case_by_outcome(self, corpus):
        cases = corpus.cases_frame()
        ax = corpus.plot.scores()
        bars = _containers(ax)
        passed, failed = int(cases["test_pass"].sum()), int((~cases["test_pass"].astype(bool)).sum())
        assert bars == {
            f"passed ({passed})": pytest.approx(bars[f"passed ({passed})"]),
            f"failed ({failed})": pytest.approx(bars[f"failed ({failed})"]),
        }
        assert sum(bars[f"passed ({passed})"]) == passed
        assert sum(bars[f"failed ({failed})"]) == failed
        assert len(ax.containers[0]) == 20

    def test_unreadable_rows_are_not_scored_and_not_applicable_rows_are_left_out(self, run_experiment):
        report = run_experiment(
            {"right": (RIGHT, RIGHT), "broken": (RIGHT, '{"receipt_id": '), "no-truth": (None, RIGHT)},
            [StructuredOutputSimilarity(Receipt)],
        )
        bars = _containers(report.plot.scores())
        assert sorted(bars) == ["not scored (1)", "passed (1)"]
        assert bars["not scored (1)"][0] == 1  # score 0 lands in the first bin

    def test_counts_of_thousands_read_as_the_page_tiles_write_them(self):
        # The runs page's tiles said "1,002" and its chart "1002 cases" (seen on a 1,002-run page).
        frame = pd.DataFrame(
            {
                "status": ["scored"] * 1_002,
                "score": [1.0] * 1_000 + [0.0] * 2,
                "test_pass": [True] * 1_000 + [False] * 2,
            }
        )
        ax = plot.scores(frame, match_threshold=None)
        assert ax.get_title(loc="left") == "Score distribution (1,002 cases)"
        assert sorted(_containers(ax)) == ["failed (2)", "passed (1,000)"]
        assert {text.get_text() for text in ax.texts} == {"2", "1,000"}

    def test_pass_line_is_drawn_where_asked(self, reference):
        ax = reference.plot.scores(match_threshold=0.8)
        assert [line.get_xdata()[0] for line in ax.get_lines()] == [0.8]
        assert not reference.plot.scores(match_threshold=None).get_lines()


class TestPrecisionRecall:
    def test_dots_sit_at_the_frame_values(self, corpus):
        frame = corpus.fields_frame()
        ax = corpus.plot.precision_recall()
        collections = {collection.get_label(): collection.get_offsets() for collection in ax.collections}
        for name, shift in (("precision", -plot.PR_OFFSET), ("recall", plot.PR_OFFSET)):
            offsets = np.asarray(collections[name])
            assert offsets[:, 0].tolist() == pytest.approx(frame[name].tolist())
            # Each dot sits on its field's row, precision just above and recall just below: equal values both show.
            assert offsets[:, 1].tolist() == pytest.approx([row + shift for row in range(len(frame))])
        assert _tick_labels(ax) == frame["path"].tolist()
        low, high = ax.get_xlim()
        assert low <= min(frame["precision"].min(), frame["recall"].min()) and high >= 1.0

    def test_undefined_ratios_have_no_dot_and_say_so(self, run_experiment):
        report = run_experiment({"a": (RIGHT, RIGHT)}, [StructuredOutputSimilarity(Receipt)])
        ax = report.plot.precision_recall()
        frame = report.fields_frame()
        note_row = frame.index[frame["path"] == "note"][0]
        assert len(ax.collections[0].get_offsets()) == len(frame) - 1
        assert any(text.get_text().startswith("n/a") and text.get_position()[1] == note_row for text in ax.texts)


class TestThreshold:
    def test_curve_is_the_what_if_and_meets_the_recorded_rate(self, corpus, caplog):
        ax = corpus.plot.threshold()
        rates = whatif.pass_rates(whatif.similarity_cases(corpus))
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert lines["score and recall"].get_ydata().tolist() == pytest.approx(rates["pass_rate"].tolist())
        assert lines["score only"].get_ydata().tolist() == pytest.approx(rates["score_only_rate"].tolist())
        [dot] = [collection for collection in ax.collections if collection.get_label() == "as scored"]
        x, y = dot.get_offsets()[0]
        cases = corpus.cases_frame()
        assert (x, y) == (0.7, pytest.approx(cases["test_pass"].mean()))
        assert "another match_threshold" not in " ".join(text.get_text() for text in ax.texts)
        assert "does not follow" not in caplog.text

    def test_a_wrong_scoring_threshold_is_flagged(self, corpus, caplog):
        ax = corpus.plot.threshold(match_threshold=0.95)
        assert "scored at another match_threshold?" in " ".join(text.get_text() for text in ax.texts)
        assert "does not follow this threshold" in caplog.text
