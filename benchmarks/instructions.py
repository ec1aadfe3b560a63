"""Instructions per cold prompt, counted by callgrind: ``python -m benchmarks.instructions``.

A benchmark, not a test: it prints figures and asserts nothing. Wall-clock
figures move by several per cent from run to run on a shared 2-core machine;
instruction counts do not, so engine changes are compared with this. Each count
is a fresh process under ``valgrind --tool=callgrind`` (which must be installed:
``apt-get install valgrind``), with the bytecode of ``smista`` and ``benchmarks`` compiled first:

* ``cold``: the default classifier classifies N distinct realistic prompts
  (:func:`benchmarks.realistic.distinct_prompts` over the pack's own keywords,
  seed 12) after one warm-up call, each seen once; the figure is the count with
  N prompts minus the count with none, divided by N (start-up and exit cancel).
  ``--rules FILE`` counts another rules file; ``--corpus-rules FILE`` draws the
  prompts from that file's keywords instead; ``--without-model`` counts the rules
  without their text model and ``predicted`` rules. The corpus follows the keywords, so
  two packs are compared on one corpus (a pack's new keywords change every
  prompt the seed draws: v13's corpus costs v12 itself 10 % more than v12's);
* ``start``: ``import smista; smista.classify("fix the login bug")``, the whole
  process, against ``import rapidfuzz``;
* ``cache``: the ``cold`` prompts again, under ``valgrind --tool=cachegrind`` with its
  cache and branch simulation: per prompt, instructions, first-level instruction-cache
  misses, first-level data-cache misses, last-level data-cache misses and mispredicted
  branches, for classify and for the stream benchmark's regex baseline (``re.findall`` + a
  dict lookup per token, the pack's keywords as the dict) on the same prompts. Wall-clock
  time is not instructions: this says where a cold prompt's time goes that the instruction
  count does not show.

    python -m benchmarks.instructions             # 3,000 prompts, both figures
    python -m benchmarks.instructions --prompts 500 --only cold
    git show 9946a86:rules/default.toml > /tmp/v12.toml     # two packs, one corpus
    python -m benchmarks.instructions --only cold --prompts 1000 --corpus-rules /tmp/v12.toml \
        --rules /tmp/v12.toml
    python -m benchmarks.instructions --only cold --prompts 1000 --corpus-rules /tmp/v12.toml
    python -m benchmarks.instructions --only cold --prompts 1000 --without-model
    python -m benchmarks.instructions --only cold --prompts 1000 --after 20000   # steady state
    python -m benchmarks.instructions --only cache --prompts 3000   # misses, against the regex
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_DRIVER = """\
import json, os, sys
after = int(sys.argv[5])
corpus = json.load(open(sys.argv[1], encoding="utf-8"))
earlier, prompts = corpus[:after], corpus[after:][: int(sys.argv[2])]
import smista
rules, without_model = sys.argv[3], sys.argv[4] == "1"
if rules or without_model:  # another rules file, loaded before the prompts run
    from smista.config.defaults import default_config
    from smista.config.load import load_config
    from smista.core.classifier import Classifier
    config = load_config(rules) if rules else default_config()
    if without_model:  # the same rules without the text model and the rules reading it
        from smista.core.conditions.registry import model_conditions
        kept = tuple(rule for rule in config.rules if not model_conditions(rule))
        config = config.model_copy(update={"model": None, "rules": kept})
    classify = Classifier(config).classify
else:
    from smista.config.defaults import default_classifier
    classify = default_classifier().classify
classify("warm up the imports")
for prompt in earlier:  # (--after: the prompts a long-running process has read before)
    classify(prompt)
for prompt in prompts:
    classify(prompt)
os._exit(0)  # the same exit whatever N: only the prompts differ
"""

_BASELINE = """\
import json, os, sys
corpus = json.load(open(sys.argv[1], encoding="utf-8"))
prompts = corpus[: int(sys.argv[2])]
from benchmarks.cold import _regex_lookup  # the stream benchmark's own baseline
run = _regex_lookup(json.load(open(sys.argv[3], encoding="utf-8")))
run("warm up the imports")
for prompt in prompts:
    run(prompt)
os._exit(0)
"""

_COLLECTED = re.compile(r"Collected : (\d+)")
_CACHEGRIND = {
    "instructions": re.compile(r"I\s+refs:\s+([\d,]+)"),
    "L1 instruction misses": re.compile(r"I1\s+misses:\s+([\d,]+)"),
    "L1 data misses": re.compile(r"D1\s+misses:\s+([\d,]+)"),
    "last-level data misses": re.compile(r"LLd misses:\s+([\d,]+)"),
    "mispredicted branches": re.compile(r"Mispredicts:\s+([\d,]+)"),
}
"""The summary lines of ``valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes``."""


def _valgrind(tool: Sequence[str], args: Sequence[str]) -> str:
    """What ``valgrind TOOL python ARGS`` prints on stderr, in a fresh process of this tree."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        ["valgrind", *tool, sys.executable, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stderr


def _count(args: Sequence[str]) -> int:
    """Instructions callgrind counts for ``python ARGS`` in a fresh process."""
    stderr = _valgrind(["--tool=callgrind", "--callgrind-out-file=/dev/null"], args)
    found = _COLLECTED.search(stderr)
    if found is None:
        raise RuntimeError("callgrind printed no instruction count")
    return int(found.group(1))


