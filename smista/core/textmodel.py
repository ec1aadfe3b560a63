"""A rule set's linear text model: fixed weights over a prompt's words, read alike every time.

Pure; standard library only (and, where it is built, the C extension's
:class:`FeatureTable`: an optimisation of :meth:`TextModel.read`, never a different
answer); never performs I/O, never trains, never asks anything outside the process. A
:class:`TextModel` is data a rules file points to (``[classification.model]``, a smista
extension): for each of a few thousand *features* of a prompt, one integer weight per
label, and a bias per label. The ``predicted`` condition kind
(:mod:`smista.core.conditions.predicted`) reads its answer. The same tokens always give
the same probabilities: weights are integers summed exactly, then scaled once.

Features of a token sequence (:func:`features`), each counted once however often it
occurs:

- every token (``fix``);
- inside a token written in a script without spaces (Han, kana, Hangul, Thai, Lao,
  Khmer, Myanmar), every pair of neighbouring characters, after a ``#`` (``#修改``),
  since a whole clause is one token there.

Only the first :data:`MAX_TOKENS` tokens are read. With ``F`` the features the model
knows, the score of label ``c`` is ``bias[c] + sum(weight[f][c] for f in F) /
(scale * sqrt(len(F)))`` (a binary bag of features, L2-normalised), and the
probabilities are the softmax of the scores; no known feature leaves the biases.

:meth:`TextModel.known` and the packed sums of :meth:`TextModel.probabilities` state
what a prompt's tokens are worth; :meth:`TextModel.read` (what the ``predicted`` kind
calls) gives ``predict(tokenize(text))``, with the C extension by one compiled pass over
the text that tokenizes as :func:`~smista.core.tokenizer.tokenize` does and finds the
known features and their integer sums (``_speedups.FeatureTable``, built from the weights
on first use), and the top label and its probability by ``_speedups.softmax_top``, the
arithmetic of :meth:`TextModel._softmax` and ``_top`` in the same order (libm's ``exp``,
``math.fsum``'s correctly rounded sum), so the same bits. Tests hold the two equal,
features, sums and predictions, on generated texts, models and sums.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat as _repeat
from operator import add as _add
from operator import sub as _sub
from operator import truediv as _truediv
from typing import Any, NamedTuple, NoReturn

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read before the try below
from smista.core.tokenizer import tokenize

try:  # the known features' sums read off a text in one compiled pass (tests compare them)
    from smista.core._speedups import FeatureTable as _FeatureTable
    from smista.core._speedups import softmax_top as _softmax_top
except ImportError:
    _FeatureTable = None  # type: ignore[assignment,misc]
    _softmax_top = None  # type: ignore[assignment]

__all__ = ["MAX_TOKENS", "Prediction", "TextModel", "features", "spaceless"]

MAX_TOKENS = 400
"""Tokens of a prompt the model reads (the rest adds nothing)."""

_LANE = 32
"""Bits per label in a packed weight: one integer addition per feature sums every label."""
_BIAS = 1 << 15
"""Offset keeping each label's lane non-negative (weights lie in ``[-2**15, 2**15)``)."""
_MASK = (1 << _LANE) - 1
_CARRY_FREE = 1 << (_LANE - 16)
"""Fewer known features than this never carry out of a lane (each adds below ``2**16``)."""


def spaceless(token: str) -> bool:
    """Whether ``token`` has a character of a script written without spaces between words."""
    if token.isascii():
        return False
    for ch in token:
        o = ord(ch)
        if o >= 0x2E80 or 0x0E00 <= o <= 0x0EFF or 0x1000 <= o <= 0x109F or 0x1780 <= o <= 0x17FF:
            return True
    return False


def features(tokens: Sequence[str], corrected: Iterable[str] = ()) -> set[str]:
    """The distinct features of ``tokens`` (lowercased tokenizer output) and of the
    ``corrected`` words (the rule set's keywords some token matches by typo: a misspelt
    keyword reads as the keyword), as the model reads them. Character pairs come from
    the tokens only: a corrected word stands for a token as a whole."""
    words = set(tokens[:MAX_TOKENS])
    found = set(words)
    for token in words:
        if len(token) > 1 and spaceless(token):
            found.update("#" + token[i : i + 2] for i in range(len(token) - 1))
    found.update(corrected)
    return found


