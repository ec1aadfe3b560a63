"""The public API: every exported name resolves; __all__ is sorted and complete."""

from __future__ import annotations

import smista


def test_all_is_sorted() -> None:
    """__all__ is a sorted literal list."""
    assert smista.__all__ == sorted(smista.__all__)


def test_every_exported_name_resolves() -> None:
    """Each name in __all__ can be fetched."""
    for name in smista.__all__:
        assert getattr(smista, name) is not None


def test_lazy_table_matches_all() -> None:
    """The lazy import table and __all__ agree."""
    assert set(smista._EXPORTS) | {"__version__"} == set(smista.__all__)


def test_stable_names_exist() -> None:
    """The names other tools rely on."""
    for name in ("tokenize", "Workspace", "context_kinds", "Classifier", "classify", "load_config"):
        assert name in smista.__all__
    assert callable(smista.tokenize)
