"""The compiled engine's fast paths give exactly the readable matcher's answers.

The reference evaluates every rule in ``(priority, index)`` order with
:func:`smista.core.fuzzy.match_keyword`. Every fast path of :mod:`smista.core.engine` is
checked against it on random rule sets and prompts: the memo (warm and cold,
and forgetting when full), the compiled scan of :mod:`smista.core._speedups` (and
the pure-Python path without it; with its table forced to collide on every
key and to evict constantly), the deletion-neighbourhood typo index (in C
and in Python), the rapidfuzz length-band scans, the pure-Python OSA, rules
rebuilt from cache data, and huge texts matched piece by piece. Prompts mix
typos of the keywords with non-ASCII words and tokens that can never match
(numbers, hashes, very long words).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import OSA

from smista.core import engine
from smista.core.conditions.view import PlanOptions
from smista.core.engine import CompiledRules, RuleMatch, RuleSpec, osa_within
from smista.core.reference import match_rules
from smista.core.tokenizer import pieces as tokenizer_pieces
from smista.core.tokenizer import rust_lower, tokenize

LABELS = ("plan", "edit", "review")
CONTEXTS = ("git_diff", "active_file", "referenced_paths", "pull_request")
# A small alphabet makes typos, containment and shared deletion variants common.
LETTERS = "abcdeé"
SEPARATORS = (" ", "  ", "-", ", ", "\n", "_", "'", "🙂", "/")


words = st.text(alphabet=LETTERS, min_size=1, max_size=12)
keywords = st.one_of(
    words,
    words.map(str.upper),
    words.map(str.capitalize),
    st.text(alphabet=LETTERS + " -Σσİ", max_size=12),  # separators, sigma, dotted I
)
specs_strategy = st.lists(
    st.builds(
        RuleSpec,
        st.sampled_from(LABELS),
        st.integers(0, 4),  # few priorities: ties are common
        st.lists(keywords, max_size=5).map(tuple),
        st.lists(st.sampled_from(CONTEXTS), max_size=2).map(tuple),
        conditions=st.just(()),  # original-shaped rules: the mixed kinds are tested separately
        typo=st.booleans(),  # the typo switch changes the C index's caps
    ),
    max_size=8,
)


@st.composite
def edited(draw: st.DrawFn, word: str) -> str:
    """``word`` after zero to three random single edits (typos of every OSA kind)."""
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, max(0, len(word) - 1)))
        kind = draw(st.integers(0, 3))
        letter = draw(st.sampled_from(LETTERS))
        if kind == 0:
            word = word[:i] + letter + word[i + 1 :]
        elif kind == 1:
            word = word[:i] + letter + word[i:]
        elif kind == 2:
            word = word[:i] + word[i + 1 :]
        elif len(word) > i + 1:
            word = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word


@st.composite
def prompts(draw: st.DrawFn, specs: Sequence[RuleSpec]) -> str:
    pool = [k for s in specs for k in s.keywords if k] or ["abcde"]
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            word = draw(edited(draw(st.sampled_from(pool))))
            if draw(st.booleans()):
                word = word.upper()
            elif draw(st.booleans()):
                word = word + draw(words) if draw(st.booleans()) else draw(words) + word
        elif draw(st.integers(0, 4)) == 0:  # never memoized: can match no keyword
            word = draw(st.sampled_from(HOPELESS))
        else:
            word = draw(words)
        parts.append(word)
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


HOPELESS = ("12345", "deadbeef0042", "a" * 30, "É" * 20, "x1y2z3", "Ωμέγα", "İİİ")

contexts_strategy = st.frozensets(st.sampled_from(CONTEXTS))


ACCELERATION = [
    pytest.param(True, id="compiled"),
    pytest.param(False, id="pure-python"),
]


@pytest.mark.parametrize("accelerated", ACCELERATION)
@settings(max_examples=300)
@given(specs=specs_strategy, data=st.data())
def test_fast_path_matches_reference(
    accelerated: bool, specs: list[RuleSpec], data: st.DataObject
) -> None:
    """match_text/match agree with the reference, cold, warm and from cache data."""
    rules = CompiledRules(specs, "chat", accelerated=accelerated)
    assert rules.accelerated == (accelerated and engine.ACCELERATED)
    rebuilt = CompiledRules.from_data(rules.to_data())
    for _ in range(4):
        text = data.draw(prompts(specs))
        contexts = data.draw(contexts_strategy)
        expected = match_rules(specs, "chat", tokenize(text), contexts)
        assert rules.match_text(text, contexts) == expected
        assert rules.match_text(text, contexts) == expected  # memo warm
        assert rules.match(tokenize(text), contexts) == expected
        assert rebuilt.match_text(text, contexts) == expected
        if not contexts:
            assert rules.match_text(text) == expected
            if text.isascii():  # case never matters there
                assert rules.match_text(text.upper()) == expected


def _use_bands(rules: CompiledRules) -> None:
    rules._enable_bands()


def _use_python_index(rules: CompiledRules) -> None:
    rules._vindex = None  # the dict index (built on first use) instead of the C one


def _use_both(rules: CompiledRules) -> None:
    _use_bands(rules)  # bands chosen with the C index's costs (when it is there)


def _collide_and_evict(rules: CompiledRules) -> None:
    """The C table at its worst: every key hashes alike, three tokens held."""
    if rules._fast is not None:
        from smista.core._speedups import TokenCodes

        rules._fast = TokenCodes(
            3,
            max_len=max(1, rules._max_len),
            alphabet="".join(rules._alphabet),
            max_foreign=rules._max_cap,
            collide=True,
        )


needs_c = pytest.mark.skipif(not engine.ACCELERATED, reason="smista.core._speedups is not built")


@pytest.mark.parametrize(
    "switch",
    [
        pytest.param(_use_bands, id="rapidfuzz-bands"),
        pytest.param(_use_python_index, id="python-index", marks=needs_c),
        pytest.param(_use_both, id="bands-and-c-index", marks=needs_c),
        pytest.param(_collide_and_evict, id="colliding-evicting-table", marks=needs_c),
    ],
)
@settings(max_examples=150)
@given(specs=specs_strategy, data=st.data())
def test_typo_candidate_sources_match_reference(
    switch: Callable[[CompiledRules], None], specs: list[RuleSpec], data: st.DataObject
) -> None:
    """Typo candidates from the rapidfuzz length-band scans, the C or the Python
    deletion index, and a C table whose keys all collide, give the reference's answers."""
    rules = CompiledRules(specs, "chat")
    switch(rules)
    for _ in range(4):
        text = data.draw(prompts(specs))
        contexts = data.draw(contexts_strategy)
        assert rules.match_text(text, contexts) == match_rules(
            specs, "chat", tokenize(text), contexts
        )
        assert rules.match_text(text) == match_rules(specs, "chat", tokenize(text), ())


