"""The classification's wire JSON, built in one place.

Pure; standard library only (no pydantic), so the CLI's and batch's fast paths
use it as well as :meth:`smista.core.result.Classification.to_wire` (the library,
the server, previews, golden files). The object is the original's: ``intent``,
``source``, ``reason``, then ``matched_rule`` and ``confidence`` only when they
have a value, in that order. Explicit commands have one shape too
(:func:`explicit`): no rule evaluated, no confidence.

Must never import pydantic or do I/O.
"""

from __future__ import annotations

__all__ = ["classification", "explicit", "explicit_reason"]


def classification(
    intent: str,
    source: str,
    reason: str,
    matched_rule: int | None = None,
    confidence: str | None = None,
) -> dict[str, object]:
    """The original's classification JSON object (``None`` fields omitted)."""
    out: dict[str, object] = {"intent": intent, "source": source, "reason": reason}
    if matched_rule is not None:
        out["matched_rule"] = matched_rule
    if confidence is not None:
        out["confidence"] = confidence
    return out


def explicit_reason(intent: str) -> str:
    """The reason of an explicit command's result, e.g. ``explicit command 'plan'``."""
    return f"explicit command '{intent}'"


def explicit(intent: str) -> dict[str, object]:
    """The wire object of an explicit command naming ``intent``."""
    return classification(intent, "explicit", explicit_reason(intent))
