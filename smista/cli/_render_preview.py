"""Plain-text rendering of a :class:`~smista.decision.preview.Preview` for people."""

from __future__ import annotations

from smista.decision.preview import Preview

__all__ = ["render_preview"]


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def render_preview(preview: Preview) -> str:
    """A readable multi-line summary."""
    c = preview.classification
    detail = f"{c.source}, {c.confidence}" if c.confidence else str(c.source)
    lines = [
        f"classification: {c.intent} ({detail})",
        f"  reason:       {c.reason}",
        f"touched files:  {', '.join(preview.touched_files) or '(none)'}",
        f"decision:       {preview.decision.describe()}",
    ]
    state = preview.decision.state
    if state is not None:
        lines.append(
            f"  state:        {state.bytes} of {state.budget} bytes, "
            f"{state.messages} message{'' if state.messages == 1 else 's'} "
            f"({state.dropped} oldest dropped)"
        )
    r = preview.routing
    lines += [f"routing:        {r.model_ref}", f"  intent:       {r.intent}"]
    if r.matched_rule is not None:
        effort = f" (effort {r.effort})" if r.effort else ""
        lines.append(f"  rule:         {r.matched_rule}{effort}")
    lines += [
        f"  fallbacks:    {', '.join(r.fallbacks) or '(none)'}",
        f"  reason:       {r.reason}",
        f"  override:     {_yes(r.override_used)}",
    ]
    s = preview.switch
    if s is not None:
        head = f"switch to {s.model}" if s.switched else f"keep {s.active_model or '(none)'}"
        rule = f" (rule {s.rule})" if s.rule else ""
        lines += [f"switch:         {head}{rule}", f"  reason:       {s.reason}"]
    return "\n".join(lines)
