"""One prompt as the condition kinds see it: text, tokens and lazily computed features.

Pure. A :class:`PromptView` is built per request by the engine only when a rule
with an extension condition has to be verified; each feature (tokens, slash
command, content words, question) is computed on first use and kept for the
other conditions of the same request. :func:`visible_text` implements the
file-level ``ignore_code`` option. Must never perform I/O.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection, Iterable
from functools import cache
from operator import itemgetter
from typing import Literal, NamedTuple

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read before the try below
from smista.core.conditions import signals as _signals
from smista.core.conditions.markers import (
    DEFAULT_MARKERS,
    Markers,
    content_tokens,
    is_question,
    slash_command,
)
from smista.core.conditions.signals import SignalHits, SignalReader, TokenSignals, Words
from smista.core.textmodel import Prediction, TextModel
from smista.core.tokenizer import pieces, tokenize

__all__ = ["PlanOptions", "PromptView", "SignalHits", "is_hangul_or_han", "visible_text"]


_first = itemgetter(0)
"""The word of a ``(word, fuzzy)`` hit."""

_NO_WORDS: frozenset[str] = frozenset()
"""The one empty word set (shared, not made per prompt)."""

_LEAD_WINDOW = 4
"""Content tokens a view reads at least, so most leading entries need one reading."""


class PlanOptions(NamedTuple):
    """File-level options of a rule set (``[classification.options]``, ``.markers``)."""

    ignore_code: bool = False
    hangul_han_typos: bool = True
    markers: Markers = DEFAULT_MARKERS
    model: TextModel | None = None
    """The text model the ``predicted`` kind reads (``[classification.model]``)."""
    model_min: float = 0.6
    """The probability a ``predicted`` label needs (``min_probability``)."""
    model_source: tuple[str, ...] = ()
    """Where the model was read from, as ``(file as written, digest)``: the rules cache
    checks the file is unchanged before reusing compiled rules; empty without a model."""
    model_min_by_label: tuple[tuple[str, float], ...] = ()
    """Labels whose ``predicted`` probability bar is not ``model_min``
    (``min_probability_by_label``), sorted."""

    def min_for(self, label: str) -> float:
        """The probability the text model's ``label`` needs."""
        for name, minimum in self.model_min_by_label:
            if name == label:
                return minimum
        return self.model_min


@cache
def _fenced() -> re.Pattern[str]:
    """The readable statement of fenced code; :func:`_blank_code_blocks` finds the same
    spans without the regex engine (tests compare the two; compiled only for them)."""
    return re.compile(r"(```|~~~).*?(?:\1|\Z)", re.DOTALL)


@cache
def _inline() -> re.Pattern[str]:
    """The readable statement of inline code (as :func:`_fenced`)."""
    return re.compile(r"`[^`\n]*`")


@cache
def _url() -> re.Pattern[str]:
    """A URL (compiled on first use: most prompts have none)."""
    return re.compile(r"(?:\b[a-z][a-z0-9+.\-]*://|\bwww\.)\S+", re.IGNORECASE)


# A whitespace-free run that looks like a path, a file name, a dotted name or
# an identifier: a slash or backslash next to a word character, a dot or an
# underscore between word characters, or a lower-to-upper case change.
@cache
def _code_run() -> re.Pattern[str]:
    """The readable statement of a code run, without the sentence punctuation that
    ends it ("what is in config.yaml?" keeps its question mark).
    :func:`visible_text` finds the same runs faster (tests compare the two; compiled
    only for them)."""
    return re.compile(
        r"(?<!\S)(?=\S*?(?:\w[/\\]|[/\\]\w|\w\.\w|[^\W_]_[^\W_]|[a-z][A-Z]))"
        r"\S+?(?=[?!.,;:)\]}\"'\u2019\u201d\uff1f\uff01\u3002]*(?:\s|$))"
    )


