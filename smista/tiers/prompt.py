"""The LLM tier classifier's prompt and messages, and text previews.

Pure, standard library only. ``DEFAULT_PROMPT`` is the seed's classification
prompt, reproduced exactly (it is a wire fact: hosts tune against it). The
``{tiers}`` placeholder becomes the configured tier ids, one ``- <id>`` line
each, in configuration order (first occurrence only).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "DEFAULT_PROMPT",
    "JS_WHITESPACE",
    "TIERS_PLACEHOLDER",
    "js_trim",
    "normalize_prompt",
    "preview",
    "render_prompt",
    "user_message",
]

TIERS_PLACEHOLDER = "{tiers}"

DEFAULT_PROMPT = (
    'You are a routing classifier. Given a delegated task and its "solution space" '
    "(how open-ended the work is), output ONLY the identifier of the MINIMUM model tier "
    "required to complete it RELIABLY.\n"
    "\n"
    "Guidance:\n"
    "- Consider ambiguity, required reasoning depth, debugging with unknown cause, "
    "architectural/design choice, cross-cutting consequences, and consequences of being "
    "wrong.\n"
    "- The number of files touched or the amount of mechanical work does NOT make a task "
    "harder by itself.\n"
    "- A 100-file mechanical rename with exact names is easy. A 5-line concurrency bug "
    "with unknown cause and no repro is hard.\n"
    "- When in doubt, choose the tier that guarantees correctness, not the cheapest "
    "guess.\n"
    "\n"
    "Tiers:\n"
    "{tiers}\n"
    "\n"
    "Output format: reply with exactly one tier identifier as a single word, or a JSON "
    'object {"tier": "<id>", "reason": "<short reason>"}. Nothing else.'
)
"""The seed's default classification prompt (exact text)."""

JS_WHITESPACE = (
    "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""JavaScript's whitespace and line terminators (``String.prototype.trim``, ``\\s``)."""

_JS_SPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript does it."""
    return text.strip(JS_WHITESPACE)


def normalize_prompt(prompt: str) -> str:
    """A configured prompt as the classifier uses it.

    A prompt without ``{tiers}`` gets ``"\\n\\nTiers:\\n{tiers}"`` appended so the
    model always sees the tier list. (A blank prompt is a config error,
    checked by the config model, not here.)
    """
    if TIERS_PLACEHOLDER in prompt:
        return prompt
    return prompt + "\n\nTiers:\n" + TIERS_PLACEHOLDER


def render_prompt(prompt: str, tier_ids: Sequence[str]) -> str:
    """``prompt`` with its first ``{tiers}`` replaced by ``- <id>`` lines."""
    listing = "\n".join(f"- {tier}" for tier in tier_ids)
    return prompt.replace(TIERS_PLACEHOLDER, listing, 1)


def user_message(task: str | None, solution_space: str | None) -> str:
    """The single user message: ``Task:`` and ``Solution space:`` parts, if present."""
    parts: list[str] = []
    if task:
        parts.append(f"Task:\n{task}")
    if solution_space:
        parts.append(f"Solution space:\n{solution_space}")
    return "\n\n".join(parts)


def preview(text: str | None, limit: int = 80) -> str:
    """A one-line preview: whitespace runs collapsed, trimmed, at most ``limit`` chars.

    Longer text is cut to ``limit - 1`` characters plus ``…``. Lengths count
    code points (the seed counted UTF-16 units, which can split a character).
    """
    if not text:
        return ""
    flat = js_trim(_JS_SPACE_RUN.sub(" ", text))
    if len(flat) > limit:
        return flat[: max(limit - 1, 0)] + "…"
    return flat
