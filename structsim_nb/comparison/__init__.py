"""Compare two runs: did the change make it better or worse, per case and per field, with honest uncertainty.

`core` holds `compare` and `Comparison`; `runs` reads each side (a report, a saved report file, or a
`structsim-nb evaluate` reports folder, through `reports_folder`) and pairs cases by name; `paired` holds the
statistics (paired bootstrap intervals, the sign-test floor on verdicts, exact McNemar); `views` builds the
DataFrames and `render` the page, the JSON and the notebook repr.
"""

from .core import Comparison, compare

__all__ = ["Comparison", "compare"]
