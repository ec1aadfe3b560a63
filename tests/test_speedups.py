"""The optional C hot path (``smista._speedups``): built where it can be, and exact.

``TokenCodes.scan`` must split and lowercase text exactly as
:func:`smista.tokenizer.tokenize` does whenever it answers, hand every text
holding a non-ASCII letter or digit back to Python, and keep its table
bounded. The engine-level differential tests (test_engine_differential.py)
run the matcher with and without it.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smista import engine
from smista.tokenizer import tokenize

ROOT = Path(__file__).resolve().parent.parent


def _compiler_available() -> bool:
    cc = (sysconfig.get_config_var("CC") or "").split()
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return bool(cc) and shutil.which(cc[0]) is not None and include.exists()


def test_extension_is_built_where_a_compiler_exists() -> None:
    """An install on a machine that can compile it carries the C hot path."""
    if os.environ.get("SMISTA_NO_SPEEDUPS"):
        pytest.skip("SMISTA_NO_SPEEDUPS is set: a pure-Python install was asked for")
    if os.environ.get("SMISTA_IMPLEMENTATION") == "python":
        pytest.skip("SMISTA_IMPLEMENTATION=python: the pure-Python path was asked for")
    if not _compiler_available():
        pytest.skip("no C compiler or Python headers: the pure-Python matcher is used")
    assert engine.ACCELERATED, "smista._speedups was not built (see hatch_build.py)"


if engine.ACCELERATED:
    from smista._speedups import TokenCodes, split_count

compiled = pytest.mark.skipif(not engine.ACCELERATED, reason="smista._speedups is not built")

BIG = 10**12


def test_header_matches_the_unicode_tables() -> None:
    """The committed C table of token characters is the rendering of the Python one."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_speedups_header  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "tools"))
    committed = (ROOT / "smista" / "_speedups_alnum.h").read_text(encoding="utf-8")
    assert committed == gen_speedups_header.render()


@compiled
def test_every_non_ascii_code_point_is_classified_like_the_tokenizer() -> None:
    """Exhaustive: scan hands back (-2) exactly the characters tokenize keeps."""
    table = TokenCodes(4)
    disagree = [
        cp
        for cp in range(0x80, 0x110000)
        if not 0xD800 <= cp <= 0xDFFF and (table.scan(chr(cp), 0) == -2) != bool(tokenize(chr(cp)))
    ]
    assert disagree == []


def _taught(text: str) -> tuple[TokenCodes, dict[str, int]]:
    """A table knowing every token of ``text``, each with its own code."""
    tokens = tokenize(text)
    codes = {t: 1000 + i for i, t in enumerate(dict.fromkeys(tokens))}
    table = TokenCodes(1 << 16)
    table.remember(tokens, {}, codes)
    return table, codes


ALPHABET = st.sampled_from(
    [*"aZz09 -_.,'\n\t", "“", "”", "—", "…", "🙂", "\u00a0", "é", "ß", "Σ", "٣", "Ⅻ", "𝐀"]
)


@compiled
@settings(max_examples=1000)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_scan_tokenizes_like_the_tokenizer(text: str) -> None:
    table, codes = _taught(text)
    tokens = tokenize(text)
    has_foreign = any(not c.isascii() and tokenize(c) for c in text)
    expected = -2 if has_foreign else min((codes[t] for t in tokens), default=BIG)
    assert table.scan(text, BIG) == expected


@compiled
@settings(max_examples=300)
@given(st.text(alphabet="abcXYZ019 .-“🙂", max_size=30), st.text(alphabet="abc", min_size=1))
def test_unknown_tokens_are_reported(text: str, extra: str) -> None:
    table, _ = _taught(text)
    unknown = f"{text} q{extra}"  # 'q' is never in the taught text's alphabet
    assert table.scan(unknown, BIG) == -1


@compiled
def test_scan_basics() -> None:
    table = TokenCodes(8)
    assert table.scan("", 7) == 7
    assert table.scan(" ,;— ", 7) == 7  # no token at all
    assert table.scan("fix", 7) == -1
    table.remember(["fix", "bug"], {"bug": None}, {"fix": 3})
    assert table.scan("Fix the BUG", 7) == -1  # 'the' unknown
    table.remember(["the"], {"the": None}, {})
    assert table.scan("Fix the BUG", 7) == 3
    assert table.scan("“FIX” — the bug 🙂", 7) == 3
    assert table.scan("the bug", 7) == 7  # no-hit tokens never lower the answer
    assert table.scan("fixé", 7) == -2
    assert table.get("fix") == 3
    assert table.get("bug") == -1
    assert table.get("nope") is None
    assert table.get("né") is None
    assert len(table) == 3


@compiled
def test_remember_skips_what_it_must_not_store() -> None:
    table = TokenCodes(8)
    table.remember(["", "Fix", "naïve", "a b", "unlisted", "ok"], {"ok": None}, {"Fix": 1})
    assert len(table) == 1
    assert table.get("ok") == -1


