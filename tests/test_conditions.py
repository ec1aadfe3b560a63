"""Example tests for every condition kind: what holds, the reason it gives, its confidence."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smista.config.load import parse_config
from smista.core.classifier import Classifier, compile_rules
from smista.core.conditions.registry import BY_KEY, KINDS
from smista.core.rules import ClassificationRule


def classify(rules_toml: str, text: str, contexts: tuple[str, ...] = ()) -> tuple[str, str, str]:
    classifier = Classifier(parse_config("[classification]\n" + rules_toml))
    result = classifier.classify(text, contexts=contexts)
    assert result.confidence is not None
    return result.intent.value, result.reason, result.confidence.value


CASES = [
    # commands
    (
        '[[classification.rules]]\nintent="skill"\ncommands=["run"]\n',
        "/run pytest -x",
        ("skill", "command '/run' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\ncommands=["/Run"]\n',
        "  /RUN now",
        ("skill", "command '/run' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\ncommands=["*"]\n',
        "/git:commit all",
        ("skill", "command '/git:commit' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\ncommands=["run"]\n',
        "please /run it",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\ncommands=["run"]\n',
        "/runner go",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    # mentions: Codex's $name and [$name](path), at the start; shell variables never
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["deep-interview"]\n',
        "$Deep-Interview the onboarding flow",
        ("skill", "mention '$deep-interview' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["$deep-interview"]\n',
        "  [$deep-interview](/Users/me/My Projects/.codex/skills/deep-interview/SKILL.md) go",
        ("skill", "mention '$deep-interview' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
        "$team 3:executor run the plan",
        ("skill", "mention '$team' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
        "$HOME is not set in the container",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
        "$5 a month, or $ npm i?",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
        "please use $team here",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["team"]\n',
        "$teams go",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
        "/team go",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    *(
        (
            '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
            code,
            ("chat", "no rule matched; default intent 'chat'", "low"),
        )
        for code in ["$this->user is null", "$lib/utils fails", "$t('key') is raw", "$env:PATH x"]
    ),
    *(
        (
            '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
            code,
            ("chat", "no rule matched; default intent 'chat'", "low"),
        )
        # a variable assigned, compared or piped on its line is code
        for code in ["$hosts = Get-Content x", "$total += 1", "$x | Where-Object", "$a != $b"]
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
        "$review\n| file | issue |",
        ("skill", "mention '$review' matched rule 0", "medium"),
    ),
    *(
        (
            '[[classification.rules]]\nintent="skill"\nmentions=["*"]\n',
            code,
            ("chat", "no rule matched; default intent 'chat'", "low"),
        )
        # PowerShell comparisons, several variables assigned, redirects; a bracket with no
        # link; TeX math; a variable that is a sentence's subject
        for code in [
            "$files -ne $null",
            "$x -LIKE '*.txt'",
            "$x, $y = 1, 2",
            "$x; $y = 2",
            "$x > out.txt",
            "[$first] = explode(',', $csv)",
            "$n \\log n$ is too slow",
            "$name is undefined",
            "$response should be JSON",
            "$value doesn\u2019t change",
        ]
    ),
    *(
        (
            '[[classification.rules]]\nintent="skill"\nmentions=["deep-interview"]\n',
            text,
            ("skill", "mention '$deep-interview' matched rule 0", "medium"),
        )
        # a name is ASCII: a no-space script or full-width punctuation may follow it
        for text in [
            "$deep-interview帮我规划迁移",
            "$deep-interview，帮我规划",
            "$deep-interview <env>",
        ]
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*", "!State"]\n',
        "$state does not update",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="skill"\nmentions=["*", "!state"]\n',
        "$team: go!",
        ("skill", "mention '$team' matched rule 0", "medium"),
    ),
    # phrases: consecutive, typo per token, exact beats typo
    (
        '[[classification.rules]]\nintent="summarize"\nphrases=["commit message"]\n',
        "write a commit message",
        ("summarize", "phrase 'commit message' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="summarize"\nphrases=["commit message"]\n',
        "write a comit mesage",
        ("summarize", "phrase 'commit message' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="summarize"\nphrases=["commit message"]\ntypo=false\n',
        "write a commit mesage",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="summarize"\nphrases=["commit message"]\n',
        "message the commit",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    # a rule goes live only when every word of one of its phrases is hit (the gate)
    (
        '[[classification.rules]]\nintent="plan"\nphrases=["how should we", "the best approach"]\n',
        "the way we should go, how?",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="plan"\nphrases=["how should we", "the best approach"]\n',
        "what is the best approch",
        ("plan", "phrase 'the best approach' matched rule 0", "medium"),
    ),
    # leading words after greetings, mentions and fillers
    (
        '[[classification.rules]]\nintent="edit"\nleading=["add"]\n',
        "Add a button",
        ("edit", "leading word 'add' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nleading=["add"]\n',
        "hi @bot, please add a test",
        ("edit", "leading word 'add' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nleading=["add"]\n',
        "we should add a test",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nleading=["build a"]\n',
        "build a todo app",
        ("edit", "leading word 'build a' matched rule 0", "medium"),
    ),
    # leading "*": any first content word, no confidence signal of its own
    (
        '[[classification.rules]]\nintent="edit"\nleading=["*"]\n',
        "ok, the page is blank",
        ("edit", "a content word matched rule 0", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nleading=["*"]\n',
        "ok thanks!",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nleading=["*"]\n',
        "@bot /ask hi",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nleading=["add", "*"]\n',
        "please add a test",
        ("edit", "leading word 'add' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nleading=["*"]\nkeywords=["test"]\n',
        "please add a test",
        ("edit", "keyword 'test' and a content word matched rule 0", "medium"),
    ),
    # question
    (
        '[[classification.rules]]\nintent="chat"\nquestion=true\n',
        "how does the cache work?",
        ("chat", "question matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="chat"\nquestion=true\n',
        "can you fix the login bug?",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nquestion=false\nkeywords=["fix"]\n',
        "can you fix the login bug?",
        ("edit", "keyword 'fix' and no question matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="chat"\nquestion=true\nkeywords=["cache"]\n',
        "why is the cache slow?",
        ("chat", "keyword 'cache' and question matched rule 0", "high"),
    ),
    # stems
    (
        '[[classification.rules]]\nintent="edit"\nstems=["исправ"]\n',
        "Исправь ошибку",
        ("edit", "stem 'исправ' matched rule 0", "medium"),
    ),
    # lead_endings: the first content word's ending, past three characters
    (
        '[[classification.rules]]\nintent="edit"\nlead_endings=["ь", "и"]\n',
        "Отрефакторь плохой код",
        ("edit", "leading word ending 'ь' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nlead_endings=["ь", "и"]\n',
        "Привет! Пожалуйста, найди уязвимости",
        ("edit", "leading word ending 'и' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nlead_endings=["и"]\n',
        "мои файлы пропали",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nlead_endings=["и", "!если"]\n',
        "Если посмотреть на пример, найди ошибку",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nlead_endings=["ь"]\n',
        "код: исправь",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    # substrings (scripts without spaces)
    (
        '[[classification.rules]]\nintent="edit"\nsubstrings=["修正"]\n',
        "このバグを修正してください",
        ("edit", "substring '修正' matched rule 0", "medium"),
    ),
    # exclude vetoes; no reason part, no signal
    (
        '[[classification.rules]]\nintent="edit"\nkeywords=["write"]\nexclude=["don\'t write code"]\n',
        "don't write code yet, propose a plan",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nkeywords=["write"]\nexclude=["test"]\n',
        "write the parser",
        ("edit", "keyword 'write' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nexclude=["test"]\n',
        "write the parser",
        ("edit", "rule 0 matched: none of its exclusions occur", "low"),
    ),
    # exclude_substrings vetoes on the raw lowercased text (paths and code included)
    (
        "[classification.options]\nignore_code=true\n"
        '[[classification.rules]]\nintent="prompt"\nsubstrings=["agents.md"]\n'
        'exclude_substrings=["Read AGENTS.md"]\n',
        "read agents.md first, then fix the login bug",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    (
        '[[classification.rules]]\nintent="prompt"\nsubstrings=["agents.md"]\n'
        'exclude_substrings=["read agents.md"]\n',
        "Update AGENTS.md with the build steps",
        ("prompt", "substring 'agents.md' matched rule 0", "medium"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nexclude_substrings=["根据"]\n',
        "修正这个错误",
        ("edit", "rule 0 matched: none of its exclusions occur", "low"),
    ),
    (
        '[[classification.rules]]\nintent="edit"\nexclude_substrings=["根据"]\n',
        "根据 @CLAUDE.md 修正这个错误",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
    # contexts and extension kinds together: high unless a typo
    (
        '[[classification.rules]]\nintent="review"\nleading=["review"]\nrequires_any_context=["git_diff"]\n',
        "review my change",
        ("chat", "no rule matched; default intent 'chat'", "low"),
    ),
]


@pytest.mark.parametrize(("rules_toml", "text", "expected"), CASES)
def test_kind_examples(rules_toml: str, text: str, expected: tuple[str, str, str]) -> None:
    assert classify(rules_toml, text) == expected


def test_context_with_extension_kind_is_high() -> None:
    toml = '[[classification.rules]]\nintent="review"\nleading=["review"]\nrequires_any_context=["git_diff"]\n'
    assert classify(toml, "review my change", ("git_diff",)) == (
        "review",
        "leading word 'review' and context 'git_diff' matched rule 0",
        "high",
    )
    assert classify(toml, "reviw my change", ("git_diff",))[2] == "medium"  # a typo


def test_typo_switch_applies_to_keywords() -> None:
    on = '[[classification.rules]]\nintent="edit"\nkeywords=["refactor"]\n'
    off = on + "typo=false\n"
    assert classify(on, "refactr it")[0] == "edit"
    assert classify(off, "refactr it")[0] == "chat"
    assert classify(off, "refactor it")[0] == "edit"


def test_hangul_han_keyword_typos_only_when_allowed() -> None:
    rules = '[[classification.rules]]\nintent="review"\nkeywords=["평가해주세요"]\n'
    # 평가 and 추가 are one edit apart: with the option off, no typo match
    assert classify(rules, "추가해주세요")[0] == "review"  # the original's behaviour
    off = "[classification.options]\nhangul_han_typos=false\n" + rules
    assert classify(off, "추가해주세요")[0] == "chat"
    assert classify(off, "평가해주세요")[0] == "review"


def test_ignore_code_hides_paths_identifiers_and_code() -> None:
    rules = (
        "[classification.options]\nignore_code=true\n"
        '[[classification.rules]]\nintent="prompt"\nkeywords=["prompt"]\n'
    )
    assert classify(rules, "update prompt_history.md with today")[0] == "chat"
    assert classify(rules, "see https://x.dev/prompt for details")[0] == "chat"
    assert classify(rules, "run `prompt --help`")[0] == "chat"
    assert classify(rules, "```\nprompt = 1\n```\nwhy?")[0] == "chat"
    assert classify(rules, "improve this prompt")[0] == "prompt"
    plain = '[[classification.rules]]\nintent="prompt"\nkeywords=["prompt"]\n'
    assert classify(plain, "update prompt_history.md")[0] == "prompt"  # the original's


def test_original_shaped_files_take_the_original_path() -> None:
    config = parse_config(
        '[classification]\n[[classification.rules]]\nintent="edit"\nkeywords=["fix"]\n'
    )
    assert not compile_rules(config).extended
    assert config.rules[0].model_dump(exclude_defaults=True) == {
        "intent": "edit",
        "keywords": ("fix",),
    }


def test_rule_model_fields_are_the_registered_kinds() -> None:
    assert list(ClassificationRule.model_fields) == [
        "intent",
        "priority",
        *(kind.key for kind in KINDS),
        "typo",
    ]
    assert set(BY_KEY) == {kind.key for kind in KINDS}


def test_typing_mirror_matches_the_registry() -> None:
    """rules.py declares the kinds' keys for type checkers; they must agree."""
    source = Path(__file__).parents[1] / "smista" / "core" / "rules.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    base = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_RuleBase")
    block = next(n for n in base.body if isinstance(n, ast.If))
    names = [
        n.target.id
        for n in block.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    ]
    assert names == list(ClassificationRule.model_fields)


