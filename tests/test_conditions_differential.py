"""Random configs mixing every condition kind: the engine against two references.

* :func:`smista.core.reference.match_rules`, rule by rule with each kind's own
  ``match`` (the semantics as the kinds state them);
* ``tests/reference.py``'s ``classify_extended``, the semantics restated
  plainly from docs/rules.md (wire JSON: intent, reason, confidence);
* the pure-Python path against the default (compiled) one.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smista.authoring.testing import configs, keywords, rules
from smista.core.classifier import Classifier, compile_rules
from smista.core.conditions.view import visible_text
from smista.core.engine import CompiledRules
from smista.core.reference import match_rules
from smista.core.rules import ClassificationConfig
from smista.core.tokenizer import tokenize
from tests import reference

WORDS = st.sampled_from(
    ["fix", "plan", "review", "commit", "message", "summary", "refactor", "deploy", "tests", "run"]
)
EXT_CONFIGS = configs(extensions=True, rule=rules(keyword=WORDS, extensions=True), max_rules=6)


def _config_dict(config: ClassificationConfig) -> dict[str, Any]:
    return config.model_dump(mode="json", exclude_none=True)


@st.composite
def prompts(draw: st.DrawFn, config: ClassificationConfig) -> str:
    """Prompts made of the config's own words, typos of them, and structure."""
    pool: list[str] = ["the", "it", "code", "src/app.py", "`inline`", "can", "you", "how"]
    starts = ["/run", "/ask", "/plan", "@agent", "hi,", "please", "$run", "$HOME", "$ x"]
    for rule in config.rules:
        for key in ("keywords", "leading", "phrases", "stems", "exclude", "substrings"):
            pool.extend(getattr(rule, key))
        pool.extend("/" + c for c in rule.commands if c != "*")
        # (a mention holds first only: the prompt's first part, written several ways)
        for m in (m.lstrip("!") for m in rule.mentions if m != "*"):
            starts.extend(["$" + m, " $" + m.title(), f"[${m}](skills/{m}/SKILL.md)"])
            starts.extend([f"[${m}]", f"${m}.", f"${m}:", f"${m}->x", f"${m}/a", f"${m}("])
        for entry in rule.lead_endings:  # words with each ending (3 characters before it
            # hold, 2 do not), and the excepted words
            pool.extend([entry[1:]] if entry.startswith("!") else ["abc" + entry, "ab" + entry])
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(starts)))
    for _ in range(draw(st.integers(0, 6))):
        word = draw(st.sampled_from(pool))
        if word and draw(st.integers(0, 4)) == 0:
            i = draw(st.integers(0, len(word) - 1))
            word = word[:i] + draw(st.sampled_from("aeiouxz")) + word[i + 1 :]
        parts.append(word)
    return " ".join(parts) + draw(st.sampled_from(["", "?", ".", " ?", "!"]))


@settings(max_examples=400, deadline=None)
@given(config=EXT_CONFIGS, data=st.data())
def test_mixed_kinds_match_both_references(
    config: ClassificationConfig, data: st.DataObject
) -> None:
    classifier = Classifier(config)
    rules = classifier.rules
    pure = CompiledRules(rules.specs, rules.default_label, accelerated=False, options=rules.options)
    rebuilt = CompiledRules.from_data(rules.to_data())
    plain = _config_dict(config)
    for _ in range(3):
        text = data.draw(prompts(config))
        contexts = data.draw(st.frozensets(st.sampled_from(["git_diff", "active_file"])))
        visible = visible_text(text) if rules.options.ignore_code else text
        expected = match_rules(
            rules.specs,
            rules.default_label,
            tokenize(visible),
            contexts,
            text=text,
            options=rules.options,
        )
        assert rules.match_text(text, contexts) == expected
        assert pure.match_text(text, contexts) == expected
        assert rebuilt.match_text(text, contexts) == expected
        got = classifier.classify(text, contexts=contexts).model_dump(
            mode="json", exclude_none=True
        )
        model = None if config.model is None or config.model.weights is None else config.model
        weights = None if model is None else model.weights.to_data()  # type: ignore[union-attr]
        assert got == reference.classify_extended(text, plain, set(contexts), weights)
        if not contexts:
            assert classifier.classify(text) == classifier.classify(text, contexts=contexts)


