"""The performance targets of issue 12 as one table: ``python -m benchmarks.cold``.

Owns measuring, never asserting: every row is a ratio taken side by side in
one run on this machine, each section in a fresh process (so "cold" really is
a process that has seen none of the prompts). Rows:

* ``stream``  30,000 distinct realistic prompts (:mod:`benchmarks.realistic`)
  with the default pack, each seen once (cold), then again (warm): classify
  against ``re.findall(r"[^\\W_]+", text.lower())`` plus a dict lookup per
  token, and against flashtext ``extract_keywords`` (exact matches only) on the
  same keywords, interleaved per prompt; cold p99 per call; non-ASCII cost per
  word against ASCII, warm; a known prompt with one new token against it;
* ``twice``   the stream's cold pass, classify and the regex baseline only, in two
  fresh processes: each one's p99, how much of one's slowest 1 % is in the other's, and
  the p99 of each prompt's faster reading (an upper bound on the part of a p99 that is
  the prompts, not the moment or the process they were read in; ``python -m
  benchmarks.tail`` reads one process's slowest calls again on a fresh classifier);
* ``pair_regex``, ``pair_flashtext``  the same cold pass with classify and one
  baseline alone, interleaved per prompt, each pair in a fresh process: what the
  stream rows' four-way interleaving costs classify, whose tables the other
  contenders (flashtext's trie, the keyword-only engine) push out of the CPU's
  caches between its calls (a host's own work between calls does the same, so
  the stream rows lead);
* ``rules``   1,000 rules against 50, both fresh, on the same distinct prompts;
* ``compile`` 10,000 rules: compile time and peak RSS of the process;
* ``start``   ``import smista`` + first classify against ``import rapidfuzz``;
* ``http``    ``/v1/classify`` requests/s against a Starlette hello-world on
  the same uvicorn, 8 connections (wrk), and the cost of info logging; also
  with bodies that give a ``command`` (no rule runs), the HTTP path alone; and
  the regex baseline served as an endpoint the same way (the body parsed,
  ``re.findall`` + dict lookup on its text), what these bodies cost a server
  whose classification is as cheap as tokenizing;
* ``batch``   ``smista batch`` lines/s, 2 workers against 1, distinct prompts.

Options: ``--quick`` (smaller sizes), ``--only stream,rules,...``, ``--json`` (all
figures); ``--figures FILE`` prints the table of a saved ``--json`` run and
``--before FILE`` adds a column from one (e.g. measured on another checkout).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SECTIONS = (
    *("stream", "twice", "pair_regex", "pair_flashtext", "rules", "compile", "start", "http"),
    "batch",
)

# (section, key, label, target) in table order
ROWS: tuple[tuple[str, str, str, str], ...] = (
    (
        "stream",
        "cold_over_regex",
        "cold classify ÷ (re.findall + dict lookup), default pack",
        "≤ 1.0×",
    ),
    ("stream", "cold_over_flashtext", "cold classify ÷ flashtext extract_keywords", "≤ 0.5×"),
    ("stream", "cold_p99_us", "cold p99 per call (µs)", "≤ 60"),
    ("stream", "regex_cold_p99_us", "p99 of re.findall + dict lookup, same prompts (µs)", ""),
    ("stream", "tail_cold_median_us", "…the slowest 1 % of cold calls: their median (µs)", ""),
    ("stream", "tail_regex_median_us", "…re.findall + dict on them, cold: median (µs)", ""),
    ("stream", "tail_chars_median", "…their median length (characters)", ""),
    ("stream", "all_chars_median", "…every prompt's median length (characters)", ""),
    ("stream", "tail_non_ascii_share", "…the share of them with non-ASCII text", ""),
    ("twice", "classify_p99_us_runs", "cold p99 in two fresh processes, classify (µs)", ""),
    ("twice", "classify_top1_overlap", "…share of one's slowest 1 % also in the other's", ""),
    ("twice", "classify_p99_of_min_us", "…p99 of each prompt's faster reading (µs)", ""),
    ("twice", "regex_p99_us_runs", "cold p99 in two fresh processes, re.findall + dict (µs)", ""),
    ("twice", "regex_top1_overlap", "…share of one's slowest 1 % also in the other's", ""),
    ("twice", "regex_p99_of_min_us", "…p99 of each prompt's faster reading (µs)", ""),
    ("stream", "cold_mean_us", "cold mean per call (µs)", ""),
    ("stream", "pack_extended", "default pack uses extension conditions (verifying path)", ""),
    ("stream", "kw_cold_over_regex", "…its keywords/contexts only, cold ÷ re.findall + dict", ""),
    ("stream", "kw_cold_over_flashtext", "…its keywords/contexts only, cold ÷ flashtext", ""),
    ("stream", "kw_cold_p99_us", "…its keywords/contexts only, cold p99 (µs)", ""),
    ("stream", "warm_over_regex", "second pass over the 30k ÷ (re.findall + dict)", ""),
    ("stream", "warm_over_flashtext", "second pass over the 30k ÷ flashtext", ""),
    ("stream", "hot_ascii_ns_per_word", "warm (memo holds every token): ns per ASCII word", ""),
    ("stream", "non_ascii_per_word_warm", "non-ASCII per word ÷ ASCII per word, warm", "≤ 2×"),
    ("stream", "one_new_token", "known prompt + 1 new token ÷ known prompt, warm", ""),
    ("stream", "memo_restarts_per_100k", "memo emptied all at once, per 100k prompts", "0"),
    ("pair_regex", "cold_over_regex", "cold classify ÷ re.findall + dict, the two alone", ""),
    (
        "pair_regex",
        "cold_p99_us",
        "cold p99 per call, classify and re.findall + dict alone (µs)",
        "",
    ),
    ("pair_regex", "regex_cold_p99_us", "p99 of re.findall + dict, the two alone (µs)", ""),
    ("pair_flashtext", "cold_over_flashtext", "cold classify ÷ flashtext, the two alone", ""),
    ("rules", "cold_1000_over_50", "1,000 rules ÷ 50 rules, cold", "≤ 1.5×"),
    ("compile", "compile_s", "10,000 rules: compile (s)", "≤ 1"),
    ("compile", "peak_rss_mb", "10,000 rules: peak RSS of the process (MB)", "≤ 150"),
    ("compile", "toml_load_s", "10,000 rules: TOML load, validate and compile (s)", ""),
    (
        "start",
        "first_classify_over_rapidfuzz",
        "import + first classify ÷ import rapidfuzz",
        "≤ 1.5×",
    ),
    ("start", "cli_over_rapidfuzz", "CLI `smista classify` ÷ import rapidfuzz", "≤ 1.5×"),
    (
        "http",
        "classify_over_hello",
        "HTTP /v1/classify req/s ÷ Starlette hello-world, c=8",
        "≥ 0.8×",
    ),
    ("http", "classify_rps", "HTTP /v1/classify req/s (log level warning)", ""),
    (
        "http",
        "regex_over_hello",
        "HTTP regex-baseline endpoint (JSON body, re.findall + dict) ÷ hello-world",
        "",
    ),
    (
        "http",
        "classify_over_regex_endpoint",
        "HTTP /v1/classify req/s ÷ regex-baseline endpoint",
        "",
    ),
    (
        "http",
        "path_over_hello",
        "HTTP path alone (bodies with a command: no rules run) ÷ hello-world",
        "",
    ),
    ("http", "info_logging_us", "info logging: µs per request (its 2 JSON records)", ""),
    ("http", "classify_info_over_hello", "HTTP req/s at log level info ÷ hello-world", ""),
    ("batch", "two_over_one", "smista batch 2 workers ÷ 1, distinct prompts", "≥ 1.7×"),
    ("batch", "workers1_lines_per_s", "smista batch lines/s, 1 worker", ""),
)


def pack_keywords(rules: Path | None = None) -> list[str]:
    """The lowercased keywords of ``rules`` (``None``: the shipped pack), which the
    realistic corpora draw their prompts' rule words from."""
    from smista.config.rulecache import load_rules

    return sorted({k.lower() for spec in load_rules(rules).specs for k in spec.keywords})


