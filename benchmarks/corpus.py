"""Deterministic benchmark corpora: prompts and synthetic rule configs.

Everything here is generated from a seed (no data files, no network), so every
figure in ``benchmarks/run.py`` is reproducible. Prompts mix lengths (a few
words to a few hundred), typos of every OSA kind, inflections, identifiers,
paths, numbers and non-ASCII text (accented Latin, Greek, Cyrillic, CJK, emoji,
combining marks).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "FILLER",
    "NON_ASCII",
    "SyntheticRule",
    "default_rule_prompts",
    "late_prompts",
    "mixed_prompts",
    "random_token_text",
    "rules_toml",
    "synthetic_rules",
    "typo",
]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FILLER: tuple[str, ...] = _words(
    """
    the a an and or but if then else when while for to of in on at by with from into
    about over under after before this that these those it its is are was were be
    been can could should would will may might must please thanks hello hi ok yes no
    not what why how where which who whose whom i you we they he she me my our your
    their code function method class module package file files line lines test tests
    error errors exception stack trace log logs value values variable variables type
    types string number list dict map set array object field fields key keys index
    user users login logout session token tokens password auth api endpoint request
    response server client database query table column row schema migration cache
    config settings env build deploy release version branch commit merge pull push
    tag repo repository docker container image service worker queue job jobs task
    tasks thread async await promise callback handler event events timeout retry
    loop memory leak performance slow fast latency throughput cpu disk network
    socket port host url path route router middleware controller view model template
    component state props hook hooks style css html javascript typescript python
    rust go java kotlin swift ruby shell bash script scripts command line terminal
    output input format parse parser json yaml toml xml csv regex pattern match
    search find sort filter group count sum unit integration coverage mock fixture
    assert assertion ci pipeline workflow lint warning deprecated upgrade dependency
    dependencies library framework runtime compile compiler binary crash panic
    segfault null undefined nan overflow bounds readme docs documentation comment
    comments example examples tutorial guide think thought idea ideas question
    questions answer explain explanation understand help need want like just also
    only still really very much more most less some any every each all none other
    another same different new old first last next previous small large big little
    long short good bad better best worse worst right wrong today tomorrow yesterday
    now later soon again always never sometimes often
    """
)
"""Everyday words of coding requests that no default rule lists."""

_KEYWORD_FORMS: tuple[str, ...] = _words(
    """
    review reviews reviewing audit critique inspect feedback lgtm plan plans
    planning roadmap design architecture strategy approach outline breakdown steps
    fix fixes fixing edit change modify refactor refactoring implement implementing
    add remove rename update rewrite write create delete replace migrate optimize
    convert bug summarize summarise summary tldr recap condense digest prompt
    prompts skill skills reviewed fixed changes changed implemented designs
    refactored summarized planned
    """
)
"""Default-pack keywords and their inflections (inflections never match)."""

NON_ASCII: tuple[str, ...] = _words(
    """
    café naïve résumé über straße größe façade piñata señor jalapeño ñandú Ærø
    smørrebrød Ångström Łódź Škoda Čeština Dvořák İstanbul ıi ǅemal ΟΔΥΣΣΕΥΣ σοφός
    Σίσυφος καλημέρα λόγος ΑΣΣΟΣ привет ошибка исправить функция Проверка кода
    сервер 日本語 コード レビュー 修正 テスト 中文 代码
    审查 한국어 코드리뷰 हिन्दी कोड समीक्षा עברית קוד
    العربية مراجعة ⓐⓑⓒ Ⓡeview ﬁx ｆｕｌｌｗｉｄｔｈ ²³
    ⅻ Ⅻ ½ 🚀 ✨ 👍🏽 🐛fix re\u0301view
    """
)
"""Non-ASCII words: accents, final sigma, dotted I, CJK, RTL, circled letters, emoji."""

_PUNCT = (".", ",", "!", "?", ":", ";", " -", "...", " (", ")", '"', "'s")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def typo(word: str, rng: random.Random) -> str:
    """``word`` with one random edit: substitution, insertion, deletion or transposition."""
    if len(word) < 2:
        return word + rng.choice(_LETTERS)
    i = rng.randrange(len(word))
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + rng.choice(_LETTERS) + word[i + 1 :]
    if kind == 1:
        return word[:i] + rng.choice(_LETTERS) + word[i:]
    if kind == 2:
        return word[:i] + word[i + 1 :]
    j = min(i + 1, len(word) - 1)
    if i == j:
        i, j = i - 1, i
    return word[:i] + word[j] + word[i] + word[j + 1 :]


def _identifier(rng: random.Random) -> str:
    parts = rng.sample(FILLER, rng.randint(2, 3))
    style = rng.randrange(4)
    if style == 0:
        return "_".join(parts)
    if style == 1:
        return parts[0] + "".join(p.title() for p in parts[1:])
    if style == 2:
        return "src/" + "/".join(parts) + rng.choice((".py", ".rs", ".ts"))
    return f"{parts[0]}-{rng.randint(1, 9999)}"


def _word(
    rng: random.Random,
    keywords: Sequence[str],
    keyword_rate: float,
    typo_rate: float,
    non_ascii_rate: float,
) -> str:
    roll = rng.random()
    if roll < keyword_rate:
        word = rng.choice(keywords)
    elif roll < keyword_rate + non_ascii_rate:
        word = rng.choice(NON_ASCII)
    elif roll < keyword_rate + non_ascii_rate + 0.04:
        word = _identifier(rng)
    elif roll < keyword_rate + non_ascii_rate + 0.06:
        word = str(rng.randint(0, 10 ** rng.randint(1, 6)))
    else:
        word = rng.choice(FILLER)
    if rng.random() < typo_rate:
        word = typo(word, rng)
    if rng.random() < 0.15:
        word = word.capitalize()
    if rng.random() < 0.12:
        word += rng.choice(_PUNCT)
    return word


def _length(rng: random.Random, low: int, high: int) -> int:
    """Log-uniform prompt length: many short prompts, a tail of long ones."""
    value = int(low * (high / low) ** rng.random() + 0.5)
    return max(low, min(high, value))


def _prompt(
    rng: random.Random,
    n_words: int,
    keywords: Sequence[str],
    keyword_rate: float,
    typo_rate: float,
    non_ascii_rate: float,
) -> str:
    return " ".join(
        _word(rng, keywords, keyword_rate, typo_rate, non_ascii_rate) for _ in range(n_words)
    )


def mixed_prompts(
    n: int,
    *,
    seed: int = 1,
    min_words: int = 2,
    max_words: int = 300,
    keywords: Sequence[str] = _KEYWORD_FORMS,
    keyword_rate: float = 0.03,
    typo_rate: float = 0.06,
    non_ascii_share: float = 0.15,
) -> list[str]:
    """``n`` prompts of mixed lengths; a ``non_ascii_share`` of them hold non-ASCII words."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(n):
        non_ascii_rate = 0.15 if rng.random() < non_ascii_share else 0.0
        out.append(
            _prompt(
                rng,
                _length(rng, min_words, max_words),
                keywords,
                keyword_rate,
                typo_rate,
                non_ascii_rate,
            )
        )
    return out