@settings(max_examples=200, deadline=None)
@given(config=configs(max_rules=6, extensions=True, rule=None), word=keywords(max_size=6))
def test_original_shaped_configs_are_not_extended(config: ClassificationConfig, word: str) -> None:
    """Dropping every extension key gives a rule set on the original's path."""
    original = ClassificationConfig(
        default_intent=config.default_intent,
        rules=tuple(
            type(r)(
                intent=r.intent,
                priority=r.priority,
                keywords=r.keywords,
                requires_any_context=r.requires_any_context,
            )
            for r in config.rules
        ),
    )
    assert not compile_rules(original).extended
    assert Classifier(original).classify(word).model_dump(
        mode="json", exclude_none=True
    ) == reference.classify(word, _config_dict(original), set())


# -- the word index agrees with plain matching ----------------------------------------

VOCAB = ["review", "revew", "the", "plan", "plna", "commit", "message", "mesage", "fix"]


def _hits(words: tuple[str, ...]) -> Any:
    from smista.core.conditions.words import word_match

    def hits(token: str) -> tuple[tuple[str, bool], ...]:
        found = ((w, word_match(w, token, typo=True)) for w in sorted(set(words)))
        return tuple((w, f) for w, f in found if f is not None)

    return hits


def _signals(words: tuple[str, ...], stems: tuple[str, ...] = (), limit: int = 1 << 10) -> Any:
    from smista.core.conditions.signals import TokenSignals

    return TokenSignals(_hits(words), lambda token: not token, stems, limit)


@given(
    st.lists(st.sampled_from(VOCAB), max_size=8).map(" ".join),
    st.lists(st.sampled_from(VOCAB), max_size=3).map(tuple),
    st.booleans(),
)
def test_indexed_phrase_and_lead_lookups_match_plain_ones(
    text: str, words: tuple[str, ...], typo: bool
) -> None:
    """find_in_view and the leading-word lookup give the plain scan's answer, typos included."""
    from smista.core.conditions.leading import _lead_in_view, leads_with
    from smista.core.conditions.phrases import find_in_view, find_sequence
    from smista.core.conditions.view import PromptView

    plain = PromptView(text)
    assert not plain.has_index
    indexed = PromptView(text, signals=_signals(words))
    expected = find_sequence(words, plain.tokens, typo=typo)
    assert find_in_view(words, plain, typo=typo) == expected
    assert find_in_view(words, indexed, typo=typo) == expected
    lead = leads_with(words, plain.content_head(len(words)), typo=typo)
    assert _lead_in_view(words, plain, typo=typo) == lead
    assert _lead_in_view(words, PromptView(text, signals=_signals(words)), typo=typo) == lead
    fresh = PromptView(text, signals=_signals(words))
    for pos, token in enumerate(fresh.tokens):
        for word in set(words):
            assert fresh.word_at(word, pos) == _word(word, token)


def _word(word: str, token: str) -> bool | None:
    from smista.core.conditions.words import word_match

    return word_match(word, token, typo=True)


@given(
    st.lists(st.sampled_from([*VOCAB, "reviewing", "planner", "1234", "x"]), max_size=10).map(
        " ".join
    ),
    st.lists(st.sampled_from(["rev", "pla", "com", "mes", "12", "zz"]), max_size=4).map(tuple),
    st.lists(st.sampled_from(VOCAB), max_size=3).map(tuple),
    st.integers(1, 3),
)
def test_the_signal_memo_gives_the_plain_prefix_and_word_answers(
    text: str, stems: tuple[str, ...], words: tuple[str, ...], limit: int
) -> None:
    """Stems and words found through a (tiny, so often evicting) shared memo agree with
    str.startswith and word_match, prompt after prompt."""
    from smista.core.conditions.view import PromptView

    shared = _signals(words, stems, limit)
    for _ in range(2):
        view = PromptView(text, signals=shared)
        tokens = set(tokenize(text))
        assert view.prefixes_of(frozenset(stems)) == {
            s for s in stems if any(t.startswith(s) for t in tokens)
        }
        for stem in ("re", *stems):
            assert view.has_prefix(stem) == any(t.startswith(stem) for t in tokens)
        assert view.present_words == {w for t in tokens for w, _ in _hits(words)(t)}
        assert len(shared) <= limit