def test_unknown_rule_key_lists_every_kind() -> None:
    from smista.core.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        parse_config('[classification]\n[[classification.rules]]\nintent="edit"\nphrase=["x"]\n')
    assert "phrases" in str(err.value)
    assert "classification.rules[0].phrase" in str(err.value)


def test_wrong_types_name_key_path() -> None:
    from smista.core.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        parse_config('[classification]\n[[classification.rules]]\nintent="edit"\nquestion="yes"\n')
    assert "classification.rules[0].question" in str(err.value)
    assert "expected a boolean" in str(err.value)
    with pytest.raises(ConfigError) as err:
        parse_config("[classification]\n[classification.options]\nignore_cod=true\n")
    assert "classification.options.ignore_cod" in str(err.value)


def _lints(rules_toml: str) -> list[tuple[str, str]]:
    from smista.authoring.lints import lint_classification

    config = parse_config("[classification]\n" + rules_toml)
    return [(lint.code, lint.key) for lint in lint_classification(config)]


def test_lints_of_the_extension_kinds() -> None:
    found = _lints(
        '[[classification.rules]]\nintent="summarize"\nphrases=["commit message", "recap"]\n'
        '[[classification.rules]]\nintent="skill"\nphrases=["commit  message"]\n'
        '[[classification.rules]]\nintent="edit"\nstems=["fi", "fix"]\nsubstrings=["ab"]\n'
        '[[classification.rules]]\nintent="edit"\ncommands=["run", "/RUN"]\n'
    )
    assert ("one-word-phrase", "classification.rules[0].phrases[1]") in found
    assert ("shared-phrases", "classification.rules[1].phrases[0]") in found
    assert ("short-stem", "classification.rules[2].stems[0]") in found
    assert ("short-substring", "classification.rules[2].substrings[0]") in found
    assert ("duplicate-commands", "classification.rules[3].commands[1]") in found


