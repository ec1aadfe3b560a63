"""A small English inflection heuristic for the ``inflection`` note of ``smista check``.

Pure, standard library only. The matcher never treats ``reviews`` or
``reviewing`` as the keyword ``review`` (the token contains the keyword), so
``smista check`` reminds authors of the forms they did not list. Guessing
English forms is a heuristic: results are notes, never errors.
"""

from __future__ import annotations

__all__ = ["inflections"]

_VOWELS = frozenset("aeiou")

_IRREGULAR: dict[str, tuple[str, ...]] = {
    "write": ("writes", "writing", "wrote", "written"),
    "rewrite": ("rewrites", "rewriting", "rewrote", "rewritten"),
    "make": ("makes", "making", "made"),
    "build": ("builds", "building", "built"),
    "break": ("breaks", "breaking", "broke", "broken"),
    "take": ("takes", "taking", "took", "taken"),
    "give": ("gives", "giving", "gave", "given"),
    "find": ("finds", "finding", "found"),
    "think": ("thinks", "thinking", "thought"),
    "split": ("splits", "splitting"),
    "run": ("runs", "running", "ran"),
    "set": ("sets", "setting"),
    "get": ("gets", "getting", "got", "gotten"),
}
"""Verbs whose forms the suffix rules would get wrong."""

_NOUN_ENDINGS = (
    "tion", "sion", "ness", "ity", "ure", "ance", "ence", "ship", "ism", "ist",
    "er", "or", "ary", "ory", "gy", "back", "shell",
)  # fmt: skip
"""Endings of words that are (almost always) nouns: only a plural is suggested."""


def _single_syllable_cvc(word: str) -> bool:
    groups = sum(
        1 for i, c in enumerate(word) if c in _VOWELS and (i == 0 or word[i - 1] not in _VOWELS)
    )
    return (
        groups == 1
        and len(word) >= 3
        and word[-1] not in _VOWELS
        and word[-1] not in "wxy"
        and word[-2] in _VOWELS
        and word[-3] not in _VOWELS
    )


def inflections(word: str) -> list[str]:
    """Likely ``-s``, ``-ing`` and ``-ed`` forms of an English word (empty if unsure).

    Only plain lowercase ASCII words of 4+ letters that do not already look
    inflected get forms (``review`` -> ``reviews``, ``reviewing``,
    ``reviewed``); likely nouns (``architecture``) get only a plural; words
    ending in a, i, o or u (mostly not English verbs) get none.
    """
    if word in _IRREGULAR:
        return list(_IRREGULAR[word])
    if len(word) < 4 or not (word.isascii() and word.isalpha() and word.islower()):
        return []
    if word.endswith(("ing", "ed", "s", "ly", "a", "i", "o", "u")):
        return []
    if word.endswith(("x", "z", "ch", "sh")):
        plural = word + "es"
    elif word.endswith("y") and word[-2] not in _VOWELS:
        plural = word[:-1] + "ies"
    else:
        plural = word + "s"
    if word.endswith(_NOUN_ENDINGS):
        return [plural]
    if word.endswith("ie"):
        ing, ed = word[:-2] + "ying", word + "d"
    elif word.endswith("e") and not word.endswith(("ee", "ye", "oe")):
        ing, ed = word[:-1] + "ing", word + "d"
    elif word.endswith("y") and word[-2] not in _VOWELS:
        ing, ed = word + "ing", word[:-1] + "ied"
    elif _single_syllable_cvc(word):
        ing, ed = word + word[-1] + "ing", word + word[-1] + "ed"
    else:
        ing, ed = word + "ing", word + "ed"
    return [plural, ing, ed]
