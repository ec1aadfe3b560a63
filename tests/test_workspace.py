"""Context kinds and touched files from the workspace (spec §6, §9.3)."""

from __future__ import annotations

from smista import Workspace, context_kinds, touched_files


def test_s1_present_fields_give_kinds() -> None:
    """A diff and an active file give those two kinds only."""
    kinds = context_kinds(Workspace(git_diff="diff", active_file="a.rs"))
    assert kinds == {"git_diff", "active_file"}


def test_all_kinds() -> None:
    """Each workspace field contributes its kind; empty referenced_paths does not."""
    ws = Workspace(git_diff="", git_branch="main", active_file="a", referenced_paths=("b",))
    assert context_kinds(ws) == {"git_diff", "git_branch", "active_file", "referenced_paths"}
    assert context_kinds(Workspace(referenced_paths=())) == frozenset()
    assert context_kinds(None) == frozenset()


def test_u15_touched_files_deduplicated_in_stable_order() -> None:
    """Referenced paths, active file, then diff targets; first occurrence kept."""
    ws = Workspace(
        referenced_paths=("src/auth/login.rs",),
        active_file="src/auth/login.rs",
        git_diff="diff --git a/src/main.rs b/src/main.rs\n+++ b/src/main.rs\ndiff --git a/Cargo.toml b/Cargo.toml",
    )
    assert touched_files(ws) == ["src/auth/login.rs", "src/main.rs", "Cargo.toml"]


def test_s2_without_plus_lines() -> None:
    """The same without the +++ line."""
    ws = Workspace(
        referenced_paths=("src/auth/login.rs",),
        active_file="src/auth/login.rs",
        git_diff="diff --git a/src/main.rs b/src/main.rs\ndiff --git a/Cargo.toml b/Cargo.toml",
    )
    assert touched_files(ws) == ["src/auth/login.rs", "src/main.rs", "Cargo.toml"]


def test_diff_header_edge_cases() -> None:
    """CRLF lines, renames and headers without ' b/' are handled as the original does."""
    ws = Workspace(
        git_diff="diff --git a/old.py b/new.py\r\ndiff --git weird\nnot a header b/x.py\n"
    )
    assert touched_files(ws) == ["new.py"]


def test_wire_workspace_keys_are_the_model_fields() -> None:
    """Batch checks records against ``wire.WORKSPACE_KEYS``: the model's fields, in order."""
    from smista.core.wire import WORKSPACE_KEYS

    assert tuple(Workspace.model_fields) == WORKSPACE_KEYS
