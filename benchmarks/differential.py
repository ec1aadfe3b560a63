"""Differential run: the fast path against the references on many random prompts.

``python benchmarks/differential.py [--prompts N] [--seed S]`` (default 120,000)
generates random rule sets (synthetic keywords with typos, cases, separators,
shared prefixes, equal priorities, contexts) and prompts built from mutated
keywords and filler, and checks for every prompt that

* ``CompiledRules.match_text`` (the fast path, memo and typo index), cold and
  warm (warm, a prompt without contexts is answered by the compiled scan of
  :mod:`smista.core._speedups` when it is built), and the pure-Python path,
* a fresh ``CompiledRules`` rebuilt from cache data, with rapidfuzz band scans
  (and the C typo index when built),
* the readable matcher (:func:`smista.core.reference.match_rules`, rule by rule),
* the direct transliteration in :mod:`benchmarks.baseline`,
* and, when cargo is present, the compiled Rust build of the original

all give the same outcome (rule, keyword, fuzzy, context); tokenization is also
compared with Rust's. Prints ``name: value`` lines; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import corpus, rust  # noqa: E402
from benchmarks.baseline import BaselineClassifier  # noqa: E402
from smista.core.engine import CompiledRules, RuleMatch, RuleSpec  # noqa: E402
from smista.core.reference import match_rules  # noqa: E402
from smista.core.tokenizer import tokenize  # noqa: E402

CONTEXTS = ("git_diff", "git_branch", "active_file", "referenced_paths", "pull_request")
SEPARATORS = (" ", " ", " ", "  ", "\n", "-", "_", ", ", ". ", "/", "'", "🙂", "—", "\t")


def random_keyword(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        word = rng.choice(corpus.FILLER + corpus._KEYWORD_FORMS)
    elif roll < 0.8:
        word = corpus._pseudo_word(rng)
    elif roll < 0.9:
        word = rng.choice(corpus.NON_ASCII)
    else:
        word = rng.choice(corpus.FILLER) + rng.choice(("", " ", "-")) + rng.choice(corpus.FILLER)
    if rng.random() < 0.15:
        word = word.upper() if rng.random() < 0.5 else word.capitalize()
    return word


def random_rules(rng: random.Random) -> list[RuleSpec]:
    rules = []
    for _ in range(rng.randint(0, 14)):
        keywords = tuple(random_keyword(rng) for _ in range(rng.choice((0, 1, 1, 2, 3, 5))))
        contexts = tuple(rng.sample(CONTEXTS, rng.choice((0, 0, 0, 1, 2))))
        rules.append(
            RuleSpec(rng.choice(("plan", "edit", "review")), rng.randint(0, 6), keywords, contexts)
        )
    return rules


def random_prompt(rng: random.Random, specs: Sequence[RuleSpec]) -> str:
    pool = [k for s in specs for k in s.keywords] or ["review"]
    words = []
    for _ in range(rng.randint(0, 30)):
        roll = rng.random()
        if roll < 0.3:
            word = rng.choice(pool)
            for _ in range(rng.choice((0, 1, 1, 2, 3))):
                word = corpus.typo(word, rng)
            if rng.random() < 0.1:
                word = word + rng.choice(("s", "ing", "ed"))
        elif roll < 0.4:
            word = rng.choice(corpus.NON_ASCII)
        else:
            word = rng.choice(corpus.FILLER)
        if rng.random() < 0.2:
            word = word.upper() if rng.random() < 0.5 else word.capitalize()
        words.append(word + rng.choice(SEPARATORS))
    return "".join(words)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=120_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--per-config", type=int, default=40, help="prompts per rule set")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    binary = rust.build()
    mismatches = 0
    token_mismatches = 0
    checked = 0
    fuzzy_hits = 0
    defaults = 0
    configs = 0
    scanned = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        while checked < args.prompts:
            specs = random_rules(rng)
            configs += 1
            fast = CompiledRules(specs, "chat")
            pure = CompiledRules(specs, "chat", accelerated=False)
            banded = CompiledRules.from_data(fast.to_data())
            banded._enable_bands()
            base = BaselineClassifier(specs, "chat")
            prompts = [random_prompt(rng, specs) for _ in range(args.per_config)]
            contexts = [frozenset(rng.sample(CONTEXTS, rng.randint(0, 2))) for _ in prompts]
            from_rust: list[RuleMatch] | None = None
            rust_tokens: list[list[str]] | None = None
            if binary is not None:
                rust.write_prompts(prompts, work / "p.txt", contexts)
                from_rust = rust.classify(binary, specs, "chat", work / "p.txt", work / "r.txt")
                rust_tokens = rust.tokenize(binary, work / "p.txt")
            for i, (prompt, ctx) in enumerate(zip(prompts, contexts, strict=True)):
                tokens = tokenize(prompt)
                expected = match_rules(specs, "chat", tokens, ctx)
                got = [fast.match_text(prompt, ctx), banded.match_text(prompt, ctx)]
                got.append(pure.match_text(prompt, ctx))
                if not ctx and fast._fast is not None:
                    scanned += isinstance(fast._fast.scan(prompt, 0), int)
                got.append(fast.match_text(prompt, ctx))  # warm
                got.append(base.match(prompt, ctx))
                if from_rust is not None:
                    got.append(from_rust[i])
                if any(g != expected for g in got):
                    mismatches += 1
                    if mismatches <= 5:
                        print(f"MISMATCH {prompt!r} {sorted(ctx)} {specs}", file=sys.stderr)
                        print(f"  expected {expected}\n  got {got}", file=sys.stderr)
                if rust_tokens is not None and rust_tokens[i] != tokens:
                    token_mismatches += 1
                fuzzy_hits += expected.fuzzy
                defaults += expected.rule is None
                checked += 1
    print(f"differential.prompts: {checked}")
    print(f"differential.rule_sets: {configs}")
    print(f"differential.rust_compared: {binary is not None}")
    print(f"differential.answered_by_compiled_scan: {scanned}")
    print(f"differential.outcomes_default: {defaults}")
    print(f"differential.outcomes_fuzzy: {fuzzy_hits}")
    print(f"differential.mismatches: {mismatches}")
    print(f"differential.token_mismatches_vs_rust: {token_mismatches}")
    return 1 if mismatches or token_mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