def test_unreachable_accounts_for_extension_conditions() -> None:
    # the earlier rule needs a question as well: it does not cover the later one
    assert not any(
        code == "unreachable-rule"
        for code, _ in _lints(
            '[[classification.rules]]\nintent="chat"\nkeywords=["cache"]\nquestion=true\n'
            '[[classification.rules]]\nintent="edit"\nkeywords=["cache"]\n'
        )
    )
    # the same condition and a superset of keywords: covered
    assert ("unreachable-rule", "classification.rules[1]") in _lints(
        '[[classification.rules]]\nintent="chat"\nkeywords=["cache", "db"]\nquestion=true\n'
        '[[classification.rules]]\nintent="edit"\nkeywords=["cache"]\nquestion=true\n'
    )
    # an exclusion makes the earlier rule narrower
    assert not any(
        code == "unreachable-rule"
        for code, _ in _lints(
            '[[classification.rules]]\nintent="chat"\nkeywords=["cache"]\nexclude=["fix"]\n'
            '[[classification.rules]]\nintent="edit"\nkeywords=["cache"]\n'
        )
    )


def test_a_leading_wildcard_covers_any_leading_list_and_is_never_shared() -> None:
    found = _lints(
        '[[classification.rules]]\nintent="edit"\nleading=["*"]\n'
        '[[classification.rules]]\nintent="plan"\nleading=["plan"]\n'
        '[[classification.rules]]\nintent="chat"\nleading=[" * "]\nkeywords=["x"]\n'
    )
    assert ("unreachable-rule", "classification.rules[1]") in found
    assert not any(code == "shared-leading" or code.startswith("empty") for code, _ in found)
    # a rule with no leading condition also holds on prompts without content words
    assert not any(
        code == "unreachable-rule"
        for code, _ in _lints(
            '[[classification.rules]]\nintent="edit"\nleading=["*"]\n'
            '[[classification.rules]]\nintent="chat"\nkeywords=["hi"]\n'
        )
    )


