"""The optional C hot path (``smista.core._speedups``): built where it can be, and exact.

``TokenCodes.scan`` must split text exactly as :func:`smista.core.tokenizer.tokenize`
does (ASCII or not), lowercase ASCII exactly, hand back every token it does
not know (never giving up on the rest of the prompt), keep its table bounded
(evicting gradually) and correct when every key collides. ``VariantIndex``
must find every keyword a token shares a deletion variant with. The
engine-level differential tests (test_engine_differential.py) run the
matcher with and without it.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smista.core import engine
from smista.core.conditions.phrases import keys_by_word
from smista.core.osa import osa_within
from smista.core.tokenizer import rust_lower, tokenize

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
    assert engine.ACCELERATED, "smista.core._speedups was not built (see hatch_build.py)"


def test_extension_is_built_from_these_sources() -> None:
    """The binary imported is compiled from csrc/ as it is now, never left over from before.

    An editable build whose recompile fails keeps the previous binary in place and warns;
    without this check, the suite would test that older binary.
    """
    if not engine.ACCELERATED:
        pytest.skip("the pure-Python matcher is in use")
    import hashlib

    from smista.core import _speedups

    # hatch_build.source_digest (not importable here: it needs hatchling)
    digest = hashlib.sha256()
    for name in ("csrc/_speedups.c", "csrc/_speedups_alnum.h"):
        digest.update((ROOT / name).read_bytes())
    assert digest.hexdigest()[:16] == _speedups.SOURCE_DIGEST, (
        "smista.core._speedups is stale: it was not compiled from csrc/ as it is now "
        "(reinstall: pip install -e . --no-deps, with SMISTA_REQUIRE_SPEEDUPS=1 to see errors)"
    )


if engine.ACCELERATED:
    from smista.core._speedups import TokenCodes, VariantIndex, hash_token, split_count

compiled = pytest.mark.skipif(not engine.ACCELERATED, reason="smista.core._speedups is not built")

BIG = 10**12


def test_header_matches_the_unicode_tables() -> None:
    """The committed C table of token characters is the rendering of the Python one."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_speedups_header  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "tools"))
    committed = (ROOT / "csrc" / "_speedups_alnum.h").read_text(encoding="utf-8")
    assert committed == gen_speedups_header.render()


def _raw_tokens(text: str) -> list[str]:
    """Tokens as written (split on the generated alphanumeric ranges, not lowered)."""
    from bisect import bisect_right

    from smista.core import _unicode_tables
    from smista.core.tokenizer import _class_ranges

    ranges = _class_ranges(_unicode_tables.ALNUM_CLASS)
    starts = [a for a, _ in ranges]

    def alnum(ch: str) -> bool:
        i = bisect_right(starts, ord(ch)) - 1
        return i >= 0 and ord(ch) <= ranges[i][1]

    out: list[str] = []
    current = ""
    for ch in text:
        if alnum(ch):
            current += ch
        elif current:
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return out


def _as_handed_back(raw: str) -> str:
    return raw.lower() if raw.isascii() else raw


@compiled
def test_every_non_ascii_code_point_is_classified_like_the_tokenizer() -> None:
    """Exhaustive: the scan hands back exactly the characters tokenize keeps."""
    table = TokenCodes(4)
    disagree = [
        cp
        for cp in range(0x80, 0x110000)
        if not 0xD800 <= cp <= 0xDFFF
        and (table.scan(chr(cp), 0) == (0, [chr(cp)])) != bool(tokenize(chr(cp)))
    ]
    assert disagree == []


ALPHABET = st.sampled_from(
    [*"aZz09 -_.,'\n\t", "“", "”", "—", "…", "🙂", "\u00a0", "é", "É", "ß", "Σ", "٣", "Ⅻ", "𝐀", "İ"]
)


@compiled
@settings(max_examples=1000)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_scan_tokenizes_like_the_tokenizer(text: str) -> None:
    """A fresh table hands back every token; once taught, it folds their codes."""
    table = TokenCodes(1 << 16)
    raw = _raw_tokens(text)
    expected_back = [_as_handed_back(t) for t in raw]
    got = table.scan(text, BIG)
    assert got == ((BIG, expected_back) if raw else BIG)
    assert [rust_lower(t) for t in expected_back] == tokenize(text)
    codes = {t: 1000 + i for i, t in enumerate(dict.fromkeys(tokenize(text)))}
    for token in expected_back:
        table.put(token, codes[rust_lower(token)])
    assert table.scan(text, BIG) == min(codes.values(), default=BIG)
    assert table.scan(text.swapcase() if text.isascii() else text, BIG) == min(
        codes.values(), default=BIG
    )


@compiled
@settings(max_examples=300)
@given(st.text(alphabet="abcXYZ019 .-“🙂é", max_size=30), st.text(alphabet="abc", min_size=1))
def test_unknown_tokens_are_handed_back_and_the_rest_still_folded(text: str, extra: str) -> None:
    table = TokenCodes(1 << 10)
    for token in _raw_tokens(text):
        table.put(_as_handed_back(token), 5)
    best = 5 if tokenize(text) else BIG
    assert table.scan(f"{text} q{extra} Q{extra}", BIG) == (best, [f"q{extra}", f"q{extra}"])


@compiled
def test_scan_basics() -> None:
    table = TokenCodes(8)
    assert table.scan("", 7) == 7
    assert table.scan(" ,;— ", 7) == 7  # no token at all
    assert table.scan("fix", 7) == (7, ["fix"])
    table.remember(["fix", "bug"], {"bug": None}, {"fix": 3})
    assert table.scan("Fix the BUG", 7) == (3, ["the"])  # the rest is still folded
    table.put("the", None)
    assert table.scan("Fix the BUG", 7) == 3
    assert table.scan("“FIX” — the bug 🙂", 7) == 3
    assert table.scan("the bug", 7) == 7  # no-hit tokens never lower the answer
    assert table.scan("fixé Fixé", 7) == (7, ["fixé", "Fixé"])  # non-ASCII: as written
    table.put("Fixé", 2)
    assert table.scan("FIXé", 7) == 2  # ASCII letters are lowered in every key
    assert table.scan("fixÉ", 7) == (7, ["fixÉ"])  # others are not: Python lowers them
    assert table.get("fix") == 3
    assert table.get("bug") == -1
    assert table.get("nope") is None
    assert table.get("fixé") == 2
    assert len(table) == 4
    with pytest.raises(ValueError, match="non-negative"):
        table.put("x", -1)


@compiled
def test_tokens_that_can_never_match_are_not_stored() -> None:
    """Too long, or too many characters outside the keywords' alphabet: no hit, no entry."""
    table = TokenCodes(64, max_len=6, alphabet="abcfix", max_foreign=1)
    assert table.scan("abcdefg 12 1 fox café xyz", 9) == (9, ["1", "fox", "café"])
    assert len(table) == 0
    assert table.scan("ABCDEFG 123456", 9) == 9
    unfiltered = TokenCodes(64)
    assert unfiltered.scan("abcdefg 12", 9) == (9, ["abcdefg", "12"])


@compiled
def test_remember_skips_what_it_must_not_store() -> None:
    table = TokenCodes(8)
    table.remember(["", "Fix", "naïve", "a b", "unlisted", "ok"], {"ok": None}, {"Fix": 1})
    assert len(table) == 1
    assert table.get("ok") == -1


@compiled
def test_long_and_short_keys() -> None:
    """Keys up to 16 bytes live in the slot, longer ones on the heap: both found."""
    words = ["a" * n for n in range(1, 40)] + ["b" * 16, "b" * 17, "x" * 5000, "é" * 40]
    table = TokenCodes(1000)
    for i, w in enumerate(words):
        table.put(w, i)
    for i, w in enumerate(words):
        assert table.scan(w.upper() if w.isascii() else w, BIG) == i
    assert table.scan(" ".join(words), BIG) == 0


@compiled
def test_table_is_bounded_and_forgets_gradually() -> None:
    table = TokenCodes(100)
    assert table.limit == 100
    first = [f"w{n}" for n in range(100)]
    for w in first:
        table.put(w, 5)
    table.put("newcomer", 5)
    assert len(table) == 100
    assert table.evictions == 1
    assert sum(table.get(w) is not None for w in first) == 99  # one token left, not all
    relearned = 0
    for n in range(1000):
        table.put(f"x{n}", 5)
        if table.scan("w7", BIG) != 5:  # looked up after every insertion: referenced
            table.put("w7", 5)  # (as the engine would, had it been evicted)
            relearned += 1
        assert len(table) <= 100
    assert relearned <= 1  # a token in use survives (CLOCK: second chance)
    assert table.get("w7") == 5
    assert table.get("x999") == 5  # the newest are kept
    assert table.get("x0") is None
    table.clear()
    assert len(table) == 0
    assert table.scan("x999", BIG) == (BIG, ["x999"])


@compiled
def test_growth_keeps_every_token() -> None:
    words = [f"t{n}x" for n in range(20000)]
    table = TokenCodes(1 << 16)
    table.remember(words, {}, {w: n for n, w in enumerate(words)})
    assert len(table) == len(words)
    assert all(table.get(w) == n for n, w in enumerate(words))


