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

__all__ = ["owned", "owned_cells"]


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


def owned_cells(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """`frame` with every dict or list cell of `columns` replaced by its copy (`owned`), in place; returned.

    A column that holds no dict or list is left as it is (its dtype too); missing columns are skipped.
    """
    for column in columns:
        if column not in frame.columns:
            continue
        values = frame[column].to_numpy(dtype=object, copy=True)
        found = False
        for index, value in enumerate(values):
            if isinstance(value, (dict, list)):
                values[index] = owned(value)
                found = True
        if found:  # (a column holding a dict or list is of object dtype, and stays so)
            frame[column] = values
    return frame
