"""Which word phrases occur in a text: all of them in one pass (Aho-Corasick over words).

`phrases_found(phrases, words)` answers `" ".join(phrase) in " ".join(words)` at word boundaries
for every phrase at once. Searching each phrase separately costs phrases x text; this costs the
total length of the phrases plus the length of the text, however many phrases share words.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

__all__ = ["phrases_found"]


def phrases_found(phrases: Sequence[Sequence[str]], words: Sequence[str]) -> set[int]:
    """The indexes of the phrases that occur in `words` as runs of whole words.

    Args:
        phrases: Each a sequence of words (an empty phrase never matches).
        words: The text, as words.

    Returns:
        The set of indexes into `phrases` of those found. Cost: O(total phrase words + len(words)):
        each automaton state reports its phrases once, the first time it is reached.

    Examples:
        >>> sorted(phrases_found([["pump", "3"], ["valve"], ["pump", "4"]], "the pump 3 valve".split()))
        [0, 1]
    """
    goto: list[dict[str, int]] = [{}]
    ends: list[list[int]] = [[]]
    for index, phrase in enumerate(phrases):
        if not phrase:
            continue
        state = 0
        for word in phrase:
            following = goto[state].get(word)
            if following is None:
                following = len(goto)
                goto[state][word] = following
                goto.append({})
                ends.append([])
            state = following
        ends[state].append(index)
    fail = [0] * len(goto)
    # Each state's nearest proper suffix state that ends a phrase (the output link), or -1.
    output = [-1] * len(goto)
    queue = deque(goto[0].values())
    while queue:
        state = queue.popleft()
        for word, following in goto[state].items():
            queue.append(following)
            link = fail[state]
            while link and word not in goto[link]:
                link = fail[link]
            fail[following] = goto[link].get(word, 0) if goto[link].get(word, 0) != following else 0
            suffix = fail[following]
            output[following] = suffix if ends[suffix] else output[suffix]
    found: set[int] = set()
    reported = [False] * len(goto)
    state = 0
    for word in words:
        while state and word not in goto[state]:
            state = fail[state]
        state = goto[state].get(word, 0)
        hit = state
        while hit > 0 and not reported[hit]:
            reported[hit] = True
            found.update(ends[hit])
            hit = output[hit]
    return found
