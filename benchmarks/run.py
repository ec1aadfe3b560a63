"""Every performance figure of smista in one run: ``python benchmarks/run.py``.

Prints ``name: value`` lines (times in microseconds unless the name says
otherwise; ratios are measured in this one run, on this machine). Sections:

* ``floor``    classify vs tokenize on a mixed corpus with the shipped rules
               (and vs the pure-Python path, and a bare C split);
* ``baseline`` vs the direct Python transliteration (50 rules / 300 keywords);
* ``rust``     vs a compiled Rust build of the original (skipped without cargo);
* ``rules``    50 vs 1,000 rules on prompts that match late or not at all;
* ``scaling``  10x longer prompts, and 1 MB vs 10 MB of unique random tokens;
* ``start``    whole-process ``smista classify`` vs ``python -c "import rapidfuzz"``;
* ``batch``    ``smista batch`` throughput, 2 workers vs 1, on 1,000,000 lines.

Options: ``--quick`` (smaller sizes, for a smoke run), ``--only SECTION,...``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import corpus, rust  # noqa: E402
from benchmarks.baseline import BaselineClassifier  # noqa: E402
from benchmarks.jsonl import write_jsonl  # noqa: E402
from benchmarks.timing import interleaved  # noqa: E402
from smista.config.rulecache import load_rules  # noqa: E402
from smista.core.engine import CompiledRules, RuleSpec  # noqa: E402
from smista.core.tokenizer import tokenize  # noqa: E402

SECTIONS = ("floor", "baseline", "rust", "rules", "scaling", "start", "batch")


def emit(name: str, value: object) -> None:
    if isinstance(value, float):
        value = f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"
    print(f"{name}: {value}", flush=True)


def specs_of(rules: Sequence[corpus.SyntheticRule]) -> list[RuleSpec]:
    return [RuleSpec(r.intent, r.priority, r.keywords, r.contexts) for r in rules]


def regex_tokenize(text: str) -> list[str]:
    """The straightforward tokenizer (one regex over lowercased text) for comparison."""
    import re

    if text.isascii():
        return re.findall(r"[a-z0-9]+", text.lower())
    return tokenize(text)


def warm(func: Callable[[str], object], prompts: Sequence[str]) -> None:
    for prompt in prompts:
        func(prompt)


def cold_total(make: Callable[[], Callable[[str], object]], prompts: Sequence[str]) -> float:
    """Best-of-3 seconds for one pass over ``prompts`` with a freshly compiled matcher."""
    best = float("inf")
    for _ in range(3):
        func = make()
        gc.collect()
        start = time.perf_counter()
        for prompt in prompts:
            func(prompt)
        best = min(best, time.perf_counter() - start)
    return best


# ---------------------------------------------------------------------------


def section_floor(quick: bool) -> None:
    from smista.config.defaults import default_classifier
    from smista.core import engine

    prompts = corpus.mixed_prompts(800 if quick else 4000)
    classifier = default_classifier()
    pure = CompiledRules(classifier.rules.specs, classifier.rules.default_label, accelerated=False)
    warm(classifier.classify, prompts)
    warm(pure.match_code, prompts)
    rounds = 3 if quick else 7
    tok, cls, rx, py = interleaved(
        [tokenize, classifier.classify, regex_tokenize, pure.match_code], prompts, rounds=rounds
    )
    emit("floor.prompts", len(prompts))
    emit("floor.compiled_hot_path", engine.ACCELERATED)
    emit("floor.tokenize_median_us", tok.median / 1000)
    emit("floor.classify_median_us", cls.median / 1000)
    emit("floor.classify_over_tokenize_median", cls.median / tok.median)
    emit("floor.classify_over_tokenize_total", cls.total / tok.total)
    emit("floor.regex_tokenize_median_us", rx.median / 1000)
    emit("floor.classify_over_regex_tokenize_median", cls.median / rx.median)
    emit("floor.pure_python_match_over_tokenize_median", py.median / tok.median)
    # Hosts usually say which context kinds are at hand: that path too.
    kinds = frozenset({"git_diff", "referenced_paths"})

    def with_contexts(prompt: str) -> object:
        return classifier.classify(prompt, contexts=kinds)

    warm(with_contexts, prompts)
    tok_c, ctx = interleaved([tokenize, with_contexts], prompts, rounds=rounds)
    emit("floor.classify_with_contexts_over_tokenize_median", ctx.median / tok_c.median)
    if engine.ACCELERATED:
        # A harder floor: the bare C pass that finds token boundaries (no
        # lowercasing, no objects), on the prompts whose letters are ASCII.
        from smista.core._speedups import split_count

        ascii_prompts = [p for p in prompts if split_count(p) >= 0]
        bare, cls_ascii = interleaved(
            [split_count, classifier.classify], ascii_prompts, rounds=rounds
        )
        emit("floor.ascii_prompts", len(ascii_prompts))
        emit("floor.c_split_median_us", bare.median / 1000)
        emit("floor.classify_over_c_split_median", cls_ascii.median / bare.median)


def _baseline_setup(quick: bool) -> tuple[list[RuleSpec], list[str]]:
    rules = corpus.synthetic_rules(50, 300)
    keywords = [k.lower() for r in rules for k in r.keywords]
    prompts = corpus.mixed_prompts(
        150 if quick else 600,
        seed=13,
        min_words=10,
        max_words=100,
        keywords=keywords,
        keyword_rate=0.02,
    )
    return specs_of(rules), prompts


def section_baseline(quick: bool) -> None:
    specs, prompts = _baseline_setup(quick)
    base = BaselineClassifier(specs, "chat")
    fast = CompiledRules(specs, "chat")
    warm(fast.match_text, prompts)
    b, f = interleaved([base.match, fast.match_text], prompts, rounds=2 if quick else 3, inner=1)
    emit("baseline.rules", len(specs))
    emit("baseline.keywords", sum(len(s.keywords) for s in specs))
    emit("baseline.prompts", len(prompts))
    emit("baseline.transliteration_median_us", b.median / 1000)
    emit("baseline.fast_median_us", f.median / 1000)
    emit("baseline.speedup_median", b.median / f.median)
    emit("baseline.speedup_total", b.total / f.total)
    cold = cold_total(lambda: CompiledRules(specs, "chat").match_text, prompts)
    emit("baseline.fast_cold_per_prompt_us", cold / len(prompts) * 1e6)
    emit("baseline.speedup_total_cold", b.total / 1e9 / cold)


def section_rust(quick: bool) -> None:
    binary = rust.build()
    if binary is None:
        emit("rust.skipped", "cargo not available or build failed")
        return
    from smista.config.defaults import default_classifier

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = [
            ("default_mixed", load_rules(None), corpus.mixed_prompts(800 if quick else 3000)),
        ]
        specs, prompts = _baseline_setup(quick)
        cases.append(("synthetic50", CompiledRules(specs, "chat"), prompts))
        big = specs_of(corpus.synthetic_rules(1000, 6000))
        late = corpus.late_prompts(corpus.synthetic_rules(1000, 6000), 100 if quick else 400)
        cases.append(("synthetic1000_late", CompiledRules(big, "chat"), late))
        default_classifier()  # imported for parity with the floor section
        for name, rules, texts in cases:
            rust.write_rules(rules.specs, rules.default_label, work / "rules.txt")
            rust.write_prompts(texts, work / "prompts.txt")
            measured = rust.run_bench(binary, work / "rules.txt", work / "prompts.txt", 3)
            warm(rules.match_text, texts)
            (fast,) = interleaved([rules.match_text], texts, rounds=3)
            emit(f"rust.{name}.prompts", len(texts))
            emit(f"rust.{name}.rust_median_us", measured["median_ns"] / 1000)
            emit(f"rust.{name}.fast_median_us", fast.median / 1000)
            emit(f"rust.{name}.rust_over_fast_median", measured["median_ns"] / fast.median)
            emit(f"rust.{name}.rust_over_fast_total", measured["total_ns"] / fast.total)
            cold = cold_total(partial(_fresh_matcher, rules), texts)
            emit(f"rust.{name}.rust_over_fast_cold_total", measured["total_ns"] / 1e9 / cold)


def _fresh_matcher(rules: CompiledRules) -> Callable[[str], object]:
    return CompiledRules(rules.specs, rules.default_label).match_text


def section_rules(quick: bool) -> None:
    small_rules = corpus.synthetic_rules(50, 300)
    big_rules = corpus.synthetic_rules(1000, 6000)
    small = specs_of(small_rules)
    big = specs_of(big_rules)
    n = 300 if quick else 1500
    # the same everyday words for both; the late keyword is each set's own last rule
    prompts_small = corpus.late_prompts(small_rules, n)
    prompts_big = corpus.late_prompts(big_rules, n)
    fs = CompiledRules(small, "chat")
    fb = CompiledRules(big, "chat")
    warm(fs.match_text, prompts_small)
    warm(fb.match_text, prompts_big)
    # interleave per prompt index: prompt i of each set has the same words
    pairs = list(zip(prompts_small, prompts_big, strict=True))
    index = {p: i for i, p in enumerate(prompts_small)}

    def big_twin(prompt: str) -> object:
        return fb.match_text(pairs[index[prompt]][1])

    def small_one(prompt: str) -> object:
        index[prompt]
        return fs.match_text(prompt)

    s, b = interleaved([small_one, big_twin], prompts_small, rounds=3 if quick else 5)
    emit("rules.small_rules", len(small))
    emit("rules.large_rules", len(big))
    emit("rules.large_keywords", sum(len(x.keywords) for x in big))
    emit("rules.late_prompts", n)
    emit("rules.late_50_median_us", s.median / 1000)
    emit("rules.late_1000_median_us", b.median / 1000)
    emit("rules.late_1000_over_50_median", b.median / s.median)
    cold_s = cold_total(lambda: CompiledRules(small, "chat").match_text, prompts_small)
    cold_b = cold_total(lambda: CompiledRules(big, "chat").match_text, prompts_big)
    emit("rules.late_50_cold_per_prompt_us", cold_s / n * 1e6)
    emit("rules.late_1000_cold_per_prompt_us", cold_b / n * 1e6)
    emit("rules.late_1000_over_50_cold", cold_b / cold_s)
    base_n = 20 if quick else 60
    bs = BaselineClassifier(small, "chat")
    bb = BaselineClassifier(big, "chat")
    t0 = time.perf_counter()
    warm(bs.match, prompts_small[:base_n])
    t1 = time.perf_counter()
    warm(bb.match, prompts_big[:base_n])
    t2 = time.perf_counter()
    emit("rules.transliteration_1000_over_50", (t2 - t1) / (t1 - t0))


def _unique_words(n: int, seed: int) -> str:
    rng = random.Random(seed)
    words = [rng.choice(corpus.FILLER) for _ in range(n)]
    for i in range(0, n, 3):
        words[i] = corpus.typo(words[i], rng) + str(i)  # a third of the words are new
    return " ".join(words)


def section_scaling(quick: bool) -> None:
    from smista.config.defaults import default_classifier

    rules = load_rules(None)
    short, long = _unique_words(1000, 1), _unique_words(10000, 2)

    def timed(text: str) -> float:
        best = float("inf")
        for _ in range(3):
            fresh = CompiledRules(rules.specs, rules.default_label)
            start = time.perf_counter()
            fresh.match_text(text)
            best = min(best, time.perf_counter() - start)
        return best

    t1, t10 = timed(short), timed(long)
    emit("scaling.words_1000_cold_ms", t1 * 1000)
    emit("scaling.words_10000_cold_ms", t10 * 1000)
    emit("scaling.cold_10x_ratio", t10 / t1)
    classifier = default_classifier()
    # Warm: ten different 1,000-word prompts against the one prompt they make
    # together, so only the length differs (same words, same vocabulary). Timing
    # one short prompt over and over instead flatters it: the CPU's branch
    # predictor and L1 cache learn a prompt repeated verbatim, which a long one
    # defeats; that figure is printed too, for comparison.
    shorts = [_unique_words(1000, seed) for seed in range(10, 20)]
    joined = " ".join(shorts)
    warm(classifier.classify, [*shorts, joined, short, long])
    timed_once = interleaved([classifier.classify], [*shorts, joined], rounds=9, inner=1)
    per_prompt = timed_once[0].per_prompt
    emit("scaling.warm_10x_ratio", per_prompt[-1] / statistics.mean(per_prompt[:-1]))
    w1, w10 = interleaved([classifier.classify], [short, long], rounds=5)[0].per_prompt
    emit("scaling.warm_10x_ratio_one_prompt_repeated", w10 / w1)
    sizes = (1, 3) if quick else (1, 10)
    script = (
        "import sys, time, tracemalloc\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from benchmarks.corpus import random_token_text\n"
        "from smista.config.rulecache import load_rules\n"
        "from smista.core.engine import CompiledRules, MEMO_LIMIT\n"
        "mb = int(sys.argv[1])\n"
        "base = load_rules(None)\n"
        "text = random_token_text(mb * 1_000_000)\n"
        "rules = CompiledRules(base.specs, base.default_label)\n"
        "start = time.perf_counter()\n"
        "rules.match_text(text)\n"
        "took = time.perf_counter() - start\n"
        "memo = rules.memo_size()\n"
        "rules = CompiledRules(base.specs, base.default_label)\n"
        "tracemalloc.start()\n"
        "rules.match_text(text)\n"
        "peak = tracemalloc.get_traced_memory()[1] / 1e6\n"
        "print(took, peak, memo, MEMO_LIMIT, len(text) / 1e6)\n"
    )
    results = {}
    for mb in sizes:
        out = subprocess.run(
            [sys.executable, "-c", script, str(mb)], capture_output=True, text=True, check=True
        ).stdout.split()
        results[mb] = out
        emit(f"scaling.random_{mb}mb_text_mb", float(out[4]))
        emit(f"scaling.random_{mb}mb_seconds", float(out[0]))
        emit(f"scaling.random_{mb}mb_peak_alloc_mb", float(out[1]))
        emit(f"scaling.random_{mb}mb_memo_entries", f"{out[2]} (limit {out[3]})")
    a, b = sizes
    emit(f"scaling.random_{b}mb_over_{a}mb_time", float(results[b][0]) / float(results[a][0]))


def _median_wall(cmds: Sequence[Sequence[str]], env: dict[str, str], runs: int) -> list[float]:
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
            times[i].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def section_start(quick: bool) -> None:
    # An installed package has compiled bytecode; a checkout may not (for example
    # with PYTHONDONTWRITEBYTECODE), so compile it as an install would.
    import compileall

    compileall.compile_dir(str(ROOT / "smista"), quiet=1, force=False)
    with tempfile.TemporaryDirectory() as tmp:
        user_rules = Path(tmp) / "my-rules.toml"
        user_rules.write_text(corpus.rules_toml(corpus.synthetic_rules(50, 300)), encoding="utf-8")
        big_rules = Path(tmp) / "big-rules.toml"
        big_rules.write_text(
            corpus.rules_toml(corpus.synthetic_rules(1000, 6000)), encoding="utf-8"
        )
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env["SMISTA_CACHE_DIR"] = str(Path(tmp) / "cache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        py = sys.executable
        prompt = "fix the login bug"
        cmds = [
            [py, "-c", "pass"],
            [py, "-c", "import rapidfuzz"],
            [py, "-m", "smista", "classify", prompt],
            [py, "-m", "smista", "classify", "--rules", str(user_rules), prompt],
            [py, "-m", "smista", "classify", "--rules", str(big_rules), prompt],
        ]
        for cmd in cmds[3:]:  # each rules file has been loaded before
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
        python, rapidfuzz, default, user, big = _median_wall(cmds, env, 7 if quick else 21)
    emit("start.python_ms", python * 1000)
    emit("start.import_rapidfuzz_ms", rapidfuzz * 1000)
    emit("start.classify_default_ms", default * 1000)
    emit("start.classify_user_rules_ms", user * 1000)
    emit("start.classify_default_over_rapidfuzz", default / rapidfuzz)
    emit("start.classify_user_rules_over_rapidfuzz", user / rapidfuzz)
    emit("start.classify_user_1000_rules_ms", big * 1000)


def section_batch(quick: bool) -> None:
    lines = 100_000 if quick else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = write_jsonl(work / "in.jsonl", lines)
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env["SMISTA_CACHE_DIR"] = str(work / "cache")
        best = {1: float("inf"), 2: float("inf")}
        rounds: list[float] = []
        for _ in range(2 if quick else 3):
            took = {}
            for workers in (1, 2):
                out = work / f"out{workers}.jsonl"
                cmd = [sys.executable, "-m", "smista", "batch", "--workers", str(workers)]
                start = time.perf_counter()
                subprocess.run([*cmd, str(source), "-o", str(out)], env=env, check=True)
                took[workers] = time.perf_counter() - start
                best[workers] = min(best[workers], took[workers])
            rounds.append(took[1] / took[2])
        same = (work / "out1.jsonl").read_bytes() == (work / "out2.jsonl").read_bytes()
        with (work / "out2.jsonl").open(encoding="utf-8") as fh:
            ordered = all(json.loads(line)["id"] == i for i, line in enumerate(fh))
    emit("batch.lines", lines)
    emit("batch.cores", len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0)
    emit("batch.workers1_lines_per_s", lines / best[1])
    emit("batch.workers2_lines_per_s", lines / best[2])
    emit("batch.speedup_2_over_1", best[1] / best[2])
    emit("batch.speedup_per_round", " ".join(f"{r:.2f}" for r in rounds))
    emit("batch.outputs_identical", same)
    emit("batch.order_preserved", ordered)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    parser.add_argument("--only", help=f"comma-separated sections of: {', '.join(SECTIONS)}")
    args = parser.parse_args(argv)
    chosen = SECTIONS if not args.only else tuple(args.only.split(","))
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    emit("machine.python", sys.version.split()[0])
    emit("machine.cores", os.cpu_count() or 0)
    for name in chosen:
        globals()[f"section_{name}"](args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
