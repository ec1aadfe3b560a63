"""smista.authoring.testing: strategies respect the matcher; the checks catch what they claim."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.authoring.golden import GoldenCase, LabelledCase, load_cases
from smista.authoring.testing import (
    check_explicit_commands_win,
    check_no_unreachable_rules,
    check_typo_stability,
    configs,
    intents,
    keywords,
    one_edit_typos,
    prompts_with,
    rules,
    typo_of,
    workspaces,
)
from smista.config.defaults import default_config
from smista.core.classifier import Classifier
from smista.core.fuzzy import fuzzy_cap, match_keyword, osa_distance, token_match
from smista.core.intent import TaskIntent
from smista.core.rules import ClassificationConfig, ClassificationRule
from smista.core.tokenizer import tokenize
from smista.core.workspace import WORKSPACE_CONTEXT_KINDS, Workspace, context_kinds

ROOT = Path(__file__).resolve().parent.parent

long_keywords = keywords(min_size=5, max_size=14)


@given(keywords())
def test_keywords_are_single_tokens(keyword: str) -> None:
    """A generated keyword is exactly one token, so it can match as written."""
    assert tokenize(keyword) == [keyword]


@given(long_keywords.flatmap(lambda k: st.tuples(st.just(k), typo_of(k))))
def test_one_edit_typos_match_fuzzily(pair: tuple[str, str]) -> None:
    """typo_of(word) is one OSA edit away, never containment; the matcher accepts it."""
    word, typo = pair
    assert osa_distance(word, typo) == 1
    assert word not in typo
    assert typo not in word
    assert token_match(word, [typo]) is True
    assert match_keyword([word], tokenize(f"please {typo} now")) == (word, True)


@given(keywords(min_size=9, max_size=14).flatmap(lambda k: st.tuples(st.just(k), typo_of(k, 2))))
def test_two_edit_typos_of_long_keywords_match(pair: tuple[str, str]) -> None:
    """Keywords of 9+ characters accept exactly-two-edit typos."""
    word, typo = pair
    assert osa_distance(word, typo) == 2
    assert token_match(word, [typo]) is True


@pytest.mark.parametrize(("word", "edits"), [("fix", 1), ("plan", 1), ("review", 2), ("", 1)])
def test_typo_of_refuses_edits_beyond_the_cap(word: str, edits: int) -> None:
    """Short keywords have no typos, and the cap is never exceeded."""
    with pytest.raises(ValueError, match=r"typos|single token"):
        typo_of(word, edits)


@given(
    st.lists(keywords(min_size=3), min_size=1, max_size=3, unique=True).flatmap(
        lambda ws: st.tuples(st.just(ws), prompts_with(ws))
    )
)
def test_prompts_with_contain_every_word_as_a_token(
    pair: tuple[list[str], str],
) -> None:
    """Each requested word is a whole token of the prompt, whatever its case."""
    words, prompt = pair
    tokens = tokenize(prompt)
    assert all(w in tokens for w in words)


@given(prompts_with(["refactor"], avoid=["the", "code"]))
def test_prompts_with_keeps_avoided_words_out(prompt: str) -> None:
    """Fillers never match the words to avoid."""
    tokens = tokenize(prompt)
    assert "the" not in tokens
    assert "code" not in tokens
    assert "refactor" in tokens


@given(rules())
def test_generated_rules_are_valid_models(rule: ClassificationRule) -> None:
    """rules() builds validated rules with known context kinds."""
    assert ClassificationRule.model_validate(rule.model_dump()) == rule
    assert set(rule.requires_any_context) <= set(WORKSPACE_CONTEXT_KINDS)


@given(configs(), st.text(max_size=30), workspaces())
def test_generated_configs_classify_deterministically(
    config: ClassificationConfig, text: str, workspace: Workspace
) -> None:
    """Any generated config classifies any prompt the same way twice."""
    classifier = Classifier(config)
    first = classifier.classify(text, workspace=workspace)
    assert first == classifier.classify(text, contexts=context_kinds(workspace))


@given(intents(), configs(max_rules=4))
def test_explicit_intent_round_trip_in_generated_configs(
    intent: TaskIntent, config: ClassificationConfig
) -> None:
    """Explicit commands win in every generated config."""
    assert Classifier(config).classify("anything", command=intent).intent is intent


# -- the ready-made checks on the shipped pack --------------------------------


def test_default_pack_passes_every_ready_made_check() -> None:
    """The shipped pack: typo-stable golden cases, no unreachable rule, commands win."""
    config = default_config()
    cases = load_cases(ROOT / "rules" / "default.cases.toml")
    check_typo_stability(config, cases, max_examples=300)
    check_no_unreachable_rules(config)
    check_explicit_commands_win(config, max_examples=100)


# -- ...and on packs that break them ---------------------------------------------


def test_typo_stability_catches_a_colliding_earlier_keyword() -> None:
    """A typo of 'debug' equal to an earlier rule's keyword flips the intent."""
    config = ClassificationConfig(
        rules=(
            ClassificationRule(intent="chat", priority=1, keywords=("dbug", "deug", "debg")),
            ClassificationRule(intent="edit", priority=2, keywords=("debug",)),
        )
    )
    cases = [LabelledCase("c0", GoldenCase(text="debug it", intent="edit"))]
    with pytest.raises(AssertionError, match="misspelled"):
        check_typo_stability(config, cases, max_examples=300)


