"""The shipped default pack: accuracy on its cases, the real prompts and the held-out set; shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.accuracy import HELD_OUT
from smista.authoring.evaluate import evaluate_cases, parse_labelled
from smista.authoring.golden import load_cases
from smista.config.defaults import default_config
from smista.core.classifier import Classifier
from smista.core.intent import Confidence, TaskIntent

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


CASES = ROOT / "rules" / "default.cases.toml"

# Each fresh set was gathered after the one before, by someone who never tuned the
# pack and never ran it on them (docs/rules.md): file -> (prompts, floor).
FRESH_FLOORS = {
    # Gathered after pack v4's tuning data was fixed; v4's held-out set, scored once:
    # v3 71.3% (224/314), v4 72.0% (226/314). Tuned on since v5, so a tuning floor:
    # v5's 90.1% (283/314) minus two points.
    "real-prompts-fresh.jsonl": (314, 0.88),
    # Gathered while v5 was tuned; v5's held-out set: v4 69.8% (210/301), v5 71.1%
    # (214/301). Tuned on since v6: v6's 88.7% (267/301) minus two points.
    "real-prompts-fresh2.jsonl": (301, 0.86),
    # Gathered while v6 was tuned: v5 71.8% (216/301), v6 72.1% (217/301), each
    # scored once. Tuned on since v7: v7's 90.0% (271/301) minus two points.
    "real-prompts-fresh3.jsonl": (301, 0.88),
    # Gathered after v6 was tuned: v5 79.7% (232/291), v6 and v7 80.4% (234/291),
    # each scored once. Tuned on since v8: v8's 88.7% (258/291) minus two points.
    "real-prompts-fresh4.jsonl": (291, 0.86),
    # Gathered after v6 and the lead_endings kind: v6 77.0% (231/300), v7 78.0%
    # (234/300), v8 78.3% (235/300), each scored once. Tuned on since v9: v9's
    # 81.0% (243/300) minus two points.
    "real-prompts-fresh5.jsonl": (300, 0.79),
    # The held-out set (benchmarks.accuracy.HELD_OUT) until v8: gathered after v7;
    # v6 75.6% (208/275), v7 and v8 77.8% (214/275), each scored once. Tuned on
    # since v9: v9's 85.1% (234/275) minus two points; v12's catch-all edit
    # (docs/rules.md) 82.5% (227/275) minus two points.
    "real-prompts-fresh6.jsonl": (275, 0.80),
    # The held-out set (benchmarks.accuracy.HELD_OUT) until v9: gathered after v8,
    # while v9 was tuned, by three gatherers; v8 and v9 76.1% (404/531), each scored
    # once (v9 changes none of its answers). Tuned on since v10: just under v10's
    # 83.1% (441/531).
    "real-prompts-fresh7.jsonl": (531, 0.82),
    # The held-out set (benchmarks.accuracy.HELD_OUT) until v12: gathered while v10 was
    # tuned, by two gatherers; v9 72.3% (214/296), v10 72.6% (215/296),
    # v11 73.0% (216/296), v12 80.1% (237/296), each scored once (v12 again, unchanged,
    # after two ambiguous question endings were dropped). Tuned on since v13: v13's
    # 85.8% (254/296) minus two points.
    "real-prompts-fresh8.jsonl": (296, 0.83),
    # The held-out set (benchmarks.accuracy.HELD_OUT) until v13: gathered after v12
    # shipped, by two gatherers; v12 and v13 77.8% (242/311), each scored once (v13
    # changes none of its answers). Tuned on since v14: v14's 85.2% (265/311) minus
    # two points.
    "real-prompts-fresh9.jsonl": (311, 0.83),
    # The held-out set (benchmarks.accuracy.HELD_OUT) of v14: gathered while v14 was
    # tuned, by two gatherers; v13 and v14 83.4% (121/145), each scored once (v14 changes
    # none of its answers). Tuned on since v15: v15's 89.0% (129/145) minus two points.
    "real-prompts-fresh10.jsonl": (145, 0.87),
    # The held-out set (benchmarks.accuracy.HELD_OUT) of v15: gathered after v14 shipped, by
    # two gatherers; v13, v14 and v15 70.8% (189/267), each scored once (neither v14 nor
    # v15 changes any of its answers). Tuned on since v16: v16's 79.4% (212/267) minus two
    # points.
    "real-prompts-fresh11.jsonl": (267, 0.77),
    # The held-out set of v16: gathered while v16 was tuned, by two gatherers; v15 and v16
    # 72.0% (167/232), each scored once (v16 changes none of its answers). Read while v17's
    # text model threshold was chosen; v18's model is fitted on it: v18 81.0% (188/232)
    # minus two points.
    "real-prompts-fresh12.jsonl": (232, 0.79),
    # The held-out set of v17: gathered while v17 and its text model were built, by two
    # gatherers; v16 68.8% (141/205), v17 72.2% (148/205), each scored once. v18's model
    # is fitted on it: v18 77.6% (159/205) minus two points.
    "real-prompts-fresh13.jsonl": (205, 0.75),
    # The held-out set of v18 and v19: gathered while v18's model was refitted, by four
    # gatherers; v17 78.7% (300/381), v18 78.5% (299/381), v19 78.2% (298/381), each
    # scored once. v20's model is fitted on it: v20 81.6% (311/381) minus two points.
    "real-prompts-fresh14.jsonl": (381, 0.79),
    # The held-out set of v20: gathered while v20's model was refitted, by four gatherers;
    # v19 76.0% (313/412), v20 76.2% (314/412), each scored once. v21's model is fitted on
    # it: v21 80.3% (331/412) minus two points.
    "real-prompts-fresh15.jsonl": (412, 0.78),
    # The held-out set of v21: gathered while v21's model was refitted, by four
    # gatherers; v20 72.2% (293/406), v21 73.2% (297/406), each scored once.
    "real-prompts-fresh16.jsonl": (406, 0.73),
    # The held-out set (benchmarks.accuracy.HELD_OUT): gathered by four gatherers while a
    # refit through fresh16 (v22) was made; v21 72.4% (320/442), v22 72.2% (319/442), each
    # scored once; v22 was not shipped. A floor so no engine change loses an answer silently.
    "real-prompts-fresh17.jsonl": (442, 0.72),
    # The held-out set of v24: gathered in stop 38 by four gatherers, kept outside the
    # repository unread until v24 (whose catch-all the validation protocol chose) was
    # scored on it: v21 72.6% (225/310), v24 75.8% (235/310), each scored once; 76.1%
    # (236/310) with the catch-all edit's content-word guard restored after an audit (the
    # v24 scored read "" and "yes" as edits). A floor so no engine change loses an answer
    # silently.
    "real-prompts-fresh18.jsonl": (310, 0.75),
    # The held-out set of stop 41: gathered in stop 40 by three gatherers, kept outside the
    # repository unread until v24 was scored on it once: v21 74.6% (264/354), v24 76.8%
    # (272/354). A floor so no engine change loses an answer silently.
    "real-prompts-fresh19.jsonl": (354, 0.76),
    # The held-out set of v25: gathered in stop 41 by three gatherers, kept outside the
    # repository unread until v25 (v24 and a rule for Codex's $-mentions) was scored on it
    # once, with v24 and v21: v21 79.9% (267/334), v24 79.6% (266/334), v25 80.2%
    # (268/334). A floor so no engine change loses an answer silently.
    "real-prompts-fresh20.jsonl": (334, 0.79),
    # The held-out set of stop 42: gathered in stop 41 by three gatherers, kept outside the
    # repository unread until the shipped v25 was scored on it once, with v24 and v21: v21
    # 79.1% (227/287), v24 80.8% (232/287), v25 80.8% (232/287). A floor so no engine
    # change loses an answer silently.
    "real-prompts-fresh21.jsonl": (287, 0.80),
    # The held-out set of stop 42's end: gathered in stop 42 by three gatherers, kept
    # outside the repository unread until the shipped v25.1 was scored on it once, with
    # v25, v24 and v21: v21 82.6% (218/264), v24, v25 and v25.1 79.9% (211/264). A floor so
    # no engine change loses an answer silently.
    "real-prompts-fresh22.jsonl": (264, 0.795),
    # The held-out set of stop 43: gathered in stop 43 by three gatherers, kept outside the
    # repository unread until the shipped v25.1 was scored on it once, with v25, v24 and
    # v21: v21 82.3% (256/311), v24, v25 and v25.1 82.0% (255/311). A floor so no engine
    # change loses an answer silently.
    "real-prompts-fresh23.jsonl": (311, 0.815),
    # The held-out set of stop 43's end: gathered in stop 43 by three gatherers, kept
    # outside the repository unread until the shipped v25.1 was scored on it once, with
    # v25, v24 and v21: v21 79.2% (263/332), v24, v25 and v25.1 80.4% (267/332). A floor so
    # no engine change loses an answer silently.
    "real-prompts-fresh24.jsonl": (332, 0.80),
    # The held-out set of stop 44: gathered in stop 44 by three gatherers, kept outside the
    # repository unread until v26 (five rules dropped, chosen and committed first) was scored
    # on it once, with v25.1, v25, v24 and v21: v26 78.6% (253/322), the others 78.0%
    # (251/322). A floor so no engine change loses an answer silently.
    "real-prompts-fresh25.jsonl": (322, 0.785),
    # The held-out set of stop 44's end: gathered late in stop 44 by three gatherers, kept
    # outside the repository unread until the shipped v26 was scored on it once, with v25.1,
    # v25, v24 and v21: v26 79.7% (255/320), v25.1, v25 and v24 80.0% (256/320), v21 81.2%
    # (260/320). A floor so no engine change loses an answer silently.
    "real-prompts-fresh26.jsonl": (320, 0.795),
    # The held-out set of stop 45: gathered in stop 45 by three gatherers (no pack change in
    # that stop), kept outside the repository unread until the shipped v26 was scored on it
    # once, with v25.1, v25, v24 and v21: v26 76.0% (241/317), v25.1, v25 and v24 75.1%
    # (238/317), v21 74.4% (236/317). A floor so no engine change loses an answer silently.
    "real-prompts-fresh27.jsonl": (317, 0.76),
    # The held-out set of stop 46: gathered in stop 46 by three gatherers while v27 (v26's
    # rules, its text model refitted through fresh27) was chosen and committed, kept outside
    # the repository unread until v27 was scored on it once, with v26, v25.1, v25, v24 and
    # v21, under the rule written before the score that v27 ships only if it reads the set at
    # least as well as v26: v27 78.2% (248/317), v21 76.7% (243/317), v26, v25.1, v25 and v24
    # 75.7% (240/317). A floor so no engine change loses an answer silently.
    "real-prompts-fresh28.jsonl": (317, 0.78),
    # v27's second blind set: gathered later in stop 46, after v27 shipped (no pack change
    # on its account), kept outside the repository unread until v27 was scored on it once,
    # with v26, v25.1, v25, v24 and v21: v27 77.7% (174/224), v26 78.1% (175/224), v25.1,
    # v25 and v24 77.2% (173/224), v21 75.9% (170/224). A floor so no engine change loses an
    # answer silently.
    "real-prompts-fresh29.jsonl": (224, 0.775),
    # v27's third blind set: gathered in stop 47, kept outside the repository unread until
    # v27 was scored on it once, with v28 (v27's rules, its text model refitted through
    # fresh29, committed before the score), v26, v25.1, v25, v24 and v21, under the rule
    # written before the score that v28 ships only if it reads the set at least as well as
    # v27: v27 82.8% (279/337), v28 and v26 81.9% (276/337), v25.1, v25 and v24 81.0%
    # (273/337), v21 80.1% (270/337); v28 was not shipped. A floor so no engine change loses
    # an answer silently.
    "real-prompts-fresh30.jsonl": (337, 0.825),
    # v29's first blind set: gathered in stop 48, kept outside the repository unread until
    # v29 (v27's rules, its text model refitted through fresh30, committed before the score)
    # was scored on it once, with v27, v28, v26, v25.1, v25, v24 and v21, under the rule
    # written before the score that v29 ships only if it reads the set at least as well as
    # v27: v29 79.7% (239/300), v27 79.3% (238/300), v28 80.3% (241/300), v26, v25.1, v25
    # and v24 76.7% (230/300), v21 76.0% (228/300); v29 shipped. A floor so no engine change
    # loses an answer silently.
    "real-prompts-fresh31.jsonl": (300, 0.795),
    # v29's second blind set: gathered later in stop 48 (128 prompts: the gatherers' look-up
    # tools ran out of budget), kept outside the repository unread until v29 was scored on
    # it once, with v30 (v29's rules, its text model refitted through fresh31, committed
    # before the score), v28, v27, v26, v25.1, v25, v24 and v21, under the rule written
    # before the score that v30 ships only if it reads the set at least as well as v29: v29
    # 88.3% (113/128), v28 87.5% (112/128), v27 86.7% (111/128), v30 and v21 85.9%
    # (110/128), v26, v25.1, v25 and v24 85.2% (109/128); v30 was not shipped. A floor so no
    # engine change loses an answer silently.
    "real-prompts-fresh32.jsonl": (128, 0.88),
    # v31's first blind set: gathered in stop 49, kept outside the repository unread until
    # v31 (v29's rules, its text model refitted through fresh32, committed before the score)
    # was scored on it once, with v29, v30, v28, v27, v26, v25.1, v25, v24 and v21, under the
    # rule written before the score that v31 ships only if it reads the set at least as well
    # as v29: v27 85.3% (289/339), v30, v28 and v26 85.0% (288/339), v31 84.7% (287/339),
    # v25.1, v25 and v24 84.4% (286/339), v29 84.1% (285/339), v21 83.8% (284/339); v31
    # shipped. A floor so no engine change loses an answer silently.
    "real-prompts-fresh33.jsonl": (339, 0.845),
}


@pytest.mark.parametrize("name", sorted(FRESH_FLOORS))
def test_default_pack_on_each_fresh_set(name: str) -> None:
    """Each fresh set, whole: its held-out or tuning figure is kept."""
    total, floor = FRESH_FLOORS[name]
    cases = parse_labelled((DATA / name).read_text(encoding="utf-8"), name)
    evaluation = evaluate_cases(Classifier(default_config()), cases)
    assert evaluation.total == total
    assert evaluation.accuracy >= floor


def test_the_held_out_set_is_the_last_fresh_set() -> None:
    """benchmarks.accuracy leads with the fresh set gathered last."""
    assert HELD_OUT.name == max(FRESH_FLOORS, key=lambda n: (len(n), n))


# Packs v4 and v5 were tuned on every labelled real prompt (docs/rules.md): v5's
# figures on these three, 95.6% (281/294) on the dev set, 90.2% (285/316) and
# 90.8% (258/284) on the second sets, 91.9% (331/360) on the non-English ones
# (v4: 95.2, 89.2, 89.1, 90.3%), are tuning figures, guarded here so no later
# change loses them silently. v19 reads the model's edits from 0.5 (docs/rules.md: +1.8
# points over six held-out sets) and gives three dev answers to it: 94.6% (278/294);
# v20's refitted model one more: 94.2% (277/294), one answer above the floor. v27's model,
# refitted through fresh27 (docs/rules.md), reads it 93.5% (275/294): its floor is 0.93,
# the cost of a refit chosen on the later sets and scored blind on fresh28 (v29's, refitted
# through fresh30: 94.2%, 277/294).
V4_FLOORS = {
    "real-prompts-dev.jsonl": (294, 0.93),
    "real-prompts-extra-en.jsonl": (316, 0.89),
    "real-prompts-extra-intl.jsonl": (284, 0.89),
}


@pytest.mark.parametrize("name", sorted(V4_FLOORS))
def test_default_pack_on_every_real_prompt_it_was_tuned_on(name: str) -> None:
    """Each real-prompt file, whole: pack v4's tuning figures."""
    total, floor = V4_FLOORS[name]
    cases = parse_labelled((DATA / name).read_text(encoding="utf-8"), name)
    evaluation = evaluate_cases(Classifier(default_config()), cases)
    assert evaluation.total == total
    assert evaluation.accuracy >= floor, evaluation.misses


