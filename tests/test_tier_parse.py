"""The tier output parser: the seed's parser cases (spec B.12), its derived examples (B.5),
and the shape that separates unknown tiers from invalid output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.tiers import normalize_tier, parse_tier_output

DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "tier_parser_cases.json").read_text("utf-8")
)
IDS: list[str] = DATA["tier_ids"]
CASES = [
    (group, case)
    for group in ("repo_cases", "derived_cases", "extra_cases")
    for case in DATA[group]
]


@pytest.mark.parametrize(("group", "case"), CASES, ids=[f"{g}:{c['raw']!r}"[:60] for g, c in CASES])
def test_parser_case(group: str, case: dict[str, Any]) -> None:
    """The tier (and reason, shape, unknown-ness where given) of each reply."""
    parsed = parse_tier_output(case["raw"], IDS)
    assert parsed.tier == case["tier"], group
    if "reason" in case:
        assert parsed.reason == case["reason"]
    if case.get("exact"):
        assert (parsed.tier, parsed.reason) == (case["tier"], case.get("reason"))
    if "shape" in case:
        assert parsed.shape == case["shape"]
    if "unknown" in case:
        assert parsed.names_unknown_tier is case["unknown"]


def test_normalize_exact_then_case_insensitive_never_partial() -> None:
    """Exact id first, then a case-insensitive one; prefixes and substrings never match."""
    ids = ["Fast", "fast", "deep"]
    assert normalize_tier("fast", ids) == "fast"
    assert normalize_tier("FAST", ids) == "Fast"
    assert normalize_tier("Deep", ids) == "deep"
    assert normalize_tier("dee", ids) is None
    assert normalize_tier("deeper", ids) is None


tier_ids = st.lists(st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True), min_size=1, max_size=5)


@given(st.text(), tier_ids)
def test_parser_never_raises_and_only_returns_configured_tiers(raw: str, ids: list[str]) -> None:
    """Any text: no exception, and the tier is a configured id or None."""
    parsed = parse_tier_output(raw, ids)
    assert parsed.tier is None or parsed.tier in ids
    assert parsed.reason is None or isinstance(parsed.reason, str)
    if parsed.tier is not None:
        assert parsed.candidate is not None


@given(tier_ids, st.data())
def test_every_configured_tier_is_recognised_in_every_form(
    ids: list[str], data: st.DataObject
) -> None:
    """A tier named bare, emphasised, as JSON or fenced JSON is found (case-insensitively)."""
    tier = data.draw(st.sampled_from(ids))
    forms = [
        tier,
        f"**{tier}**",
        json.dumps({"tier": tier, "reason": "r"}),
        f"```json\n{json.dumps({'tier': tier})}\n```",
        f"Thinking...\n{json.dumps({'tier': tier})}",
    ]
    for raw in forms:
        found = parse_tier_output(raw, ids).tier
        assert found is not None
        assert found.lower() == tier.lower()
