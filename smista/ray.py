"""Public path ``smista.ray``; the code lives in :mod:`smista.scale.ray`.

Ray Data helpers: classify a dataset with an actor pool. Users import this path in their
own code, so it stays; it only re-exports.
"""

from __future__ import annotations

from smista.scale.ray import (
    SmistaClassify,
    actor_pool,
    classify_dataset,
)

__all__ = [
    "SmistaClassify",
    "actor_pool",
    "classify_dataset",
]
