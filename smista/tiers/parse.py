"""Reading a tier out of an LLM classifier's reply (the seed's output parser).

Pure, standard library only. The tier found is exactly the seed's
``parseClassifierOutput``; on top of it the result says what *shape* the reply
had, so the router can tell an unknown tier (the model answered in the
expected form but named a tier that is not configured) from output that is
not an answer at all. Never raises.

Rules, in order:

1. an empty reply has no tier;
2. the reply is trimmed; a fenced block (a line starting with three
   backticks and a lowercase language tag, through a line of three backticks)
   replaces it with the block's trimmed content when non-empty;
3. if the text starts with ``{`` and is a JSON object whose ``tier`` is a
   string, that is the answer (even when the tier is unknown: later rules are
   not tried); ``reason`` is kept when it is a string;
4. else the non-empty trimmed lines are scanned from last to first, and the
   first line that starts with ``{``, ends with ``}`` and passes rule 3 wins;
5. else the first token of the first line, lowercased and stripped of
   everything outside ``[a-z0-9_-]``, is the answer;
6. tiers match exactly, then case-insensitively, never partially.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from smista.core._strictjson import js_parse_object
from smista.tiers.prompt import JS_WHITESPACE, js_trim

__all__ = ["ParsedTier", "normalize_tier", "parse_tier_output"]

_LT = "\n\r\u2028\u2029"  # JavaScript line terminators (for ^ and $ under /m)
_FENCE = re.compile(f"(?:\\A|(?<=[{_LT}]))```[a-z]*\\n([\\s\\S]*?)\\n```(?=\\Z|[{_LT}])")
_JS_SPACE = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")
_NOT_TIER_CHAR = re.compile(r"[^a-z0-9_-]")
_EDGE_PUNCTUATION = re.compile(r"\A[^a-z0-9_-]+|[^a-z0-9_-]+\Z")

Shape = Literal["empty", "json", "word", "prose"]


class ParsedTier(NamedTuple):
    """What a classifier reply says.

    ``tier`` is a configured tier id or ``None``. ``candidate`` is what the
    reply named before matching (the JSON ``tier`` string, or the cleaned
    first word), ``None`` when it named nothing. ``shape`` is ``json`` (a JSON
    object with a string ``tier``), ``word`` (the first line is one word,
    perhaps quoted or emphasised: ``**Hard.**``), ``prose`` (anything else the
    first-word rule read, such as a sentence or JSON without a ``tier``) or
    ``empty`` (nothing usable).
    """

    tier: str | None
    reason: str | None = None
    candidate: str | None = None
    shape: Shape = "empty"

    @property
    def names_unknown_tier(self) -> bool:
        """The reply has the expected form but names a tier that is not configured."""
        return self.tier is None and bool(self.candidate) and self.shape in ("json", "word")


_NOTHING = ParsedTier(None)


def normalize_tier(candidate: str, tier_ids: Sequence[str]) -> str | None:
    """The configured id ``candidate`` names: exact match, then case-insensitive."""
    if candidate in tier_ids:
        return candidate
    lowered = candidate.lower()
    for tier in tier_ids:
        if tier.lower() == lowered:
            return tier
    return None


def _from_json(text: str, tier_ids: Sequence[str]) -> ParsedTier | None:
    obj = js_parse_object(text)
    if obj is None:
        return None
    tier = obj.get("tier")
    if not isinstance(tier, str):
        return None
    reason = obj.get("reason")
    return ParsedTier(
        normalize_tier(tier, tier_ids),
        reason if isinstance(reason, str) else None,
        tier,
        "json",
    )


def parse_tier_output(raw: str | None, tier_ids: Sequence[str]) -> ParsedTier:
    """The tier (and reason) a classifier reply names; see the module docstring."""
    if not raw or not isinstance(raw, str):
        return _NOTHING
    text = js_trim(raw)
    fence = _FENCE.search(text)
    if fence is not None and fence.group(1):
        text = js_trim(fence.group(1))
    if text.startswith("{"):
        found = _from_json(text, tier_ids)
        if found is not None:
            return found
    lines = [line for line in (js_trim(part) for part in text.split("\n")) if line]
    for line in reversed(lines):
        if line.startswith("{") and line.endswith("}"):
            found = _from_json(line, tier_ids)
            if found is not None:
                return found
    if not lines:
        return _NOTHING
    tokens = _JS_SPACE.split(lines[0])
    lowered = tokens[0].lower()
    word = _NOT_TIER_CHAR.sub("", lowered)
    if not word:
        return _NOTHING
    # A lone word, perhaps quoted or emphasised ("**Hard.**"); not JSON or prose.
    lone = len(tokens) == 1 and _EDGE_PUNCTUATION.sub("", lowered) == word
    shape: Shape = "word" if lone else "prose"
    return ParsedTier(normalize_tier(word, tier_ids), None, word, shape)