@compiled
@settings(max_examples=200)
@given(
    st.lists(
        st.tuples(st.text(alphabet="abé1", min_size=1, max_size=5), st.integers(0, 9)),
        max_size=80,
    ),
    st.integers(1, 12),
    st.booleans(),
)
def test_collisions_and_eviction_keep_every_answer(
    puts: list[tuple[str, int]], limit: int, collide: bool
) -> None:
    """With every key hashing alike (or not) and constant eviction, whatever the
    table still holds carries the code last put for it, and it never overflows."""
    table = TokenCodes(limit, collide=collide)
    last: dict[str, int] = {}
    for token, code in puts:
        table.put(token, code)
        last[token] = code
        assert table.get(token) == code  # the newest is always held
        assert len(table) <= limit
        for known, want in last.items():
            assert table.get(known) in (None, want)
            answer = table.scan(known, BIG)
            assert answer in (want, (BIG, [_as_handed_back(known)]))
    assert len(table) == min(limit, len(last))


def _agrees_with(
    table: TokenCodes, model: dict[str, int], pool: Sequence[str], exact: bool, whole: bool
) -> None:
    """Every token of ``pool`` reads as ``model`` says (or, when the table may have
    evicted it, as unknown), ``len`` counts exactly the tokens found (when ``pool`` is
    every token put), and one scan of them all folds the codes of those found and hands
    back the rest, in order."""
    got = {token: table.get(token) for token in pool}
    for token, code in got.items():
        assert code == model.get(token) if exact else code in (None, model.get(token)), token
    codes = [code for code in got.values() if code is not None]
    assert len(table) == len(codes) if whole else len(table) >= len(codes)
    unknown = [token for token in pool if got[token] is None]
    best = min(codes, default=BIG)
    answer = table.scan(" ".join(pool), BIG)
    assert answer == ((best, unknown) if unknown else best)


@compiled
@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([33, 34, 40, 65, 70, 100, 129, 300, 1 << 16]),
    st.booleans(),
)
def test_growth_spread_over_puts_agrees_with_a_dict(seed: int, limit: int, collide: bool) -> None:
    """The table doubles without rehashing in one call: the old array is moved into the
    new one a few slots per put (and the next one zeroed ahead), lookups reading both
    meanwhile. Driven through several doublings with lookups, scans, updates, evictions
    (small limits, some just past a doubling, where the move must end before the first
    eviction), clear() and every key hashing alike, it answers as a plain dict."""
    rng = random.Random(seed)
    size = 600 if collide else 2500
    pool = [f"w{k}" for k in range(size)]
    pool += [f"alongtokenpastsixteenbytes{k}" for k in range(0, size, 7)]  # (on the heap)
    pool += [f"é{k}" for k in range(0, size, 11)]
    table = TokenCodes(limit, collide=collide)
    model: dict[str, int] = {}
    exact = limit >= len(pool)
    most = 0
    for step in range(3 * size):
        roll = rng.random()
        token = rng.choice(pool)
        if roll < 0.6:
            code = rng.randrange(1000)
            table.put(token, code)
            model[token] = code
            assert table.get(token) == code  # the newest is always held
        elif roll < 0.97:
            held = table.get(token)
            assert held == model.get(token) if exact else held in (None, model.get(token))
            assert table.scan(token, BIG) == (held if held is not None else (BIG, [token]))
        if step == size // 2 or roll > 0.9995:  # once, and now and then
            table.clear()
            model.clear()
            assert len(table) == 0
        assert len(table) <= limit
        most = max(most, len(table))
        if step % 97 == 0:
            _agrees_with(table, model, rng.sample(pool, 60), exact, whole=False)
    _agrees_with(table, model, pool, exact, whole=True)
    if exact:
        assert len(table) == len(model)
    assert most > min(limit - 1, 256)  # (several doublings from 64 slots, or full)


@compiled
def test_growth_through_many_doublings_keeps_every_token_and_order() -> None:
    """Up to 2**16 tokens (ten doublings), every one read back just after each doubling
    and halfway through the move that follows it (8 slots a put: 2**k / 4 puts)."""
    table = TokenCodes(1 << 17)
    words = [f"t{n}y" for n in range(1 << 16)]
    marks = {(1 << k) + 1 for k in range(5, 16)} | {(1 << k) + (1 << k) // 8 for k in range(5, 16)}
    for n, w in enumerate(words):
        table.put(w, n)
        if n + 1 in marks:
            assert all(table.get(v) == m for m, v in enumerate(words[: n + 1]))
            assert table.scan(" ".join(words[: n + 1 : 37]), BIG) == 0
    assert len(table) == len(words)
    assert table.evictions == 0


@compiled
def test_a_probe_run_wrapping_past_the_end_is_found_while_the_table_grows() -> None:
    """A run that wraps from the old array's last slot into its first ones, read while
    the move into the doubled array is under way: past the end, the search goes on at
    the move's cursor (the slots below it are emptied), not at slot 0. The homes come
    from ``hash_token``, the table's own hash, so the layout is built, not hoped for."""

    def homed(prefix: str, slots: range, mask: int, count: int) -> list[str]:
        words = (f"{prefix}{n}" for n in range(10**6))
        return [w for w in words if hash_token(w) & mask in slots][:count]

    end = homed("e", range(63, 64), 63, 11)  # run 63, 0, 1, ..., 9 of 64 slots
    middle = homed("m", range(16, 41), 63, 22)  # (the 33rd put doubles the table)
    table = TokenCodes(1000)
    for n, word in enumerate(end + middle):
        table.put(word, n)
    extra = homed("x", range(16, 41), 127, 1)[0]
    table.put(extra, 999)  # moves the old array's first 8 slots: the cursor is at 8
    assert [table.get(w) for w in end + middle] == list(range(len(end) + len(middle)))
    assert table.scan(" ".join(end), BIG) == 0
    assert table.get(extra) == 999


@compiled
def test_every_key_colliding_still_finds_each() -> None:
    table = TokenCodes(1000, collide=True)
    words = [f"k{n}" for n in range(300)]
    for n, w in enumerate(words):
        table.put(w, n)
    assert all(table.get(w) == n for n, w in enumerate(words))
    assert table.scan(" ".join(words[::-1]), BIG) == 0


@compiled
def test_hash_is_keyed_per_process() -> None:
    """The table's hash key is drawn when the module loads: processes differ."""
    code = "from smista.core._speedups import hash_token; print(hash_token('fix'))"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(3)
    }
    assert len(runs) > 1  # equal three times only with probability 2**-64
    assert hash_token("fix") == hash_token("fix")


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
    with pytest.raises(TypeError):
        table.attach("not an index", b"")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="caps"):
        VariantIndex(["abc"], [3])
    with pytest.raises(ValueError, match="differ"):
        VariantIndex(["abc"], [])


@compiled
def test_split_count() -> None:
    assert split_count("Fix the login-bug, 42 times!") == 6
    assert split_count("") == 0
    assert split_count("naïve") == -1


def _python_candidates(keywords: list[str], caps: list[int], token: str, depths: int) -> set[int]:
    from smista.core.engine import _deletions, _token_variants

    levels = (bool(depths & 1), bool(depths & 2), bool(depths & 4))
    mine = _token_variants(token, levels)
    return {
        i for i, (k, c) in enumerate(zip(keywords, caps, strict=True)) if _deletions(k, c) & mine
    }


@compiled
@settings(max_examples=500)
@given(
    st.lists(st.text(alphabet="abcé1", min_size=1, max_size=9), max_size=20),
    st.data(),
    st.text(alphabet="abcé1", min_size=1, max_size=11),
    st.integers(0, 7),
)
def test_variant_index_finds_every_candidate(
    keywords: list[str], data: st.DataObject, token: str, depths: int
) -> None:
    """Every keyword sharing a deletion variant with the token is a candidate
    (a hash collision could add one more; the engine verifies each)."""
    caps = [data.draw(st.integers(0, 2)) for _ in keywords]
    index = VariantIndex(keywords, caps)
    assert _python_candidates(keywords, caps, token, depths) <= set(index.candidates(token, depths))


@compiled
@settings(max_examples=500)
@given(
    st.lists(st.text(alphabet="abcé1", min_size=1, max_size=9), max_size=20),
    st.data(),
    st.text(alphabet="abcé1", min_size=1, max_size=11),
)
def test_variant_index_typos_are_the_fuzzy_rules(
    keywords: list[str], data: st.DataObject, token: str
) -> None:
    """typos() is exactly the keywords (cap at least 1) the token is a typo of by
    smista.core.fuzzy's rules: no hash collision, repeat or missed candidate shows."""
    from smista.core.fuzzy import is_typo

    caps = [data.draw(st.integers(0, 2)) for _ in keywords]
    index = VariantIndex(keywords, caps)
    expected = [k for k, c in zip(keywords, caps, strict=True) if c and is_typo(k, token, c)]
    assert sorted(index.typos(token, 7)) == sorted(expected)