@given(
    st.lists(st.text(alphabet="abé", min_size=1, max_size=6), max_size=8),
    st.lists(st.text(alphabet="abé", max_size=8), max_size=6),
)
def test_token_signals_find_every_stem_a_token_starts_with(
    stems: list[str], tokens: list[str]
) -> None:
    """The stems a token starts with, shortest first, are the stems it startswith (nested
    stems, stems of lengths with gaps between them, tokens shorter than every stem)."""
    signals = _signals((), tuple(stems))
    for token in tokens:
        expected = tuple(sorted((s for s in set(stems) if token.startswith(s)), key=len))
        assert signals.of(token)[1] == expected


def test_a_view_without_the_index_reads_prefixes_and_positions_plainly() -> None:
    """A plain view (no engine memo) answers stems with str.startswith and has no word
    positions, since words are only looked up through the index."""
    from smista.core.conditions.signals import TokenSignals
    from smista.core.conditions.view import PromptView

    plain = PromptView("reviewing the planner")
    assert plain.prefixes_of(frozenset({"revi", "plan", "zz"})) == {"revi", "plan"}
    assert plain.word_starts("review") == []
    assert plain.word_at("review", 0) is None
    # an index that holds other stems answers the ones it lacks plainly too
    indexed = PromptView("reviewing", signals=TokenSignals(None, None, ("plan",), 8))
    assert indexed.prefixes_of(frozenset({"rev"})) == {"rev"}
    assert indexed.present_stems == frozenset()
    assert indexed.present_words == frozenset()


@pytest.mark.parametrize("stem", ["a" * 256, "a" * 300, "é" * 260])
def test_a_stem_of_256_characters_or_more_is_matched_on_every_path(stem: str) -> None:
    """The verifying table indexes stems of at most 255 characters: a longer one must
    still be found (its token is too long for every keyword, and starts no short stem)."""
    config = ClassificationConfig.model_validate(
        {"rules": [{"intent": "edit", "keywords": ["fix"]}, {"intent": "plan", "stems": [stem]}]}
    )
    rules = Classifier(config).rules
    pure = CompiledRules(rules.specs, rules.default_label, accelerated=False, options=rules.options)
    for text in (stem, stem.upper() + "ing", "the " + stem + "x fox"):
        expected = match_rules(rules.specs, rules.default_label, tokenize(text), (), text=text)
        assert expected.label == "plan"
        assert pure.match_text(text) == expected
        assert rules.match_text(text) == expected


def _same_tables(built: CompiledRules, taken: CompiledRules) -> None:
    """Every derived slot equal, dicts in the same order, the word index's too."""
    from smista.core.engine import _DERIVED

    for name in _DERIVED:
        mine, theirs = getattr(built, name), getattr(taken, name)
        assert mine == theirs, name
        if isinstance(mine, dict):
            assert list(mine.items()) == list(theirs.items()), name
    words, taken_words = built._words, taken._words
    assert (words is None) == (taken_words is None)
    if words is not None and taken_words is not None:
        _same_tables(words, taken_words)


@settings(max_examples=150, deadline=None)
@given(config=EXT_CONFIGS, data=st.data())
def test_derived_tables_taken_back_give_the_same_rules(
    config: ClassificationConfig, data: st.DataObject
) -> None:
    """``derived=`` (the precompiled shipped pack's path) builds what deriving builds,
    and answers alike."""
    rules_built = compile_rules(config)
    taken = CompiledRules.from_data(rules_built.to_data(), rules_built.derived_data())
    _same_tables(rules_built, taken)
    for _ in range(5):
        text = data.draw(prompts(config))
        assert taken.match_text(text) == rules_built.match_text(text), text


def test_the_shipped_pack_takes_its_derived_tables_from_the_generated_module() -> None:
    """smista.config._default_pack.DERIVED is what the engine derives from DATA."""
    from smista.config import _default_pack

    _same_tables(
        CompiledRules.from_data(_default_pack.DATA),
        CompiledRules.from_data(_default_pack.DATA, _default_pack.DERIVED),
    )


def test_derived_tables_of_another_shape_are_refused() -> None:
    rules_built = compile_rules(ClassificationConfig.model_validate({"rules": []}))
    tables, words, words_derived = rules_built.derived_data()
    assert isinstance(tables, tuple)
    with pytest.raises(ValueError, match="another shape"):
        CompiledRules.from_data(rules_built.to_data(), (tables[:-1], words, words_derived))
