"""Typo-tolerant keyword matching (spec §5): buckets, containment, OSA, scan order, §5.6."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from smista import fuzzy_cap, match_keyword, tokenize
from smista.core.fuzzy import KeywordHit, is_typo, osa_distance, token_match
from tests.reference import osa


def hit(keywords: list[str], text: str) -> KeywordHit | None:
    return match_keyword(keywords, tokenize(text))


# Upstream fuzzy.rs tests (spec §9.2)


def test_f2_exact_hit() -> None:
    """A keyword present as a token is an exact hit."""
    assert hit(["review"], "please review") == KeywordHit("review", fuzzy=False)


def test_f3_transposition_is_a_typo() -> None:
    """'impelment' is one OSA edit from 'implement'."""
    assert hit(["implement"], "impelment it") == KeywordHit("implement", fuzzy=True)


def test_f4_containing_word_is_not_a_typo() -> None:
    """'preview' contains 'review': a different word."""
    assert hit(["review"], "preview the page") is None


def test_f5_short_keywords_are_exact_only() -> None:
    """'edit' (4 chars) never matches 'audit'."""
    assert hit(["edit"], "audit it") is None


def test_f6_short_keyword_exact() -> None:
    """'edit' matches 'edit' exactly."""
    assert hit(["edit"], "edit it") == KeywordHit("edit", fuzzy=False)


@pytest.mark.parametrize(
    ("length", "cap"), [(0, 0), (1, 0), (4, 0), (5, 1), (8, 1), (9, 2), (40, 2)]
)
def test_f7_length_buckets(length: int, cap: int) -> None:
    """Caps are 0 below five characters, 1 for 5-8, 2 from nine."""
    assert fuzzy_cap(length) == cap


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("CA", "AC", 1),
        ("impelment", "implement", 1),
        ("review", "revixx", 2),
        ("edit", "audit", 2),
        ("review", "preview", 1),
        ("security review", "securityreview", 1),
    ],
)
def test_osa_table(a: str, b: str, distance: int) -> None:
    """The OSA distances the spec lists (transpositions cost one)."""
    assert osa_distance(a, b) == distance
    assert osa(a, b) == distance


# Consequences (spec §5.6)


@pytest.mark.parametrize(
    ("keyword", "word"),
    [
        ("review", "reviews"),
        ("review", "reviewing"),
        ("refactor", "refactoring"),
        ("audit", "auditing"),
        ("fix", "fixes"),
    ],
)
def test_inflections_do_not_match(keyword: str, word: str) -> None:
    """An inflected form contains the keyword, so it is a different word."""
    assert hit([keyword], f"please {word} this") is None


@pytest.mark.parametrize("word", ["revie", "view"])
def test_truncations_do_not_match(word: str) -> None:
    """A truncation is contained in the keyword, so it is a different word."""
    assert hit(["review"], word) is None


@pytest.mark.parametrize("word", ["areview", "preview"])
def test_prefix_and_suffix_additions_do_not_match(word: str) -> None:
    """Adding letters around the keyword makes a different word."""
    assert hit(["review"], word) is None


@pytest.mark.parametrize(
    ("keyword", "word"),
    [
        ("review", "reiew"),
        ("review", "reveiw"),
        ("refactor", "refactr"),
        ("audit", "adit"),
        ("summarize", "summarise"),
        ("implement", "implmnt"),
    ],
)
def test_internal_typos_match(keyword: str, word: str) -> None:
    """Typos inside the word match fuzzily within the cap."""
    assert hit([keyword], f"{word} it") == KeywordHit(keyword, fuzzy=True)


def test_implmnt_needs_the_nine_char_bucket() -> None:
    """'implmnt' is OSA 2 from 'implement', allowed only because the keyword has nine chars."""
    assert osa_distance("implement", "implmnt") == 2


@pytest.mark.parametrize("keyword", ["security review", "code-review"])
def test_multiword_keywords_never_match_normal_text(keyword: str) -> None:
    """Tokens never contain separators, and each word is a substring of the keyword."""
    assert hit([keyword], keyword) is None
    assert hit([keyword], "please do a security review and code review") is None


@pytest.mark.parametrize(
    ("keyword", "token"), [("security review", "securityreview"), ("code-review", "codereview")]
)
def test_multiword_keywords_match_a_concatenated_token_fuzzily(keyword: str, token: str) -> None:
    """A multi-word keyword can only match one concatenated token, by typo."""
    assert hit([keyword], token) == KeywordHit(keyword, fuzzy=True)


def test_empty_keyword_never_matches() -> None:
    """No token is empty and the cap of '' is zero."""
    assert hit([""], "anything at all") is None
    assert hit([""], "") is None


def test_case_is_ignored_on_both_sides_and_configured_spelling_reported() -> None:
    """Keyword and tokens are lowercased; the hit reports the configured string."""
    assert hit(["ReViEw"], "REVIEW this") == KeywordHit("ReViEw", fuzzy=False)
    assert hit(["ΟΔΟΣ"], "οδος") == KeywordHit("ΟΔΟΣ", fuzzy=False)


def test_digits_are_token_characters() -> None:
    """'v2' and '2fa' are tokens; 'v2.0' splits."""
    assert hit(["v2"], "ship v2.0") == KeywordHit("v2", fuzzy=False)
    assert hit(["2fa"], "add 2FA") == KeywordHit("2fa", fuzzy=False)
    assert hit(["v20"], "ship v2.0") is None


# Scan order (spec §5.5)


def test_exact_pass_runs_before_any_fuzzy_pass() -> None:
    """A later exact keyword beats an earlier typo keyword."""
    assert hit(["implement", "fix"], "impelment the fix") == KeywordHit("fix", fuzzy=False)


def test_first_exact_keyword_in_config_order_wins() -> None:
    """Among exact hits, config order decides, not prompt order."""
    assert hit(["audit", "review"], "review and audit") == KeywordHit("audit", fuzzy=False)


def test_first_fuzzy_keyword_in_config_order_wins() -> None:
    """Among typo hits, config order decides."""
    assert hit(["summarize", "implement"], "impelment then summarise") == KeywordHit(
        "summarize", fuzzy=True
    )


def test_token_match_kinds() -> None:
    """token_match distinguishes exact (False), typo (True) and none (None)."""
    assert token_match("Review", ["review"]) is False
    assert token_match("review", ["reveiw"]) is True
    assert token_match("review", ["preview"]) is None


# Properties

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöü", min_size=0, max_size=12)


@given(words, words)
def test_is_typo_agrees_with_reference_dp(keyword: str, token: str) -> None:
    """is_typo equals the definition evaluated with a plain OSA dynamic program."""
    cap = fuzzy_cap(len(keyword))
    expected = keyword not in token and token not in keyword and 0 < osa(keyword, token) <= cap
    assert is_typo(keyword, token, cap) == expected


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=4), words)
def test_short_keywords_never_match_fuzzily(keyword: str, token: str) -> None:
    """Keywords of four characters or fewer match only exactly."""
    assume(token)
    result = match_keyword([keyword], [token])
    assert result is None or (result.fuzzy is False and token == keyword)


@given(words, words, words, st.booleans())
def test_containment_is_never_a_typo(keyword: str, left: str, right: str, grow: bool) -> None:
    """A token containing the keyword, or contained in it, is never a typo hit."""
    if grow:
        token = left + keyword + right
    else:
        start = len(left) % (len(keyword) + 1)
        token = keyword[start : start + len(right) + 1]
    if not token or not keyword:
        return
    expected = False if token == keyword else None
    assert token_match(keyword, [token]) is expected
