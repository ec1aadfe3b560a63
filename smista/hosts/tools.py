"""Grounding checks for agent tool calls: which keys of a tool's input must be concrete.

Pure. :func:`ground_tool_call` runs :func:`smista.core.grounding.evaluate` on a
host's ``tool_input`` against the tool's required keys: the built-in table
:data:`CLAUDE_CODE_REQUIRED` for Claude Code's own tools (keys whose empty or
placeholder value is never meaningful; ``Write.content`` or
``Edit.new_string`` may legitimately be empty, so they are not listed),
caller overrides, and, for any other tool (MCP tools, Codex ``Bash``), every
key of the input that holds a string. Never raises on any input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smista.core.grounding import Report, evaluate, should_abstain_at

__all__ = ["CLAUDE_CODE_REQUIRED", "ToolGrounding", "ground_tool_call", "parse_required"]

CLAUDE_CODE_REQUIRED: Mapping[str, tuple[str, ...]] = {
    "Bash": ("command",),
    "Read": ("file_path",),
    "Write": ("file_path",),
    "Edit": ("file_path", "old_string"),
    "MultiEdit": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("pattern",),
    "Grep": ("pattern",),
    "WebFetch": ("url", "prompt"),
    "WebSearch": ("query",),
    "Task": ("description", "prompt"),
    "Agent": ("description", "prompt"),
}
"""Required keys of Claude Code's built-in tools (documented ``tool_input`` shapes)."""


class ToolGrounding:
    """The grounding verdict for one tool call."""

    __slots__ = ("abstain", "report", "required", "threshold", "tool")

    def __init__(
        self, tool: str, required: tuple[str, ...], report: Report, threshold: float | None
    ) -> None:
        self.tool = tool
        self.required = required
        self.report = report
        self.threshold = threshold
        self.abstain = (
            report.should_abstain
            if threshold is None
            else should_abstain_at(report.score, threshold)
        )

    def reason(self) -> str:
        """One line for a host's permission prompt."""
        return (
            f"smista grounding: the {self.tool} call looks guessed ({self.report.reason}; "
            f"score {self.report.score:.2f}); confirm before it runs"
        )

    def to_json(self) -> dict[str, Any]:
        """The report plus the verdict, JSON-ready."""
        return {
            **self.report.as_dict(),
            "tool": self.tool,
            "required": list(self.required),
            "abstain": self.abstain,
        }


def parse_required(specs: list[str]) -> dict[str, tuple[str, ...]]:
    """``["Deploy=env,target"]`` -> ``{"Deploy": ("env", "target")}``; raises ``ValueError``."""
    out: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        tool, sep, keys = spec.partition("=")
        if not sep or not tool.strip():
            raise ValueError(f"expected TOOL=KEY[,KEY...], got {spec!r}")
        out[tool.strip()] = tuple(k.strip() for k in keys.split(",") if k.strip())
    return out


def ground_tool_call(
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    required: Mapping[str, tuple[str, ...]] | None = None,
    threshold: float | None = None,
) -> ToolGrounding:
    """Score ``tool_input`` for ``tool_name`` (overrides in ``required`` win)."""
    if required is not None and tool_name in required:
        keys = required[tool_name]
    elif tool_name in CLAUDE_CODE_REQUIRED:
        keys = CLAUDE_CODE_REQUIRED[tool_name]
    else:
        keys = tuple(str(k) for k, v in tool_input.items() if isinstance(v, str))
    return ToolGrounding(tool_name, keys, evaluate(tool_input, keys), threshold)