def test_a_leading_wildcard_rule_has_no_gate_and_is_reachable() -> None:
    from smista.authoring.testing import check_no_unreachable_rules
    from smista.core.conditions.leading import LEADING

    config = parse_config(
        "[classification]\n"
        '[[classification.rules]]\nintent="chat"\nleading=["list"]\n'
        '[[classification.rules]]\nintent="edit"\nleading=["*"]\nquestion=false\n'
    )
    check_no_unreachable_rules(config)
    # with a leading-word ending, the ending's witness word is the content word
    check_no_unreachable_rules(
        parse_config(
            '[classification]\n[[classification.rules]]\nintent="edit"\nleading=["*"]\n'
            'lead_endings=["й"]\n'
        )
    )
    wildcard = LEADING.compile([" * ", "add"], typo=True)
    assert wildcard.values == ("*", "add")
    assert LEADING.gate(wildcard) is None  # the rule is tried on every prompt
    assert LEADING.gate(LEADING.compile(["add"], typo=True)) == frozenset({"add"})


def test_unreachable_check_builds_prompts_from_every_kind() -> None:
    from smista.authoring.testing import check_no_unreachable_rules

    config = parse_config(
        "[classification]\n"
        '[[classification.rules]]\nintent="skill"\ncommands=["run"]\n'
        '[[classification.rules]]\nintent="edit"\nleading=["add"]\nquestion=false\n'
        '[[classification.rules]]\nintent="chat"\nphrases=["best way"]\nquestion=true\n'
    )
    check_no_unreachable_rules(config)
    shadowed = parse_config(
        "[classification]\n"
        '[[classification.rules]]\nintent="chat"\nquestion=true\n'
        '[[classification.rules]]\nintent="plan"\nphrases=["best way"]\nquestion=true\n'
    )
    with pytest.raises(AssertionError, match="rule 1"):
        check_no_unreachable_rules(shadowed)


