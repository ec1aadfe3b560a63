"""The tokenizer: Rust's char::is_alphanumeric split, then Rust's to_lowercase (spec §5.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista import tokenize
from smista.core.tokenizer import rust_lower, tokenize_each

RUST_CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "rust_tokenize.jsonl")
    .read_text("utf-8")
    .splitlines()
]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Run a Security-Review!", ["run", "a", "security", "review"]),
        ("security-review", ["security", "review"]),
        ("snake_case_name", ["snake", "case", "name"]),
        ("don't", ["don", "t"]),
        ("user@example.com/path", ["user", "example", "com", "path"]),
        ("v2.0 and 2fa", ["v2", "0", "and", "2fa"]),
        ("", []),
        ("   ...   ", []),
        ("Review REVIEW review", ["review", "review", "review"]),
        # Devanagari: vowel signs with Other_Alphabetic join the word; virama (U+094D) splits it.
        ("हिंदी में समीक्षा", ["हिंदी", "में", "समीक", "षा"]),
        # Greek: final sigma is context-sensitive inside a token.
        ("ΟΔΟΣ ΣΟΦΟΣ", ["οδος", "σοφος"]),
        ("ΣΑΣ", ["σας"]),
        # Turkish dotted capital I lowercases to two characters (i + combining dot).
        ("İSTANBUL", ["i\u0307stanbul"]),
        ("ıI", ["ıi"]),
        # CJK ideographs and kana are letters; full-width punctuation separates.
        ("重构这个函数、然后测试", ["重构这个函数", "然后测试"]),
        ("レビューして", ["レビューして"]),
        # Emoji separate tokens; circled letters (So + Other_Alphabetic) are token chars.
        ("fix🐛bug", ["fix", "bug"]),
        ("ⒶⒷ x", ["ⓐⓑ", "x"]),
        # Numbers: other digits and number letters are token characters.
        ("Ⅻ ½ ٣", ["ⅻ", "½", "٣"]),
        ("ß straße", ["ß", "straße"]),
        ("tab\there\nnewline", ["tab", "here", "newline"]),
    ],
)
def test_examples(text: str, tokens: list[str]) -> None:
    """Known inputs across scripts split and lowercase as Rust does."""
    assert tokenize(text) == tokens


def test_python_isalnum_is_not_used() -> None:
    """Combining vowel signs (Mc/Mn with Other_Alphabetic) are token characters."""
    assert not "\u093f".isalnum()  # DEVANAGARI VOWEL SIGN I
    assert tokenize("कि") == ["कि"]


def test_newer_unicode_than_python() -> None:
    """Code points assigned after Python's Unicode version follow Rust (Unicode 17)."""
    # U+10D50 GARAY CAPITAL LETTER A (Unicode 16) lowercases to U+10D70.
    assert tokenize("\U00010d50") == ["\U00010d70"]


def test_matches_rust_output() -> None:
    """3,000 random strings over many scripts, tokenized by a Rust 1.95 build of the original."""
    assert len(RUST_CASES) == 3000
    mismatches = [c for c in RUST_CASES if tokenize(c["text"]) != c["tokens"]]
    assert mismatches == []


@given(st.text())
def test_tokens_are_nonempty_and_lowercase_stable(text: str) -> None:
    """No empty tokens; lowering a token again is a no-op for ASCII-only tokens."""
    for token in tokenize(text):
        assert token
        if token.isascii():
            assert token == token.lower()
            assert token.isalnum()


@given(st.text(alphabet=st.characters(codec="ascii")))
def test_ascii_fast_path_equals_general_path(text: str) -> None:
    """ASCII text tokenizes the same as through the general Unicode path."""
    marker = "\u00e9"  # forces the Unicode path; é is a letter, so strip it from the result
    general = [t.replace(marker, "") for t in tokenize(marker + " " + text)][1:]
    assert general == tokenize(text)


