"""Throughput of tier routing (rules classifier), the tier parser and grounding checks.

Prints ``name: value`` lines (microseconds per call, min of 5 runs), plus the wall
time of one ``smista tier`` and one ``smista ground`` process.
"""

from __future__ import annotations

import subprocess
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from smista.core.grounding import evaluate, parse_classifier_response  # noqa: E402
from smista.tiers import TierRequest, parse_tier_output, router_from_file  # noqa: E402


def per_call_us(func: Callable[[], object], number: int) -> float:
    return min(timeit.repeat(func, number=number, repeat=5)) / number * 1e6


def cli_ms(*args: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        command = [sys.executable, "-m", "smista", *args]
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    router = router_from_file(history_size=10)
    tasks = [
        TierRequest(task="Rename getUser to fetchUser across all 100 files"),
        TierRequest(task="A 5-line concurrency bug with unknown cause and no repro"),
        TierRequest(task="Fix the off-by-one", solution_space="one fix: slice end in paginate"),
        TierRequest(task="say hello to the team"),
    ]
    i = iter(range(10**9))
    route_us = per_call_us(lambda: router.route_sync(tasks[next(i) % 4]), 20000)
    print(f"tier_route_rules_us: {route_us:.1f}")
    ids = ["cheap", "normal", "hard"]
    reply = 'Thinking...\n```json\n{"tier": "hard", "reason": "unknown cause"}\n```'
    print(f"tier_parse_fenced_us: {per_call_us(lambda: parse_tier_output(reply, ids), 20000):.1f}")
    params = {"path": "TODO: resolve BSSID first", "frequency": 433920000, "name": "garage"}
    required = ["path", "frequency", "name", "mode"]
    print(f"grounding_evaluate_us: {per_call_us(lambda: evaluate(params, required), 50000):.2f}")
    text = '{"groups":["wifi","bt"],"confidence":0.82}'
    print(f"grounding_parse_us: {per_call_us(lambda: parse_classifier_response(text), 50000):.2f}")
    print(f"cli_tier_ms: {cli_ms('tier', 'fix the race condition'):.0f}")
    params_json = '{"a": "x"}'
    print(f"cli_ground_ms: {cli_ms('ground', '--required', 'a,b', params_json):.0f}")


if __name__ == "__main__":
    main()