@pytest.mark.parametrize("accelerated", ACCELERATION)
@settings(max_examples=100)
@given(specs=specs_strategy, data=st.data())
def test_memo_restarts_and_pieces_match_reference(
    accelerated: bool, specs: list[RuleSpec], data: st.DataObject
) -> None:
    """A tiny memo (restarting constantly) and tiny pieces change no answer."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "MEMO_LIMIT", 2)
        patch.setattr(engine, "LARGE_TEXT", 7)
        rules = CompiledRules(specs, "chat", accelerated=accelerated)
        for _ in range(4):
            text = data.draw(prompts(specs))
            contexts = data.draw(contexts_strategy)
            expected = match_rules(specs, "chat", tokenize(text), contexts)
            assert rules.match_text(text, contexts) == expected
            assert rules.match_text(text) == match_rules(specs, "chat", tokenize(text), ())
            assert rules.match(tokenize(text), contexts) == expected
            assert rules.memo_size() <= 3
            if rules._fast is not None:
                assert len(rules._fast) <= 2


@settings(max_examples=500)
@given(
    a=st.text(alphabet="abcdé", max_size=14),
    b=st.text(alphabet="abcdé", max_size=14),
    cap=st.integers(0, 3),
)
def test_pure_python_osa_matches_rapidfuzz(a: str, b: str, cap: int) -> None:
    """osa_within is rapidfuzz's OSA distance with the same cutoff convention."""
    assert osa_within(a, b, cap) == OSA.distance(a, b, score_cutoff=cap)