@compiled
def test_variant_index_typos_basics() -> None:
    index = VariantIndex(["implement", "fix", "café", "abcde", "x" * 300], [2, 0, 1, 1, 2])
    assert index.typos("implment", 7) == ["implement"]
    assert index.typos("impelment", 7) == ["implement"]  # a transposition is one edit
    assert index.typos("implement", 7) == []  # the keyword itself is no typo
    assert index.typos("fxi", 7) == []  # cap 0
    assert index.typos("cafe", 7) == ["café"]
    assert index.typos("abcd", 7) == []  # contained: a different word
    assert index.typos("abced", 7) == ["abcde"]
    assert index.typos("x" * 149 + "y" + "x" * 150, 7) == ["x" * 300]  # past the stack rows
    assert index.typos("x" * 148 + "yy" + "x" * 150, 7) == ["x" * 300]
    assert index.typos("x" * 100 + "yzy" + "x" * 197, 7) == []
    with pytest.raises(TypeError):
        index.typos(3, 7)  # type: ignore[arg-type]
    # more distinct candidates than typos() gathers on the stack: all still verified
    token = "abcdefghi"
    near = [
        token[:i] + c + token[i + 1 :]
        for i in range(9)
        for c in "jklmnopqrstuvwxyz0123456789éèêëàâ"
    ]
    crowd = VariantIndex([*near, token, "zzzzzzzzz"], [2] * (len(near) + 2))
    assert sorted(crowd.typos(token, 7)) == sorted(near)


@compiled
def test_variant_index_basics() -> None:
    index = VariantIndex(["implement", "fix", "café"], [2, 0, 0])
    assert set(index.candidates("implment", 7)) == {0}
    assert set(index.candidates("fix", 1)) == {1}
    assert index.candidates("fxi", 7) == []  # cap 0: only the keyword itself
    assert set(index.candidates("café", 1)) == {2}
    assert index.candidates("zzzz", 7) == []
    from smista.core.engine import _deletions

    assert len(index) == len(_deletions("implement", 2)) + 2  # distinct variants only
    assert sys.getsizeof(index) < 4096


@compiled
def test_attached_index_settles_tokens_near_no_keyword() -> None:
    """Unknown tokens sharing no variant with a keyword never leave C."""
    table = TokenCodes(64)
    table.attach(
        VariantIndex(["implement", "fix"], [2, 0]), bytes([1, 1, 1, 1, 1, 1, 1, 7, 7, 7, 7])
    )
    assert table.scan("please implment the fix zzzz Ünïcode", 9) == (9, ["implment", "fix"])
    assert table.settled == 4  # please, the, zzzz, Ünïcode
    assert table.get("zzzz") == -1
    assert table.get("implment") is None


@compiled
def test_attached_index_settles_tokens_near_a_keyword_but_no_typo_of_one() -> None:
    """A token sharing deletion variants with a keyword is still settled when it is neither
    the keyword nor a typo of it: containing it, past its cap, or cap 0."""
    table = TokenCodes(64)
    table.attach(VariantIndex(["implement", "fix", "review"], [2, 0, 2]), bytes([7] * 16))
    text = "implements implemnt fixes fxi fix reviews reveiw rview xrevieqx"
    # the keyword and its typos come back; the rest were only near: containing a keyword
    # (implements, fixes, reviews), a typo of a cap-0 keyword (fxi), three edits away
    assert table.scan(text, 9) == (9, ["implemnt", "fix", "reveiw", "rview"])
    assert table.settled == 5
    # more keywords near a token than are verified on the stack (each containing it, so
    # no typo): Python decides
    token = "abcdefghi"
    near = [a + b + token for a in "jklmnopqrstuvwxyz" for b in "jklmnopqrstuvwxyz"]
    crowd = TokenCodes(64)
    crowd.attach(VariantIndex(near, [2] * len(near)), bytes([1] * 16))
    assert crowd.scan(token, 9) == (9, [token])
    assert crowd.scan("jk" + token, 9) == (9, ["jk" + token])
    assert crowd.settled == 0
    few = TokenCodes(64)
    few.attach(VariantIndex(near[:200], [2] * 200), bytes([1] * 16))
    assert few.scan(token, 9) == 9
    assert few.settled == 1


def _near_reference(token: str, keywords: Sequence[str], caps: Sequence[int]) -> bool:
    """Whether ``token`` is one of ``keywords`` or a typo of one (the rules of
    smista.core.fuzzy with the given caps)."""
    return any(
        k == token
        or (
            cap > 0
            and abs(len(k) - len(token)) <= cap
            and k not in token
            and token not in k
            and 1 <= osa_within(k, token, cap) <= cap
        )
        for k, cap in zip(keywords, caps, strict=True)
    )


@compiled
@settings(max_examples=400)
@given(
    st.lists(st.text(alphabet="abcé", min_size=1, max_size=7), max_size=8, unique=True),
    st.lists(st.integers(0, 2), min_size=8, max_size=8),
    st.lists(st.text(alphabet="abcéB", min_size=1, max_size=9), max_size=8),
)
def test_attached_index_hands_back_exactly_the_keywords_and_their_typos(
    keywords: list[str], caps: list[int], tokens: list[str]
) -> None:
    """With every deletion depth searched, the scan hands back a new token exactly when it
    is a keyword or a typo of one, and settles the rest."""
    caps = caps[: len(keywords)]
    table = TokenCodes(1 << 10)
    table.attach(VariantIndex(keywords, caps), bytes([7] * 16))
    found = table.scan(" ".join(tokens), 9)
    back = {rust_lower(t) for t in found[1]} if isinstance(found, tuple) else set()
    for token in {rust_lower(t) for t in tokens}:
        assert (token in back) == _near_reference(token, keywords, caps), token


def _deletions_of(text: str, count: int) -> set[str]:
    """``text`` less each ``count`` of its characters."""
    return {
        "".join(c for i, c in enumerate(text) if i not in gone)
        for gone in combinations(range(len(text)), count)
    }


def _found_reference(
    token: str, keywords: Sequence[str], caps: Sequence[int], depths: bytes
) -> bool:
    """Whether the attached scan hands ``token`` back (no stems, no overflow): some keyword
    shares a deletion variant with it (itself always, the token less 1 and 2 characters
    as ``depths[len(token)]`` allows, the keyword less up to its cap) and is the token or
    a typo of it: the old full loops over the variants, without any filter."""
    bits = 1 | (depths[len(token)] if len(token) < len(depths) else 0)
    mine = [_deletions_of(token, t) if bits >> t & 1 else set() for t in range(3)]
    for keyword, cap in zip(keywords, caps, strict=True):
        theirs = set().union(*(_deletions_of(keyword, d) for d in range(cap + 1)))
        if any(m & theirs for m in mine) and _near_reference(token, [keyword], [cap]):
            return True
    return False