_WORD = re.compile(r"[^\W_]+")


def _regex_lookup(keywords: Sequence[str]) -> Callable[[str], object]:
    """The regex baseline: ``re.findall(r"[^\\W_]+", text.lower())`` and a dict lookup of
    each token among ``keywords``."""
    findall = _WORD.findall
    get = {k: i for i, k in enumerate(keywords)}.get

    def run(text: str) -> object:
        return [get(t) for t in findall(text.lower())]

    return run


def _flashtext(keywords: Sequence[str]) -> Callable[[str], object] | None:
    try:
        from flashtext import KeywordProcessor  # type: ignore[import-untyped]
    except ImportError:
        return None
    processor = KeywordProcessor(case_sensitive=False)
    for keyword in keywords:
        processor.add_keyword(keyword)
    return processor.extract_keywords  # type: ignore[no-any-return]


def _per_call(funcs: Sequence[Callable[[str], object]], prompts: Sequence[str]) -> list[list[int]]:
    """Each prompt once through every function, interleaved; ns per call."""
    clock = time.perf_counter_ns
    out: list[list[int]] = [[0] * len(prompts) for _ in funcs]
    overhead = []
    for _ in range(2000):
        start = clock()
        overhead.append(clock() - start)
    base = int(statistics.median(overhead))
    for i, prompt in enumerate(prompts):
        for k, func in enumerate(funcs):
            start = clock()
            func(prompt)
            out[k][i] = max(0, clock() - start - base)
    return out


