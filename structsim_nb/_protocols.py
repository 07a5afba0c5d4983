"""What the pictures read from a report, as a Protocol.

`report.py` reaches the charts, the page and the explorer lazily (`report.plot`, `to_html`,
`explore`), so those modules must not import `report.py` back, not even for a type: imports run one
way (`tests/test_layout.py`). They name the report by this Protocol instead; a
`StructuredOutputReport` satisfies it, and so does anything with the same views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pandas as pd

__all__ = ["ReportLike"]


class ReportLike(Protocol):
    """A report's rows and views: what `plot`, `report_page`, `case_view`, `whatif` and `explore` read."""

    @property
    def cases(self) -> Sequence[Mapping[str, Any]]:
        """One mapping per case and evaluator (`name`, `evaluator`, `expected_output`, `actual_output`, ...)."""
        ...

    @property
    def detailed_results(self) -> Sequence[Sequence[Any]]:
        """The rows (`EvaluationOutput`) of each entry of `cases`."""
        ...

    def cases_frame(self, *, evaluator: str | None = None) -> pd.DataFrame:
        """One row per case and evaluator, with a status."""
        ...

    def fields_frame(self, *, evaluator: str | None = None) -> pd.DataFrame:
        """One row per field path, worst first."""
        ...

    def non_matches_frame(self, *, evaluator: str | None = None) -> pd.DataFrame:
        """Every missed, invented or wrong value."""
        ...

    def summary(self, *, evaluator: str | None = None) -> dict[str, Any]:
        """Headline figures."""
        ...

    def evaluators(self) -> list[str]:
        """The evaluator names, those that score field by field first."""
        ...

    def similarity_evaluators(self) -> set[str]:
        """The evaluators whose rows `StructuredOutputSimilarity` scored."""
        ...