def test_ignore_code_keeps_sentence_punctuation_and_substrings_see_raw_text() -> None:
    from smista.core.conditions.view import visible_text

    assert visible_text("what is in config.yaml?").rstrip().endswith("?")
    assert "src" not in visible_text("(see src/app.py).")
    assert visible_text("(see src/app.py).").rstrip().endswith(").")
    rules = (
        "[classification.options]\nignore_code=true\n"
        '[[classification.rules]]\nintent="chat"\nquestion=true\n'
        '[[classification.rules]]\nintent="prompt"\nsubstrings=["claude.md"]\n'
    )
    assert classify(rules, "what is in config.yaml?")[0] == "chat"
    assert classify(rules, "update CLAUDE.md with the new commands")[0] == "prompt"


@given(
    st.lists(
        st.sampled_from(
            [
                "fix",
                "src/app.py",
                "a/",
                "/b",
                "x_y",
                "_z",
                "e.g.",
                "config.yaml?",
                "camelCase",
                "ok.",
                "(see",
                "it).",
                "ü.ß",
                "İ_x",
                "\n",
                "  ",
                "..",
                "a.b.c,",
                "\\win",
                "naïveTest",
            ]
        ),
        max_size=20,
    ),
    st.text(max_size=20),
)
def test_visible_text_blanks_exactly_the_readable_code_runs(words: list[str], noise: str) -> None:
    """The fast scan blanks the same runs as the readable regex (_code_run)."""
    from smista.core.conditions import view

    text = " ".join(words) + noise
    plain = text
    if "`" in plain or "~~~" in plain:
        plain = view._inline().sub(" ", view._fenced().sub(" ", plain))
    plain = view._code_run().sub(" ", view._url().sub(" ", plain))
    assert view.visible_text(text) == plain