@compiled
def test_long_and_short_keys() -> None:
    """Keys up to 16 bytes live in the slot, longer ones on the heap: both found."""
    words = ["a" * n for n in range(1, 40)] + ["b" * 16, "b" * 17, "x" * 5000]
    table = TokenCodes(1000)
    table.remember(words, {}, {w: i for i, w in enumerate(words)})
    for i, w in enumerate(words):
        assert table.scan(w.upper(), BIG) == i
        assert table.scan(w + "a", BIG) in (-1, i + 1)
    assert table.scan(" ".join(words), BIG) == 0


@compiled
def test_table_is_bounded_and_restarts() -> None:
    table = TokenCodes(100)
    assert table.limit == 100
    for start in range(0, 1000, 10):
        batch = [f"w{n}" for n in range(start, start + 10)]
        table.remember(batch, {}, dict.fromkeys(batch, 5))
        assert len(table) <= 100
    assert table.scan("w999", BIG) == 5  # the newest are kept
    assert table.scan("w0", BIG) == -1  # the oldest were dropped at a restart
    table.clear()
    assert len(table) == 0
    assert table.scan("w999", BIG) == -1


@compiled
def test_growth_keeps_every_token() -> None:
    words = [f"t{n}x" for n in range(20000)]
    table = TokenCodes(1 << 16)
    table.remember(words, {}, {w: n for n, w in enumerate(words)})
    assert len(table) == len(words)
    assert all(table.get(w) == n for n, w in enumerate(words))


@compiled
def test_bad_arguments_are_errors() -> None:
    table = TokenCodes(4)
    with pytest.raises(TypeError):
        table.scan(b"fix", 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        table.scan("fix")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="non-negative"):
        table.scan("fix", -1)
    with pytest.raises(TypeError):
        table.remember(["a"], [], {})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 1"):
        TokenCodes(0)
    with pytest.raises(OverflowError):
        table.remember(["abc"], {}, {"abc": 1 << 70})


@compiled
def test_split_count() -> None:
    assert split_count("Fix the login-bug, 42 times!") == 6
    assert split_count("") == 0
    assert split_count("naïve") == -1


@compiled
@settings(max_examples=500)
@given(
    st.lists(st.text(alphabet="abc1-", min_size=1, max_size=6), max_size=30),
    st.text(alphabet="abcA1-é", min_size=1, max_size=9),
    st.integers(0, 7),
)
def test_deletion_hits_are_the_variants_in_the_table(
    keys: list[str], token: str, depths: int
) -> None:
    """The C probe finds exactly the deletion variants the Python index would."""
    from smista.engine import _token_variants

    codes = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    table = TokenCodes(len(codes) + 1)
    table.remember(codes, {}, codes)
    got = table.deletion_hits(token, depths)
    if not all(c in "abc1" for c in token):
        assert got is None
        return
    levels = (bool(depths & 1), bool(depths & 2), bool(depths & 4))
    assert got is not None
    assert set(got) == {codes[v] for v in _token_variants(token, levels) if v in codes}


@compiled
def test_deletion_hits_of_a_long_token() -> None:
    """Tokens longer than the stack buffer take a heap buffer, same answers."""
    token = "ab" * 200
    table = TokenCodes(8)
    table.remember([token[1:], token[2:]], {}, {token[1:]: 1, token[2:]: 2})
    assert sorted(set(table.deletion_hits(token, 7) or [])) == [1, 2]


def test_pickling_keeps_the_choice_of_path() -> None:
    """A matcher asked to stay pure Python stays so in another process."""
    import pickle

    from smista.engine import CompiledRules, RuleSpec

    specs = [RuleSpec("edit", 1, ("implement",), ())]
    pure = pickle.loads(pickle.dumps(CompiledRules(specs, "chat", accelerated=False)))
    assert not pure.accelerated
    fast = pickle.loads(pickle.dumps(CompiledRules(specs, "chat")))
    assert fast.accelerated == engine.ACCELERATED
    assert pure.match_text("please implment it") == fast.match_text("please implment it")


@compiled
@settings(max_examples=500)
@given(st.text(alphabet=ALPHABET, max_size=40), st.data())
def test_hits_are_the_tokens_that_hit(text: str, data: st.DataObject) -> None:
    """hits() lists, in order, the tokens whose code is not 'no hit'."""
    tokens = tokenize(text)
    plain = {t: None for t in tokens if data.draw(st.booleans())}
    codes = {t: 7 for t in tokens if t not in plain}
    table = TokenCodes(1 << 10)
    table.remember(tokens, plain, codes)
    has_foreign = any(not c.isascii() and tokenize(c) for c in text)
    expected: list[str] | int = -2 if has_foreign else [t for t in tokens if t in codes]
    assert table.hits(text) == expected
    assert table.hits(text + " zzzq") == (-2 if has_foreign else -1)


@compiled
def test_index_records_positions() -> None:
    table = TokenCodes(16)
    table.index(("ab", "a-b", "", "Cd", "cd", "é"))
    assert [table.get(k) for k in ("ab", "a-b", "cd", "Cd", "é")] == [0, None, 4, None, None]
    assert len(table) == 2
    with pytest.raises(TypeError):
        table.index(5)  # type: ignore[arg-type]