def _edited(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` after the edits (kind 0 delete, 1 insert, 2 substitute, 3 transpose at a
    position taken modulo its length)."""
    for kind, at, ch in edits:
        if not text:
            text = ch
            continue
        at %= len(text)
        if kind == 0:
            text = text[:at] + text[at + 1 :]
        elif kind == 1:
            text = text[:at] + ch + text[at:]
        elif kind == 2:
            text = text[:at] + ch + text[at + 1 :]
        elif at + 1 < len(text):
            text = text[:at] + text[at + 1] + text[at] + text[at + 2 :]
    return text


EDGE_WORD = st.text(alphabet="abcdefgh", min_size=1, max_size=13)
EDIT = st.tuples(st.integers(0, 3), st.integers(0, 20), st.sampled_from("abcdefghi"))


@compiled
@settings(max_examples=600)
@given(
    st.lists(EDGE_WORD, max_size=6, unique=True),
    st.lists(st.integers(0, 2), min_size=6, max_size=6),
    st.lists(st.tuples(st.integers(0, 5), st.lists(EDIT, max_size=3)), max_size=6),
    st.lists(EDGE_WORD, max_size=3),
    st.one_of(st.just(bytes([7] * 20)), st.binary(min_size=20, max_size=20)),
)
def test_attached_index_skips_no_variant_a_keyword_has(
    keywords: list[str],
    caps: list[int],
    derived: list[tuple[int, list[tuple[int, int, str]]]],
    free: list[str],
    depths: bytes,
) -> None:
    """The loop over a token's variants less two characters looks only at the rows and
    columns whose variant starts and ends as some keyword's can (the edge filter): tokens
    up to three edits from a keyword, or none, are handed back exactly as with the full
    loops, at every depth and at arbitrary ones."""
    caps = caps[: len(keywords)]
    depths = bytes(b & 7 for b in depths)
    tokens = list(free)
    if keywords:
        tokens += [_edited(keywords[k % len(keywords)], edits) for k, edits in derived]
    tokens = [t for t in tokens if t]
    table = TokenCodes(1 << 10)
    table.attach(VariantIndex(keywords, caps), depths)
    for token in tokens:
        found = table.scan(token, 9)
        assert (found != 9) == _found_reference(token, keywords, caps, depths), token


@compiled
def test_attached_index_finds_a_cap_1_typo_through_two_deletions_alone() -> None:
    """At a length whose depths allow only two deletions, a typo of a cap-1 keyword is
    still found through them (its variants less one character are in the edge filter)."""
    table = TokenCodes(64)
    depths = bytearray(16)
    depths[9] = 4
    table.attach(VariantIndex(["abcdefgh"], [1]), bytes(depths))
    assert table.scan("abcdxefgh", 9) == (9, ["abcdxefgh"])
    assert table.scan("abcdxefgy", 9) == 9  # two edits away: settled
    assert table.settled == 1


@compiled
def test_attached_stems_keep_tokens_that_start_with_one() -> None:
    """With stems attached, a token near no keyword but starting with a stem is
    handed back (Python resolves it); the rest are still settled in C."""
    table = TokenCodes(64)
    table.attach(
        VariantIndex(["fix"], [0]),
        bytes([1] * 8),
        VariantIndex(["refact", "ré"], [0, 0]),
        b"\x02\x06",
    )
    assert table.scan("Refactoring the fix, Résumé zzzz re", 9) == (
        9,
        ["refactoring", "fix", "Résumé"],
    )
    assert table.settled == 3  # the, zzzz, re
    with pytest.raises(ValueError, match="ascending"):
        table.attach(VariantIndex([], []), b"", VariantIndex(["ab"], [0]), b"\x02\x02")
    with pytest.raises(ValueError, match="ascending"):
        table.attach(VariantIndex([], []), b"", VariantIndex(["ab"], [0]), b"\x00")
    with pytest.raises(TypeError):
        table.attach(VariantIndex([], []), b"", "not an index", b"\x01")  # type: ignore[call-overload]
    table.attach(VariantIndex(["fix"], [0]), bytes([1] * 8))  # stems dropped again
    assert table.scan("refactoring", 9) == 9  # settled now: no keyword near it
    assert table.settled == 4


@compiled
def test_a_token_too_long_or_foreign_for_any_keyword_is_handed_back_when_it_may_start_a_stem() -> (
    None
):
    """The scan drops tokens no keyword can match unless they start an attached stem."""
    table = TokenCodes(64, max_len=6, alphabet="fixrean", max_foreign=1)
    table.attach(
        VariantIndex(["fix"], [0]), bytes([1] * 8), VariantIndex(["ref", "ré"], [0, 0]), b"\x02\x03"
    )
    text = "refactorings ref12345 zzzzzzzzzz 12345678 RÉSUMÉSÉSÉS ΣΣΣΣΣΣΣΣΣ fix"
    assert table.scan(text, 9) == (
        9,
        ["refactorings", "ref12345", "RÉSUMÉSÉSÉS", "ΣΣΣΣΣΣΣΣΣ", "fix"],
    )
    assert table.settled == 0  # the dropped ones are not stored either
    assert table.scan("zzzzzzzzzz 12345678", 9) == 9
    # handed back in their place among the other unknown tokens ("in order")
    text = "fix refactorings fix zz ref1234567 fix"
    unknown = ["fix", "refactorings", "fix", "ref1234567", "fix"]
    assert table.hits(text) == ([], unknown)
    assert table.scan(text, 9) == (9, unknown)


@compiled
@settings(max_examples=300)
@given(
    st.lists(st.text(alphabet="abé", min_size=1, max_size=5), max_size=6),
    st.lists(st.text(alphabet="abé", min_size=1, max_size=4), max_size=6),
    st.text(alphabet="abéB1 ", max_size=30),
    st.booleans(),
)
def test_attached_stems_never_settle_a_token_a_stem_starts(
    keywords: list[str], stems: list[str], text: str, filtered: bool
) -> None:
    """A token that hits a keyword exactly or starts with a stem is never settled,
    nor dropped as too long or too foreign for the keywords."""
    table = (
        TokenCodes(
            1 << 10,
            max_len=max(map(len, keywords), default=1),
            alphabet="".join(set("".join(keywords))),
            max_foreign=0,
        )
        if filtered
        else TokenCodes(1 << 10)
    )
    kept = sorted(set(stems))
    table.attach(
        VariantIndex(keywords, [0] * len(keywords)),
        bytes([1] * 8),
        VariantIndex(kept, [0] * len(kept)),
        bytes(sorted({len(s) for s in kept})),
    )
    found = table.scan(text, 9)
    back = set(found[1]) if isinstance(found, tuple) else set()
    for token in set(tokenize(text)):
        if token in keywords or any(token.startswith(s) for s in kept):
            assert token in {rust_lower(t) for t in back}


def test_pickling_keeps_the_choice_of_path() -> None:
    """A matcher asked to stay pure Python stays so in another process."""
    import pickle

    from smista.core.engine import CompiledRules, RuleSpec

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
    """hits() lists, in order, the known tokens whose code is not 'no hit', and
    the unknown ones."""
    back = [_as_handed_back(t) for t in _raw_tokens(text)]
    hit = {t for t in back if data.draw(st.booleans())}
    table = TokenCodes(1 << 10)
    for t in back:
        table.put(t, 7 if t in hit else None)
    assert table.hits(text) == ([t for t in back if t in hit], [])
    assert table.hits(text + " zzzq") == ([t for t in back if t in hit], ["zzzq"])


@compiled
def test_c_lowercasing_is_the_tokenizers() -> None:
    """Exhaustive: the table the scan lowercases settled tokens with is Rust's."""
    table = TokenCodes(4)
    disagree = [
        cp
        for cp in range(0x80, 0x110000)
        if cp != 0x3A3
        and not 0xD800 <= cp <= 0xDFFF
        and tokenize(chr(cp))
        and table.lower(chr(cp)) != rust_lower(chr(cp))
    ]
    assert disagree == []
    assert table.lower("ΟΔΥΣΣΕΥΣ") is None  # final sigma: Python decides
    assert table.lower("İSTANBUL") == rust_lower("İSTANBUL")


@compiled
def test_non_ascii_tokens_near_no_keyword_are_settled_too() -> None:
    table = TokenCodes(64, alphabet="abcdefghijklmnopqrstuvwxyzé", max_foreign=2)
    table.attach(VariantIndex(["café", "résumé"], [0, 2]), bytes([1] * 6 + [7] * 6))
    assert table.scan("CAFÉ Résume привет Ωμέγα ΟΔΥΣΣΕΥΣ", 9) == (
        9,
        ["CAFÉ", "Résume", "ΟΔΥΣΣΕΥΣ"],  # an exact hit, a typo, and final sigma
    )
    assert table.settled == 2


# -- module init (PEP 489), module state, interpreters and threads ------------------------------

REIMPORT = """
import importlib, sys
name = {name!r}
first = importlib.import_module(name)
table = first.TokenCodes(8)
table.put("alpha", 3)
key = first.hash_token("alpha")
del sys.modules[name]
second = importlib.import_module(name)
assert second is not first and second.TokenCodes is not first.TokenCodes, "one module object"
assert second.hash_token("alpha") == key, "the re-import drew a new hash key"
assert table.scan("alpha beta", 99) == (3, ["beta"]), table.scan("alpha beta", 99)
table.attach(second.VariantIndex(["alpha"], [1]), bytes([3] * 8))
assert table.scan("alpha zzzzz", 99) == 3, "the new module's index disagrees with the old table"
print("ok")
"""


@compiled
def test_a_reimport_makes_new_types_but_keeps_the_process_hash_key(tmp_path: Path) -> None:
    """Multi-phase init: each module object has its own (heap) types in its state, while the
    hash key is the process's, drawn once: a table built before a re-import keeps finding its
    tokens, and accepts an index built by the re-imported module."""
    done = subprocess.run(
        [sys.executable, "-c", REIMPORT.format(name=TokenCodes.__module__)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


SUBINTERPRETER = """
import _interpreters
LOAD = '''
import importlib.util
spec = importlib.util.spec_from_file_location({name!r}, {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
'''
exec(LOAD)  # the main interpreter's module object: it draws the process's hash key
key = module.hash_token("alpha")
code = LOAD + f'''
assert module.hash_token("alpha") == {{key}}, "another interpreter drew another key"
table = module.TokenCodes(8)
table.put("alpha", 2)
assert table.scan("alpha beta", 9) == (2, ["beta"])
'''
interp = _interpreters.create("isolated")
try:
    failure = _interpreters.run_string(interp, code)
finally:
    _interpreters.destroy(interp)
assert failure is None, failure
print("ok")
"""


@compiled
@pytest.mark.skipif(
    sys.version_info < (3, 13),
    reason="per-interpreter GIL support is declared from Python 3.13 (PyMutex)",
)
def test_the_extension_loads_in_an_interpreter_with_its_own_gil(tmp_path: Path) -> None:
    """Py_mod_multiple_interpreters (3.13+): an isolated interpreter (its own GIL, as
    concurrent.interpreters makes them) loads the extension and shares the process key."""
    pytest.importorskip("_interpreters")
    import importlib

    compiled_module = importlib.import_module(TokenCodes.__module__)
    script = SUBINTERPRETER.format(name=TokenCodes.__module__, path=compiled_module.__file__)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@compiled
def test_one_table_shared_by_threads_stays_consistent() -> None:
    """Each method holds the table's critical section (free-threaded builds run this with
    no GIL): threads putting and scanning their own tokens on one table see only their
    codes, and the table ends holding every token."""
    import threading

    table = TokenCodes(10_000)
    words = {n: [f"w{n}x{i}" for i in range(300)] for n in range(4)}
    wrong: list[str] = []

    def work(n: int) -> None:
        for i, word in enumerate(words[n]):
            table.put(word, n * 1000 + i)
            if table.scan(word, BIG) != n * 1000 + i:
                wrong.append(word)
        if table.scan(" ".join(words[n]), BIG) != n * 1000:
            wrong.append(f"thread {n}")

    threads = [threading.Thread(target=work, args=(n,)) for n in words]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert len(table) == sum(len(w) for w in words.values())


CODE_ALPHABET = st.sampled_from(
    [
        *"aZbY09 _./\\,?!;:)]}\"'\n\t`",
        *("’", "”", "？", "！", "。", "\u00a0", "\u3000", "é", "É"),
        *("٣", "Ⅻ", "𝐀", "İ", "ß", "_", "…", "🙂", "\u2028"),
    ]
)


# Long runs of characters no code run starts at (which the compiled skip reads eight at a
# time in a one-byte text), between a few of any kind.
PLAIN_RUNS = st.lists(
    st.one_of(
        st.text(alphabet="abxyz09 é\n", min_size=7, max_size=30),
        st.text(alphabet=CODE_ALPHABET, max_size=3),
    ),
    max_size=8,
).map("".join)