def test_default_pack_on_every_non_english_real_prompt() -> None:
    """The 360 non-English prompts of the three files: at least 90% right."""
    cases = [
        case
        for name in sorted(V4_FLOORS)
        for case in parse_labelled((DATA / name).read_text(encoding="utf-8"), name)
    ]
    other = evaluate_cases(Classifier(default_config()), cases).non_english
    assert other is not None
    assert other.total == 360
    assert other.accuracy >= 0.90, other


def test_default_pack_reaches_ninety_percent_on_its_cases() -> None:
    """rules/default.cases.toml: at least 95% of the labelled prompts are right."""
    evaluation = evaluate_cases(Classifier(default_config()), load_cases(CASES))
    assert evaluation.total >= 300
    assert evaluation.accuracy >= 0.95, evaluation.misses


def test_default_pack_generalises_to_the_held_out_prompts() -> None:
    """tests/data/heldout.jsonl was never used for tuning (see docs/rules.md); v19 95%."""
    evaluation = evaluate_cases(Classifier(default_config()), load_cases(DATA / "heldout.jsonl"))
    assert evaluation.total == 100
    assert evaluation.accuracy >= 0.95, evaluation.misses


def test_default_pack_generalises_to_the_blind_set() -> None:
    """tests/data/heldout2.jsonl was written blind; its pre-tuning score is in docs/rules.md
    (v19: 92.0%)."""
    evaluation = evaluate_cases(Classifier(default_config()), load_cases(DATA / "heldout2.jsonl"))
    assert evaluation.total == 250
    assert evaluation.accuracy >= 0.92, evaluation.misses


