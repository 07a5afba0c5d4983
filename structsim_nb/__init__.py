"""structsim-nb: score an agent's structured output against ground truth, field by field.

The public API is what `__all__` lists; everything else is private or lives in a submodule.
"""

import logging

from .dataset import score_dataset
from .evaluate import StructuredOutputSimilarity
from .report import StructuredOutputReport

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "StructuredOutputReport",
    "StructuredOutputSimilarity",
    "score_dataset",
]
