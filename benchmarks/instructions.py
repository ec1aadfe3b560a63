"""Instructions per cold prompt, counted by callgrind: ``python -m benchmarks.instructions``.

A benchmark, not a test: it prints figures and asserts nothing. Wall-clock
figures move by several per cent from run to run on a shared 2-core machine;
instruction counts do not, so engine changes are compared with this. Each count
is a fresh process under ``valgrind --tool=callgrind`` (which must be installed:
``apt-get install valgrind``), with the bytecode of ``smista`` compiled first:

* ``cold``: the default classifier classifies N distinct realistic prompts
  (:func:`benchmarks.realistic.distinct_prompts` over the pack's own keywords,
  seed 12) after one warm-up call, each seen once; the figure is the count with
  N prompts minus the count with none, divided by N (start-up and exit cancel);
* ``start``: ``import smista; smista.classify("fix the login bug")``, the whole
  process, against ``import rapidfuzz``.

    python -m benchmarks.instructions             # 3,000 prompts, both figures
    python -m benchmarks.instructions --prompts 500 --only cold
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
prompts = json.load(open(sys.argv[1], encoding="utf-8"))[: int(sys.argv[2])]
import smista
from smista.config.defaults import default_classifier
classify = default_classifier().classify
classify("warm up the imports")
for prompt in prompts:
    classify(prompt)
os._exit(0)  # the same exit whatever N: only the prompts differ
"""

_COLLECTED = re.compile(r"Collected : (\d+)")


def _count(args: Sequence[str]) -> int:
    """Instructions callgrind counts for ``python ARGS`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise RuntimeError("callgrind printed no instruction count")
    return int(found.group(1))


def cold(n: int) -> float:
    """Instructions per cold prompt over ``n`` distinct realistic prompts."""
    from benchmarks.cold import _default_keywords
    from benchmarks.realistic import distinct_prompts

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "prompts.json"
        corpus.write_text(json.dumps(distinct_prompts(n, _default_keywords())), encoding="utf-8")
        driver = Path(tmp) / "driver.py"
        driver.write_text(_DRIVER, encoding="utf-8")
        none = _count([str(driver), str(corpus), "0"])
        every = _count([str(driver), str(corpus), str(n)])
    return (every - none) / n


def start() -> tuple[int, int]:
    """Instructions of ``import smista`` + a first classify, and of ``import rapidfuzz``."""
    first = _count(["-c", "import smista; smista.classify('fix the login bug')"])
    return first, _count(["-c", "import rapidfuzz"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions")
    parser.add_argument("--prompts", type=int, default=3000, help="distinct prompts (cold)")
    parser.add_argument("--only", choices=("cold", "start"), help="one figure only")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    compileall.compile_dir(str(ROOT / "smista"), quiet=1)
    sys.path.insert(0, str(ROOT))  # the tree the counted processes run
    from smista.core.engine import ACCELERATED

    print(f"C hot path: {ACCELERATED}; python {sys.version.split()[0]}")  # (what is measured)
    if args.only in (None, "cold"):
        print(f"cold: {cold(args.prompts):,.0f} instructions a prompt ({args.prompts:,} prompts)")
    if args.only in (None, "start"):
        first, fuzz = start()
        print(
            f"start: import smista + first classify {first / 1e6:,.1f} M instructions, "
            f"import rapidfuzz {fuzz / 1e6:,.1f} M ({first / fuzz:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