def test_default_pack_on_the_post_tuning_set() -> None:
    """tests/data/heldout3.jsonl was written after tuning and never used to change the pack."""
    evaluation = evaluate_cases(Classifier(default_config()), load_cases(DATA / "heldout3.jsonl"))
    assert evaluation.total == 105
    assert evaluation.accuracy >= 0.95, evaluation.misses


@pytest.mark.parametrize(
    "text",
    [
        "does git stash include untracked files by default?",  # files ~ fixes
        "why is my container exiting with code 0?",  # exiting ~ editing
        "what is the path of the config?",  # path ~ patch
        "why does my regex match the whole line?",  # match ~ patch
        "which types does this function accept?",  # types ~ typos
        "what does the migration do?",  # migration ~ migrating
        "is it uploading in chunks?",  # uploading ~ upgrading
        "where are the static assets served from?",  # assets ~ assess
        "how does code generation work here?",  # generation ~ generating
        "O que significa esse erro?",  # significa ~ pianifica
    ],
)
def test_common_words_are_not_read_as_typos_of_keywords(text: str) -> None:
    """Keywords whose one- or two-edit neighbours are common words were left out."""
    assert Classifier(default_config()).classify(text).intent is TaskIntent.CHAT


def test_judging_verbs_beat_plan_nouns() -> None:
    """'sanity check my approach' is a review although 'approach' is a plan word."""
    classifier = Classifier(default_config())
    assert classifier.classify("sanity check my approach").intent is TaskIntent.REVIEW
    assert classifier.classify("evaluate whether this design is sound").intent is (
        TaskIntent.REVIEW
    )
    assert classifier.classify("outline an approach for caching").intent is TaskIntent.PLAN


