"""What the host adapters cost; prints ``name: value`` lines.

Run: ``PYTHONPATH=. python benchmarks/bench_hosts.py``.

* ``hook_process_*_ms``: wall time of one ``smista hook claude-code`` process
  answering a ``UserPromptSubmit`` input (what Claude Code waits for per
  prompt), median and worst of 15, without and with a routing config.
* ``hook_respond_us``: the in-process answer once loaded (best of 7 timeit
  repeats, per call).
* ``route_plugin_us``: :class:`SmistaRoutingPlugin` deciding one chat turn.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from types import SimpleNamespace

from smista.hosts.claude_code import respond
from smista.hosts.engine import HostEngine
from smista.integrations.litellm import SmistaRoutingPlugin

POLICY = """
[routing.default]
model = "anthropic/claude-sonnet-4-5"

[[routing.rules]]
name = "plans think hard"
priority = 10
intent = "plan"
model = "anthropic/claude-opus-4-1"
"""

PAYLOAD = {
    "session_id": "s",
    "transcript_path": None,
    "cwd": ".",
    "permission_mode": "default",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "plan the migration of the orders table from sqlite to postgres",
}


def _process_ms(args: list[str], runs: int = 15) -> tuple[float, float]:
    raw = json.dumps(PAYLOAD).encode()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "smista", *args], input=raw, capture_output=True, check=True
        )
        times.append((time.perf_counter() - start) * 1000)
        assert proc.stdout, proc.stderr
    return statistics.median(times), max(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "smista.toml"
        config.write_text(POLICY, encoding="utf-8")
        for label, args in (
            ("default_rules", ["hook", "claude-code"]),
            ("with_config", ["hook", "claude-code", "--config", str(config)]),
        ):
            median, worst = _process_ms(args)
            print(f"hook_process_{label}_median_ms: {median:.0f}")
            print(f"hook_process_{label}_max_ms: {worst:.0f}")
        engine = HostEngine.load(config)
    times = timeit.repeat(lambda: respond(PAYLOAD, engine), number=2000, repeat=7)
    print(f"hook_respond_us: {min(times) / 2000 * 1e6:.1f}")
    plugin = SmistaRoutingPlugin(engine)
    messages = [{"role": "user", "content": PAYLOAD["prompt"]}]

    def run_plugin() -> object:
        context = SimpleNamespace(
            structured_messages=messages,
            candidate_models=["anthropic/claude-opus-4-1", "anthropic/claude-sonnet-4-5"],
            signals={},
        )
        return asyncio.run(plugin.run(context))

    times = timeit.repeat(run_plugin, number=200, repeat=7)
    print(f"route_plugin_us: {min(times) / 200 * 1e6:.1f}")


if __name__ == "__main__":
    main()