def _cachegrind(args: Sequence[str]) -> dict[str, int]:
    """Cachegrind's simulated counts (:data:`_CACHEGRIND`) for ``python ARGS``."""
    tool = ["--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes"]
    stderr = _valgrind([*tool, "--cachegrind-out-file=/dev/null"], args)
    counts: dict[str, int] = {}
    for name, pattern in _CACHEGRIND.items():
        found = pattern.search(stderr)
        if found is None:
            raise RuntimeError(f"cachegrind printed no {name}")
        counts[name] = int(found.group(1).replace(",", ""))
    return counts


def cache(n: int) -> dict[str, tuple[float, float]]:
    """Per cold prompt over ``n`` distinct realistic prompts (the ``cold`` corpus of the
    shipped pack): each cachegrind count for classify and for the regex baseline."""
    from benchmarks.cold import pack_keywords
    from benchmarks.realistic import distinct_prompts

    keywords = pack_keywords()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "prompts.json"
        corpus.write_text(json.dumps(distinct_prompts(n, keywords)), encoding="utf-8")
        words = Path(tmp) / "keywords.json"
        words.write_text(json.dumps(keywords), encoding="utf-8")
        driver = Path(tmp) / "driver.py"
        driver.write_text(_DRIVER, encoding="utf-8")
        baseline = Path(tmp) / "baseline.py"
        baseline.write_text(_BASELINE, encoding="utf-8")
        runs = []
        for program, extra in ((driver, ["", "0", "0"]), (baseline, [str(words)])):
            none = _cachegrind([str(program), str(corpus), "0", *extra])
            every = _cachegrind([str(program), str(corpus), str(n), *extra])
            runs.append({k: (every[k] - none[k]) / n for k in _CACHEGRIND})
    return {k: (runs[0][k], runs[1][k]) for k in _CACHEGRIND}


def cold(
    n: int,
    rules: Path | None = None,
    corpus_rules: Path | None = None,
    without_model: bool = False,
    after: int = 0,
) -> float:
    """Instructions per cold prompt over ``n`` distinct realistic prompts, classified with
    ``rules`` (``None``: the shipped pack; with ``without_model``, its rules without the
    text model and the ``predicted`` rules) and drawn from ``corpus_rules``' keywords
    (``None``: those of ``rules``). With ``after``, the ``n`` prompts are read after
    ``after`` other distinct prompts of the same corpus (counted in both runs, so they
    cancel): a long-running process's steady state, every prompt still new."""
    from benchmarks.cold import pack_keywords
    from benchmarks.realistic import distinct_prompts

    keywords = pack_keywords(corpus_rules if corpus_rules is not None else rules)
    extra = [
        "" if rules is None else str(rules.resolve()),
        "1" if without_model else "0",
        str(after),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "prompts.json"
        corpus.write_text(json.dumps(distinct_prompts(after + n, keywords)), encoding="utf-8")
        driver = Path(tmp) / "driver.py"
        driver.write_text(_DRIVER, encoding="utf-8")
        none = _count([str(driver), str(corpus), "0", *extra])
        every = _count([str(driver), str(corpus), str(n), *extra])
    return (every - none) / n


def start() -> tuple[int, int]:
    """Instructions of ``import smista`` + a first classify, and of ``import rapidfuzz``."""
    first = _count(["-c", "import smista; smista.classify('fix the login bug')"])
    return first, _count(["-c", "import rapidfuzz"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions")
    parser.add_argument("--prompts", type=int, default=3000, help="distinct prompts (cold)")
    parser.add_argument("--only", choices=("cold", "start", "cache"), help="one figure only")
    parser.add_argument("--rules", type=Path, help="rules file to count (cold; default: shipped)")
    parser.add_argument(
        "--corpus-rules", type=Path, help="rules file whose keywords seed the prompts (cold)"
    )
    parser.add_argument(
        "--after",
        type=int,
        default=0,
        help="count the prompts after this many others were read (cold, steady state)",
    )
    parser.add_argument(
        "--without-model",
        action="store_true",
        help="count the rules without their text model and predicted rules (cold)",
    )
    args = parser.parse_args(argv)
    if args.only == "cache" and (
        args.rules or args.corpus_rules or args.without_model or args.after
    ):
        parser.error(
            "--only cache counts the shipped pack's corpus as it is: no --rules, "
            "--corpus-rules, --without-model or --after"
        )
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    for package in ("smista", "benchmarks"):  # (the counted processes import both)
        compileall.compile_dir(str(ROOT / package), quiet=1)
    sys.path.insert(0, str(ROOT))  # the tree the counted processes run
    from smista.core.engine import ACCELERATED

    print(f"C hot path: {ACCELERATED}; python {sys.version.split()[0]}")  # (what is measured)
    if args.only in (None, "cold"):
        per_prompt = cold(
            args.prompts, args.rules, args.corpus_rules, args.without_model, args.after
        )
        where = f", after {args.after:,} others" if args.after else ""
        print(f"cold: {per_prompt:,.0f} instructions a prompt ({args.prompts:,} prompts{where})")
    if args.only == "cache":
        print(f"cache: per cold prompt ({args.prompts:,} prompts), classify / regex baseline")
        for name, (ours, regex) in cache(args.prompts).items():
            # (a count under one a prompt, such as the regex's last-level misses, has no ratio)
            ratio = f" ({ours / regex:.2f}x)" if regex >= 1 else ""
            print(f"  {name}: {ours:,.1f} / {regex:,.1f}{ratio}")
    if args.only in (None, "start"):
        first, fuzz = start()
        print(
            f"start: import smista + first classify {first / 1e6:,.1f} M instructions, "
            f"import rapidfuzz {fuzz / 1e6:,.1f} M ({first / fuzz:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