def test_weak_summarize_words_lose_to_edit_verbs() -> None:
    """'sum up' is a summary; 'write a function to sum' stays an edit."""
    classifier = Classifier(default_config())
    assert classifier.classify("sum up the last 10 commits").intent is TaskIntent.SUMMARIZE
    assert classifier.classify("write a function to sum the rows").intent is TaskIntent.EDIT


def test_default_pack_covers_every_intent() -> None:
    """Each of the seven intents is reachable by rules; chat also as the default."""
    config = default_config()
    assert config.default_intent is TaskIntent.CHAT
    assert {r.intent for r in config.rules} == set(TaskIntent)


def test_review_with_a_diff_is_high_confidence() -> None:
    """git_diff makes an exact review keyword high confidence; a typo caps it."""
    classifier = Classifier(default_config())
    with_diff = classifier.classify("review my changes", contexts=["git_diff"])
    assert (with_diff.intent, with_diff.confidence) == (
        TaskIntent.REVIEW,
        Confidence.HIGH,
    )
    typo = classifier.classify("reveiw my changes", contexts=["git_diff"])
    assert (typo.intent, typo.confidence) == (TaskIntent.REVIEW, Confidence.MEDIUM)
    without = classifier.classify("review my changes")
    assert (without.intent, without.confidence) == (
        TaskIntent.REVIEW,
        Confidence.MEDIUM,
    )


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        pytest.param(
            "reviewing the auth module",
            TaskIntent.REVIEW,
            marks=pytest.mark.xfail(
                strict=True,
                reason="v20: the refitted model's edit at 0.53 decides first (v27: 0.77)",
            ),
        ),
        ("refactoring the parser", TaskIntent.EDIT),
        ("summarising the thread", TaskIntent.SUMMARIZE),
    ],
)
def test_inflected_forms_are_listed_because_they_never_match_the_base_word(
    text: str, intent: TaskIntent
) -> None:
    """The listed inflections, read by the whole pack (its text model decides first where
    it is sure: see test_the_rules_alone_read_the_inflected_forms for the rules' reading)."""
    assert Classifier(default_config()).classify(text).intent is intent