_TRIGGER = re.compile(r"[/\\._]|[a-z][A-Z]")
_TRAILING = frozenset("?!.,;:)]}\"'\u2019\u201d\uff1f\uff01\u3002")


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the runs :func:`_code_run` matches, found from their signature characters."""
    spans: list[tuple[int, int]] = []
    n = len(text)
    done = 0
    for found in _TRIGGER.finditer(text):
        i = found.start()
        if i < done:
            continue
        ch = text[i]
        if found.end() - i == 2:
            ok = True
        elif ch in "/\\":
            ok = (i > 0 and _word(text[i - 1])) or (i + 1 < n and _word(text[i + 1]))
        elif ch == ".":
            ok = 0 < i < n - 1 and _word(text[i - 1]) and _word(text[i + 1])
        else:  # "_" between letters or digits
            ok = 0 < i < n - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
        if not ok:
            continue
        start = i
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        end = found.end()
        while end < n and not text[end].isspace():
            end += 1
        done = end
        while end > start + 1 and text[end - 1] in _TRAILING:
            end -= 1
        spans.append((start, end))
    return spans


def _blank_code_spans(text: str) -> str:
    """``text`` with each of its code spans replaced by one space."""
    spans = _code_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces.append(text[last:start])
        pieces.append(" ")
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _blank_code_blocks(text: str) -> str:
    """``_inline().sub(" ", _fenced().sub(" ", text))``, found with ``str.find``.

    A fence (three backticks or tildes) runs to the next same fence or the end;
    then an inline span runs from a backtick to the next one on its line.
    """
    out: list[str] = []
    i = 0
    while True:
        ticks, tildes = text.find("```", i), text.find("~~~", i)
        if ticks < 0 and tildes < 0:
            break
        start = tildes if ticks < 0 or 0 <= tildes < ticks else ticks
        close = text.find(text[start : start + 3], start + 3)
        out.append(text[i:start])
        out.append(" ")
        i = len(text) if close < 0 else close + 3
    out.append(text[i:])
    text = "".join(out)
    if "`" not in text:
        return text
    out = []
    i = at = 0
    while (start := text.find("`", at)) >= 0:
        close = text.find("`", start + 1)
        if close < 0:
            break
        newline = text.find("\n", start + 1, close)
        if newline >= 0:  # no span from here: the next backtick may open one
            at = close
            continue
        out.append(text[i:start])
        out.append(" ")
        i = at = close + 1
    out.append(text[i:])
    return "".join(out)


def _code_signs(text: str) -> int:
    """Bit 1: ``text`` may hold code blocks (a backtick or ``~~~``); bit 2: URLs. The C
    extension's ``code_signs`` finds the same in one pass (tests compare them)."""
    blocks = "`" in text or "~~~" in text
    urls = "://" in text or "www." in text or "WWW." in text
    return blocks | urls << 1


try:  # the same signs in one compiled pass, and code spans blanked in another
    from smista.core._speedups import blank_code_spans as _blank_spans
    from smista.core._speedups import code_signs as _signs_of
except ImportError:  # pragma: no cover - exercised on machines without a C compiler
    _blank_spans = _blank_code_spans
    _signs_of = _code_signs


def visible_text(text: str) -> str:
    """``text`` with code, URLs, paths and identifiers blanked out (each by one space)."""
    signs = _signs_of(text)
    if signs & 1:
        text = _blank_code_blocks(text)
        signs = _signs_of(text)  # (a URL may have been inside a code block)
    if signs & 2:
        text = _url().sub(" ", text)
    return _blank_spans(text)


def is_hangul_or_han(word: str) -> bool:
    """Whether ``word`` has a Hangul or Han character (one syllable is one code point)."""
    if word.isascii():
        return False
    for ch in word:
        o = ord(ch)
        if (
            0xAC00 <= o <= 0xD7A3
            or 0x1100 <= o <= 0x11FF
            or 0x3130 <= o <= 0x318F
            or 0x3400 <= o <= 0x4DBF
            or 0x4E00 <= o <= 0x9FFF
            or 0xF900 <= o <= 0xFAFF
            or 0x20000 <= o <= 0x3134F
        ):
            return True
    return False