def test_a_kind_must_say_what_the_base_leaves_open() -> None:
    """A kind that forgets its type, compiler, semantics, gate test or strategy fails loudly."""
    from hypothesis import strategies as hst

    from smista.core.conditions.base import Condition, ConditionKind
    from smista.core.conditions.view import PromptView

    class Bare(ConditionKind):
        key = "bare"
        default = ()

    kind, condition, view = Bare(), Condition("bare", ("x",), False), PromptView("x")
    for call in (
        kind.annotation,
        lambda: kind.compile(("x",), typo=False),
        lambda: kind.match(condition, view),
        lambda: kind.trace(condition, view),
        lambda: kind.present(view, frozenset({"x"})),
        lambda: kind.strategy(hst.just("x")),
    ):
        with pytest.raises(NotImplementedError):
            call()


@pytest.mark.parametrize(
    ("key", "entry"),
    [
        ("stems", ""),
        ("phrases", "  "),
        ("commands", "/"),
        ("mentions", "$"),
        ("substrings", ""),
        ("exclude", ""),
        ("exclude_substrings", ""),
    ],
)
def test_an_empty_list_entry_is_an_error_lint(key: str, entry: str) -> None:
    """An entry that normalizes to nothing never matches: check says so, as an error."""
    config = parse_config(f"[[classification.rules]]\nintent = 'edit'\n{key} = [{entry!r}]\n")
    (lint,) = BY_KEY[key].lints(config.rules, frozenset())
    assert (lint.code, lint.severity, lint.key) == (
        f"empty-{key}",
        "error",
        f"classification.rules[0].{key}[0]",
    )


def test_a_stem_holding_a_separator_is_unmatchable() -> None:
    """No token starts with a stem that holds a separator: an error lint."""
    config = parse_config("[[classification.rules]]\nintent = 'edit'\nstems = ['re-fact']\n")
    codes = [lint.code for lint in BY_KEY["stems"].lints(config.rules, frozenset())]
    assert codes == ["unmatchable-stem"]


@pytest.mark.parametrize(
    ("entries", "codes"),
    [
        ('["и", "!"]', ["empty-lead_endings"]),
        ('["и", "!на-ши"]', ["unmatchable-lead_endings"]),
        ('["и", "a b"]', ["unmatchable-lead_endings"]),
        ('["и", "!также"]', ["idle-lead_endings"]),
        ('["!найди"]', ["no-lead_endings"]),
        ('["и", "и"]', ["duplicate-lead_endings"]),
        ('["и", "!найди", "ь"]', []),
    ],
)
def test_lead_endings_lints(entries: str, codes: list[str]) -> None:
    """check names a '!' with no word, a separator, an idle exception and a rule with no ending."""
    config = parse_config(f"[[classification.rules]]\nintent = 'edit'\nlead_endings = {entries}\n")
    found = [lint.code for lint in BY_KEY["lead_endings"].lints(config.rules, frozenset())]
    assert found == codes


def test_lead_endings_trace_names_the_first_content_word() -> None:
    """explain shows which word the ending was read from, or that there was none."""
    from smista.core.conditions.view import PromptView

    kind = BY_KEY["lead_endings"]
    condition = kind.compile(("Ь", "!Модель", "!"), typo=True)
    assert condition.values == ("ь", "!модель")
    assert kind.trace(condition, PromptView("Исправь код")) == (
        "holds: leading word ending 'ь' ('исправь')"
    )
    assert kind.trace(condition, PromptView("модель упала")) == (
        "does not hold (first content word: 'модель')"
    )
    assert kind.trace(condition, PromptView("@bot")) == "does not hold (first content word: none)"
    plan = kind.gate_plan(frozenset({"ь", "и"}))
    assert kind.present(PromptView("   "), plan) == frozenset()
    assert kind.present(PromptView("исправь"), plan) == frozenset({"ь"})
    assert kind.witnesses(("ь", "!модель")) == ("qqqь",)
    assert kind.witnesses(("!модель",)) == ("",)


@settings(max_examples=1000)
@given(st.text(alphabet="`~\na b", max_size=40))
def test_code_blocks_are_blanked_as_the_readable_regexes_say(text: str) -> None:
    from smista.core.conditions import view

    assert view._blank_code_blocks(text) == view._inline().sub(" ", view._fenced().sub(" ", text))


