"""Where the cold tail comes from: per prompt length, and the slowest calls.

A benchmark, not a test: it prints figures and asserts nothing. One fresh process
classifies distinct realistic prompts (:mod:`benchmarks.realistic`), each once, timed call
by call next to the regex baseline of :mod:`benchmarks.cold` (``re.findall`` plus a dict
lookup per token), garbage collection off. It prints the mean of both per prompt length,
what the slowest percent of calls look like, and the slowest calls themselves: how many
tokens the C token table held before each, and the same prompt's time on a fresh
classifier (a call that is slow only in this process paid for the process's state, not
for its prompt).

    python -m benchmarks.tail                 # 20,000 prompts
    python -m benchmarks.tail --prompts 5000
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from benchmarks.cold import _regex_lookup, pack_keywords
from benchmarks.realistic import distinct_prompts
from smista.config.defaults import default_classifier

BANDS = (0, 200, 600, 1200, 1600)
"""Lower bounds of the prompt-length bands (characters)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=20_000)
    parser.add_argument("--slowest", type=int, default=8)
    args = parser.parse_args(argv)
    keywords = pack_keywords()
    prompts = distinct_prompts(args.prompts, keywords)
    classifier = default_classifier()
    classify = classifier.classify
    regex = _regex_lookup(keywords)
    classify("warm up the imports")
    regex("warm up the imports")
    table = classifier.rules._scan  # the C token table (None without the extension)
    clock = time.perf_counter_ns
    ours: list[int] = []
    theirs: list[int] = []
    held: list[int] = []
    gc.collect()
    gc.disable()
    for prompt in prompts:
        held.append(len(table) if table is not None else -1)
        start = clock()
        classify(prompt)
        ours.append(clock() - start)
        start = clock()
        regex(prompt)
        theirs.append(clock() - start)
    gc.enable()
    print(f"{len(prompts)} distinct prompts, each classified once (µs a call, mean)")
    for low, high in zip(BANDS, (*BANDS[1:], None), strict=True):
        band = [
            i for i, p in enumerate(prompts) if len(p) >= low and (high is None or len(p) < high)
        ]
        if not band:
            continue
        a = sum(ours[i] for i in band) / len(band) / 1000
        b = sum(theirs[i] for i in band) / len(band) / 1000
        label = f"{low}+" if high is None else f"{low}-{high - 1}"
        print(
            f"  {label:>9} chars ({len(band):5d}): classify {a:6.1f}  regex {b:6.1f}  {a / b:.2f}x"
        )
    order = sorted(range(len(prompts)), key=ours.__getitem__)
    top = order[-max(1, len(order) // 100) :]
    print(
        f"slowest 1%: mean {statistics.mean(len(prompts[i]) for i in top):.0f} chars"
        f" (all: {statistics.mean(map(len, prompts)):.0f}),"
        f" {sum(ours[i] for i in top) / sum(theirs[i] for i in top):.2f}x the regex on them"
    )
    print("slowest calls: µs, tokens in the C table before it, µs on a fresh classifier")
    for i in order[-args.slowest :]:
        fresh = default_classifier()
        fresh.classify("warm up the imports")
        start = clock()
        fresh.classify(prompts[i])
        again = clock() - start
        print(f"  {ours[i] / 1000:8.0f}  {held[i]:7d}  {again / 1000:6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
