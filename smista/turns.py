"""Public path ``smista.turns``; the code lives in :mod:`smista.core.turns`.

Parse a host's turn payload into a Turn. Users import this path in their own code, so it
stays; it only re-exports.
"""

from __future__ import annotations

from smista.core.turns import (
    FORMATS,
    MAX_ITEMS,
    PAYLOAD_SCHEMA,
    ROLES,
    Housekeeping,
    Stripped,
    Turn,
    TurnError,
    TurnFormat,
    detect_format,
    parse_turn,
)

__all__ = [
    "FORMATS",
    "MAX_ITEMS",
    "PAYLOAD_SCHEMA",
    "ROLES",
    "Housekeeping",
    "Stripped",
    "Turn",
    "TurnError",
    "TurnFormat",
    "detect_format",
    "parse_turn",
]