@dataclass(frozen=True)
class SyntheticRule:
    """A rule as plain data (also renderable as TOML)."""

    intent: str
    priority: int
    keywords: tuple[str, ...]
    contexts: tuple[str, ...] = ()


_INTENTS = ("plan", "edit", "review", "summarize", "prompt", "skill")
_SYLLABLES = tuple(
    c + v for c in "bcdfghjklmnprstvwxz" for v in ("a", "e", "i", "o", "u", "ai", "ou", "ei")
)


def _pseudo_word(rng: random.Random) -> str:
    """A made-up word of 3 to 14 letters (keywords no everyday word collides with)."""
    target = rng.choice((3, 4, 5, 6, 6, 7, 7, 8, 8, 9, 10, 11, 12, 14))
    word = ""
    while len(word) < target:
        word += rng.choice(_SYLLABLES)
    return word[:target]


def synthetic_rules(n_rules: int, n_keywords: int, *, seed: int = 7) -> list[SyntheticRule]:
    """``n_rules`` rules sharing ``n_keywords`` made-up keywords; some need a context."""
    rng = random.Random(seed)
    vocab: list[str] = []
    seen: set[str] = set()
    while len(vocab) < n_keywords:
        word = _pseudo_word(rng)
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    rules: list[SyntheticRule] = []
    per_rule = max(1, n_keywords // n_rules)
    for i in range(n_rules):
        words = vocab[i * per_rule : (i + 1) * per_rule] or [rng.choice(vocab)]
        contexts: tuple[str, ...] = ()
        if rng.random() < 0.2:
            contexts = (rng.choice(("git_diff", "active_file", "referenced_paths")),)
        rules.append(
            SyntheticRule(
                intent=rng.choice(_INTENTS),
                priority=rng.randrange(0, 5000),
                keywords=tuple(w.capitalize() if rng.random() < 0.1 else w for w in words),
                contexts=contexts,
            )
        )
    return rules


def late_prompts(
    rules: Sequence[SyntheticRule],
    n: int,
    *,
    seed: int = 3,
    min_words: int = 10,
    max_words: int = 100,
    typo_rate: float = 0.06,
) -> list[str]:
    """Prompts that match no rule, or only the last rule in evaluation order.

    Half use only everyday words (no rule matches: every rule is tried); the
    other half add one keyword of the lowest-precedence rule.
    """
    rng = random.Random(seed)
    last = max(range(len(rules)), key=lambda i: (rules[i].priority, i))
    out: list[str] = []
    for k in range(n):
        words = [
            _word(rng, FILLER, 0.0, typo_rate, 0.0)
            for _ in range(_length(rng, min_words, max_words))
        ]
        if k % 2 and rules[last].keywords:
            words.insert(rng.randrange(len(words) + 1), rules[last].keywords[0])
        out.append(" ".join(words))
    return out


def default_rule_prompts(n: int, *, seed: int = 5) -> list[str]:
    """10-100-word prompts whose keywords come from ``rules``-independent forms (typo'd)."""
    return mixed_prompts(n, seed=seed, min_words=10, max_words=100, non_ascii_share=0.1)


def random_token_text(n_bytes: int, *, seed: int = 11) -> str:
    """About ``n_bytes`` of unique random lowercase tokens separated by spaces."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    serial = 0
    while size < n_bytes:
        serial += 1
        # a random stem plus a serial number: every token is distinct
        token = "".join(rng.choices(_LETTERS, k=rng.randint(3, 9))) + str(serial)
        parts.append(token)
        size += len(token) + 1
    return " ".join(parts)


def rules_toml(rules: Sequence[SyntheticRule], default_intent: str = "chat") -> str:
    """The rules as a smista rules file."""
    import json

    lines = ["[classification]", f'default_intent = "{default_intent}"', ""]
    for rule in rules:
        lines.append("[[classification.rules]]")
        lines.append(f'intent = "{rule.intent}"')
        lines.append(f"priority = {rule.priority}")
        lines.append(f"keywords = {json.dumps(list(rule.keywords), ensure_ascii=False)}")
        if rule.contexts:
            lines.append(f"requires_any_context = {json.dumps(list(rule.contexts))}")
        lines.append("")
    return "\n".join(lines)