@compiled
@settings(max_examples=1500)
@given(st.one_of(st.text(alphabet=CODE_ALPHABET, max_size=40), PLAIN_RUNS))
def test_blanked_code_spans_are_the_python_ones(text: str) -> None:
    """The compiled code-run blanker gives exactly the pure one's text, any script:
    the same characters and the same (narrowest) string kind, so equal strings hash
    and compare alike."""
    from smista.core._speedups import blank_code_spans
    from smista.core.conditions.view import _blank_code_spans

    got, want = blank_code_spans(text), _blank_code_spans(text)
    assert got == want
    assert max(map(ord, got), default=0) == max(map(ord, want), default=0)
    assert hash(got) == hash(want)


# One-byte texts long enough for several eight-character blocks, with every kind the
# compiled one-byte reader tells apart (Latin-1 whitespace and letters among them).
ONE_BYTE_TEXT = st.text(
    alphabet="aqzAZB09_./\\-:)@[]^`{ \t\n\x1c\x85\xa0\xe9\xc9\xb2\xd7", max_size=160
)


@compiled
@settings(max_examples=1500)
@given(ONE_BYTE_TEXT)
def test_one_byte_texts_blank_as_python_across_blocks(text: str) -> None:
    """The one-byte reader (eight characters at a time, only those that may make a trigger
    looked at) blanks exactly the pure blanker's spans, wherever a block boundary falls."""
    from smista.core._speedups import blank_code_spans
    from smista.core.conditions.view import _blank_code_spans

    for shift in range(8):
        shifted = "x" * shift + " " + text
        assert blank_code_spans(shifted) == _blank_code_spans(shifted)


@compiled
@settings(max_examples=500)
@given(st.text(alphabet=CODE_ALPHABET, max_size=40))
def test_non_ascii_is_the_python_one(text: str) -> None:
    """The compiled filter keeps exactly the characters the pure one keeps, in the same
    (narrowest) string kind."""
    from smista.core._speedups import non_ascii
    from smista.core.conditions.substrings import _non_ascii

    got, want = non_ascii(text), _non_ascii(text)
    assert got == want
    assert hash(got) == hash(want)


@compiled
def test_non_ascii_basics() -> None:
    from smista.core._speedups import non_ascii

    assert non_ascii("plain") == ""
    assert non_ascii("résumé 修正 ok 🙂") == "éé修正🙂"
    assert non_ascii("fix ñ") == "ñ"
    with pytest.raises(TypeError):
        non_ascii(b"x")  # type: ignore[arg-type]


@compiled
def test_blanked_code_spans_read_every_neighbour_as_python() -> None:
    """Each code point below U+0180 (in 1- and 2-byte texts) before and after each
    trigger: a word character or not exactly as the pure blanker reads it."""
    from smista.core._speedups import blank_code_spans
    from smista.core.conditions.view import _blank_code_spans

    for code in range(0x180):
        ch = chr(code)
        for trigger in ("/", "\\", ".", "_"):
            for text in (f"x {ch}{trigger}b y", f"x a{trigger}{ch} y", f"修 {ch}{trigger}{ch} 修"):
                assert blank_code_spans(text) == _blank_code_spans(text), (code, text)


@compiled
def test_blank_code_spans_basics() -> None:
    from smista.core._speedups import blank_code_spans

    text = "see src/app.py, fooBar and a.b? not ... or _x_"
    assert blank_code_spans(text) == "see  ,   and  ? not ... or _x_"
    assert blank_code_spans("") == ""
    kept = "plain words only"
    assert blank_code_spans(kept) is kept
    # a wide character only inside a span: the result is ASCII again
    assert blank_code_spans("fix 名前/path now") == "fix   now"
    assert blank_code_spans("fix 名前/path now").isascii()
    with pytest.raises(TypeError):
        blank_code_spans(b"x")  # type: ignore[arg-type]


_SIGN_ALPHABET = st.sampled_from(
    [*"`~:/wW.a ", "~~~", "://", "www.", "WWW.", "Www.", "é", "修", "🙂", "ww", "~~", ":/"]
)


@compiled
@settings(max_examples=1500)
@given(st.lists(_SIGN_ALPHABET, max_size=12).map("".join))
def test_code_signs_are_the_python_ones(text: str) -> None:
    """The compiled pass finds the code-block and URL signs the pure checks find, in
    every string kind (the signs may straddle the pieces drawn)."""
    from smista.core._speedups import code_signs
    from smista.core.conditions.view import _code_signs

    assert code_signs(text) == _code_signs(text)


@compiled
def test_code_signs_basics() -> None:
    from smista.core._speedups import code_signs

    assert code_signs("") == 0
    assert code_signs("fix the bug in ~/x, ~~ and :/ are not signs, nor Www.") == 0
    assert code_signs("run `ls`") == 1
    assert code_signs("~~~\ncode\n~~~ then 修正") == 1
    assert code_signs("see https://x.io 🙂") == 2
    assert code_signs("WWW.EXAMPLE.COM and ```x```") == 3
    with pytest.raises(TypeError):
        code_signs(b"x")  # type: ignore[arg-type]


_KEY_WORDS = st.sampled_from(["commit", "message", "git", "push", "修正", "é", "x"])


@compiled
@settings(max_examples=800)
@given(
    st.sets(_KEY_WORDS),
    st.lists(st.lists(_KEY_WORDS, min_size=1, max_size=3), max_size=8),
    st.booleans(),
)
def test_covered_keys_are_the_python_ones(
    present: set[str], phrases: list[list[str]], frozen: bool
) -> None:
    """The compiled phrases gate finds the keys the pure one finds, whichever side it
    iterates (a prompt's few present words, or a plan smaller than them)."""
    from smista.core._speedups import covered_keys
    from smista.core.conditions.phrases import covered_keys as pure

    plan = keys_by_word(frozenset(" ".join(words) for words in phrases), first=False)
    words: set[str] | frozenset[str] = frozenset(present) if frozen else present
    assert covered_keys(words, plan) == pure(words, plan)
    assert type(covered_keys(words, plan)) is frozenset


@compiled
def test_covered_keys_basics() -> None:
    from smista.core._speedups import covered_keys

    plan = keys_by_word(frozenset({"commit message", "git commit", "push"}), first=False)
    assert covered_keys(set(), plan) == frozenset()
    assert covered_keys({"commit"}, plan) == frozenset()
    assert covered_keys({"git", "commit", "message", "x"}, plan) == {"git commit", "commit message"}
    assert covered_keys(frozenset({"push"}), plan) == {"push"}
    with pytest.raises(TypeError, match="a set and a dict"):
        covered_keys(["push"], plan)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="plan values"):
        covered_keys({"push"}, {"push": ["push"]})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="plan values"):
        covered_keys({"push"}, {"push": (("push", ["push"]),)})  # type: ignore[dict-item]


# --- the sentence readings (MarkerTable) ------------------------------------------------

from smista.core.conditions import markers as _markers  # noqa: E402

_M = _markers.DEFAULT_MARKERS


def _marker_pieces(markers: _markers.Markers) -> list[str]:
    words = sorted(markers.question_words)
    openers = [" ".join(o) for o in (*markers.question_openers, *markers.request_openers)]
    fillers = [" ".join(o) for o in markers.fillers]
    endings = [e.strip() for e in (*markers.question_endings, *markers.request_endings)]
    return words + openers + fillers + endings


_PIECES = _marker_pieces(_M)
_MARKS = [
    *("?", "？", "¿", "!", "！", "。", ".", "..", "?!", "؟", ",", ";", ":", "，", "；", "："),
    *(" - ", " – ", " — ", "-", "\n", "\n\n", " \n ", "\t", "\u3000", "\u00a0", "\u2028"),
    *('"', "'", "”", "’", "»", ")", "]", "*", "`", "~", "_"),
    *("@workspace ", "@x", " @file.ts ", "/explain ", "/git:commit ", "/src/app.ts "),
]
_OTHER = [
    *("fix", "the", "bug", "Why", "HOW", "Can", "You", "please", "OK", "ok so", "it"),
    *("修正", "请问", "请", "帮我", "なぜ", "どう", "ですか", "してください", "くれますか"),
    *("왜", "어떻게", "해줘", "까요", "나요", "주세요", "ありがとう", "名前", "カタカナ"),
    *("почему", "Пожалуйста", "qué", "Est-ce", "yapabilir", "mısın", "İstanbul", "ß"),
    *("Σ", "ΣΑΣ", "é", "𝐀", "🙂", "٣", "12", "x_y", "a.b", "v1.2"),
]
_PIECE = st.one_of(
    st.sampled_from(_PIECES),
    st.sampled_from(_PIECES).map(str.upper),
    st.sampled_from(_PIECES).map(str.capitalize),
    st.sampled_from(_MARKS),
    st.sampled_from(_OTHER),
    st.text(alphabet=CODE_ALPHABET, max_size=6),
)
_SEP = st.sampled_from([" ", " ", " ", "", ", ", ". ", "? ", "\n", " - "])


@st.composite
def _prompts(draw: st.DrawFn, max_pieces: int = 24) -> str:
    pieces = draw(st.lists(st.tuples(_PIECE, _SEP), max_size=max_pieces))
    return "".join(p + s for p, s in pieces)


