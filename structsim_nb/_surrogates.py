"""Frames of text that pandas can hold: a lone surrogate is kept as its `\\ud800` escape.

pandas 3 stores text in pyarrow, which refuses a lone surrogate with `UnicodeEncodeError`, and
such text is real input: JSON's `"\\ud800"` decodes to one (an agent that cut an emoji's escape in
half), and a file name that is not UTF-8 reads as one. Every frame built from what a user's data
holds is made by `text_frame`: as pandas makes it, and only when that raises, again from the data with
each lone surrogate written as its escape, as the JSON reports and the pages write it.

Examples:
    >>> import pandas as pd
    >>> text_frame(pd.DataFrame, [{"model": "m\\ud800"}])["model"].tolist()
    ['m\\\\ud800']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (pandas is not imported here: the CLI's start-up does not pay for it)
    import pandas as pd

__all__ = ["escaped", "text_frame"]

#: How deep `escaped` goes into nested values (a frame cell holding a document); deeper values are kept as given.
_DEEPEST = 100


def text_frame(make: Callable[..., pd.DataFrame], data: Any, /, **options: Any) -> pd.DataFrame:
    """`make(data, **options)` (`pd.DataFrame`, `pd.DataFrame.from_records`), or, when pandas refuses a lone
    surrogate in it, `make(escaped(data), **options)`. Costs nothing when the text is plain."""
    try:
        return make(data, **options)
    except UnicodeEncodeError:
        return make(escaped(data), **options)


def escaped(value: Any, depth: int = 0) -> Any:
    """`value` with every lone surrogate in its text (keys and values of dicts, items of lists and tuples, to
    `_DEEPEST` levels) written as its backslash escape; anything else as given. Plain text is returned as is."""
    if isinstance(value, str):
        if value.isascii():
            return value
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if depth >= _DEEPEST:
        return value
    if isinstance(value, dict):
        return {escaped(key, depth + 1): escaped(item, depth + 1) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(escaped(item, depth + 1) for item in value)
    return value
