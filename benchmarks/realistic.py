"""A seeded corpus of distinct, realistic prompts for cold-path benchmarks.

Owns one thing: generating prompts the way real traffic looks to a fresh
process, where most prompts bring words never seen before. Nothing here reads
files or the network; the same seed always gives the same prompts.

* a vocabulary of about 200,000 words drawn Zipf-like (a few very common
  words, a long tail seen once or twice): everyday English, made-up words,
  ``snake_case`` / ``camelCase`` identifiers, file paths, version strings;
* fresh tokens no vocabulary holds: numbers, hex hashes, UUID pieces;
* code snippets and stack-trace lines in some prompts;
* intent keywords of the rules under test (some with a typo, some inflected);
* a ``non_ascii_share`` (15%) of prompts with accented, Greek, Cyrillic or
  CJK words.

Every prompt is distinct (duplicates are drawn again).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate

from benchmarks.corpus import FILLER, NON_ASCII, typo

__all__ = ["Vocabulary", "distinct_prompts"]

_SYLLABLES = tuple(
    c + v
    for c in ("b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "st")
    for v in ("a", "e", "i", "o", "u", "ar", "en", "io", "or")
)
_ACCENTED = {
    "a": "áàâäã",
    "e": "éèêë",
    "i": "íïî",
    "o": "óöôõ",
    "u": "úüû",
    "n": "ñ",
    "c": "ç",
    "s": "ßš",
    "z": "ž",
}
_CYRILLIC = "абвгдежзиклмнопрстуфхцчшщыэюя"
_GREEK = "αβγδεζηθικλμνξοπρστυφχψω"
_CJK = "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自可"
_EXTS = (".py", ".rs", ".ts", ".go", ".js", ".toml", ".md", ".json", ".yaml", ".c", ".h")
_PUNCT = (".", ",", "?", ":", ";", "!", "...", ")", "'s")


def _pseudo(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((1, 2, 2, 3, 3, 3, 4, 5))))


class Vocabulary:
    """About ``size`` words with Zipf-like weights (rank ** -1.05), seeded."""

    def __init__(self, size: int = 200_000, *, seed: int = 2026) -> None:
        rng = random.Random(seed)
        words: list[str] = list(FILLER)
        seen = set(words)
        stems = [_pseudo(rng) for _ in range(size // 4)]
        while len(words) < size:
            roll = rng.random()
            if roll < 0.45:
                word = rng.choice(stems) + rng.choice(("", "", "s", "er", "ing", "ed", "ly"))
            elif roll < 0.65:
                parts = [rng.choice(stems if rng.random() < 0.6 else FILLER) for _ in range(2)]
                word = "_".join(parts) if rng.random() < 0.5 else parts[0] + parts[1].title()
            elif roll < 0.8:
                depth = rng.randint(1, 4)
                parts = [rng.choice(stems if rng.random() < 0.5 else FILLER) for _ in range(depth)]
                word = "/".join(parts) + rng.choice(_EXTS)
            elif roll < 0.88:
                word = rng.choice(stems).title() + rng.choice(stems).title()  # a class name
            elif roll < 0.93:
                word = f"v{rng.randint(0, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 99)}"
            else:
                word = rng.choice(stems) + str(rng.randint(1, 999))
            if word not in seen:
                seen.add(word)
                words.append(word)
        rng.shuffle(words)
        common = list(FILLER)  # everyday words lead the ranking
        rest = [w for w in words if w not in set(common)]
        self.words: tuple[str, ...] = (*common, *rest)
        self._cum = list(accumulate((rank + 1) ** -1.05 for rank in range(len(self.words))))
        self.non_ascii = self._non_ascii_words(rng, stems)

    @staticmethod
    def _non_ascii_words(rng: random.Random, stems: Sequence[str]) -> tuple[str, ...]:
        out: list[str] = list(NON_ASCII)
        for _ in range(20_000):
            kind = rng.random()
            if kind < 0.5:  # accented Latin: one or two letters changed
                word = list(rng.choice(stems))
                for _ in range(rng.randint(1, 2)):
                    i = rng.randrange(len(word))
                    if word[i] in _ACCENTED:
                        word[i] = rng.choice(_ACCENTED[word[i]])
                out.append("".join(word))
            elif kind < 0.75:
                out.append("".join(rng.choice(_CYRILLIC) for _ in range(rng.randint(3, 10))))
            elif kind < 0.9:
                out.append("".join(rng.choice(_GREEK) for _ in range(rng.randint(3, 9))))
            else:
                out.append("".join(rng.choice(_CJK) for _ in range(rng.randint(2, 5))))
        return tuple(out)

    def draw(self, rng: random.Random) -> str:
        return self.words[bisect_left(self._cum, rng.random() * self._cum[-1])]


def _fresh_token(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.4:
        return str(rng.randint(0, 10 ** rng.randint(1, 7)))
    if roll < 0.7:
        width = rng.choice((7, 8, 12, 40))
        return f"{rng.getrandbits(160):0{width}x}"[:width]
    if roll < 0.85:
        return f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}"
    return f"0x{rng.getrandbits(32):x}"


def _snippet(rng: random.Random, vocab: Vocabulary) -> str:
    a, b, c = (vocab.draw(rng).replace("/", "_").split(".")[0] for _ in range(3))
    forms = (
        f"def {a}({b}): return {b}.{c} + {rng.randint(0, 99)}",
        f"const {a} = await {b}.{c}({rng.randint(0, 9)});",
        f'File "src/{a}.py", line {rng.randint(1, 2000)}, in {b}',
        f"{a}Error: {b} is not defined at {c}.js:{rng.randint(1, 300)}:{rng.randint(1, 80)}",
        f"fn {a}(&mut self, {b}: u32) -> Result<{c.title()}, Error>",
        f"SELECT {a}, {b} FROM {c} WHERE id = {rng.randint(1, 10**6)};",
        f"{a}.{b}({c}=True)",
    )
    return rng.choice(forms)


def _keyword(rng: random.Random, keywords: Sequence[str]) -> str:
    word = rng.choice(keywords)
    roll = rng.random()
    if roll < 0.12:
        return typo(word, rng)
    if roll < 0.25:
        return word + rng.choice(("s", "ed", "ing", "er"))
    return word


def distinct_prompts(
    n: int,
    keywords: Sequence[str],
    *,
    seed: int = 12,
    vocab: Vocabulary | None = None,
    non_ascii_share: float = 0.15,
    keyword_share: float = 0.7,
) -> list[str]:
    """``n`` distinct prompts (3 to ~250 words, log-uniform) over ``vocab``.

    ``keyword_share`` of prompts hold one to three of ``keywords`` (the
    rules' own, so prompts match them as real traffic does).
    """
    vocab = vocab if vocab is not None else Vocabulary()
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        length = max(3, int(3 * (80 ** rng.random())))
        non_ascii = rng.random() < non_ascii_share
        words: list[str] = []
        for _ in range(length):
            roll = rng.random()
            if roll < 0.06:
                word = _fresh_token(rng)
            elif non_ascii and roll < 0.18:
                word = rng.choice(vocab.non_ascii)
            else:
                word = vocab.draw(rng)
            if rng.random() < 0.1:
                word = word.capitalize()
            if rng.random() < 0.1:
                word += rng.choice(_PUNCT)
            words.append(word)
        if keywords and rng.random() < keyword_share:
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                words.insert(rng.randrange(len(words) + 1), _keyword(rng, keywords))
        if rng.random() < 0.15:
            words.insert(rng.randrange(len(words) + 1), _snippet(rng, vocab))
        if non_ascii and not any(not w.isascii() for w in words):
            words[rng.randrange(len(words))] = rng.choice(vocab.non_ascii)
        prompt = " ".join(words)
        if prompt not in seen:
            seen.add(prompt)
            out.append(prompt)
    return out