_new = tuple.__new__


class Prediction(NamedTuple):
    """The model's answer: the most probable label and its probability."""

    label: str
    probability: float


def _refuse(weights: Mapping[str, Sequence[int]], width: int) -> NoReturn:
    """Raise the ``ValueError`` naming the first feature of ``weights`` (in order) whose
    row is not ``width`` integers in [-32768, 32767]."""
    for feature, row in weights.items():
        if not feature or len(row) != width:
            raise ValueError(f"feature {feature!r} needs {width} weights")
        for weight in row:
            if type(weight) is not int or not -_BIAS <= weight < _BIAS:
                raise ValueError(
                    f"feature {feature!r}: weights must be integers in [-32768, 32767]"
                )
    raise AssertionError("no offending feature")  # pragma: no cover (callers checked)


class TextModel:
    """Immutable label weights over prompt features; see the module docstring."""

    __slots__ = (
        "_keys",
        "_packed",
        "_pairs",
        "_table",
        "_unpack",
        "_width",
        "bias",
        "labels",
        "scale",
        "weights",
    )

    def __init__(
        self,
        labels: Sequence[str],
        bias: Sequence[float],
        scale: float,
        weights: Mapping[str, Sequence[int]],
    ) -> None:
        """``weights`` maps a feature to one integer per label (in ``labels`` order), each in
        ``[-32768, 32767]``; ``bias`` is one float per label; ``scale`` divides the summed
        weights. ``ValueError`` names what is wrong."""
        labels = tuple(labels)
        if not labels or len(set(labels)) != len(labels) or not all(labels):
            raise ValueError("labels must be distinct, non-empty strings")
        if len(bias) != len(labels) or not all(math.isfinite(b) for b in bias):
            raise ValueError(f"bias must hold {len(labels)} finite numbers")
        if not (math.isfinite(scale) and scale > 0):
            raise ValueError("scale must be a positive number")
        width = len(labels)
        rows: dict[str, tuple[int, ...]] = {}
        for feature, row in weights.items():
            if not feature or len(row) != width:
                _refuse(weights, width)
            rows[feature] = tuple(row)
        # The weights are checked by C builtins all at once (a model is read at start-up);
        # the row-by-row check runs only to name the first offending feature.
        flat = [w for row in rows.values() for w in row]
        if flat and (set(map(type, flat)) != {int} or min(flat) < -_BIAS or max(flat) >= _BIAS):
            _refuse(weights, width)
        self._set(labels, tuple(float(b) for b in bias), float(scale), rows)

    @classmethod
    def _trusted(
        cls,
        labels: tuple[str, ...],
        bias: tuple[float, ...],
        scale: float,
        weights: dict[str, tuple[int, ...]],
    ) -> TextModel:
        """The model of smista's own generated data (the shipped pack): the very values
        ``__init__`` would keep, none of them checked again."""
        model = object.__new__(cls)
        model._set(labels, bias, scale, weights)
        return model

    def _set(
        self,
        labels: tuple[str, ...],
        bias: tuple[float, ...],
        scale: float,
        rows: dict[str, tuple[int, ...]],
    ) -> None:
        self.labels: tuple[str, ...] = labels
        self.bias: tuple[float, ...] = bias
        self.scale = scale
        self.weights: dict[str, tuple[int, ...]] = rows
        # Each feature's weights packed in one integer (see probabilities): built on the
        # first pure-Python reading without the C extension. With it, the few prompts the
        # C path hands back (a token holding U+03A3) are summed row by row instead, so no
        # call in a long-running process pays for packing every feature (a few ms).
        self._packed: dict[str, int] | None = None
        self._keys = frozenset(rows)
        # The character pairs it knows, without their "#" (so a token's pairs are looked up
        # as plain slices); empty when it knows none (then :meth:`known` builds none).
        self._pairs = frozenset(f[1:] for f in rows if f.startswith("#") and len(f) == 3)
        # The summed lanes read back in one call: little-endian 32-bit words.
        self._width = _LANE // 8 * len(labels)
        self._unpack = struct.Struct(f"<{len(labels)}I").unpack
        # The compiled plan of the C path (FeatureTable), built on first use (False: not
        # yet; None: no C extension here).
        self._table: Any = False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TextModel):
            return NotImplemented
        return (self.labels, self.bias, self.scale, self.weights) == (
            other.labels,
            other.bias,
            other.scale,
            other.weights,
        )

    def __hash__(self) -> int:
        return hash((self.labels, self.bias, self.scale, len(self.weights)))

    def __reduce__(self) -> tuple[object, ...]:
        return (TextModel, (self.labels, self.bias, self.scale, self.weights))

    def known(self, tokens: Sequence[str], corrected: Iterable[str] = ()) -> frozenset[str]:
        """``features(tokens, corrected)`` the model knows, building character pairs only
        when it knows some (equal to ``self._keys & features(tokens, corrected)``; tests
        hold the two together)."""
        keys = self._keys
        head = tokens if len(tokens) <= MAX_TOKENS else tokens[:MAX_TOKENS]
        found = keys.intersection(head)
        if corrected:
            found = found.union(keys.intersection(corrected))
        pairs = self._pairs
        if pairs and not "".join(head).isascii():
            hits: set[str] = set()
            for token in set(head):
                if len(token) > 1 and not token.isascii() and spaceless(token):
                    hits.update(
                        pairs.intersection([token[i : i + 2] for i in range(len(token) - 1)])
                    )
            if hits:
                found = found.union("#" + pair for pair in hits)
        return found

    def probabilities(
        self, tokens: Sequence[str], corrected: Iterable[str] = ()
    ) -> tuple[float, ...]:
        """One probability per label (in :attr:`labels` order) for ``tokens`` (and the
        ``corrected`` words, see :func:`features`)."""
        known = self.known(tokens, corrected)
        count = len(known)
        if not count:
            return self._softmax(0, ())
        if count < _CARRY_FREE and (self._packed is not None or _FeatureTable is None):
            # one integer addition per feature sums every lane
            packed = self._packed
            if packed is None:
                packed = self._packed = {
                    f: sum((w + _BIAS) << (_LANE * lane) for lane, w in enumerate(row))
                    for f, row in self.weights.items()
                }
            total = sum(map(packed.__getitem__, known))
            offset = _BIAS * count
            sums: Sequence[int] = [
                lane - offset for lane in self._unpack(total.to_bytes(self._width, "little"))
            ]
        else:  # (lanes would carry into each other, or are not built: summed one by one)
            rows = [self.weights[f] for f in known]
            sums = [sum(row[lane] for row in rows) for lane in range(len(self.labels))]
        return self._softmax(count, sums)

    def _softmax(self, count: int, sums: Sequence[int]) -> tuple[float, ...]:
        """The probabilities given how many known features there are and their weights'
        sums per label. The arithmetic is ``bias + sum / norm``, ``exp(score - top)``,
        ``e / fsum(exps)``, each step mapped over the labels by C functions (no bytecode
        per label); :meth:`read` with the C extension takes ``_speedups.softmax_top``, which
        does the same operations in the same order and gives :meth:`_top` of this."""
        if count:
            norm = self.scale * math.sqrt(count)
            scores: Sequence[float] = list(map(_add, self.bias, map(_truediv, sums, _repeat(norm))))
        else:
            scores = self.bias
        exps = list(map(math.exp, map(_sub, scores, _repeat(max(scores)))))
        return tuple(map(_truediv, exps, _repeat(math.fsum(exps))))

    def predict(self, tokens: Sequence[str], corrected: Iterable[str] = ()) -> Prediction:
        """The most probable label (the first in :attr:`labels` order on a tie)."""
        return self._top(self.probabilities(tokens, corrected))

    def _top(self, probs: tuple[float, ...]) -> Prediction:
        top = max(probs)
        return Prediction(self.labels[probs.index(top)], top)

    def read(
        self,
        text: str,
        corrected: Iterable[str] = (),
        tokens: Sequence[str] | None = None,
        ids: bytes | None = None,
    ) -> Prediction:
        """``predict(tokenize(text), corrected)``; ``tokens``, when given, must be
        ``tokenize(text)``. With the C extension, the known features and their sums are
        found in one compiled pass over ``text`` (:class:`FeatureTable`: the same
        features as :meth:`known`, the same integer sums; tests hold the two equal), and
        the softmax's top label in C too (``softmax_top``: :meth:`_softmax` and
        :meth:`_top`'s arithmetic, bit for bit). ``ids``, when given, must be what the
        engine's scan of ``text`` read with :meth:`feature_table`
        (``TokenCodes.fold(text, ..., table)``): the text is then not read again, and the
        sums and the softmax are one C call (``FeatureTable.top_of``: ``softmax_top`` of
        ``sums_of``, the sums never made Python ints; tests hold the two equal)."""
        table = self._table
        if table is False:
            table = self._table = self._compile()
        if table is not None:
            if ids is not None:  # the sums and the top label in one call (top_of)
                top = table.top_of(ids, corrected, self.bias, self.scale)
                if top is not None:
                    return _new(Prediction, (self.labels[top[0]], top[1]))
                got = table.sums_of(ids, corrected)  # (a score past the floats: see below)
            else:
                got = table.sums(text, corrected)
            if got is not None:  # (None: a token of the text holds U+03A3)
                top = _softmax_top(self.bias, self.scale, got)
                if top is not None:  # (Prediction(...) without its Python-level __new__)
                    return _new(Prediction, (self.labels[top[0]], top[1]))
                return self._top(self._softmax(got[0], got[1:]))  # (a score past the floats)
        return self.predict(tokenize(text) if tokens is None else tokens, corrected)

    def feature_table(self) -> Any:
        """The C table of the features and weights :meth:`read` uses (``None`` without
        the extension), built on first use: the engine's scan reads a prompt's feature
        ids with it (``TokenCodes.fold``), for :meth:`read`'s ``ids``."""
        table = self._table
        if table is False:
            table = self._table = self._compile()
        return table

    def _compile(self) -> Any:
        """The C table of the features and weights (``None`` without the extension)."""
        if _FeatureTable is None:
            return None
        return _FeatureTable(self.weights, len(self.labels), MAX_TOKENS)

    def support(
        self, tokens: Sequence[str], label: str, corrected: Iterable[str] = (), limit: int = 5
    ) -> tuple[str, ...]:
        """The known features weighing most for ``label`` (for ``explain``)."""
        lane = self.labels.index(label)
        known = self.known(tokens, corrected)
        ranked = sorted(known, key=lambda f: (-self.weights[f][lane], f))
        return tuple(f for f in ranked[:limit] if self.weights[f][lane] > 0)

    # -- plain data (the rules cache, the shipped pack, the model file) ----------------

    def to_data(self) -> dict[str, object]:
        """The model as JSON-ready data: :meth:`from_data` reads it back."""
        return {
            "format": "smista-text-model-1",
            "labels": list(self.labels),
            "bias": list(self.bias),
            "scale": self.scale,
            "weights": {f: list(r) for f, r in sorted(self.weights.items())},
        }

    @classmethod
    def from_data(cls, data: object) -> TextModel:
        """A model from :meth:`to_data`'s shape; ``ValueError`` says what is wrong."""
        if not isinstance(data, Mapping):
            raise ValueError("expected a table with format, labels, bias, scale and weights")
        expected = {"format", "labels", "bias", "scale", "weights"}
        if set(data) != expected:
            extra = sorted(set(map(str, data)) - expected)
            missing = sorted(expected - set(map(str, data)))
            raise ValueError(f"unexpected keys {extra}, missing keys {missing}")
        if data["format"] != "smista-text-model-1":
            raise ValueError(f"unknown format {data['format']!r}; expected 'smista-text-model-1'")
        labels, bias, scale, weights = data["labels"], data["bias"], data["scale"], data["weights"]
        if not (isinstance(labels, list) and all(isinstance(x, str) for x in labels)):
            raise ValueError("labels must be a list of strings")
        if not (isinstance(bias, list) and all(_number(x) for x in bias)):
            raise ValueError("bias must be a list of numbers")
        if not _number(scale):
            raise ValueError("scale must be a number")
        if not (isinstance(weights, Mapping) and all(isinstance(k, str) for k in weights)):
            raise ValueError("weights must map features to lists of integers")
        rows: dict[str, Sequence[int]] = {}
        for feature, row in weights.items():
            if not isinstance(row, list | tuple):
                raise ValueError(f"feature {feature!r}: weights must be a list of integers")
            rows[feature] = row
        return cls(labels, bias, float(scale), rows)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
