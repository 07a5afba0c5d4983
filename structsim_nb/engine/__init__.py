"""The comparison engine's seam: stickler's comparison, with each list matched once and vectorised where it can.

`evaluate.StructuredOutputSimilarity` compares through `listmatch.MatchOnceSpec`; the modules:

- `listmatch`: stickler's `ComparisonEngine` with its list comparator, field comparator and
  non-match collector swapped for subclasses; each list's assignment made once per comparison;
- `listrecords`: the non-match records read off that matching;
- `fastmatch`: element plans and the vectorised pair-similarity columns of a list;
- `pairwise`: a comparator's score for every pair of two value lists (rapidfuzz, numpy);
- `assignment`: the engine's own Hungarian solver on a vectorised matrix;
- `fastread`: reading a document as stickler's eval model, each class's questions asked once.

Every result is the engine's, value for value and type for type: `tests/engine/` compares them
with the stock engine on generated documents.
"""