def test_pieces_never_split_a_token() -> None:
    """Huge texts are cut at spaces or newlines only; all pieces join back."""
    text = "alpha beta\ngamma" * 50 + "x" * 40 + " tail"
    pieces = list(tokenizer_pieces(text, 16))
    assert len(pieces) > 1
    assert [t for p in pieces for t in tokenize(p)] == tokenize(text)


def test_large_text_uses_bounded_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many unique tokens never grow the memo past its limit."""
    monkeypatch.setattr(engine, "MEMO_LIMIT", 100)
    monkeypatch.setattr(engine, "LARGE_TEXT", 1000)
    rules = CompiledRules([RuleSpec("edit", 1, ("implement",), ())], "chat")
    text = " ".join(f"tok{i}" for i in range(5000)) + " implemnt"
    assert rules.match_text(text) == RuleMatch(0, "edit", "implement", True)
    assert rules.memo_size() <= 100


def test_cache_data_shape_is_checked() -> None:
    """from_data rebuilds what to_data gave and refuses any other shape."""
    rules = CompiledRules([RuleSpec("edit", 1, ("implement",), ())], "chat")
    data = rules.to_data()
    assert CompiledRules.from_data(data) == rules
    assert CompiledRules.from_data(data).match_text("implment") == rules.match_text("implment")
    with pytest.raises(ValueError, match="bad rule"):
        CompiledRules.from_data((*data[:2], (("edit", "1", (), (), (), True),), *data[3:]))
    with pytest.raises(ValueError, match="format"):
        CompiledRules.from_data((999, *data[1:]))
    with pytest.raises(ValueError, match="format"):
        CompiledRules.from_data((*data[:3], {}, *data[3:]))  # the typo index is no longer stored


def _slow_tokenize(text: str) -> list[str]:
    """Split on the generated alphanumeric ranges, then lowercase char by char."""
    from bisect import bisect_right

    from smista.core import _unicode_tables
    from smista.core.tokenizer import _class_ranges, _tables

    ranges = _class_ranges(_unicode_tables.ALNUM_CLASS)
    starts = [a for a, _ in ranges]

    def alnum(ch: str) -> bool:
        i = bisect_right(starts, ord(ch)) - 1
        return i >= 0 and ord(ch) <= ranges[i][1]

    tokens: list[str] = []
    current = ""
    for ch in text:
        if alnum(ch):
            current += ch
        elif current:
            tokens.append(current)
            current = ""
    if current:
        tokens.append(current)
    return [_tables()._rust_lower(t) for t in tokens]


INTERESTING = (
    "aZ09 -_.,'\n\t"  # ASCII letters, digits, separators
    "éÉßΣσςΑİıǅ"  # accents, sigma, dotted I, titlecase
    "\u0301\u0345\u093e\u05b0"  # combining marks, some Other_Alphabetic
    "Ⓐⓩ²½Ⅻ"  # circled letters, numbers
    "日本語コ한"  # CJK, kana, hangul
    "🙂🚀\U0001d400\U0001d41a\U00010d50\U00020000"  # emoji, math letters, new scripts, CJK ext B
    "\u1c89\ua7cb"  # lowercase mappings newer than this Python's tables
)


@settings(max_examples=1000)
@given(st.text(alphabet=INTERESTING, max_size=40))
def test_tokenizer_fast_paths_match_char_by_char(text: str) -> None:
    """ASCII translate, joined lowering and the astral handling agree with the slow path."""
    assert tokenize(text) == _slow_tokenize(text)


def test_compiled_rules_compare_by_value() -> None:
    """Equal specs, default and options are equal and hash alike; other types never equal."""
    spec = RuleSpec("edit", 1, ("implement",), ())
    one, two = CompiledRules([spec], "chat"), CompiledRules([spec], "chat")
    assert one == two
    assert hash(one) == hash(two)
    assert one != CompiledRules([spec], "plan")
    assert one != ("edit", "chat")


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda d: (d[0], 7, d[2], d[3]), "header"),
        (lambda d: (d[0], d[1], [d[2]], d[3]), "header"),
        (lambda d: (d[0], d[1], ((d[2][0][0], *d[2][0][1:5], "yes"),), d[3]), "bad rule"),
        (lambda d: (d[0], d[1], (d[2][0][:5],), d[3]), "bad rule"),
        (
            lambda d: (d[0], d[1], ((*d[2][0][:4], (("phrases", "x", False),), True),), d[3]),
            "condition",
        ),
        (
            lambda d: (d[0], d[1], ((*d[2][0][:4], (("keywords", ("x",), False),), True),), d[3]),
            "condition",
        ),
        (
            lambda d: (d[0], d[1], ((*d[2][0][:4], (("nope", ("x",), False),), True),), d[3]),
            "condition",
        ),
        (lambda d: (*d[:3], ("yes", False, d[3][2])), "options"),
        (lambda d: (*d[:3], (True, False)), "options"),
        (lambda d: (*d[:3], (*d[3][:2], (("nope", ()),))), "markers"),
        (lambda d: (*d[:3], (*d[3][:2], ((1, ()),))), "markers"),
        (lambda d: (*d[:3], (*d[3][:2], ((d[3][2][0][0], "x"),))), "markers"),
        (lambda d: (*d[:3], (*d[3][:2], ((d[3][2][0][0], (1,)),))), "markers"),
    ],
)
def test_compiled_data_fields_are_type_checked(
    mangle: Callable[[tuple[object, ...]], object], message: str
) -> None:
    """Every field of to_data's output is checked: a wrong one is a ValueError, never a crash."""
    rules = CompiledRules(
        [RuleSpec("edit", 1, ("implement",), ()), RuleSpec("plan", 2, (), ())], "chat"
    )
    data = rules.to_data()
    with pytest.raises(ValueError, match=message):
        CompiledRules.from_data(mangle(data))