def _tokens_of(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


@given(st.lists(st.text(alphabet=st.sampled_from("aZ9 -_\n\r\t.é\u03a3") | st.characters())))
def test_tokenize_each_equals_tokenize_of_each(texts: list[str]) -> None:
    """One translated pass over a pack's ASCII entries (the others through ``one``)."""
    assert tokenize_each(tuple(texts), _tokens_of) == [_tokens_of(t) for t in texts]


@pytest.mark.parametrize(
    "texts",
    [(), ("",), ("", ""), ("Fix the Bug", "don't-stop", "x\ny z", "Ünïcode wörds", "\ud800 a")],
)
def test_tokenize_each_examples(texts: tuple[str, ...]) -> None:
    assert tokenize_each(texts, _tokens_of) == [_tokens_of(t) for t in texts]


def test_rust_lower_keeps_separators() -> None:
    """Keywords are lowercased whole, not tokenized."""
    assert rust_lower("Security Review") == "security review"
    assert rust_lower("ΟΔΟΣ ΟΔΟΣ") == "οδος οδος"


def test_a_class_with_no_chars_in_a_plane_never_matches() -> None:
    """The generated classes split BMP from astral; an empty half matches nothing at all."""
    import re

    from smista.core.tokenizer import _class

    empty = re.compile(_class([(0x41, 0x5A)], astral=True))
    assert [empty.match(c) for c in ("A", "\U0001f600", "")] == [None, None, None]
    assert re.fullmatch(_class([(0x41, 0x5A), (0x1F600, 0x1F601)], astral=True), "\U0001f601")


_TABLES: list[Any] = []


def _both_paths(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[list[str], list[str]]:
    """``tokenize(text)`` split by hand (the start-up path) and by the compiled regex."""
    from smista.core import tokenizer

    if not _TABLES:  # built once: compiling the token regex takes milliseconds
        _TABLES.extend((tokenizer._Tables(), tokenizer._Tables()))
    by_hand, by_regex = _TABLES
    by_hand._short_left = by_hand._long_left = 1 << 30
    by_regex._short_left = by_regex._long_left = 0
    with monkeypatch.context() as m:
        m.setattr(tokenizer, "_tables", lambda: by_hand)
        short = tokenize(text)
        m.setattr(tokenizer, "_tables", lambda: by_regex)
        regex = tokenize(text)
    return short, regex


def test_start_up_path_matches_rust(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short texts split character by character (before the regex is compiled) give Rust's
    tokens, as the regex path does."""
    from smista.core.tokenizer import _SHORT

    short_cases = [c for c in RUST_CASES if len(c["text"]) <= _SHORT and not c["text"].isascii()]
    assert len(short_cases) > 100
    for case in short_cases:
        assert _both_paths(monkeypatch, case["text"]) == (case["tokens"], case["tokens"])


SCRIPTS = (
    "aZ9 _-.,'\u00e9\u00df\u0130\u03a3\u03c3\u03c2\u0391\u1e9e\u0345\u093f\u0915\u0e01\u0e31"
    "\u3042\u4e00\uac00\u0416\u0436\u05d0\u0660\u2160\u00b2\u00bd\u200d\u0301\u02bc\u1f88"
    "\U00010d50\U0001d400\U0001f600\U00010400\U0001e900"
)


@given(st.text(alphabet=st.sampled_from(SCRIPTS) | st.characters(), max_size=48))
def test_start_up_path_equals_regex_path(text: str) -> None:
    """Character-by-character splitting and set-based lowercasing checks agree with the
    regexes on any short text (sigma, overrides, astral and combining characters)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        short, regex = _both_paths(monkeypatch, text)
    assert short == regex


@given(st.text(alphabet=st.sampled_from(SCRIPTS) | st.characters(), min_size=49, max_size=200))
def test_long_texts_split_by_hand_equal_the_regex_path(text: str) -> None:
    """A longer text split character by character (while the character budget lasts) and
    lowercased token by token gives the regex path's tokens (sigma, overrides, astral
    and combining characters)."""
    from smista.core import tokenizer

    with pytest.MonkeyPatch.context() as monkeypatch:
        short, regex = _both_paths(monkeypatch, text)
        by_hand, by_regex = _TABLES
        monkeypatch.setattr(tokenizer, "_tables", lambda: by_regex)
        python_regex = tokenizer._tokenize_unicode(text)
    assert short == regex
    assert by_hand.tokenize_short(text) == python_regex


def test_the_hand_split_budgets() -> None:
    """Short texts are split by hand while their count lasts, longer ones while their
    characters last; none once the token regex is compiled."""
    from smista.core.tokenizer import _LONG_BUDGET, _SHORT, _Tables

    tables = _Tables()
    assert tables.short_first(_SHORT)  # a short text: counted
    assert tables.short_first(_LONG_BUDGET - 10)  # a longer one: its characters
    assert not tables.short_first(_SHORT + 11)  # (10 characters left)
    assert tables.short_first(_SHORT)
    tables._short_left = 0
    assert not tables.short_first(1)
    fresh = _Tables()
    assert fresh.short_first(_SHORT + 1)
    fresh.__dict__["token_bmp_re"] = None  # compiled: the regex splits every text
    assert not fresh.short_first(1)
    assert not fresh.short_first(_SHORT + 1)


@given(st.text(alphabet=st.sampled_from(SCRIPTS) | st.characters(), max_size=48))
def test_short_lowercasing_check_equals_the_regexes(text: str) -> None:
    """``plain`` on a short text (sets) answers what the override regexes answer."""
    from smista.core.tokenizer import _CAPITAL_SIGMA, _Tables

    tables = _TABLES[0] if _TABLES else _Tables()
    astral = set(tables.astral_re.findall(text))
    by_regex = not (tables.special_re.search(text) or not astral.isdisjoint(tables.special_astral))
    if by_regex and _CAPITAL_SIGMA in text:
        by_regex = not (tables.sigma_re.search(text) or not astral.isdisjoint(tables.sigma_astral))
    assert tables.plain(text) == by_regex


def test_long_texts_take_the_regex_lowercasing_checks() -> None:
    """``plain`` on a text longer than the short limit uses the override regexes."""
    from smista.core.tokenizer import _SHORT, _tables

    tables = _tables()
    special = next(iter(tables.lower_overrides))
    assert tables.plain("é" * (_SHORT + 1))
    assert not tables.plain(special + "é" * (_SHORT + 1))
    assert rust_lower(special * (_SHORT + 1)) == tables.lower_overrides[special] * (_SHORT + 1)


# -- the C pass against the Python reference (only where the extension is built) ---------


def _c() -> Any:
    from smista.core import tokenizer as module

    tokenizer: Any = module  # (its C names are private imports, not re-exported)
    if tokenizer._c_tokens is None:
        pytest.skip("the C extension is not built (or SMISTA_IMPLEMENTATION=python)")
    return tokenizer


@given(st.text(alphabet=st.sampled_from(SCRIPTS) | st.characters(), max_size=80))
def test_the_c_pass_gives_the_python_tokens(text: str) -> None:
    tokenizer = _c()
    got = tokenizer._c_tokens(text)
    assert got is None if "\u03a3" in text else got == tokenizer._tokenize_unicode(text)


def test_the_c_pass_matches_rust_output() -> None:
    tokenizer = _c()
    for case in RUST_CASES:
        got = tokenizer._c_tokens(case["text"])
        assert got is None or got == case["tokens"], case["text"]


def test_the_c_lowercase_is_rusts_for_every_code_point() -> None:
    """Exhaustive: every character, token or not, lowercases as the Python tables say
    (every character with a lowercase of its own is alphanumeric, so in the C table)."""
    tokenizer = _c()
    tables = tokenizer._tables()
    disagree = [
        cp
        for cp in range(0x80, 0x110000)
        if cp != 0x3A3
        and not 0xD800 <= cp <= 0xDFFF
        and tokenizer._c_lower(chr(cp)) != tables.lower(chr(cp))
    ]
    assert disagree == []
    assert tokenizer._c_lower("ΟΔΥΣΣΕΥΣ") is None
    assert rust_lower("ΟΔΥΣΣΕΥΣ") == "οδυσσευς"  # final sigma, through Python
    assert tokenizer._c_lower("Ab-Ç d!") == "ab-ç d!"
