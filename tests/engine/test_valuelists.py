"""`valuelists.values_similarity` against the engine's own `compare_field_raw`, bit for bit.

Lists of values of every length up to 7 (past the enumerated assignments), with duplicates, ties,
blanks and values the comparators score in between, under each vectorised comparator.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stickler.comparators.exact import ExactComparator
from stickler.comparators.fuzzy import FuzzyComparator
from stickler.comparators.levenshtein import LevenshteinComparator
from stickler.comparators.numeric import NumericComparator
from stickler.structured_object_evaluator.models.comparable_field import ComparableField
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

from structsim_nb.engine.valuelists import values_similarity


class Tagged(StructuredModel):
    words: list[str] = ComparableField(default=[], comparator=LevenshteinComparator())
    codes: list[str] = ComparableField(default=[], comparator=ExactComparator(case_sensitive=False))
    phrases: list[str] = ComparableField(default=[], comparator=FuzzyComparator(method="token_set_ratio"))
    sizes: list[float] = ComparableField(default=[], comparator=NumericComparator(relative_tolerance=0.01))


VALUES = {
    "words": st.lists(st.sampled_from(["ab", "abc", "abd", "b", "", "Straße", "STRASSE"]), max_size=7),
    "codes": st.lists(st.sampled_from(["a", "A", "b"]), max_size=4),
    "phrases": st.lists(st.sampled_from(["red box", "box red", "blue box", "x"]), max_size=4),
    "sizes": st.lists(st.sampled_from([1.0, 1.005, 1.02, 2.0, 0.0, -1.0]), max_size=5),
}
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def engine_matrix(gt: list[Any], pred: list[Any], field: str) -> np.ndarray:
    out = np.zeros((len(gt), len(pred)))
    for i, a in enumerate(gt):
        for j, b in enumerate(pred):
            if getattr(a, field) and getattr(b, field):
                out[i, j] = a.compare_field_raw(field, getattr(b, field))
    return out


@pytest.mark.parametrize("field", sorted(VALUES))
@SETTINGS
@given(data=st.data())
def test_every_pair_is_the_engines_score(field, data):
    gt = [Tagged(**{field: v}) for v in data.draw(st.lists(VALUES[field], min_size=1, max_size=4))]
    pred = [Tagged(**{field: v}) for v in data.draw(st.lists(VALUES[field], min_size=1, max_size=4))]
    comparator = Tagged._get_comparison_info(field).comparator
    got = values_similarity(comparator, field, gt, [getattr(a, field) for a in gt], [getattr(b, field) for b in pred])
    assert got.tobytes() == engine_matrix(gt, pred, field).tobytes()


def test_blank_lists_are_left_at_zero():
    gt, pred = [Tagged(words=["a"]), Tagged()], [Tagged(), Tagged(words=["a", "b"])]
    comparator = Tagged._get_comparison_info("words").comparator
    got = values_similarity(comparator, "words", gt, [["a"], []], [[], ["a", "b"]])
    assert got is not None and got.tolist() == [[0.0, 0.5], [0.0, 0.0]]  # one of two matched, similarity 1.0
    assert got[0, 1] == gt[0].compare_field_raw("words", pred[1].words)


def test_pairs_are_weighed_in_chunks_with_the_same_result(monkeypatch):
    # Six values a side is 720 assignments a pair; all pairs at once would hold gigabytes at 200 elements.
    from structsim_nb.engine import valuelists

    lists = [[f"v{(i * 7 + k) % 9}" for k in range(6)] for i in range(5)]
    gt, pred = [Tagged(words=v) for v in lists], [Tagged(words=v[::-1]) for v in lists]
    comparator = Tagged._get_comparison_info("words").comparator
    whole = values_similarity(comparator, "words", gt, lists, [v[::-1] for v in lists])
    monkeypatch.setattr(valuelists, "_MOST_CELLS", 720 * 6 * 2)  # two pairs a chunk
    chunked = values_similarity(comparator, "words", gt, lists, [v[::-1] for v in lists])
    assert whole is not None and chunked is not None
    assert chunked.tobytes() == whole.tobytes() == engine_matrix(gt, pred, "words").tobytes()