class PromptView:
    """The features of one prompt, computed on demand."""

    __slots__ = (
        "_command",
        "_confident",
        "_content",
        "_content_limit",
        "_corrected",
        "_feature_ids",
        "_hitting",
        "_lead",
        "_lowered",
        "_prediction",
        "_prefixes",
        "_present",
        "_question",
        "_set",
        "_signal_tokens",
        "_signals",
        "_sorted",
        "_starts",
        "_tokens",
        "contexts",
        "options",
        "text",
        "visible",
    )

    def __init__(
        self,
        text: str,
        contexts: Collection[str] = (),
        options: PlanOptions | None = None,
        *,
        tokens: list[str] | tuple[str, ...] | None = None,
        signals: TokenSignals | None = None,
        visible: str | None = None,
        signal_tokens: Iterable[str] | None = None,
        signal_hits: SignalHits | None = None,
        corrected: Collection[str] | None = None,
        feature_ids: bytes | None = None,
    ) -> None:
        """``tokens``, when given, must be ``tokenize(visible text)`` (the engine has them);
        ``signals``, when given, must hold the words phrases and leading words look up and
        the stems (the engine's :class:`~smista.core.conditions.signals.TokenSignals`);
        ``signal_tokens``, when given, must hold every distinct visible token (lowercased)
        that hits one of those words or stems (the engine's scan finds them);
        ``signal_hits``, when given, must be what the view would find from them: the words
        some token hits, the stems some token starts with, and each hitting token's
        words (the engine's scan reads them on its way); ``corrected``, the rule set's
        keywords some token matches by typo (``CompiledRules.corrections``), which a text
        model reads as well; ``feature_ids``, when given, must be what the engine's scan of
        the visible text read with the model's ``feature_table()`` (``TextModel.read``)."""
        if options is None:
            options = PlanOptions()
        if visible is None:
            visible = visible_text(text) if options.ignore_code else text
        self._fill(
            text,
            contexts,
            options,
            visible,
            tuple(tokens) if tokens is not None else None,
            signals,
            signal_tokens,
            signal_hits,
            corrected,
            feature_ids,
        )

    def _fill(
        self,
        text: str,
        contexts: Collection[str],
        options: PlanOptions,
        visible: str,
        tokens: tuple[str, ...] | None,
        signals: TokenSignals | None,
        signal_tokens: Iterable[str] | None,
        signal_hits: SignalHits | None,
        corrected: Collection[str] | None,
        feature_ids: bytes | None,
    ) -> None:
        """Every slot, from :meth:`__init__`'s arguments with the defaults resolved (the
        engine calls it on a view made without ``__init__``, its arguments positional:
        no keyword matching on every prompt)."""
        self.text = text
        self.options = options
        self.visible = visible
        self.contexts = contexts
        self._tokens = tokens
        self._set: frozenset[str] | None = None
        self._command: str | bool | None = False  # False: not computed yet
        self._content: tuple[str, ...] | None = None
        self._content_limit = 0
        self._question: bool | None = None
        self._lowered: str | None = None
        self._prediction: Prediction | Literal[False] | None = False  # False: not computed yet
        self._confident: str | Literal[False] | None = False  # False: not computed yet
        self._corrected = corrected
        self._feature_ids = feature_ids
        self._signals = signals
        self._signal_tokens = signal_tokens
        self._prefixes: Words | None = None
        self._hitting: dict[str, tuple[tuple[str, bool], ...]] | None = None
        self._present: Words | None = None
        if signal_hits is not None:
            self._present, self._prefixes, self._hitting = signal_hits
        self._sorted: list[str] | None = None
        self._starts: dict[str, list[tuple[int, bool]]] | None = None
        self._lead: frozenset[str] | None = None

    @property
    def tokens(self) -> tuple[str, ...]:
        """The visible text's tokens, in order (duplicates kept)."""
        if self._tokens is None:
            self._tokens = tuple(tokenize(self.visible))
        return self._tokens

    @property
    def token_set(self) -> frozenset[str]:
        """The distinct visible tokens."""
        if self._set is None:
            self._set = frozenset(self.tokens)
        return self._set

    @property
    def corrected(self) -> frozenset[str]:
        """The rule set's keywords some token matches by typo, as given (empty if none)."""
        return frozenset(self._corrected or ())

    @property
    def prediction(self) -> Prediction | None:
        """The text model's answer for the visible tokens and the keywords some token
        matches by typo (``None`` without a model)."""
        prediction = self._prediction
        return self._read_model() if prediction is False else prediction

    def _read_model(self) -> Prediction | None:
        """Reads the text model (once: :attr:`prediction` and :attr:`confident` call it,
        a plain method, not one property through another)."""
        model = self.options.model
        prediction = self._prediction = (
            None
            if model is None
            else model.read(self.visible, self._corrected or (), self._tokens, self._feature_ids)
        )
        return prediction

    @property
    def confident(self) -> str | None:
        """The text model's label when its probability reaches that label's bar
        (``min_probability``, or the label's own in ``min_probability_by_label``);
        ``None`` otherwise, and without a model."""
        confident = self._confident
        if confident is False:
            prediction = self._prediction
            if prediction is False:
                prediction = self._read_model()
            confident = self._confident = (
                None
                if prediction is None
                or prediction.probability < self.options.min_for(prediction.label)
                else prediction.label
            )
        return confident

    @property
    def lowered(self) -> str:
        """The raw text, lowercased (for substring conditions, which ``ignore_code``
        does not hide anything from: "CLAUDE.md" stays visible to them)."""
        if self._lowered is None:
            self._lowered = self.text.lower()
        return self._lowered

    @property
    def command(self) -> str | None:
        """The slash command the raw prompt starts with (lowercased, no slash), if any."""
        if self._command is False:
            self._command = slash_command(self.text)
        return self._command  # type: ignore[return-value]

    def content_head(self, n: int) -> tuple[str, ...]:
        """The first ``n`` tokens from the first content word on (after command,
        mentions, fillers); fewer only when the prompt has fewer."""
        held = self._content
        if held is None or (len(held) < n and self._content_limit < n):
            limit = max(n, _LEAD_WINDOW)
            held = self._content = content_tokens(self.visible, self.options.markers, limit)
            self._content_limit = limit
        return held[:n]

    @property
    def question(self) -> bool:
        """Whether the prompt asks a question (a polite request does not)."""
        if self._question is None:
            self._question = is_question(self.visible, self.options.markers)
        return self._question

    # -- word lookups (phrases, leading words, stems) ----------------------------

    def hits_of(self, token: str) -> tuple[tuple[str, bool], ...]:
        """The looked-up words ``token`` (a visible one) equals (fuzzy False) or is a typo
        of (True)."""
        hitting = self._hitting
        if hitting is not None:  # every visible token hitting a word is there
            return hitting.get(token, ())
        return () if self._signals is None else self._signals.of(token)[0]

    @property
    def has_index(self) -> bool:
        """Whether word lookups go through the engine's index."""
        return self._signals is not None

    def _scan_signals(self) -> None:
        """The words and stems some token hits, from the tokens not known to hit nothing."""
        signals = self._signals
        assert signals is not None
        reader = SignalReader(signals)
        tokens = self._signal_tokens
        if tokens is None:
            silent = signals.silent
            limit = _signals.SCAN_LIMIT
            if len(self.visible) > limit:  # piece by piece: bounded memory
                tokens = (
                    token
                    for piece in pieces(self.visible, limit)
                    for token in set(tokenize(piece)).difference(silent)
                )
            else:
                tokens = self.token_set.difference(silent)
        for token in tokens:
            reader.read(token)
        self._present, self._prefixes, self._hitting = reader.hits()

    def _hitting_tokens(self) -> dict[str, tuple[tuple[str, bool], ...]]:
        """Each visible token that hits a looked-up word, with the words it hits."""
        if self._signals is None:
            return {}
        if self._hitting is None:
            self._scan_signals()
        assert self._hitting is not None
        return self._hitting

    def word_starts(self, word: str) -> list[tuple[int, bool]]:
        """Positions where a token equals or is a typo of looked-up ``word``, in order."""
        if self._starts is None:
            self._starts = {}
        found = self._starts.get(word)
        if found is None:
            # Only the few tokens that hit ``word`` are looked for, each with one
            # compiled scan of the token tuple per occurrence (a long prompt's
            # hundreds of other tokens are never visited in Python). The hitting
            # tokens are read for this word alone: a prompt asks about one or two.
            found = []
            tokens = self.tokens
            holders = [
                (token, fuzzy)
                for token, hit in self._hitting_tokens().items()
                for held, fuzzy in hit
                if held == word
            ]
            for token, fuzzy in holders:
                at = -1
                try:
                    while True:
                        at = tokens.index(token, at + 1)
                        found.append((at, fuzzy))
                except ValueError:
                    pass
            found.sort()
            self._starts[word] = found
        return found

    def word_at(self, word: str, pos: int) -> bool | None:
        """``False``/``True`` if the token at ``pos`` is ``word`` exactly/by typo, else None."""
        tokens = self.tokens
        if not 0 <= pos < len(tokens):
            return None
        for held, fuzzy in self._hitting_tokens().get(tokens[pos], ()):
            if held == word:
                return fuzzy
        return None

    @property
    def sorted_tokens(self) -> list[str]:
        """The distinct visible tokens, sorted (prefix lookups bisect it)."""
        if self._sorted is None:
            self._sorted = sorted(self.token_set)
        return self._sorted

    def has_prefix(self, stem: str) -> bool:
        """Whether some token starts with ``stem``."""
        signals = self._signals
        if signals is not None and stem in signals.stems:
            return stem in self.present_stems
        tokens = self.sorted_tokens
        i = bisect_left(tokens, stem)
        return i < len(tokens) and tokens[i].startswith(stem)

    def prefixes_of(self, stems: frozenset[str], *, indexed: bool = False) -> frozenset[str]:
        """Which of ``stems`` some token starts with; ``indexed``: the caller knows they
        are all among the stems the view's signals index (the engine's gate keys are),
        so that is not checked again for every prompt."""
        signals = self._signals
        if signals is not None and (indexed or stems <= signals.stems):
            return stems & self.present_stems
        return frozenset(s for s in stems if self.has_prefix(s))

    @property
    def present_stems(self) -> Words:
        """The index's stems some token starts with (``signals`` only)."""
        if self._prefixes is None:
            self._scan_signals()
        assert self._prefixes is not None
        return self._prefixes

    @property
    def present_words(self) -> Words:
        """The looked-up words some token hits (exactly or by typo)."""
        if self._present is None:
            self._scan_signals()
        assert self._present is not None
        return self._present

    @property
    def lead_words(self) -> frozenset[str]:
        """The looked-up words the first content word hits."""
        if self._lead is None:
            content = self.content_head(1)
            hit = self.hits_of(content[0]) if content else ()
            self._lead = frozenset(map(_first, hit)) if hit else _NO_WORDS
        return self._lead
