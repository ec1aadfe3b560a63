"""The workspace snapshot and what the classifier and router read from it.

Pure. ``context_kinds`` names the context kinds a snapshot makes available
(the original's ``signals::context_kinds``); ``touched_files`` lists the files a
task touches (referenced paths, the active file, then ``diff --git`` header
targets; first occurrence kept), which feed routing-rule path globs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictStr

__all__ = ["WORKSPACE_CONTEXT_KINDS", "Workspace", "context_kinds", "touched_files"]

WORKSPACE_CONTEXT_KINDS: tuple[str, ...] = (
    "git_diff",
    "git_branch",
    "active_file",
    "referenced_paths",
)
"""Every context kind a workspace snapshot can produce."""


class Workspace(BaseModel):
    """What the host knows about the user's working tree for this request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    root: StrictStr | None = None
    git_diff: StrictStr | None = None
    git_branch: StrictStr | None = None
    active_file: StrictStr | None = None
    referenced_paths: tuple[StrictStr, ...] = Field(default=(), fail_fast=True)


def context_kinds(workspace: Workspace | None) -> frozenset[str]:
    """Context kinds available in ``workspace`` (an empty ``git_diff`` still counts)."""
    if workspace is None:
        return frozenset()
    kinds: list[str] = []
    if workspace.git_diff is not None:
        kinds.append("git_diff")
    if workspace.git_branch is not None:
        kinds.append("git_branch")
    if workspace.active_file is not None:
        kinds.append("active_file")
    if workspace.referenced_paths:
        kinds.append("referenced_paths")
    return frozenset(kinds)


def diff_paths(diff: str) -> list[str]:
    """Target paths of ``diff --git a/... b/...`` header lines, in order."""
    paths: list[str] = []
    for line in diff.split("\n"):
        if not line.startswith("diff --git "):
            continue
        line = line.removesuffix("\r")
        _, sep, path = line[len("diff --git ") :].partition(" b/")
        if sep:
            paths.append(path)
    return paths


def touched_files(workspace: Workspace | None) -> list[str]:
    """Referenced paths, the active file, then diff targets; de-duplicated, first kept."""
    if workspace is None:
        return []
    candidates = list(workspace.referenced_paths)
    if workspace.active_file is not None:
        candidates.append(workspace.active_file)
    if workspace.git_diff is not None:
        candidates.extend(diff_paths(workspace.git_diff))
    return list(dict.fromkeys(candidates))
