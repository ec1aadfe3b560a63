"""The classification's wire JSON, built in one place.

Pure; standard library only (no pydantic), so the CLI's and batch's fast paths
use it as well as :meth:`smista.core.result.Classification.to_wire` (the library,
the server, previews, golden files). The object is the original's: ``intent``,
``source``, ``reason``, then ``matched_rule`` and ``confidence`` only when they
have a value, in that order. Explicit commands have one shape too
(:func:`explicit`): no rule evaluated, no confidence.

Input errors name a JSON value's type through :func:`json_kind`;
:func:`json_value` words undecodable JSON for them. The
workspace object's keys and the context kinds they make available live here
too (:data:`WORKSPACE_KEYS`, :func:`workspace_kinds`), so batch's
pydantic-free record check and :mod:`smista.core.workspace` agree.

Must never import pydantic or do I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "WORKSPACE_KEYS",
    "classification",
    "explicit",
    "explicit_reason",
    "json_kind",
    "json_value",
    "workspace_kinds",
]

WORKSPACE_KEYS: tuple[str, ...] = (
    "root",
    "git_diff",
    "git_branch",
    "active_file",
    "referenced_paths",
)
"""The keys of a workspace object (the fields of :class:`smista.core.workspace.Workspace`)."""


def json_kind(value: object) -> str:
    """What a decoded JSON value is, for error texts: ``a string``, ``an array``, ``null`` ..."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    if value is None:
        return "null"
    return type(value).__name__


def json_value(text: str) -> object:
    """``json.loads(text)``; failing, a ``ValueError`` worded for a one-line error.

    ``JSON nested too deeply`` or ``not valid JSON (<json's message>)``.
    """
    import json  # not at import: the classify path never decodes JSON

    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"not valid JSON ({exc})") from None


_PRESENT_KINDS = ("git_diff", "git_branch", "active_file")


def workspace_kinds(fields: Mapping[str, object]) -> list[str]:
    """The context kinds a workspace's (already checked) fields make available.

    A string field counts when present and not null (an empty ``git_diff``
    still counts); ``referenced_paths`` when non-empty.
    """
    kinds = [kind for kind in _PRESENT_KINDS if fields.get(kind) is not None]
    if fields.get("referenced_paths"):
        kinds.append("referenced_paths")
    return kinds


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