def test_the_rules_alone_read_the_inflected_forms() -> None:
    """The pack's rules without the text model read each listed inflection as its intent."""
    config = default_config()
    rules = tuple(rule for rule in config.rules if not rule.predicted)
    classifier = Classifier(config.model_copy(update={"model": None, "rules": rules}))
    assert classifier.classify("reviewing the auth module").intent is TaskIntent.REVIEW
    assert classifier.classify("refactoring the parser").intent is TaskIntent.EDIT
    assert classifier.classify("summarising the thread").intent is TaskIntent.SUMMARIZE


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("/run pytest -q", TaskIntent.SKILL),
        ("/git:commit", TaskIntent.SKILL),
        ("/code add a factorial function", TaskIntent.EDIT),
        ("/help how do I add a model?", TaskIntent.CHAT),
        ("can you fix the login bug?", TaskIntent.EDIT),
        ("how do I run the tests?", TaskIntent.CHAT),
        ("Add a per-user rate limit to the API", TaskIntent.EDIT),
        ("update prompt_history.md with today's changes", TaskIntent.EDIT),
        ("don't write code yet, propose an approach for caching", TaskIntent.PLAN),
        ("what is the purpose of this commit?", TaskIntent.CHAT),
        ("commit these changes with a message that summarizes what I did", TaskIntent.SKILL),
        ("ユーザー認証機能の実装計画を立てて", TaskIntent.PLAN),
        ("何押しても動かない", TaskIntent.EDIT),
        ("このコードの内容を説明して", TaskIntent.CHAT),  # (v20 to v26 read an edit)
        ("홈페이지의 제목을 바꿔줘", TaskIntent.EDIT),
        ("исправь ошибку в файле main.py", TaskIntent.EDIT),
        ("判斷下一個字幕是否時間有重疊，如果有，則修改結尾", TaskIntent.EDIT),
    ],
)
def test_v2_signals_decide_real_prompt_shapes(text: str, intent: TaskIntent) -> None:
    """Slash commands, questions vs requests, the leading word, code-blind keywords and
    substrings in scripts without spaces each decide a prompt shape from the real set."""
    assert Classifier(default_config()).classify(text).intent is intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # work nothing else claimed: the catch-all edit (rule Q9)
        ("the ones that currently use create_pipe_input()", TaskIntent.EDIT),
        ("No need to reset data button. Data should be entered by user", TaskIntent.EDIT),
        ("timeline 頁面不要做 動態頁面了 用 html", TaskIntent.EDIT),
        # no work: a question, an acknowledgement, a greeting, a look-up, how to answer
        ("Що таке бухгалтерська звітність", TaskIntent.CHAT),
        ("ok", TaskIntent.CHAT),
        ("nice, that worked!", TaskIntent.CHAT),
        ("good morning!", TaskIntent.CHAT),
        ("مرحبا", TaskIntent.CHAT),
        ("List all tables in my Supabase database", TaskIntent.CHAT),
        ("查一下React 19的新特性", TaskIntent.CHAT),
        ("During this session keep your answers concise.", TaskIntent.CHAT),
        ("explian how the retry logic works here", TaskIntent.CHAT),
    ],
)
def test_v12_unclaimed_prompts_are_edits_unless_they_ask_or_say_nothing(
    text: str, intent: TaskIntent
) -> None:
    assert Classifier(default_config()).classify(text).intent is intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # a proposal asked for first, and design, specification and approach requests
        ("Suggest a minimal data model for the orders service", TaskIntent.PLAN),
        pytest.param(
            "OCP/SRP를 만족하는 Python 패키지 구조를 제안하고, PRD를 매핑해줘.",
            TaskIntent.PLAN,
            marks=pytest.mark.xfail(
                strict=True,
                reason="v29: the refitted model's edit at 0.60 decides (rule 208; v31: 0.57)",
            ),
        ),
        pytest.param(
            "在庫管理アプリの仕様を提案してください",
            TaskIntent.PLAN,
            marks=pytest.mark.xfail(
                strict=True,
                reason="v31: the refitted model's edit at 0.59 decides (v19 to v28: 0.58 to "
                "0.67; v29 read it by rule 165's substring)",
            ),
        ),
        ("你帮我构思一下这个项目应该怎么做", TaskIntent.PLAN),
        # the bare 設計/设计 names a look to build or a design asked about
        ("垂直时间线，参考图二的设计", TaskIntent.EDIT),
        ("このコードや設計は新しいシステムに対応していますか？", TaskIntent.CHAT),
        # "design" in a library's name or a principle
        ("The table component comes from Ant Design", TaskIntent.EDIT),
        pytest.param(
            "By design, the audio stream from the mic goes to the peer",
            TaskIntent.EDIT,
            marks=pytest.mark.xfail(
                strict=True, reason="v27: the refitted model's likeliest label is review at 0.30"
            ),
        ),
        # "wrong" outside a question reports a bug; in one it asks for a review
        pytest.param(
            "All my debit card transactions are positive, which is wrong",
            TaskIntent.EDIT,
            marks=pytest.mark.xfail(
                strict=True,
                reason="v24: no rule decides it (v21's catch-all edit did); the model's guess is chat at 0.56 (v27: 0.59, rule 213)",
            ),
        ),
        ("AIチャットがSomething went wrong! Cannot read properties of undefined", TaskIntent.EDIT),
        ("what's wrong with this query?", TaskIntent.REVIEW),
        # "instructions" asks for a prompt only as instructions for a model
        pytest.param(
            "para las instrucciones de la mesa hay que complementarlas con unas "
            "instrucciones de hardware",
            TaskIntent.EDIT,
            marks=pytest.mark.xfail(
                strict=True, reason="v27: the refitted model's likeliest label is chat at 0.61"
            ),
        ),
        ("Write instructions for an agent that triages issues", TaskIntent.PROMPT),
        # "resumo"/"resumen" is a summary when one is asked for, not a page's section
        ("Crie um dashboard com resumo do saldo e gráfico de gastos", TaskIntent.EDIT),
        # (v17 to v26: the text model read an edit, before rule 67)
        pytest.param(
            "Analizar el directorio y generar un resumen del objetivo",
            TaskIntent.SUMMARIZE,
            marks=pytest.mark.xfail(
                strict=True, reason="v31: the refitted model's edit at 0.57 decides (rule 208)"
            ),
        ),
        # the question review nouns are exact: "problema"/"problemi" are no "problems"
        ("Bu problemi nasıl çözebiliriz?", TaskIntent.CHAT),
        ("¿podemos elegir cualquier lenguaje que funcione sin problemas?", TaskIntent.CHAT),
    ],
)
def test_v13_readings(text: str, intent: TaskIntent) -> None:
    assert Classifier(default_config()).classify(text).intent is intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # S1: Chinese questions punctuated with spaces and commas; "还是" as "still"
        ("这个函数返回的是副本 还是引用", TaskIntent.CHAT),
        ("我们是不是应该先写测试", TaskIntent.CHAT),  # (v18 to v26 read an edit)
        ("这个库支持异步吗 我在文档里没找到", TaskIntent.CHAT),
        ("你给我推演一遍 t=1 时 loss 的计算", TaskIntent.CHAT),
        ("改了之后还是没有反应", TaskIntent.EDIT),  # (v24 to v26 guessed chat)
        # S2-S4, S6: pushed, restarted, versioned, checked by running it
        pytest.param(
            "пушь в main",
            TaskIntent.SKILL,
            marks=pytest.mark.xfail(
                strict=True, reason="v27: the refitted model reads an edit at 0.67 (rule 208)"
            ),
        ),
        ("개발 서버 재시작", TaskIntent.SKILL),
        ("vamos versionar esta etapa", TaskIntent.SKILL),  # (v19 and v29 read an edit)
        pytest.param(
            "修正したらブラウザで動作確認してください",
            TaskIntent.SKILL,
            marks=pytest.mark.xfail(
                strict=True,
                reason="v17: the text model reads an edit at 0.75 (the fix first; v21: 0.80, v27: 0.88)",
            ),
        ),
        # S5: "just tell me"
        ("캐시를 줄이려면 어떻게 해야 할까? 말만해줘", TaskIntent.CHAT),
        # rule 36: a log of the session's prompts, prompt injection
        ("Write a PROMPTS.md listing the prompts we have used so far", TaskIntent.EDIT),
        ("Add a filter against prompt injection in the chat endpoint", TaskIntent.EDIT),
        # rule 94: an explanation written into a document
        pytest.param(
            "Dame una guía del modelo de datos que explique los campos y relaciones",
            TaskIntent.EDIT,
            marks=pytest.mark.xfail(
                strict=True,
                reason="v24: no rule decides it (v21's catch-all edit did); the model's guess is chat at 0.42 (v27: 0.57, rule 213)",
            ),
        ),
        # rule 95: test cases designed are written
        ("Hãy thiết kế 10 test cases cho màn hình đăng nhập", TaskIntent.EDIT),
        # rule 45 (v25's 46): what a change is for; a pasted tree (v25's rule 45, dropped in v26)
        ("Перепиши скрипт, чтобы можно запустить его без sudo", TaskIntent.EDIT),
        ("src/\n├── main.py  # 서버 실행\n└── db.py\n이 구조로 만들어줘", TaskIntent.EDIT),
        # rule 43: what must be implemented, listed
        ("@spec.md 를 읽고 구현해야 할 기능 목록을 알려줘", TaskIntent.CHAT),
    ],
)
def test_v14_readings(text: str, intent: TaskIntent) -> None:
    assert Classifier(default_config()).classify(text).intent is intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # rule 41 (section F): "add" as 增加
        ("在Player类中增加一个血量字段", TaskIntent.EDIT),
        ("给这个接口增加参数校验", TaskIntent.EDIT),  # (v27 read chat at 0.77; v29 an edit again)
        # v25's rule 45 (dropped in v26): a committee, something made runnable, the work already run, told of
        ("文化祭実行委員会のお知らせページを作って", TaskIntent.EDIT),
        ("このスクリプトをMacでも実行できるようにしてください", TaskIntent.EDIT),
        ("네가 실행한 작업을 log.md 파일에 기록해줘", TaskIntent.EDIT),
        # rule 42: where an app's users type their prompts
        ("首页加一个提示词输入框和发送按钮", TaskIntent.EDIT),
        # section S: "where" asked without a question mark
        ("配置文件应该放在哪里", TaskIntent.CHAT),
    ],
)
def test_v15_readings(text: str, intent: TaskIntent) -> None:
    assert Classifier(default_config()).classify(text).intent is intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # carrying out a numbered step of a plan is an edit, whatever else it names
        ("Review the models. Then, execute ONLY Step 3 from docs/plan.md", TaskIntent.EDIT),
        ("Executa o Passo 4: cria o serviço de pagamentos", TaskIntent.EDIT),
        ("Ejecuta el paso 2 del plan: agrega la tabla de usuarios", TaskIntent.EDIT),
        # the session's prompts gathered into a file are a log, not a prompt to write
        ("Crea un registro de los prompts en prompts.md", TaskIntent.EDIT),
        # the Copilot instructions file followed, not written
        ("Please follow copilot-instructions.md and add a dark mode toggle", TaskIntent.EDIT),
        # Spanish and Portuguese git loan verbs
        ("commitea los cambios", TaskIntent.SKILL),
        ("pushea la rama a main", TaskIntent.SKILL),
        # a look that leads into changes (Turkish) asks for the changes
        ("ödeme sistemini incele ve eksik alanları ekle", TaskIntent.EDIT),
        ("ödeme sistemini incele", TaskIntent.REVIEW),
        # Chinese questions asked without a question mark
        ("这个接口返回的数据是什么格式", TaskIntent.CHAT),
        ("这两个版本有哪些区别", TaskIntent.CHAT),
        ("帮我把这两个版本有哪些区别写进文档", TaskIntent.EDIT),
        # a run forbidden is no run asked for
        pytest.param(
            "说明每个目录的作用，不要执行命令",
            TaskIntent.CHAT,
            marks=pytest.mark.xfail(
                strict=True,
                reason="v20: the refitted model's edit at 0.55 decides (v21: 0.57, v27: 0.75)",
            ),
        ),
    ],
)
def test_v16_readings(text: str, intent: TaskIntent) -> None:
    assert Classifier(default_config()).classify(text).intent is intent