def test_an_exact_sequence_search_measures_no_typo_distance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``find_sequence(typo=False)`` (exclusions; phrases with typos off) compares
    words for equality only: it never asks for an OSA distance, so a stream of such
    checks neither wastes the work nor pulls in rapidfuzz mid-stream."""
    from smista.core import osa
    from smista.core.conditions.phrases import find_sequence

    asked: list[tuple[str, str, int]] = []

    def within(_self: object, a: str, b: str, cap: int) -> int:
        asked.append((a, b, cap))
        return 1

    monkeypatch.setattr(osa._Osa, "within", within)
    tokens = ["please", "dont", "refactro", "anything"]
    assert find_sequence(("dont", "refactor"), tokens, typo=False) is None
    assert asked == []
    assert find_sequence(("dont", "refactor"), tokens, typo=True) is True
    assert asked == [("refactor", "refactro", 1)]


def test_excluded_strings_lint_short_ascii_entries_and_narrow_a_rule() -> None:
    """A short ASCII excluded string vetoes nearly everything (a warning); an earlier
    rule vetoed by a string does not cover a later rule without that veto."""
    config = parse_config(
        "[[classification.rules]]\nintent = 'edit'\nexclude_substrings = ['md', 'read claude.md']\n"
    )
    (lint,) = BY_KEY["exclude_substrings"].lints(config.rules, frozenset())
    assert (lint.code, lint.severity, lint.key) == (
        "short-exclude_substrings",
        "warning",
        "classification.rules[0].exclude_substrings[0]",
    )
    kind = BY_KEY["exclude_substrings"]
    assert kind.covers(("read claude.md",), ("Read CLAUDE.md", "x"))
    assert not kind.covers(("read claude.md",), ())
    assert not any(
        code == "unreachable-rule"
        for code, _ in _lints(
            '[[classification.rules]]\nintent="chat"\nkeywords=["cache"]\n'
            'exclude_substrings=["cache.md"]\n'
            '[[classification.rules]]\nintent="edit"\nkeywords=["cache"]\n'
        )
    )


def test_per_object_memo_is_keyed_by_identity_and_bounded() -> None:
    """PerObject derives once per object (not per equal value), holds the object so its
    id is never reused while remembered, and starts again empty past its limit."""
    from smista.core.conditions.base import Condition, PerObject

    calls: list[Condition] = []

    def derive(condition: Condition) -> int:
        calls.append(condition)
        return len(condition.values)

    memo = PerObject(derive, 2)
    first = Condition("phrases", ("a b", "c"))
    twin = Condition("phrases", ("a b", "c"))
    assert memo(first) == 2
    assert memo(first) == 2
    assert len(calls) == 1
    assert memo(twin) == 2  # equal but another object: derived for itself
    assert calls == [first, twin]
    assert calls[1] is twin
    for n in range(3):
        memo(Condition("phrases", ("x",) * n))
    assert len(memo) <= 3  # past the limit it started again
    assert memo(first) == 2
    assert len(calls) == 6  # forgotten, so derived again


@given(
    st.lists(st.sampled_from(["fix it", "Fix  It!", "...", "", "ünï code", "x\ny", "a b c", "b"]))
)
def test_the_entry_plan_is_the_plain_statement(values: list[str]) -> None:
    """``entry_plan`` (entries with tokens, positions by first token) equals one plain
    loop over ``phrase_tokens``: entries without tokens dropped, positions ascending."""
    from smista.core.conditions.base import Condition
    from smista.core.conditions.phrases import entry_plan, phrase_tokens

    kept = [(v, phrase_tokens(v)) for v in values if phrase_tokens(v)]
    by_first: dict[str, list[int]] = {}
    for at, (_, words) in enumerate(kept):
        by_first.setdefault(words[0], []).append(at)
    want = (tuple(kept), {w: tuple(ats) for w, ats in by_first.items()})
    assert entry_plan.get(Condition("exclude", tuple(values))) == want


def test_a_subclassed_kind_keeps_its_own_key_in_its_fixed_evidence() -> None:
    """The leading wildcard's and the exclusion's evidence are made once for the registered
    kinds; a subclass under another key reports its own key."""
    from smista.core.conditions.exclude import EXCLUDE, ExcludeKind
    from smista.core.conditions.leading import LEADING, LeadingKind
    from smista.core.conditions.view import PromptView

    class Lead(LeadingKind):
        key = "lead_again"

    class Veto(ExcludeKind):
        key = "exclude_again"

    view = PromptView("add a test")
    for registered, subclassed, values in (
        (LEADING, Lead(), ["*"]),
        (EXCLUDE, Veto(), ["remove"]),
    ):
        condition = registered.compile(values, typo=True)
        evidence = registered.match(condition, view)
        again = subclassed.match(condition, view)
        assert evidence is not None
        assert again is not None
        assert evidence.kind == registered.key
        assert again.kind == subclassed.key
        assert again[1:] == evidence[1:]


def test_a_mention_entry_that_can_never_match_is_an_error_lint() -> None:
    config = parse_config(
        "[[classification.rules]]\nintent = 'skill'\n"
        "mentions = ['team', 'foo.', 'my skill', '5x', 'Home', '!ok', '*']\n"
    )
    found = {(lint.code, lint.key) for lint in BY_KEY["mentions"].lints(config.rules, frozenset())}
    assert found == {("dead-mentions", f"classification.rules[0].mentions[{i}]") for i in (1, 2, 3)}


@pytest.mark.parametrize(
    ("mentions", "code", "key"),
    [
        ("['!state']", "no-mentions", "classification.rules[0].mentions"),
        ("['!state', '!effect']", "no-mentions", "classification.rules[0].mentions"),
        ("['deep', '!deep']", "dead-mentions", "classification.rules[0].mentions[0]"),
        ("['*', '!*']", "dead-mentions", "classification.rules[0].mentions[1]"),
    ],
)
def test_a_mention_rule_that_never_holds_is_an_error_lint(
    mentions: str, code: str, key: str
) -> None:
    config = parse_config(f"[[classification.rules]]\nintent = 'skill'\nmentions = {mentions}\n")
    found = [
        (lint.code, lint.severity, lint.key)
        for lint in BY_KEY["mentions"].lints(config.rules, frozenset())
    ]
    assert (code, "error", key) in found


def test_the_mention_wildcard_in_two_intents_is_no_shared_lint() -> None:
    config = parse_config(
        "[[classification.rules]]\nintent = 'skill'\nmentions = ['*', 'team']\n"
        "[[classification.rules]]\nintent = 'plan'\nmentions = ['*', 'team']\n"
    )
    found = [lint.code for lint in BY_KEY["mentions"].lints(config.rules, frozenset())]
    assert found == ["shared-mentions"]  # ('team' only)


def test_mention_cover_reads_the_exceptions() -> None:
    kind = BY_KEY["mentions"]
    assert kind.covers(("*",), ("team",))
    assert not kind.covers(("*", "!team"), ("team",))
    assert kind.covers(("*", "!state"), ("*", "!state", "!effect"))
    assert not kind.covers(("*", "!state", "!effect"), ("*", "!state"))
    assert not kind.covers(("team",), ("*",))


def test_a_rule_with_commands_and_mentions_is_an_error_lint() -> None:
    """A prompt starts with one or the other, so such a rule never holds."""
    config = parse_config(
        "[[classification.rules]]\nintent = 'skill'\ncommands = ['run']\nmentions = ['*']\n"
    )
    found = [
        (lint.code, lint.severity, lint.key)
        for lint in BY_KEY["mentions"].lints(config.rules, frozenset())
    ]
    assert found == [("mentions-with-commands", "error", "classification.rules[0].mentions")]
    assert Classifier(config).classify("/run $x").matched_rule is None
    assert Classifier(config).classify("$x /run").matched_rule is None


def test_the_mention_wildcards_witness_is_a_name_no_exception_names() -> None:
    kind = BY_KEY["mentions"]
    assert kind.witnesses(("*",)) == ("$custom ",)
    assert kind.witnesses(("*", "!custom", "team")) == ("$customx ", "$team ")
    assert kind.witnesses(("!team",)) == ("",)