_LONG = st.lists(_prompts(), min_size=4, max_size=14).map("".join)


def _pure_is_question(text: str, markers: _markers.Markers) -> bool:
    """markers.is_question without the C table (the reference)."""
    return _markers._is_question(_markers._question_text(text), markers)


def _same_readings(text: str, markers: _markers.Markers) -> None:
    table = _markers._c_table(markers)
    assert table is not None
    assert _markers.is_question(text, markers) == _pure_is_question(text, markers)
    rest = _markers._question_text(text)
    got = table.is_question(rest, False)
    if got is not None:  # None only for a sentence it read holding U+03A3 (Python decides)
        assert got == _markers._is_question(rest, markers)
    else:
        assert "\u03a3" in rest
    whole = table.is_question(text, True)
    if whole is not None:
        assert whole == got
        assert "@" not in text
        assert "#" not in text
        assert not text.lstrip().startswith("/")
    for limit in (None, 0, 1, 4, 8, -1, -3, 1 << 40):
        want = _markers._content_tokens(text, markers, limit)
        assert _markers.content_tokens(text, markers, limit) == want


@compiled
@settings(max_examples=3000, deadline=None)
@given(_prompts())
def test_c_sentence_readings_are_the_python_ones(text: str) -> None:
    """is_question and content_tokens give the pure answers through the C table:
    marker words, openers and endings of several languages, every sentence and clause
    mark, mentions and commands, Han/Kana/Hangul, final sigma (Python decides)."""
    _same_readings(text, _M)


@compiled
@settings(max_examples=400, deadline=None)
@given(_LONG)
def test_c_sentence_readings_of_long_texts_are_the_python_ones(text: str) -> None:
    """Texts past the pure path's tail (256) and head (160) shortcuts."""
    _same_readings(text, _M)