@pytest.mark.parametrize("text", ["", "\U0001f44d", "好的", "...", "!!!"])
def test_no_content_word_is_never_the_catch_all_edit(text: str) -> None:
    """v24's catch-all edit keeps v12's guard: a content word and no question (the model
    guesses edit for words it has never seen, an empty prompt included)."""
    result = Classifier(default_config()).classify(text)
    assert result.intent is TaskIntent.CHAT
    assert result.matched_rule is None


@pytest.mark.parametrize("text", ["yes", "got it"])
def test_a_bare_approval_reads_as_the_edit_it_approves(text: str) -> None:
    """v27's refitted model reads a bare approval as the edit it most often continues in
    the labelled sets (terse follow-ups take the intent of the action they continue), at
    its edit bar: rule 208 decides, not the catch-all (v12 to v26 answered chat)."""
    result = Classifier(default_config()).classify(text)
    assert result.intent is TaskIntent.EDIT
    assert result.reason.startswith("no question and text model 'edit' at 0.")


def test_the_catch_all_guess_is_low_confidence_and_says_why() -> None:
    classifier = Classifier(default_config())
    result = classifier.classify("the second one from the list above")
    assert result.intent is TaskIntent.EDIT
    assert result.confidence is Confidence.LOW
    assert result.reason.startswith(
        "a content word and no question and text model's likeliest label 'edit' at 0."
    )
    guessed = classifier.classify("All my debit card transactions are positive, which is wrong")
    assert guessed.intent is TaskIntent.CHAT
    assert guessed.confidence is Confidence.LOW
    assert guessed.reason.startswith("text model's likeliest label 'chat' at 0.")


