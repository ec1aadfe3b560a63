"""A short, obviously-correct reference classifier, written from the spec alone.

Used by the differential tests: no indexes, no memo, no rapidfuzz; rules are
evaluated one by one, keyword by keyword, token by token. Tokenization is the
one shared piece (it is tested separately against Rust's own output).
"""

from __future__ import annotations

from typing import Any

from smista.core.tokenizer import rust_lower, tokenize


def osa(a: str, b: str) -> int:
    """Optimal String Alignment distance by dynamic programming."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def cap(n: int) -> int:
    return 0 if n < 5 else 1 if n < 9 else 2


def keyword_result(keyword: str, tokens: list[str]) -> str | None:
    needle = rust_lower(keyword)
    if needle in tokens:
        return "exact"
    c = cap(len(needle))
    for t in tokens:
        if c and needle not in t and t not in needle and 0 < osa(needle, t) <= c:
            return "fuzzy"
    return None


def classify(
    text: str, config: dict[str, Any], contexts: set[str], command: str | None = None
) -> dict[str, Any]:
    """The wire JSON the original gives for this request."""
    if command is not None:
        return {"intent": command, "source": "explicit", "reason": f"explicit command '{command}'"}
    tokens = tokenize(text)
    rules = config.get("rules", [])
    order = sorted(range(len(rules)), key=lambda i: (rules[i].get("priority", 1000), i))
    for i in order:
        rule = rules[i]
        keywords = rule.get("keywords", [])
        wanted = rule.get("requires_any_context", [])
        hit = None
        fuzzy = False
        if keywords:
            results = [keyword_result(k, tokens) for k in keywords]
            exact = [k for k, r in zip(keywords, results, strict=True) if r == "exact"]
            typo = [k for k, r in zip(keywords, results, strict=True) if r == "fuzzy"]
            if exact:
                hit = exact[0]
            elif typo:
                hit, fuzzy = typo[0], True
            else:
                continue
        ctx = None
        if wanted:
            present = [c for c in wanted if c in contexts]
            if not present:
                continue
            ctx = present[0]
        if hit is not None and ctx is not None:
            reason = f"keyword '{hit}' and context '{ctx}' matched rule {i}"
            confidence = "medium" if fuzzy else "high"
        elif hit is not None:
            reason, confidence = f"keyword '{hit}' matched rule {i}", "medium"
        elif ctx is not None:
            reason, confidence = f"context '{ctx}' matched rule {i}", "medium"
        else:
            reason, confidence = f"catch-all rule {i} matched", "low"
        return {
            "intent": rule["intent"],
            "source": "inferred",
            "reason": reason,
            "matched_rule": i,
            "confidence": confidence,
        }
    default = config.get("default_intent", "chat")
    return {
        "intent": default,
        "source": "inferred",
        "reason": f"no rule matched; default intent '{default}'",
        "confidence": "low",
    }


# ---------------------------------------------------------------------------
# The smista extension kinds, restated plainly from docs/rules.md. The marker
# functions (slash command, content words, question) are shared like the
# tokenizer and tested on their own in tests/test_markers.py.

_HAN_RANGES = (
    (0xAC00, 0xD7A3),
    (0x1100, 0x11FF),
    (0x3130, 0x318F),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x3134F),
)


def hangul_or_han(word: str) -> bool:
    return any(a <= ord(ch) <= b for ch in word for a, b in _HAN_RANGES)


def word_result(word: str, token: str, typo: bool) -> str | None:
    """'exact', 'fuzzy' or None for one lowercased word against one token."""
    if word == token:
        return "exact"
    c = cap(len(word))
    if typo and c and word not in token and token not in word and 0 < osa(word, token) <= c:
        return "fuzzy"
    return None


def _sequence(words: list[str], tokens: list[str], typo: bool) -> str | None:
    best = None
    for start in range(len(tokens) - len(words) + 1):
        results = [
            word_result(w, tokens[start + k], typo and not hangul_or_han(w))
            for k, w in enumerate(words)
        ]
        if None in results:
            continue
        if all(r == "exact" for r in results):
            return "exact"
        best = "fuzzy"
    return best if words else None


def _first_of(entries: list[str], result: Any) -> tuple[str, bool] | None:
    """First entry holding exactly, else first holding by typo."""
    results = [result(e) for e in entries]
    for e, r in zip(entries, results, strict=True):
        if r == "exact":
            return e, False
    for e, r in zip(entries, results, strict=True):
        if r == "fuzzy":
            return e, True
    return None


def model_answer(
    weights: dict[str, Any], tokens: list[str], corrected: set[str]
) -> tuple[str, float]:
    """The text model's label and probability, restated from docs/rules.md with floats:
    features are the first 400 tokens, the corrected keywords, and the pairs of
    neighbouring characters (after '#') inside the tokens (not the corrected keywords) of
    scripts written without spaces; scores are bias + the known features' weights summed /
    (scale * sqrt(known)); softmax."""
    import math

    words = set(tokens[:400])
    feats = words | corrected
    for w in words:
        if any(
            ord(c) >= 0x2E80
            or 0x0E00 <= ord(c) <= 0x0EFF
            or 0x1000 <= ord(c) <= 0x109F
            or 0x1780 <= ord(c) <= 0x17FF
            for c in w
        ):
            feats.update("#" + w[i : i + 2] for i in range(len(w) - 1))
    rows = weights["weights"]
    known = [f for f in feats if f in rows]
    labels = weights["labels"]
    scores = list(weights["bias"])
    for k in range(len(labels)):
        if known:
            total = sum(rows[f][k] for f in known)
            scores[k] += total / (weights["scale"] * math.sqrt(len(known)))
    top = max(scores)
    exps = [math.exp(x - top) for x in scores]
    best = max(range(len(labels)), key=lambda k: exps[k])
    return labels[best], exps[best] / math.fsum(exps)


_WIDE_PUNCTUATION = "\uff0c\u3002\uff1a\uff1b\uff01\uff1f\u3001"
_POWERSHELL = [
    "eq",
    "ne",
    "gt",
    "ge",
    "lt",
    "le",
    "like",
    "notlike",
    "match",
    "notmatch",
    "contains",
    "notcontains",
    "in",
    "notin",
    "replace",
    "and",
    "or",
    "xor",
    "not",
    "is",
    "isnot",
    "as",
]
_SUBJECT_WORDS = {
    "is",
    "isn't",
    "isnt",
    "are",
    "aren't",
    "arent",
    "was",
    "wasn't",
    "wasnt",
    "were",
    "weren't",
    "werent",
    "has",
    "hasn't",
    "hasnt",
    "have",
    "haven't",
    "had",
    "does",
    "doesn't",
    "doesnt",
    "did",
    "didn't",
    "didnt",
    "should",
    "shouldn't",
    "must",
    "can",
    "can't",
    "cant",
    "cannot",
    "could",
    "couldn't",
    "would",
    "wouldn't",
    "will",
    "won't",
    "wont",
    "may",
    "might",
    "returns",
    "returned",
    "contains",
    "gets",
    "keeps",
    "stays",
    "equals",
    "becomes",
    "seems",
    "shows",
    "prints",
    "never",
    "always",
    "still",
}


def _no_space_script(ch: str) -> bool:
    o = ord(ch)
    return any(
        a <= o <= b
        for a, b in ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3))
    ) or (0xF900 <= o <= 0xFAFF)


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _operator_follows(line: str) -> bool:
    """Whether ``line`` (what follows a variable on its line) assigns, compares, pipes or
    redirects: past spaces, tabs and other ``$variables``."""
    while line.startswith("$") and line[1:2] and _word_char(line[1]):
        k = 1
        while k < len(line) and _word_char(line[k]):
            k += 1
        line = line[k:].lstrip(".,:;").lstrip(" \t")
    if line[:1] in ("=", "|"):
        return True
    if line[:1] in ("<", ">") and (len(line) == 1 or line[1].isspace() or line[1] in "=<>"):
        return True
    if any(
        line[k : k + 1] == "=" and all(c in "-+*/.%&^:?<>!" for c in line[:k]) for k in range(1, 4)
    ):
        return True
    lowered = line.lower()
    return any(
        lowered.startswith("-" + op)
        and not (len(line) > len(op) + 1 and _word_char(line[len(op) + 1]))
        for op in _POWERSHELL
    )


def _dollar_mention(text: str) -> str | None:
    """A $-mention the prompt starts with, lowercased: ``[$name](...)`` (name: ASCII
    letters, digits, ``_-:.``) or ``$name`` (ASCII letters, digits, ``_-``) before
    whitespace or the end (some ``.,:;!?`` between), or right before full-width
    punctuation or a no-space script; never a variable assigned, compared, piped or
    redirected on its line, a line closing math (a ``$`` after a non-space), or a
    variable followed by a subject word; a name starts with a letter and is not all
    capitals."""
    rest = text.lstrip()
    bracket = rest.startswith("[$")
    if not (bracket or rest.startswith("$")):
        return None
    rest = rest[2:] if bracket else rest[1:]
    allowed = "_-:." if bracket else "_-"
    end = 0
    while end < len(rest) and (
        (rest[end].isascii() and rest[end].isalnum()) or rest[end] in allowed
    ):
        end += 1
    if bracket:
        if rest[end : end + 2] != "](":
            return None
    else:
        after = rest[end:]
        if after and not (after[0] in _WIDE_PUNCTUATION or _no_space_script(after[0])):
            stripped = after.lstrip(".,:;!?")
            if stripped and not stripped[0].isspace():
                return None
        if _operator_follows(after.lstrip(".,:;!?").lstrip(" \t")):
            return None
        line = after.split("\n", 1)[0]
        if any(line[i] == "$" and not line[i - 1].isspace() for i in range(1, len(line))):
            return None
        word = line.lstrip(" \t\r\f\v.,:;!?")
        k = 0
        while k < len(word) and ((word[k].isascii() and word[k].isalpha()) or word[k] in "'\u2019"):
            k += 1
        if word[:k].lower().replace("\u2019", "'") in _SUBJECT_WORDS:
            return None
    name = rest[:end].rstrip(".:-")
    if not name[:1].isalpha() or name.isupper():
        return None
    return name.lower()


def classify_extended(
    text: str,
    config: dict[str, Any],
    contexts: set[str],
    model: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The wire JSON for a config that may use every smista extension kind (``model``:
    the text model's data, ``TextModel.to_data()``, when the config names one).

    Which condition holds, and with what, is decided here from the spec; how
    each kind words its part of the reason and whether it counts towards the
    confidence is the kind's own (``describe``/``counts`` through the registry).
    """
    from smista.core.conditions.base import Evidence
    from smista.core.conditions.markers import (
        DEFAULT_MARKERS,
        content_tokens,
        is_question,
        slash_command,
    )
    from smista.core.conditions.registry import BY_KEY
    from smista.core.conditions.view import visible_text

    options = config.get("options", {})
    markers = DEFAULT_MARKERS
    visible = visible_text(text) if options.get("ignore_code", False) else text
    han_typos = options.get("hangul_han_typos", True)
    tokens = tokenize(visible)
    rules = config.get("rules", [])
    order = sorted(range(len(rules)), key=lambda i: (rules[i].get("priority", 1000), i))
    answer: tuple[str, float] | None = None
    if model is not None:
        # For each token and typo-tolerant rule that reads it by typo only, the rule's
        # first keyword it is a typo of (the keyword the rule reads it as).
        corrected = set()
        for rule in rules:
            if not rule.get("typo", True):
                continue
            needles = [rust_lower(k) for k in rule.get("keywords", [])]
            for t in set(tokens):
                if t in needles:
                    continue
                for needle in needles:
                    if not han_typos and hangul_or_han(needle):
                        continue
                    if word_result(needle, t, True) == "fuzzy":
                        corrected.add(needle)
                        break
        answer = model_answer(model, tokens, corrected)
    for i in order:
        rule = rules[i]
        typo = rule.get("typo", True)
        found: list[Evidence] = []
        keywords = rule.get("keywords", [])
        if keywords:

            def kw(k: str, typo: bool = typo) -> str | None:
                needle = rust_lower(k)
                allow = typo and (han_typos or not hangul_or_han(needle))
                results = [word_result(needle, t, allow) for t in tokens]
                return "exact" if "exact" in results else ("fuzzy" if "fuzzy" in results else None)

            hit = _first_of(keywords, kw)
            if hit is None:
                continue
            found.append(Evidence("keywords", hit[0], hit[1]))
        commands = [
            c[1:].lower() if c.startswith("/") else c.lower() for c in rule.get("commands", [])
        ]
        if commands:
            command = slash_command(text)
            if command is None or not (command in commands or "*" in commands):
                continue
            found.append(Evidence("commands", "/" + command))
        mentions = [m.strip() for m in rule.get("mentions", [])]
        if mentions:
            wanted = {m.lstrip("$").lower() for m in mentions if not m.startswith("!")}
            never = {m[1:].strip().lstrip("$").lower() for m in mentions if m.startswith("!")}
            mention = _dollar_mention(text)
            if mention is None or mention in never or not (mention in wanted or "*" in wanted):
                continue
            found.append(Evidence("mentions", "$" + mention))
        leading = rule.get("leading", [])
        if leading:
            content = list(content_tokens(visible, markers))

            def lead(entry: str, content: list[str] = content, typo: bool = typo) -> str | None:
                words = tokenize(entry)
                if not words or len(words) > len(content):
                    return None
                results = [
                    word_result(w, content[k], typo and not hangul_or_han(w))
                    for k, w in enumerate(words)
                ]
                if None in results:
                    return None
                return "exact" if all(r == "exact" for r in results) else "fuzzy"

            hit = _first_of([e for e in leading if e.strip() != "*"], lead)
            if hit is None and content and any(e.strip() == "*" for e in leading):
                hit = ("*", False)
            if hit is None:
                continue
            found.append(Evidence("leading", hit[0], hit[1]))
        lead_endings = [rust_lower(e) for e in rule.get("lead_endings", []) if e.strip("!")]
        if lead_endings:
            first = next(iter(content_tokens(visible, markers)), "")
            excepted = {e[1:] for e in lead_endings if e.startswith("!")}
            ending = next(
                (
                    e
                    for e in lead_endings
                    if not e.startswith("!")
                    and first not in excepted
                    and first.endswith(e)
                    and len(first) - len(e) >= 3
                ),
                None,
            )
            if ending is None:
                continue
            found.append(Evidence("lead_endings", ending))
        phrases = rule.get("phrases", [])
        if phrases:
            hit = _first_of(phrases, lambda p, typo=typo: _sequence(tokenize(p), tokens, typo))
            if hit is None:
                continue
            found.append(Evidence("phrases", hit[0], hit[1]))
        stems = [rust_lower(s) for s in rule.get("stems", []) if s]
        if stems:
            stem = next((s for s in stems if any(t.startswith(s) for t in tokens)), None)
            if stem is None:
                continue
            found.append(Evidence("stems", stem))
        subs = [s.lower() for s in rule.get("substrings", []) if s]
        if subs:
            sub = next((s for s in subs if s in text.lower()), None)
            if sub is None:
                continue
            found.append(Evidence("substrings", sub))
        question = rule.get("question")
        if question is not None:
            if is_question(visible, markers) != question:
                continue
            found.append(Evidence("question", "question" if question else "no question"))
        exclude = rule.get("exclude", [])
        if exclude:
            vetoed = any(
                _sequence(tokenize(e), tokens, False) == "exact" for e in exclude if tokenize(e)
            )
            if vetoed:
                continue
        excluded_strings = [s.lower() for s in rule.get("exclude_substrings", []) if s]
        if any(s in text.lower() for s in excluded_strings):
            continue
        predicted = [p.strip().lower() for p in rule.get("predicted", [])]
        if predicted:
            table = config.get("model", {})
            by_label = {
                k.strip().lower(): v for k, v in table.get("min_probability_by_label", {}).items()
            }
            minimum = by_label.get(answer[0], table.get("min_probability", 0.6)) if answer else 0
            if answer is None or answer[0] not in predicted or answer[1] < minimum:
                continue
            found.append(Evidence("predicted", f"{answer[0]} {answer[1]:.2f}"))
        likeliest = [p.strip().lower() for p in rule.get("likeliest", [])]
        if likeliest:
            if answer is None or answer[0] not in likeliest:
                continue
            found.append(Evidence("likeliest", f"{answer[0]} {answer[1]:.2f}"))
        wanted = rule.get("requires_any_context", [])
        if wanted:
            present = [c for c in wanted if c in contexts]
            if not present:
                continue
            found.append(Evidence("requires_any_context", present[0]))
        parts = [p for e in found if (p := BY_KEY[e.kind].describe(e)) is not None]
        counted = [e for e in found if BY_KEY[e.kind].counts(e)]
        signals = len(counted)
        fuzzy_any = any(e.fuzzy for e in counted)
        if parts:
            reason = " and ".join(parts) + f" matched rule {i}"
        elif exclude or excluded_strings:
            reason = f"rule {i} matched: none of its exclusions occur"
        else:
            reason = f"catch-all rule {i} matched"
        confidence = "low" if signals == 0 else "medium" if signals == 1 or fuzzy_any else "high"
        return {
            "intent": rule["intent"],
            "source": "inferred",
            "reason": reason,
            "matched_rule": i,
            "confidence": confidence,
        }
    default = config.get("default_intent", "chat")
    return {
        "intent": default,
        "source": "inferred",
        "reason": f"no rule matched; default intent '{default}'",
        "confidence": "low",
    }