def test_typo_stability_finds_a_rare_collision_every_time() -> None:
    """Issue 15: 'etructure' (one edit from 'structure') is two from 'restructure'.

    Only 3 of the ~600 misspellings of 'structure' collide, so a random sample
    of them found it about one run in forty; the check now tries every one.
    """
    config = ClassificationConfig(
        rules=(
            ClassificationRule(intent="edit", priority=1, keywords=("restructure",)),
            ClassificationRule(intent="plan", priority=2, keywords=("structure",)),
        )
    )
    cases = [LabelledCase("c0", GoldenCase(text="structure the modules", intent="plan"))]
    with pytest.raises(AssertionError, match="misspelled as 'etructure'") as caught:
        check_typo_stability(config, cases)
    assert "'rtructure'" in str(caught.value)
    assert "'setructure'" in str(caught.value)


def test_typo_stability_leaves_the_order_to_decide_equally_near_typos() -> None:
    """'insect' is one edit from 'insert' and from 'inspect': ambiguous, not unstable."""
    config = ClassificationConfig(
        rules=(
            ClassificationRule(intent="review", priority=1, keywords=("inspect",)),
            ClassificationRule(intent="edit", priority=2, keywords=("insert",)),
        )
    )
    assert Classifier(config).classify("insect a row").intent is TaskIntent.REVIEW
    cases = [LabelledCase("c0", GoldenCase(text="insert a row", intent="edit"))]
    check_typo_stability(config, cases)


def test_one_edit_typos_is_every_typo_the_strategy_can_draw() -> None:
    """The exhaustive list: accepted by the matcher, deterministic, and complete."""
    typos = one_edit_typos("Debug")
    assert typos == sorted(set(typos))
    assert {"dbug", "debgu", "debog", "dxebug"} <= set(typos)
    assert "debugs" not in typos  # contains the word: a different word, not a typo
    for typo in typos:
        assert osa_distance("debug", typo) == 1
        assert token_match("debug", [typo]) is not None
    assert one_edit_typos("fix") == []


@given(st.data())
def test_typo_of_draws_only_listed_typos(data: st.DataObject) -> None:
    """Whatever typo_of draws at one edit is in one_edit_typos."""
    word = data.draw(st.sampled_from(["structure", "review", "refactor", "debug"]))
    assert data.draw(typo_of(word)) in one_edit_typos(word)


def test_typo_stability_skips_short_and_explicit_cases() -> None:
    """Cases decided by exact-only keywords or explicit commands are skipped."""
    config = ClassificationConfig(rules=(ClassificationRule(intent="edit", keywords=("fix",)),))
    cases = [
        LabelledCase("a", GoldenCase(text="fix it", intent="edit")),
        LabelledCase("b", GoldenCase(text="x", intent="plan", command="plan")),
    ]
    check_typo_stability(config, cases)


def test_unreachable_check_reports_shadowed_and_starved_rules() -> None:
    """A rule after a catch-all; a rule whose keywords all belong to earlier rules."""
    shadowed = ClassificationConfig(
        rules=(
            ClassificationRule(intent="chat", priority=1),
            ClassificationRule(intent="edit", priority=2, keywords=("fix",)),
        )
    )
    with pytest.raises(AssertionError, match="rule 1 is shadowed by rule 0"):
        check_no_unreachable_rules(shadowed)
    starved = ClassificationConfig(
        rules=(
            ClassificationRule(intent="plan", priority=1, keywords=("plan",)),
            ClassificationRule(intent="edit", priority=2, keywords=("fix",)),
            ClassificationRule(intent="review", priority=3, keywords=("plan", "fix")),
        )
    )
    with pytest.raises(AssertionError, match=r"rule 2 .review. wins on none"):
        check_no_unreachable_rules(starved)


def test_explicit_command_check_runs_on_generated_configs() -> None:
    """The command check holds for any rule set (explicit always wins by design)."""
    check_explicit_commands_win(ClassificationConfig(), max_examples=20)


def test_fuzzy_cap_table_used_by_the_strategies() -> None:
    """Sanity: the caps the strategies rely on (0/1/2 for <5/5-8/>=9)."""
    assert [fuzzy_cap(n) for n in (4, 5, 8, 9)] == [0, 1, 1, 2]


@pytest.mark.parametrize(
    ("config", "text", "intent"),
    [
        (
            ClassificationConfig(
                rules=(ClassificationRule(intent="skill", keywords=("automation",), typo=False),)
            ),
            "pause the automation",
            "skill",
        ),
        (
            ClassificationConfig.model_validate(
                {
                    "options": {"hangul_han_typos": False},
                    "rules": [{"intent": "review", "keywords": ["코드리뷰해줘"]}],
                }
            ),
            "코드리뷰해줘",
            "review",
        ),
    ],
)
def test_typo_stability_asks_nothing_of_keywords_that_never_match_by_typo(
    config: ClassificationConfig, text: str, intent: str
) -> None:
    """A keyword of a ``typo = false`` rule, or a Hangul/Han one under
    ``hangul_han_typos = false``, matches exactly only: its misspellings are not
    expected to keep the intent, so the case is not checked."""
    cases = [LabelledCase("c0", GoldenCase(text=text, intent=intent))]
    assert Classifier(config).classify(text).intent.value == intent
    check_typo_stability(config, cases)
    word = text.split()[-1]  # the keyword
    misspelled = text.replace(word, word[:2] + "x" + word[3:])
    assert Classifier(config).classify(misspelled).intent.value != intent  # exact only