def test_compiled_data_marker_values_are_type_checked() -> None:
    """Marker words come back as they went; a tuple marker holding a non-string is refused."""
    from smista.core.conditions.markers import DEFAULT_MARKERS
    from smista.core.conditions.view import PlanOptions

    opts = PlanOptions(True, True, DEFAULT_MARKERS)
    assert engine.options_from_data(engine.options_to_data(opts)) == opts
    ignore_code, han, markers = engine.options_to_data(opts)
    assert isinstance(markers, tuple)
    bad = tuple((n, (1,)) if n == "question_openers" else (n, v) for n, v in markers)
    with pytest.raises(ValueError, match="markers"):
        engine.options_from_data((ignore_code, han, bad))
    odd = PlanOptions(True, True, DEFAULT_MARKERS._replace(fillers=3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unexpected marker value 3"):
        engine.options_to_data(odd)


EXTENDED_TOML = """
[[classification.rules]]
intent = "plan"
phrases = ["write the plan"]

[[classification.rules]]
intent = "edit"
keywords = ["implement"]
leading = ["fix"]
"""


def _extended() -> CompiledRules:
    from smista.config.load import parse_config
    from smista.core.classifier import compile_rules

    rules = compile_rules(parse_config(EXTENDED_TOML))
    assert rules.extended
    return rules


@pytest.mark.parametrize(
    "text",
    [
        "please write the plan " + "filler " * 300,
        "fix " + " ".join(f"tok{i}" for i in range(400)),
        " ".join(f"tok{i}" for i in range(400)) + " implemnt it",
        "nothing here " * 200,
    ],
)
def test_extended_rules_decide_large_prompts_as_small_ones(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Above LARGE_TEXT the verifying path takes its bounded route; the answer is the same."""
    from smista.core.conditions import signals

    expected = _extended().match_text(text)
    monkeypatch.setattr(engine, "LARGE_TEXT", 100)
    assert _extended().match_text(text) == expected
    monkeypatch.setattr(signals, "SCAN_LIMIT", 100)  # the word/stem scan's own bound too
    assert _extended().match_text(text) == expected


def test_extended_word_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The phrase-word memo forgets its oldest quarter at its limit; answers do not change."""
    texts = [f"writ{i} the plan" for i in range(40)] + ["write the plan", "wrte the plan"]
    expected = [_extended().match_text(t) for t in texts]
    monkeypatch.setattr(engine, "MEMO_LIMIT", 8)
    rules = _extended()
    assert [rules.match_text(t) for t in texts] == expected
    assert len(rules._signals) <= 8


def _signal_cases(test: Callable[..., None]) -> Callable[..., None]:
    """The examples both resolution differentials draw (rules, looked-up words, stems,
    data), 200 of them."""
    cases = given(
        specs=specs_strategy,
        looked_up=st.lists(words, max_size=6),
        stems=st.lists(words, max_size=4),
        data=st.data(),
    )
    return settings(max_examples=200)(cases(test))


def _signal_rules_and_tokens(
    specs: list[RuleSpec], looked_up: list[str], stems: list[str], data: st.DataObject
) -> tuple[list[RuleSpec], PlanOptions, list[str]]:
    """``specs`` with a rule that looks up ``looked_up`` as leading words and holds
    ``stems`` (when there are any), options drawn for them, and new tokens to resolve: typos
    of their keywords, words and stems, other words, and hopeless tokens."""
    from smista.core.conditions.base import Condition

    extra = RuleSpec(
        "plan",
        2,
        (),
        (),
        (Condition("leading", tuple(looked_up), data.draw(st.booleans())),)
        + ((Condition("stems", tuple(stems)),) if stems else ()),
    )
    specs = [*specs, extra] if looked_up or stems else [*specs, extra._replace(conditions=())]
    options = PlanOptions(ignore_code=True, hangul_han_typos=data.draw(st.booleans()))
    pool = [k for s in specs for k in s.keywords if k] + looked_up + stems or ["abcde"]
    tokens = [data.draw(edited(data.draw(st.sampled_from(pool)))) for _ in range(6)]
    tokens += [data.draw(words) for _ in range(3)] + list(HOPELESS)
    return specs, options, tokens


@pytest.mark.skipif(not engine.ACCELERATED, reason="the verifying scan needs the C extension")
@_signal_cases
def test_a_new_token_resolves_as_its_entries_and_its_signals(
    specs: list[RuleSpec], looked_up: list[str], stems: list[str], data: st.DataObject
) -> None:
    """What the verifying scan resolves for a token it hands back (one check of the union
    index's typos for keywords and looked-up words) is the entries ``_learn`` gives and the
    words and stems ``TokenSignals.of`` gives, and both memos end alike."""
    specs, options, tokens = _signal_rules_and_tokens(specs, looked_up, stems, data)
    one = CompiledRules(specs, "chat", options=options)
    two = CompiledRules(specs, "chat", options=options)
    assert one.extended
    assert one._near is not None
    for raw in tokens + tokens:  # (the second time from the memos)
        token = rust_lower(raw)
        learned = two._learn((token,))
        expected = (learned[0] if learned else (), *two._signals.of(token))
        assert one._new_token(token) == expected
        assert one._state == two._state
        assert (one._signals.memo, one._signals.silent) == (two._signals.memo, two._signals.silent)


def _folded(rules: CompiledRules, text: str) -> tuple[object, ...]:
    """What one verifying scan of ``text`` folds (entries as each rule's best)."""
    scan = rules._scan
    assert scan is not None
    found: tuple[list[Any], set[str], set[str], dict[str, Any]] = ([], set(), set(), {})
    rules._scan_piece(text, scan, found)
    best: dict[int, Any] = {}
    rules._fold_entries(best, None, found[0])
    return best, found[1], found[2], found[3]


@pytest.mark.skipif(not engine.ACCELERATED, reason="the verifying scan needs the C extension")
@_signal_cases
def test_the_scan_resolves_new_tokens_as_python_does(
    specs: list[RuleSpec], looked_up: list[str], stems: list[str], data: st.DataObject
) -> None:
    """A verifying scan given the resolver's tables (``attach_resolver``) resolves the new
    tokens near a keyword or word in C: it folds what ``_resolve_new`` folds for them, the
    first time and once they are kept, and the answers are the pure path's."""
    specs, options, tokens = _signal_rules_and_tokens(specs, looked_up, stems, data)
    in_c = CompiledRules(specs, "chat", options=options)
    in_python = CompiledRules(specs, "chat", options=options)
    pure = CompiledRules(specs, "chat", options=options, accelerated=False)
    in_c._attach_resolver()
    text = " ".join(data.draw(st.permutations(tokens + tokens[:3])))
    assert in_c._scan is not None
    assert in_python._scan is not None
    for _ in range(2):  # (new, then kept)
        assert _folded(in_c, text) == _folded(in_python, text)
    fresh = CompiledRules(specs, "chat", options=options)
    fresh._attach_resolver()
    assert fresh.match_text(text) == pure.match_text(text)
    assert fresh.match_text(text) == pure.match_text(text)


@pytest.mark.skipif(not engine.ACCELERATED, reason="the verifying scan needs the C extension")
@pytest.mark.parametrize(
    ("keywords", "looked_up", "token"),
    [
        (("abcdef", "abcdeg"), (), "abcdef"),  # one rule: its exact keyword before its typo
        (("abcdeg", "abcdef"), (), "abcdef"),  # the same, the exact one listed second
        (("abcdefx", "bbcdefg"), (), "abcdefg"),  # two typos of one rule: the first listed
        (("bbcdefg", "abcdefx"), (), "abcdefg"),
        (("abcdef",), ("abcdex", "abcdey", "abcdez"), "abcdeq"),  # words hit in sorted order
        (("abcdef",), ("abcdez", "abcdey", "abcdex"), "abcdeq"),
        (("abcdef",), ("abcdef",), "abcdef"),  # a keyword that is a looked-up word too
        (("abcdez",), ("abcdex", "abcdez"), "abcdeq"),  # the union lists abcdez first
    ],
)
def test_the_scan_resolves_ties_as_python_does(
    keywords: tuple[str, ...], looked_up: tuple[str, ...], token: str
) -> None:
    """Where a new token hits several keywords of one rule, or several looked-up words, the
    scan keeps what Python keeps: each rule's best entry (exact before typo, then the
    keyword listed first) and the words in sorted order, whatever order they are listed in."""
    from smista.core.conditions.base import Condition

    specs = [
        RuleSpec("edit", 0, keywords, (), ()),
        RuleSpec(
            "plan", 1, ("zzzzzz",), (), (Condition("leading", looked_up or ("qqqqqq",), True),)
        ),
    ]
    options = PlanOptions(ignore_code=True)
    in_c = CompiledRules(specs, "chat", options=options)
    in_python = CompiledRules(specs, "chat", options=options)
    pure = CompiledRules(specs, "chat", options=options, accelerated=False)
    in_c._attach_resolver()
    assert _folded(in_c, token) == _folded(in_python, token)
    assert in_c._scan is not None
    assert in_c._scan.resolved == 1
    fresh = CompiledRules(specs, "chat", options=options)
    fresh._attach_resolver()
    assert fresh.match_text(token) == pure.match_text(token)


@pytest.mark.skipif(not engine.ACCELERATED, reason="the verifying scan needs the C extension")
def test_the_second_prompt_on_resolves_new_tokens_in_the_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From the second prompt (with the compiled walk) a typo of a keyword is resolved in
    the scan, in any script, never handed back to Python; one with a capital sigma (whose
    lowercase is Python's) still is."""
    rules = _extended()
    pure = CompiledRules(rules.specs, rules.default_label, accelerated=False, options=rules.options)
    handed: list[str] = []
    resolve_new = CompiledRules._resolve_new

    def spy(self: CompiledRules, unknown: list[str], *rest: Any) -> None:
        handed.extend(unknown)
        resolve_new(self, unknown, *rest)

    monkeypatch.setattr(CompiledRules, "_resolve_new", spy)
    assert rules._scan is not None
    assert rules.match_text("write the plan") == pure.match_text("write the plan")
    assert handed == ["write", "the", "plan"]  # (the first prompt: no tables yet)
    handed.clear()
    for text in ("implemnt it", "IMPLÉMNT it", "implementΣ it"):
        assert rules.match_text(text) == pure.match_text(text)
    assert rules._scan.resolved == 2
    assert handed == ["implementΣ"]  # (as written: Python lowercases it)


def test_a_token_handed_back_that_hits_nothing_is_kept_as_hitting_nothing() -> None:
    """A capital sigma's lowercasing is Python's, so the scan hands such a token back even
    near nothing; it is resolved once and kept as hitting nothing."""
    rules = _extended()
    pure = CompiledRules(rules.specs, rules.default_label, accelerated=False, options=rules.options)
    for text in ("ΟΔΥΣΣΕΥΣ wrote the plan", "ΟΔΥΣΣΕΥΣ implemnt it"):
        assert rules.match_text(text) == pure.match_text(text)
    if rules._scan is not None:
        assert rules._scan.get("ΟΔΥΣΣΕΥΣ") == -1


# -- gates read only when the candidates reach them ---------------------------------

_GATED_RULES = """
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "plan"
priority = 10
phrases = ["alpha beta"]

[[classification.rules]]
intent = "edit"
priority = 20
leading = ["fix"]

[[classification.rules]]
intent = "review"
priority = 30
phrases = ["gamma delta"]

[[classification.rules]]
intent = "skill"
priority = 40
keywords = ["deploy"]

[[classification.rules]]
intent = "summarize"
priority = 50
stems = ["refact"]
"""


@pytest.mark.parametrize(
    ("text", "rule", "stems_read"),
    [
        ("alpha beta, fix it and refactoring", 0, False),  # the first gate decides
        ("fix the gamma delta refactoring", 1, False),  # leading, before stems' first rule
        ("now gamma delta and refactoring", 2, False),  # a later rule of the first gate
        ("now deploy the refactoring", 3, False),  # a keyword hit between the gates
        ("now the refactoring", 4, True),  # nothing earlier holds: the stems gate is read
        ("nothing here", None, True),
    ],
)
def test_a_gate_is_read_only_when_the_candidates_reach_its_first_rule(
    monkeypatch: pytest.MonkeyPatch, text: str, rule: int | None, stems_read: bool
) -> None:
    from smista.config.load import parse_config
    from smista.core.classifier import Classifier
    from smista.core.conditions.registry import BY_KEY

    stems = BY_KEY["stems"]
    reads: list[str] = []
    real = type(stems).present

    def counted(view: object, plan: object) -> object:
        reads.append(text)
        return real(stems, view, plan)  # type: ignore[arg-type]

    monkeypatch.setattr(stems, "present", counted)
    result = Classifier(parse_config(_GATED_RULES, "gated.toml")).classify(text)
    assert result.matched_rule == rule
    assert bool(reads) is stems_read