_USER_WORDS = st.sampled_from(
    [*_PIECES[:: max(1, len(_PIECES) // 60)], *_OTHER, "请", "请问", "请问一下", "修", "か", "?"]
)


@st.composite
def _user_markers(draw: st.DrawFn) -> tuple[_markers.Markers, list[str]]:
    """A [classification.markers] table whose keys share a few entries (a word both
    a question word and a request opener, Han prefixes of several lengths), and
    prompts made of those entries and the marks."""
    pool = draw(st.lists(st.one_of(_USER_WORDS, _prompts(2)), min_size=1, max_size=8))
    pool = [i for i in pool if tokenize(i)] or ["please"]
    table: dict[str, list[str]] = {}
    for key in _markers.MARKER_KEYS:
        if draw(st.integers(0, 3)):
            items = draw(st.lists(st.sampled_from(pool), max_size=6))
            if key == "question_words":
                items = [i for i in items if len(tokenize(i)) == 1]
            table[key] = items
    piece = st.one_of(st.sampled_from(pool), st.sampled_from(_MARKS), _PIECE)
    texts = draw(st.lists(st.lists(st.tuples(piece, _SEP), max_size=16), min_size=1, max_size=4))
    return _markers.markers_from(table), ["".join(p + s for p, s in t) for t in texts]


@compiled
@settings(max_examples=1500, deadline=None)
@given(_user_markers())
def test_c_sentence_readings_follow_user_markers(
    drawn: tuple[_markers.Markers, list[str]],
) -> None:
    """The table is compiled from the Markers given, never the defaults."""
    markers, texts = drawn
    for text in texts:
        _same_readings(text, markers)


# Endings compare with a sentence's joined, lowercased tokens: last code points equal
# modulo 64 pass the C reader's first screen (p and 0, q and 1, k and ë), equal ones its
# array of last code points, and only the whole ending may then match (shop, stop).
_COLLIDING_ENDINGS = ("shop", "nr 10", "faq", "v1", "cafek", "okë", "ですか")
_NEAR_ENDINGS = ("stop", "top", "a10", "seq", "w1", "weak", "hë", "かか", "p", "0")


@compiled
def test_c_endings_whose_last_code_points_collide_are_read_as_in_python() -> None:
    """Endings whose last code points share the C reader's 64-bit screen, or its array of
    last code points, still need every character to match: each ending as a question and
    as a request ending, against every near text alone, after a word and before a mark."""
    texts = [*_COLLIDING_ENDINGS, *_NEAR_ENDINGS]
    for ending in _COLLIDING_ENDINGS:
        for key in ("question_endings", "request_endings"):
            markers = _markers.markers_from({key: [ending, "zz"]})
            for piece in texts:
                for shape in ("{}", "we {}", "{}?", "we {}. ok {}", "{} ,"):
                    _same_readings(shape.format(piece, piece), markers)


_TEMPLATES = (
    "{}",
    "{}?",
    "¿{}",
    "ok so {}",
    "{} the thing",
    "fix the long thing here and there and everywhere in the code base {}",
    "fix the long thing here and there and everywhere in the code base {}?",
    "修正 {} 名前",
    "{}, can you fix it",
    "it broke, {} fix it?",
    "the bug — {} the thing",
    "why does it fail? {}",
    "{}. why does it fail?",
    "{} {} {}",
)


@compiled
def test_c_sentence_readings_of_every_marker_are_the_python_ones() -> None:
    """Every default marker in a few sentence shapes: alone, marked, after fillers,
    at the end of a long sentence (where only the tail is read), in a clause."""
    for piece in _PIECES:
        for template in _TEMPLATES:
            text = template.format(piece, piece, piece)
            _same_readings(text, _M)
            _same_readings(text.upper(), _M)


def _real_prompts() -> list[str]:
    import json

    texts: list[str] = []
    for path in sorted((ROOT / "tests" / "data").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("text"), str):
                texts.append(record["text"])
    return texts


@compiled
def test_c_sentence_readings_of_every_real_prompt_are_the_python_ones() -> None:
    """Every text of the real prompt sets, raw and as a view sees it (code hidden)."""
    from smista.core.conditions.view import visible_text

    texts = _real_prompts()
    assert len(texts) > 3000
    for text in texts:
        _same_readings(text, _M)
        _same_readings(visible_text(text), _M)


def test_no_character_before_u2e80_is_in_a_script_without_spaces() -> None:
    """The C table asks the Python predicate only from U+2E80 on."""
    assert not any(_markers._no_space_script.__wrapped__(chr(c)) for c in range(0x2E80))
    assert _markers._no_space_script.__wrapped__("\u2e80")  # CJK RADICAL REPEAT


@compiled
def test_marker_table_basics() -> None:
    from smista.core._speedups import MarkerTable

    table = _markers._c_table(_M)
    assert isinstance(table, MarkerTable)
    assert _markers._c_table(_M) is table  # remembered per markers object
    assert table.is_question("why is this null? Fix it.", True) is False
    assert table.is_question("how do I fix this?", True) is True
    assert table.is_question("the date is wrong, can you fix that?", True) is False
    assert table.is_question("请问这是什么", True) is True
    assert table.is_question("修正してくれますか", True) is False
    assert table.is_question("", True) is False
    assert table.is_question("ΣΑΣ why?", True) is None  # final sigma: Python decides
    assert table.is_question("ΣΑΣ. fix it", True) is False  # a sentence it never reads
    assert table.is_question(" /explain why?", True) is None  # a command: Python splits it
    assert table.is_question("why @x?", True) is None  # a mention: Python blanks it
    assert table.is_question("why @x?", False) is True
    assert table.content("ok so can you fix the bug", 2, True) == ("fix", "the")
    assert table.content("hi", -1, True) == ()
    assert table.content("hi Σ", 3, True) is None
    assert table.content("hi fix it and the other ones too ΣΑΣ", 1, True) == ("fix",)
    assert table.content("/x fix", 1, True) is None
    assert table.content("/x fix", 1, False) == ("x",)
    assert table.content("fix @x", 1, False) is None
    assert table.content("ok fix it", (1 << 63) - 1, True) == ("fix", "it")
    assert table.content("ok fix it", 0, True) == ()
    # markers that are not Markers' own plain tuples take the Python path
    odd = _M._replace(fillers=(["hi"],))  # type: ignore[arg-type]
    assert _markers._c_table(odd) is None
    assert _markers.content_tokens("hi there", odd) == ("hi", "there")  # a list is no tuple
    with pytest.raises(TypeError):
        table.is_question(b"x", True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        MarkerTable((("a", 1),), (), (), (), (), (), (), (), len)  # type: ignore[arg-type]


def test_content_tokens_takes_an_int_like_limit_as_the_pure_path_does() -> None:
    """A limit that is not an ``int`` (a NumPy integer) is read by the Python path."""
    numpy = pytest.importorskip("numpy")
    from smista.core.conditions import markers as _markers

    text = "ok so fix the login bug"
    want = _markers._content_tokens(text, _markers.DEFAULT_MARKERS, 2)
    got = _markers.content_tokens(text, _markers.DEFAULT_MARKERS, numpy.int64(2))
    assert got == want == ("fix", "the")


@compiled
def test_a_marker_table_in_a_reference_cycle_is_collected() -> None:
    """The table's one Python reference, its no_space callable, is seen by the cycle
    collector: a table whose callable refers back to it is freed, not leaked."""
    import gc
    import weakref

    from smista.core._speedups import MarkerTable

    class Predicate:
        table: object = None

        def __call__(self, ch: str) -> bool:
            return ch == "\u3042"  # hiragana a: never asked here

    predicate = Predicate()
    table = MarkerTable((), (), (), (), (), (), (), (), predicate)
    predicate.table = table  # table -> predicate -> table
    assert gc.is_tracked(table)
    gone = weakref.ref(predicate)
    del predicate, table
    gc.collect()
    assert gone() is None


def _payload(
    *words: str, entries: tuple[object, ...] = (), stems: tuple[str, ...] = ()
) -> tuple[object, ...]:
    return (entries, tuple((w, False) for w in words), words, stems, None)


@compiled
def test_fold_folds_each_kept_payload_once_and_hands_back_the_rest() -> None:
    """fold() adds each known token's payload to the accumulators (entries once per
    payload, every word-hitting token to ``hitting``) and hands back unknown tokens,
    and tokens given codes by put() for Python to decide."""
    table = TokenCodes(1 << 10)
    entry = ((3, 0, 0, 1, None),)
    assert table.keep("fix", _payload(entries=entry))
    assert table.keep("the", _payload("the"))
    assert table.keep("teh", _payload("the"))  # the same payload as "the": stored once
    assert table.keep("überprüfe", ((), (("überprüfe", False),), ("überprüfe",), (), "überprüfe"))
    assert table.keep("refactoring", _payload(stems=("refactor",)))
    assert table.keep("zz", None)
    table.put("manual", 99)  # a code keep() never gave: handed back
    entries: list[tuple[object, ...]] = []
    words: set[str] = set()
    prefixes: set[str] = set()
    hitting: dict[str, object] = {}
    text = "FIX the teh fix überprüfe zz refactoring manual ÜBERPRÜFE new"
    unknown = table.fold(text, entries, words, prefixes, hitting)
    assert unknown == ["manual", "ÜBERPRÜFE", "new"]  # (another key: Python lowercases it)
    assert entries == [entry]
    assert words == {"the", "überprüfe"}
    assert prefixes == {"refactor"}
    assert hitting == {
        "the": (("the", False),),
        "teh": (("the", False),),
        "überprüfe": (("überprüfe", False),),
    }
    again: list[tuple[object, ...]] = []
    table.fold("fix fix", again, set(), set(), {})
    assert again == [entry]  # once per call, in every call


FOLD_WORDS = [f"w{i}" for i in range(80)] + ["x" * 20, "y" * 70, "shared", "shaerd"]


@compiled
@settings(max_examples=200)
@given(
    st.lists(st.sampled_from([*FOLD_WORDS, "zz", "unknownword"]), max_size=200),
    st.dictionaries(st.sampled_from(FOLD_WORDS), st.just((("held", True),)), max_size=4),
    st.sets(st.sampled_from(FOLD_WORDS)),
)
def test_fold_puts_every_hitting_token_in_hitting_however_often_it_occurs(
    words: list[str], held: dict[str, object], named: set[str]
) -> None:
    """Each hitting token is in ``hitting`` with its payload's hit, whether it occurs once
    or many times, among more distinct hitting tokens than fold() remembers putting (64),
    long or short, sharing a payload or not, its payload naming the token (``named``: put
    as kept, once per call) or not, in a dict that already held some (an earlier
    piece's): the same dict as one put per occurrence."""
    table = TokenCodes(1 << 10)
    for word in FOLD_WORDS:
        payload = _payload("shared" if word.startswith("sha") else word)
        if word in named:
            payload = (*payload[:4], word)
        assert table.keep(word, payload)
    assert table.keep("zz", None)
    hitting: dict[str, object] = dict(held)
    expected: dict[str, object] = dict(held)
    for word in words:
        if word in FOLD_WORDS:
            expected[word] = ((("shared" if word.startswith("sha") else word), False),)
    unknown = table.fold(" ".join(words).upper(), [], set(), set(), hitting)
    assert unknown == [w for w in words if w == "unknownword"]
    assert hitting == expected
    assert all(type(k) is str and k.isascii() for k in hitting)
    again: dict[str, object] = {}  # the next call puts them all again
    table.fold(" ".join(words), [], set(), set(), again)
    assert again == {k: v for k, v in expected.items() if k in words}


@compiled
def test_keep_stops_at_its_payload_limit_and_checks_payloads() -> None:
    """Past 32,768 distinct payloads keep() stores nothing (the token stays unknown);
    a payload of the wrong shape is a TypeError, never a crash."""
    table = TokenCodes(1 << 17)
    for i in range(1 << 15):
        assert table.keep(f"w{i}", _payload(f"w{i}"))
    assert table.keep("w0", _payload("w0"))  # a known payload is still kept
    assert not table.keep("overflow", _payload("overflow"))
    assert table.fold("overflow w1", [], set(), set(), {}) == ["overflow"]
    bad: object
    for bad in [(), ((), (), (), ()), ([], (), (), (), None), ((), (), (1,), (), None)]:
        with pytest.raises(TypeError):
            table.keep("x", bad)
    with pytest.raises(TypeError):
        table.fold("x", [], set(), [], {})  # type: ignore[call-overload]


@compiled
def test_attach_resolver_checks_its_tables_and_needs_the_variants_first() -> None:
    """attach_resolver() refuses tables of another shape (a TypeError naming what it takes)
    and a table without attached variants (a ValueError); it keeps copies of the place
    tables, so changing the caller's dicts afterwards changes nothing it reads."""
    from smista.core._speedups import TokenCodes, VariantIndex
    from smista.core.engine import RuleMatch

    def args(exact: Any = None, typo: Any = None, **changes: Any) -> list[Any]:
        given = {
            "exact": {"fix": ((0, 0, 0),)} if exact is None else exact,
            "typo": {"fix": ((0, 0, 0),)} if typo is None else typo,
            "word_exact": None,
            "word_typo": None,
            "keep": 64,
            "match_type": RuleMatch,
            "labels": ("edit",),
            "keywords": (("fix",),),
            "free": b"\x01",
        }
        given.update(changes)
        return list(given.values())

    table = TokenCodes(100)
    with pytest.raises(ValueError, match="attach\\(\\) the variants first"):
        table.attach_resolver(*args())
    table.attach(VariantIndex(["fix"], [1]), bytes([0, 0, 3, 3, 3]))
    bad = [
        args(exact={"fix": ((0, 0),)}),  # a place of two fields
        args(exact={"fix": [(0, 0, 0)]}),  # a list, not a tuple
        args(exact={1: ((0, 0, 0),)}),  # a key that is no str
        args(exact={"fix": ((0, 0, 1),)}),  # a rule past the last
        args(typo={"fix": ((0, 1, 0),)}),  # a keyword position past the rule's keywords
        args(exact={"fix": ((10**30, 0, 0),)}),  # an int past Py_ssize_t
        args(exact={"fix": ((-1, 0, 0),)}),  # a negative rank
        args(word_exact=frozenset()),  # one word set without the other
        args(word_exact={"a"}, word_typo={"a"}),  # sets, not frozensets
        args(keep="64"),
        args(match_type=dict),  # no tuple type
        args(labels=()),  # a label per rule
        args(free=b""),  # a flag per rule
        args(keywords=(["fix"],)),  # keyword tuples
    ]
    for wrong in bad:
        with pytest.raises(TypeError, match="attach_resolver\\(\\) takes"):
            table.attach_resolver(*wrong)
    exact: dict[str, Any] = {"fix": ((0, 0, 0),)}
    table.attach_resolver(*args(exact=exact))
    exact["fix"] = [1, 2, 3]  # (the caller's dict: the table holds its own copy)
    exact["fxi"] = ((5, 9, 9),)
    entries: list[Any] = []
    hitting: dict[str, Any] = {}
    assert table.fold("fix fxi", entries, set(), set(), hitting) == []
    assert table.resolved == 2
    assert entries == [
        ((0, 0, 0, 0, RuleMatch(0, "edit", "fix", False, None, ())),),
        ((0, 1, 0, 0, RuleMatch(0, "edit", "fix", True, None, ())),),
    ]


@compiled
def test_verifying_path_answers_alike_once_its_payload_table_is_full() -> None:
    """A matcher whose scan can keep no more payloads resolves the new tokens in Python
    every time: the same answers."""
    from smista.config.rulecache import load_rules
    from smista.core.engine import CompiledRules

    prompts = [
        "please fix the failing test in parser.py",
        "can you review this diff before I merge",
        "plan the migration to postgres, step by step",
        "refactorizar el módulo de pagos",
        "résume ce fichier",
        "what does this function do?",
        "implemnt the retry logic",
    ]
    shipped = load_rules(None)
    pure = CompiledRules(
        shipped.specs, shipped.default_label, options=shipped.options, accelerated=False
    )
    expected = [pure.match_text(p) for p in prompts]
    full = CompiledRules(shipped.specs, shipped.default_label, options=shipped.options)
    scan = full._scan
    assert scan is not None
    for i in range(1 << 15):
        scan.keep(f"junk{i}", _payload(f"junk{i}"))
    assert [full.match_text(p) for p in prompts] == expected
    assert [full.match_text(p) for p in prompts] == expected


SUB_ALPHABET = st.sampled_from(list("ab.c 修正读了\U0001f680İi̇"))


@compiled
@settings(max_examples=800)
@given(
    st.lists(st.text(alphabet=SUB_ALPHABET, min_size=1, max_size=4), max_size=8),
    st.text(alphabet=SUB_ALPHABET, max_size=40),
)
def test_substring_set_finds_what_in_finds(entries: list[str], text: str) -> None:
    """SubstringSet.find gives exactly the entries ``entry in text`` holds for, in the
    order given (one-character entries, repeats, overlaps, astral
    characters and every string kind alike)."""
    from smista.core._speedups import SubstringSet

    assert SubstringSet(entries).find(text) == [e for e in entries if e in text]


LATIN1_ALPHABET = st.sampled_from(list("abAB.c ÀàÉéÞþßÿ×÷µ修İΣσςДд\U00010400\U00010428"))


@compiled
@settings(max_examples=800)
@given(
    st.lists(st.text(alphabet=LATIN1_ALPHABET, min_size=1, max_size=4), max_size=8),
    st.text(alphabet=LATIN1_ALPHABET, max_size=40),
)
def test_substring_set_find_lower_is_find_of_lowered(entries: list[str], text: str) -> None:
    """find_lower reads a text lowercased as it goes: exactly find(text.lower()); it
    declines (None) a text holding U+0130 or U+03A3 (str.lower makes two characters of
    the one, and reads the other's neighbours). find on 1-byte texts filters by the first
    two characters themselves: still exactly ``entry in text``."""
    from smista.core._speedups import SubstringSet

    longer = [e for e in entries if len(e) > 1]  # (no one-character entry: the quick pass)
    for listed in (entries, longer):
        found = SubstringSet(listed)
        assert found.find(text) == [e for e in listed if e in text]
        lowered = found.find_lower(text)
        if "İ" in text or "Σ" in text:
            assert lowered is None
        else:
            assert lowered == [e for e in listed if e in text.lower()]


@compiled
@settings(max_examples=300)
@given(
    st.lists(st.sampled_from(list("abAB.c ÀàÉéÞþßÿ×÷µ\n")), min_size=1, max_size=14),
    st.lists(st.text(alphabet=LATIN1_ALPHABET, min_size=2, max_size=4), max_size=4),
    st.text(alphabet=st.sampled_from(list("abAB.c ÀàÉéÞþßÿ×÷µ\n")), max_size=40),
)
def test_substring_set_one_character_entries_in_a_1_byte_text(
    singles: list[str], longer: list[str], text: str
) -> None:
    """A 1-byte text with one-character entries below U+0100: up to eight are looked for
    with memchr, more send the scan over every pair; both ways, exactly ``entry in
    text`` (and in the lowered text)."""
    from smista.core._speedups import SubstringSet

    entries = [*singles, *longer]
    found = SubstringSet(entries)
    assert found.find(text) == [e for e in entries if e in text]
    assert found.find_lower(text) == [e for e in entries if e in text.lower()]


ASCII_SUB_ALPHABET = st.sampled_from(list("abzqAZ.- \n7"))


@compiled
@settings(max_examples=800)
@given(
    st.lists(st.text(alphabet=ASCII_SUB_ALPHABET, min_size=1, max_size=5), max_size=10),
    st.lists(st.text(alphabet=LATIN1_ALPHABET, min_size=1, max_size=3), max_size=2),
    st.text(alphabet=ASCII_SUB_ALPHABET, max_size=60),
)
def test_substring_set_anchor_search_of_an_ascii_text(
    entries: list[str], others: list[str], text: str
) -> None:
    """An ASCII text is searched by each ASCII entry's rarest character (memchr for it,
    and for its capital when read lowercased), when the anchors take at most eight
    passes; the pair scan otherwise. Either way, exactly ``entry in text`` (and in the
    lowered text): anchors at an entry's start, middle and end, entries with capitals,
    repeats and overlaps, with or without non-ASCII entries and one-character ones."""
    from smista.core._speedups import SubstringSet

    for listed in (entries, [*entries, *others], [e for e in entries if len(e) > 1]):
        found = SubstringSet(listed)
        assert found.find(text) == [e for e in listed if e in text]
        assert found.find_lower(text) == [e for e in listed if e in text.lower()]


@compiled
def test_substring_set_anchor_examples() -> None:
    """The anchor search at a text's edges, the same anchor in several entries, and sets
    the pair scan reads instead: one whose anchors take more than eight passes, and one
    with more than sixteen entries on one anchor."""
    from smista.core._speedups import SubstringSet

    shipped = [".clinerules", "agents.md", "claude.md", "git status", "terima kasih"]
    found = SubstringSet(shipped)
    assert found.find_lower("See AGENTS.md and CLAUDE.MD") == ["agents.md", "claude.md"]
    assert found.find_lower("agents.m") == []
    assert found.find_lower(".clinerules") == [".clinerules"]
    assert found.find_lower("Terima Kasih!") == ["terima kasih"]
    assert found.find("Git Status") == []
    shared = [f"a{i}-b" for i in range(40)]  # one anchor ('-') for forty: the pair scan
    assert SubstringSet(shared).find_lower("A3-B, a39-b and a4-c") == ["a3-b", "a39-b"]
    many = [f"{c}e" for c in "qzjxk"]  # five rare letters: ten passes read lowercased
    assert SubstringSet(many).find_lower("QE je Xe") == ["qe", "je", "xe"]
    assert SubstringSet(many).find("QE je Xe") == ["je"]


@compiled
def test_substring_set_find_lower_lowers_every_latin1_character() -> None:
    """Each code point below U+0100, upper or not, at a text's start and end and as a
    one-character entry: lowered as str.lower() does."""
    from smista.core._speedups import SubstringSet

    for code in range(0x100):
        ch = chr(code)
        low = ch.lower()
        # with one-character entries, and without (the quick pass over a 1-byte text)
        for entries in ([low, low + "z", "z" + low, ch, ch + "z"], [low + "z", "z" + low]):
            for text in (ch, ch + "z", "z" + ch, "Z" + ch + "Z", ch + "Z"):
                expected = [e for e in entries if e in text.lower()]
                assert SubstringSet(entries).find_lower(text) == expected, (code, text)
    with pytest.raises(TypeError):
        SubstringSet(["a"]).find_lower(b"a")  # type: ignore[arg-type]


@compiled
def test_substring_set_find_lower_lowers_latin1_in_a_wider_text() -> None:
    """Each code point up to U+0100 inside a text of a wider kind (2 and 4 bytes), as a
    one-character entry and in longer ones: lowered as str.lower() gives it (below U+0100
    from the Latin-1 table, in a text of any kind)."""
    from smista.core._speedups import SubstringSet

    for code in range(0x101):
        ch = chr(code)
        low = ch.lower()
        for wide in ("修", "\U00010400"):
            text = wide + ch + "Z" + ch
            entries = [low, low + "z", (wide + ch).lower(), low + "z" + low, ch + "Z"]
            expected = [e for e in entries if e in text.lower()]
            assert SubstringSet(entries).find_lower(text) == expected, (code, wide)


@compiled
def test_substring_set_find_lower_lowers_every_code_point_as_str_lower() -> None:
    """Every code point (surrogates aside) of every string kind, upper case or not, read
    lowercased by find_lower exactly as str.lower() gives it, in runs of 64 (the run
    lowered is the one entry, so one character read otherwise fails it); U+0130 and
    U+03A3 are declined."""
    from smista.core._speedups import SubstringSet

    for base in range(0, 0x110000, 64):
        run = "".join(
            chr(c)
            for c in range(base, base + 64)
            if not 0xD800 <= c <= 0xDFFF and c not in (0x130, 0x3A3)
        )
        if not run:
            continue
        assert SubstringSet([run.lower()]).find_lower(run) == [run.lower()], hex(base)
    for declined in ("İ", "Σ", "abcΣ", "x İ y"):
        assert SubstringSet(["a"]).find_lower(declined) is None


@compiled
def test_substring_set_checks_its_entries() -> None:
    from smista.core._speedups import SubstringSet

    assert SubstringSet([]).find("anything") == []
    assert len(SubstringSet(["ab", "c"])) == 2
    for bad in (["ok", ""], ["ok", 3]):
        with pytest.raises(TypeError):
            SubstringSet(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SubstringSet(["a"]).find(b"a")  # type: ignore[arg-type]


@compiled
@settings(max_examples=300)
@given(st.text(alphabet=SUB_ALPHABET, max_size=60))
def test_substrings_gate_is_the_pure_one(text: str) -> None:
    """The substrings gate through the compiled set finds the keys of the pure-Python
    plan walk (ASCII entries looked for, the others by their first non-ASCII
    character)."""
    from smista.core.conditions import substrings
    from smista.core.conditions.view import PromptView

    keys = frozenset({"claude.md", "git status", "修正", "读", "a.c", "İ", "b"})
    plan = substrings._plan(keys)
    view = PromptView(text)
    assert substrings.SUBSTRINGS.present(view, plan) == substrings._present(view.lowered, plan)


@compiled
@settings(max_examples=300)
@given(
    st.text(alphabet=st.sampled_from(list("claude.mdCLAUDE.MD GITSTUSÉéÀà修正读İ")), max_size=60)
)
def test_substrings_gate_reads_upper_case_text_lowered(text: str) -> None:
    """The substrings gate finds the keys of the pure plan walk on the lowered text
    whether the compiled set lowers a 1-byte text itself or is handed text.lower()."""
    from smista.core.conditions import substrings
    from smista.core.conditions.view import PromptView

    keys = frozenset({"claude.md", "git status", "修正", "读", "é", "àa", "a.c", "İ"})
    plan = substrings._plan(keys)
    view = PromptView(text)
    assert substrings.SUBSTRINGS.present(view, plan) == substrings._present(text.lower(), plan)