@pytest.mark.parametrize(
    "text",
    [
        '$architect "analyze the notification flow"',
        "[$skill-installer](/Users/me/Projects/TinyCalc/.codex/skills/.system/skill-installer/SKILL.md)",
        "$team 3:executor execute the approved plan in parallel",
        "  $Plane Captain before we start, inspect the repo",
    ],
)
def test_a_codex_dollar_mention_is_a_skill(text: str) -> None:
    """v25: Codex's $-mention of a skill, app or plugin, before the text model reads it."""
    result = Classifier(default_config()).classify(text)
    assert result.intent is TaskIntent.SKILL
    assert result.reason.startswith("mention '$")
    assert result.confidence is Confidence.MEDIUM


@pytest.mark.parametrize(
    "text",
    [
        "$HOME is not set in the container",
        "$5 a month is fine",
        "$state doesn't update when the list changes",
        "$effect runs in a loop, fix it",
        "$lookup returns an empty array",
        "$ref in the openapi schema is not resolved",
        "$this->user is null after login",
        "$lib/utils import fails",
        "$t('key') shows the raw key",
        "$hosts = Get-Content 'C:\\Windows\\System32\\drivers\\etc\\hosts'",
        "$count += 1 never runs",
        # stop 42's audit: PowerShell, PHP, TeX, framework words and plain variables
        "$files -ne $null",
        "$x, $y = 1, 2",
        "[$user] = $rows;",
        "$n \\log n$ is too slow, optimise the sort",
        "$sort stage is slow in my pipeline",
        "$addFields adds nothing",
        "$parent is null",
        "$watch not triggering",
        "$apply error in the digest",
        "$fillable property missing on model",
        "$fetch returns undefined in nuxt 3",
        "$name is undefined in my PHP script, why?",
        "$response should be JSON, fix the parser",
    ],
)
def test_a_shell_variable_a_price_or_code_is_no_mention(text: str) -> None:
    result = Classifier(default_config()).classify(text)
    assert not result.reason.startswith("mention")