def _p(values: Sequence[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- sections (each runs in its own process) --------------------------------------------


def section_stream(quick: bool) -> dict[str, Any]:
    from smista.config.rulecache import load_rules
    from smista.core.engine import CompiledRules

    keywords, prompts, words = _corpus(quick)
    shipped = load_rules(None)
    from smista.config.defaults import default_classifier

    classifier = default_classifier()  # a fresh process: it has learned nothing yet
    classify = classifier.classify
    regex = _regex_lookup(keywords)
    flash = _flashtext(keywords)
    # The compiled keyword/context index alone: the same pack without its
    # extension conditions (which take the verifying path), fresh too.
    extended = bool(getattr(shipped, "extended", False))
    funcs: list[Callable[[str], object]] = [classify, regex]
    if flash is not None:
        funcs.append(flash)
    if extended:
        plain = [s._replace(conditions=()) for s in shipped.specs]
        funcs.append(CompiledRules(plain, shipped.default_label).match_code)
    for func in funcs:  # first call of each (imports, lazy tables) on a throwaway prompt
        func("warm up the imports")
    gc.collect()
    gc.disable()
    restarts = 0
    cold = _per_call(funcs, prompts)
    # memo restarts: replay the cold pass on a fresh matcher, watching its size
    probe = CompiledRules(shipped.specs, shipped.default_label)
    c_table = probe._fast
    size = 0
    for prompt in prompts:
        probe.match_code(prompt)
        now = len(c_table) if c_table is not None else probe.memo_size()
        if now < size // 2:  # emptied at once (a gradual eviction keeps it full)
            restarts += 1
        size = now
    warm_rounds = [_per_call(funcs, prompts) for _ in range(2 if quick else 3)]
    gc.enable()
    warm = [
        [min(r[k][i] for r in warm_rounds) for i in range(len(prompts))] for k in range(len(funcs))
    ]
    out: dict[str, Any] = {
        "prompts": len(prompts),
        "mean_words": statistics.mean(words),
        "pack_extended": extended,
    }
    totals = [sum(row) for row in cold]
    out["cold_mean_us"] = totals[0] / len(prompts) / 1000
    out["cold_p99_us"] = _p(cold[0], 0.99) / 1000
    out["regex_cold_p99_us"] = _p(cold[1], 0.99) / 1000
    out["cold_p99_over_regex_p99"] = _p(cold[0], 0.99) / _p(cold[1], 0.99)
    out["cold_over_regex"] = totals[0] / totals[1]
    out["regex_cold_mean_us"] = totals[1] / len(prompts) / 1000
    wt = [sum(row) for row in warm]
    out["warm_mean_us"] = wt[0] / len(prompts) / 1000
    out["warm_over_regex"] = wt[0] / wt[1]
    if flash is not None:
        out["cold_over_flashtext"] = totals[0] / totals[2]
        out["warm_over_flashtext"] = wt[0] / wt[2]
        out["flashtext_cold_mean_us"] = totals[2] / len(prompts) / 1000
    if extended:
        out["kw_cold_over_regex"] = totals[-1] / totals[1]
        out["kw_cold_mean_us"] = totals[-1] / len(prompts) / 1000
        out["kw_cold_p99_us"] = _p(cold[-1], 0.99) / 1000
        out["kw_warm_over_regex"] = wt[-1] / wt[1]
        if flash is not None:
            out["kw_cold_over_flashtext"] = totals[-1] / totals[2]
    ascii_ns = sum(t for t, p in zip(warm[0], prompts, strict=True) if p.isascii())
    ascii_words = sum(w for w, p in zip(words, prompts, strict=True) if p.isascii())
    other_ns = sum(t for t, p in zip(warm[0], prompts, strict=True) if not p.isascii())
    other_words = sum(w for w, p in zip(words, prompts, strict=True) if not p.isascii())
    out["non_ascii_per_word_warm_30k"] = (other_ns / other_words) / (ascii_ns / ascii_words)
    # the slowest 1 % of cold calls (at or above the cold p99): what they are, and what the
    # regex baseline took on the same prompts (the `twice` section asks how much of that 1 %
    # is the prompts and how much the moment they were read)
    cut = _p(cold[0], 0.99)
    tail = [i for i, t in enumerate(cold[0]) if t >= cut]
    out["tail_cold_median_us"] = statistics.median(cold[0][i] for i in tail) / 1000
    out["tail_regex_median_us"] = statistics.median(cold[1][i] for i in tail) / 1000
    out["tail_chars_median"] = statistics.median(len(prompts[i]) for i in tail)
    out["all_chars_median"] = statistics.median(len(p) for p in prompts)
    out["tail_non_ascii_share"] = sum(not prompts[i].isascii() for i in tail) / len(tail)
    # truly warm: a few thousand prompts the memo holds entirely, timed again and again
    few = prompts[:3000]
    few_words = words[:3000]
    for p in few:
        classify(p)
    hot_rounds = [_per_call([classify], few)[0] for _ in range(5)]
    hot = [min(r) for r in zip(*hot_rounds, strict=True)]
    ascii_ns = sum(t for t, p in zip(hot, few, strict=True) if p.isascii())
    ascii_words = sum(w for w, p in zip(few_words, few, strict=True) if p.isascii())
    other_ns = sum(t for t, p in zip(hot, few, strict=True) if not p.isascii())
    other_words = sum(w for w, p in zip(few_words, few, strict=True) if not p.isascii())
    out["non_ascii_per_word_warm"] = (other_ns / other_words) / (ascii_ns / ascii_words)
    out["hot_ascii_ns_per_word"] = ascii_ns / ascii_words
    out["memo_restarts_per_100k"] = restarts * 100_000 / len(prompts)
    # one new token: known prompts (warm) against the same prompts plus one fresh token
    sample = [p for p in prompts[:4000] if p.isascii()][:1000]
    for p in sample:
        classify(p)
    rounds = [_per_call([classify], sample)[0] for _ in range(3)]
    known = [min(r) for r in zip(*rounds, strict=True)]
    fresh = [f"{p} zq{i}x{i * 7919}" for i, p in enumerate(sample)]
    new = _per_call([classify], fresh)[0]
    out["one_new_token"] = sum(new) / sum(known)
    return out


def _cold_times(quick: bool) -> dict[str, Any]:
    """Each prompt's cold time (ns), classify and the regex baseline interleaved, in this
    fresh process (internal: what :func:`section_twice` runs twice)."""
    timed = _pair_times(quick, "regex")
    assert timed is not None  # (the regex baseline needs nothing installed)
    cold = timed[2]
    return {"classify": cold[0], "regex": cold[1]}


def section_twice(quick: bool) -> dict[str, Any]:
    """The same cold pass (classify and the regex baseline, interleaved) in two fresh
    processes: each one's p99, how much of one's slowest 1 % is in the other's, and the p99
    of each prompt's faster reading. On a shared machine a call is sometimes slow because of
    the moment it ran (another process, an interrupt) or the process it ran in (its hash
    seeds), not because of the prompt: that part of the p99 does not come back in the
    other process."""
    runs = []
    for _ in range(2):
        cmd = [sys.executable, "-m", "benchmarks.cold", "--section", "cold_times"]
        if quick:
            cmd.append("--quick")
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True)
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    out: dict[str, Any] = {}
    for name in ("classify", "regex"):
        first, second = runs[0][name], runs[1][name]
        cuts = (_p(first, 0.99), _p(second, 0.99))
        slow = [
            {i for i, t in enumerate(run) if t >= cut}
            for run, cut in zip((first, second), cuts, strict=True)
        ]
        out[f"{name}_p99_us_runs"] = " / ".join(f"{cut / 1000:.1f}" for cut in cuts)
        out[f"{name}_top1_overlap"] = len(slow[0] & slow[1]) / len(slow[0])
        faster = [min(a, b) for a, b in zip(first, second, strict=True)]
        out[f"{name}_p99_of_min_us"] = _p(faster, 0.99) / 1000
    return out


def _corpus(quick: bool) -> tuple[list[str], list[str], list[int]]:
    """The stream's keywords, its distinct realistic prompts and each prompt's token count
    (tokenizing them builds the tokenizer's lazy tables before anything is timed)."""
    from benchmarks.realistic import distinct_prompts
    from smista.core.tokenizer import tokenize

    keywords = pack_keywords()
    prompts = distinct_prompts(6000 if quick else 30_000, keywords)
    return keywords, prompts, [len(tokenize(p)) for p in prompts]


def _pair_times(quick: bool, baseline: str) -> tuple[list[str], list[int], list[list[int]]] | None:
    """The stream section's cold pass with classify and one baseline only, interleaved:
    the prompts, their token counts and each function's ns per prompt (``None`` when the
    baseline is not installed)."""
    from smista.config.defaults import default_classifier

    keywords, prompts, words = _corpus(quick)
    other = _flashtext(keywords) if baseline == "flashtext" else _regex_lookup(keywords)
    if other is None:
        return None
    classify = default_classifier().classify  # a fresh process: it has learned nothing yet
    funcs: list[Callable[[str], object]] = [classify, other]
    for func in funcs:
        func("warm up the imports")
    gc.collect()
    gc.disable()
    cold = _per_call(funcs, prompts)
    gc.enable()
    return prompts, words, cold


def _pair(quick: bool, baseline: str) -> dict[str, Any]:
    """The stream section's cold pass with classify and one baseline only."""
    timed = _pair_times(quick, baseline)
    if timed is None:
        return {"skipped": "flashtext is not installed"}
    prompts, words, cold = timed
    key = "flashtext" if baseline == "flashtext" else "regex"
    return {
        "prompts": len(prompts),
        "mean_words": statistics.mean(words),
        f"cold_over_{key}": sum(cold[0]) / sum(cold[1]),
        "cold_mean_us": sum(cold[0]) / len(prompts) / 1000,
        "cold_p99_us": _p(cold[0], 0.99) / 1000,
        f"{key}_cold_p99_us": _p(cold[1], 0.99) / 1000,
    }


def section_pair_regex(quick: bool) -> dict[str, Any]:
    return _pair(quick, "regex")


def section_pair_flashtext(quick: bool) -> dict[str, Any]:
    return _pair(quick, "flashtext")


def section_rules(quick: bool) -> dict[str, Any]:
    from benchmarks.corpus import synthetic_rules
    from benchmarks.realistic import Vocabulary, distinct_prompts
    from smista.core.engine import CompiledRules, RuleSpec

    def specs(n: int, k: int) -> list[RuleSpec]:
        return [
            RuleSpec(r.intent, r.priority, r.keywords, r.contexts) for r in synthetic_rules(n, k)
        ]

    small, big = specs(50, 300), specs(1000, 6000)
    vocab = Vocabulary()
    n = 5000 if quick else 20_000
    # the same prompt text for both, with keywords of both rule sets in it
    shared = [k for s in small for k in s.keywords] + [k for s in big[:300] for k in s.keywords]
    prompts = distinct_prompts(n, shared, vocab=vocab, seed=31)
    fs = CompiledRules(small, "chat")
    fb = CompiledRules(big, "chat")
    fs.match_code("warm up")
    fb.match_code("warm up")
    gc.collect()
    gc.disable()
    ts, tb = _per_call([fs.match_code, fb.match_code], prompts)
    gc.enable()
    return {
        "cold_50_mean_us": sum(ts) / n / 1000,
        "cold_1000_mean_us": sum(tb) / n / 1000,
        "cold_1000_over_50": sum(tb) / sum(ts),
    }


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def section_compile(quick: bool) -> dict[str, Any]:
    script = (
        "import sys, time, resource\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from benchmarks.corpus import synthetic_rules\n"
        "from smista.core.engine import CompiledRules, RuleSpec\n"
        "n = int(sys.argv[1])\n"
        "specs = [RuleSpec(r.intent, r.priority, r.keywords, r.contexts)"
        " for r in synthetic_rules(n, n * 6)]\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "start = time.perf_counter()\n"
        "rules = CompiledRules(specs, 'chat')\n"
        "rules.match_code('warm up the compiled plan')\n"
        "took = time.perf_counter() - start\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(took, after, before)\n"
    )
    n = 2000 if quick else 10_000
    took, peak, before = map(
        float,
        subprocess.run(
            [sys.executable, "-c", script, str(n)], capture_output=True, text=True, check=True
        ).stdout.split(),
    )
    out: dict[str, Any] = {
        "rules": n,
        "compile_s": took,
        "peak_rss_mb": peak,
        "rss_before_mb": before,
    }
    from benchmarks.corpus import rules_toml, synthetic_rules

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.toml"
        path.write_text(rules_toml(synthetic_rules(n, n * 6)), encoding="utf-8")
        load = (
            "import sys, time\n"
            f"sys.path.insert(0, {str(ROOT)!r})\n"
            "start = time.perf_counter()\n"
            "from smista.config.rulecache import load_rules\n"
            "load_rules(sys.argv[1])\n"
            "print(time.perf_counter() - start)\n"
        )
        env = {**os.environ, "SMISTA_CACHE_DIR": str(Path(tmp) / "cache")}
        res = subprocess.run(
            [sys.executable, "-c", load, str(path)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        out["toml_load_s"] = float(res.stdout)
    return out


def _wall(cmds: Sequence[Sequence[str]], runs: int, env: dict[str, str]) -> list[float]:
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
            times[i].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def section_start(quick: bool) -> dict[str, Any]:
    import compileall

    compileall.compile_dir(str(ROOT / "smista"), quiet=1)
    py = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmds = [
        [py, "-c", "import rapidfuzz"],
        [py, "-c", "import smista; smista.classify('fix the login bug')"],
        [py, "-m", "smista", "classify", "fix the login bug"],
    ]
    fuzz, lib, cli = _wall(cmds, 5 if quick else 15, env)
    return {
        "rapidfuzz_ms": fuzz * 1000,
        "first_classify_ms": lib * 1000,
        "first_classify_over_rapidfuzz": lib / fuzz,
        "cli_over_rapidfuzz": cli / fuzz,
    }


_HELLO = """
import sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

async def hello(request):
    await request.body()
    return Response(b'{"hello":"world"}', media_type="application/json")

app = Starlette(routes=[Route("/v1/classify", hello, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_config=None,
            log_level="warning", access_log=False, server_header=False)
"""

_REGEX_APP = """
import json
import re
import sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

WORD = re.compile(r"[^\\W_]+")
TABLE = {k: i for i, k in enumerate(json.load(open(sys.argv[2], encoding="utf-8")))}

async def lookup(request):
    text = json.loads(await request.body())["text"]
    hits = [i for i in map(TABLE.get, WORD.findall(text.lower())) if i is not None]
    return Response(json.dumps({"hits": len(hits)}), media_type="application/json")

app = Starlette(routes=[Route("/v1/classify", lookup, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_config=None,
            log_level="warning", access_log=False, server_header=False)
"""
"""The regex baseline as an endpoint, served like the hello-world: the body parsed, its
text lowercased, ``re.findall`` and a dict lookup per token, a small JSON answer."""

_WRK_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = {}
for line in io.lines(os.getenv("SMISTA_BODIES")) do bodies[#bodies + 1] = line end
local i = 0
request = function()
  i = i + 1
  if i > #bodies then i = 1 end
  return wrk.format(nil, nil, nil, bodies[i])
end
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited during start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def _wrk(port: int, lua: Path, bodies: Path, seconds: int) -> float:
    env = {**os.environ, "SMISTA_BODIES": str(bodies)}
    res = subprocess.run(
        [
            "wrk",
            "-t1",
            "-c8",
            f"-d{seconds}s",
            "-s",
            str(lua),
            f"http://127.0.0.1:{port}/v1/classify",
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    found = re.search(r"Requests/sec:\s+([\d.]+)", res.stdout)
    if not found:
        raise RuntimeError(res.stdout + res.stderr)
    return float(found.group(1))


def _served(cmd: list[str], port: int, lua: Path, bodies: Path, seconds: int) -> float:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc)
        _wrk(port, lua, bodies, 1)  # warm up
        return _wrk(port, lua, bodies, seconds)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _logging_cost() -> float:
    """µs per request for its two info records (access, decision), JSON to /dev/null."""
    from smista.server.logs import ACCESS, DECISION, configure_logging, emit

    with open(os.devnull, "w", encoding="utf-8") as sink:
        configure_logging("info", sink)
        access = {
            "event": "access",
            "request_id": "0f" * 16,
            "method": "POST",
            "path": "/v1/classify",
            "status": 200,
            "duration_ms": 0.412,
            "client": "127.0.0.1",
        }
        decision = {
            "event": "decision",
            "request_id": "0f" * 16,
            "intent": "edit",
            "source": "inferred",
            "matched_rule": 6,
            "confidence": "medium",
            "prompt_chars": 412,
            "contexts": [],
            "generation": 1,
        }
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(5000):
                emit(DECISION, "classify", dict(decision))
                emit(ACCESS, "request", dict(access))
            best = min(best, (time.perf_counter() - start) / 5000 * 1e6)
        logging.getLogger().handlers.clear()
    return best


def section_http(quick: bool) -> dict[str, Any]:
    if shutil.which("wrk") is None:
        return {"skipped": "wrk not installed"}
    from benchmarks.realistic import distinct_prompts

    seconds = 3 if quick else 8
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lua = work / "post.lua"
        lua.write_text(_WRK_LUA, encoding="utf-8")
        bodies = work / "bodies.txt"
        prompts = distinct_prompts(20_000, pack_keywords(), seed=41)
        bodies.write_text(
            "".join(json.dumps({"text": p}, ensure_ascii=False) + "\n" for p in prompts),
            encoding="utf-8",
        )
        commanded = work / "commanded.txt"  # an explicit intent wins before any rule
        commanded.write_text(
            "".join(
                json.dumps({"text": p, "command": "plan"}, ensure_ascii=False) + "\n"
                for p in prompts[:2000]
            ),
            encoding="utf-8",
        )
        hello = work / "hello.py"
        hello.write_text(_HELLO, encoding="utf-8")
        regex_app = work / "regex_app.py"
        regex_app.write_text(_REGEX_APP, encoding="utf-8")
        keywords = work / "keywords.json"
        keywords.write_text(json.dumps(pack_keywords()), encoding="utf-8")
        env_py = sys.executable
        results: dict[str, list[float]] = {
            "hello": [],
            "regex": [],
            "warning": [],
            "info": [],
            "path": [],
        }
        for _ in range(2 if quick else 3):  # interleaved rounds; the best of each counts
            port = _free_port()
            hello_cmd = [env_py, str(hello), str(port)]
            results["hello"].append(_served(hello_cmd, port, lua, bodies, seconds))
            port = _free_port()
            regex_cmd = [env_py, str(regex_app), str(port), str(keywords)]
            results["regex"].append(_served(regex_cmd, port, lua, bodies, seconds))
            for level in ("warning", "info"):
                port = _free_port()
                cmd = [env_py, "-m", "smista", "serve", "--port", str(port), "--log-level", level]
                results[level].append(_served(cmd, port, lua, bodies, seconds))
            port = _free_port()
            cmd = [env_py, "-m", "smista", "serve", "--port", str(port), "--log-level", "warning"]
            results["path"].append(_served(cmd, port, lua, commanded, seconds))
    hello_rps = max(results["hello"])
    warn_rps = max(results["warning"])
    info_rps = max(results["info"])
    import importlib.util

    return {
        "hello_rps": hello_rps,
        "classify_rps": warn_rps,
        "classify_info_rps": info_rps,
        "classify_over_hello": warn_rps / hello_rps,
        "classify_info_over_hello": info_rps / hello_rps,
        "regex_rps": max(results["regex"]),
        "regex_over_hello": max(results["regex"]) / hello_rps,
        "classify_over_regex_endpoint": warn_rps / max(results["regex"]),
        "path_rps": max(results["path"]),
        "path_over_hello": max(results["path"]) / hello_rps,
        # from the two rates (noisy on a shared machine), and measured directly
        "info_logging_rps_us": (1 / info_rps - 1 / warn_rps) * 1e6,
        "info_logging_us": _logging_cost(),
        "uvloop": importlib.util.find_spec("uvloop") is not None,
        "httptools": importlib.util.find_spec("httptools") is not None,
    }


def section_batch(quick: bool) -> dict[str, Any]:
    from benchmarks.realistic import distinct_prompts

    n = 60_000 if quick else 200_000
    prompts = distinct_prompts(n, pack_keywords(), seed=51)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "in.jsonl"
        with source.open("w", encoding="utf-8") as fh:
            for i, p in enumerate(prompts):
                fh.write(json.dumps({"id": i, "text": p}, ensure_ascii=False) + "\n")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SMISTA_CACHE_DIR": str(work / "cache")}
        best = {1: float("inf"), 2: float("inf")}
        for _ in range(2 if quick else 3):  # interleaved rounds; the best of each counts
            for workers in (1, 2):
                out = work / f"out{workers}.jsonl"
                cmd = [sys.executable, "-m", "smista", "batch", "--workers", str(workers)]
                start = time.perf_counter()
                subprocess.run([*cmd, str(source), "-o", str(out)], env=env, check=True)
                best[workers] = min(best[workers], time.perf_counter() - start)
        same = (work / "out1.jsonl").read_bytes() == (work / "out2.jsonl").read_bytes()
    return {
        "lines": n,
        "workers1_lines_per_s": n / best[1],
        "workers2_lines_per_s": n / best[2],
        "two_over_one": best[1] / best[2],
        "same_output": same,
    }


RUNNERS: dict[str, Callable[[bool], dict[str, Any]]] = {
    "stream": section_stream,
    "twice": section_twice,
    "pair_regex": section_pair_regex,
    "pair_flashtext": section_pair_flashtext,
    "rules": section_rules,
    "compile": section_compile,
    "start": section_start,
    "http": section_http,
    "batch": section_batch,
}


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cold", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--only", default=",".join(SECTIONS), help="sections, comma-separated")
    parser.add_argument("--json", action="store_true", help="print all figures as JSON")
    parser.add_argument(
        "--figures",
        metavar="FILE",
        help="print the table of figures saved by --json instead of measuring",
    )
    parser.add_argument(
        "--before",
        metavar="FILE",
        help="add a column of figures saved by --json from another checkout",
    )
    parser.add_argument("--section", help=argparse.SUPPRESS)  # internal: one section, here
    args = parser.parse_args(argv)
    if args.section:
        run = _cold_times if args.section == "cold_times" else RUNNERS[args.section]
        print(json.dumps(run(args.quick)))
        return 0
    wanted = [s for s in args.only.split(",") if s]
    unknown = [s for s in wanted if s not in RUNNERS]
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    from smista.core.engine import ACCELERATED

    figures: dict[str, dict[str, Any]] = {}
    if args.figures:
        figures = json.loads(Path(args.figures).read_text(encoding="utf-8"))
        wanted = []
    for name in wanted:
        cmd = [sys.executable, "-m", "benchmarks.cold", "--section", name]
        if args.quick:
            cmd.append("--quick")
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        if res.returncode != 0:
            figures[name] = {"error": res.stderr.strip().splitlines()[-1:]}
        else:
            figures[name] = json.loads(res.stdout.strip().splitlines()[-1])
        print(f"# {name}: {json.dumps(figures[name])}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    before: dict[str, dict[str, Any]] | None = None
    if args.before:
        before = json.loads(Path(args.before).read_text(encoding="utf-8"))
    print(f"C hot path: {ACCELERATED}; cores: {os.cpu_count()}; python {sys.version.split()[0]}")
    if before is None:
        print("| figure | measured | target |")
        print("|---|---|---|")
    else:
        print("| figure | before | after | target |")
        print("|---|---|---|---|")
    for section, key, label, target in ROWS:
        if section not in figures:
            continue
        cells = [_cell(figures, section, key)]
        if before is not None:
            cells.insert(0, _cell(before, section, key))
        print(f"| {label} | {' | '.join(cells)} | {target} |")
    return 0


def _cell(figures: dict[str, dict[str, Any]], section: str, key: str) -> str:
    found = figures.get(section, {})
    return _fmt(found.get(key, found.get("skipped", found.get("error", "n/a"))))


if __name__ == "__main__":
    raise SystemExit(main())
