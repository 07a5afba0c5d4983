"""Tests for `structsim_nb._owned`: the copies a frame hands out of dicts and lists."""

from __future__ import annotations

import datetime
import threading

import pandas as pd

from structsim_nb._owned import owned, owned_all, owned_cells


class TestOwned:
    def test_plain_data_is_copied_deeply_with_its_types(self):
        value = {"a": [1, 2.5, True, None, "x\ud800"], "b": {"c": [[]]}}
        copy = owned(value)
        assert copy == value and copy is not value
        assert copy["a"] is not value["a"] and copy["b"]["c"][0] is not value["b"]["c"][0]
        assert type(copy["a"][2]) is bool

    def test_other_values_are_copied_by_deepcopy(self):
        class Tagged(dict):
            pass

        value = [Tagged(day=datetime.date(2026, 1, 2))]
        copy = owned(value)
        assert copy == value and type(copy[0]) is Tagged and copy[0] is not value[0]

    def test_scalars_are_themselves_and_an_uncopyable_value_is_kept(self):
        text = "x" * 10
        assert owned(text) is text and owned(None) is None
        locked = [threading.Lock()]
        assert owned(locked) is locked


class TestOwnedAll:
    def test_copies_each_container_in_one_pass_and_keeps_the_rest(self):
        shared = {"k": [1]}
        values = [shared, "x", None, 2.5, [shared]]
        copied = owned_all(values)
        assert copied == values and copied is not values
        assert copied[0] is not shared and copied[4][0] is not shared and values[0] is shared

    def test_a_value_that_is_not_plain_data_is_copied_on_its_own(self):
        day, locked = datetime.date(2026, 1, 2), [threading.Lock()]
        copied = owned_all([{"d": day}, locked])
        assert copied[0] == {"d": day} and copied[1] is locked


class TestOwnedCells:
    def test_only_container_cells_are_replaced_and_dtypes_stay(self):
        shared = {"k": 1}
        frame = pd.DataFrame({"a": [shared, "x", None], "b": ["p", "q", "r"], "n": [1, 2, 3]})
        dtypes = frame.dtypes.to_dict()
        out = owned_cells(frame, ["a", "b", "n", "missing"])
        assert out is frame and frame.dtypes.to_dict() == dtypes
        assert frame.loc[0, "a"] == shared and frame.loc[0, "a"] is not shared
