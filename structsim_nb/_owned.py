"""Copies of the dicts and lists a frame hands out, so that editing a cell edits only that frame.

A non-match's `expected` and `predicted` are often whole objects (a list element) or lists; a frame
built from the report's records would hold the very objects the report keeps, and cleaning them up in
a notebook (a common step) would change the report, every later frame and what `to_file` writes.
"""

from __future__ import annotations

import copy
import logging
import marshal
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

logger = logging.getLogger(__name__)

__all__ = ["owned", "owned_all", "owned_cells"]


def owned(value: Any) -> Any:
    """`value` itself, or a deep copy of it when it is a dict or a list.

    JSON data is copied by `marshal` (in C; the same types back, `True` stays a bool); anything else
    by `copy.deepcopy`. A value neither can copy (one holding a lock, say) is returned as it is, with
    a debug log line: a frame never fails for it.
    """
    if not isinstance(value, (dict, list)):
        return value
    try:
        return marshal.loads(marshal.dumps(value))
    except (ValueError, TypeError):  # not plain data (a subclass, a model, a date): the general copy
        pass
    try:
        return copy.deepcopy(value)
    except Exception as exc:  # noqa: BLE001 - an uncopyable value is shown as it is
        logger.debug("type=<%s>, error=<%s> | value could not be copied; the frame holds it", type(value), exc)
        return value


def owned_all(values: list[Any]) -> list[Any]:
    """`[owned(value) for value in values]`, in one `marshal` round trip when they are all plain data.

    The same values back (a scalar may come back as an equal copy of itself); `values` is not changed.
    """
    if not any(isinstance(value, (dict, list)) for value in values):
        return list(values)
    try:
        copied: list[Any] = marshal.loads(marshal.dumps(values))
    except (ValueError, TypeError):  # one value is not plain data: each is copied on its own
        return [owned(value) for value in values]
    return copied


def owned_cells(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """`frame` with every dict or list cell of `columns` replaced by its copy (`owned`), in place; returned.

    A column that holds no dict or list is left as it is (its dtype too); missing columns are skipped.
    """
    for column in columns:
        if column not in frame.columns:
            continue
        values = frame[column].to_numpy(dtype=object, copy=True)
        if not any(isinstance(value, (dict, list)) for value in values):
            continue
        for index, value in enumerate(owned_all(values.tolist())):
            values[index] = value  # (one at a time: numpy would read a list of lists as a second dimension)
        frame[column] = values  # (a column holding a dict or list is of object dtype, and stays so)
    return frame
