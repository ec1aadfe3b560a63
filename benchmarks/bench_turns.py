"""What reading and classifying a whole turn costs; prints ``name: value`` lines.

Run: ``PYTHONPATH=. python benchmarks/bench_turns.py``.

* ``parse_<fixture>_us`` / ``classify_<fixture>_us``: :func:`smista.core.turns.parse_turn`
  and :meth:`smista.Classifier.classify_turn` on the provider-shaped fixtures of
  ``tests/data/turns`` (best of 7 timeit repeats, per call).
* ``*_long_session_us``: a synthetic Claude Code session of 400 messages (user
  prompts with system-reminders, tool_use / tool_result pairs), the size of a
  long agent session; ``long_session_kb`` is its JSON size.
* ``bare_classify_us``: classifying the same current text as a bare prompt.
* ``hostile_*_ms``: about 1 MB of unclosed ``<system-reminder>`` / ``<ide_a>``
  openers, or of ``[Request interrupted by user`` without ``]`` (what a lazy
  ``<x>[\\s\\S]*?</x>`` regex would take quadratic time on), best of 3.
"""

from __future__ import annotations

import json
import timeit
from functools import partial
from pathlib import Path
from typing import Any

from smista.config.defaults import default_classifier
from smista.core.turns import parse_turn

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "turns"


def per_call_us(fn: Any, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def long_session(pairs: int = 100) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for i in range(pairs):
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "<system-reminder>\n" + "context " * 80 + "</system-reminder>",
                    },
                    {"type": "text", "text": f"step {i}: fix the retry loop in worker {i}"},
                ],
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Running the tests."},
                    {
                        "type": "tool_use",
                        "id": f"t{i}",
                        "name": "Bash",
                        "input": {"command": "pytest"},
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok\n" * 40}
                ],
            }
        )
        messages.append({"role": "assistant", "content": "Done. Next?"})
    messages.append({"role": "user", "content": "ok do it"})
    return {"system": "You are Claude Code.", "messages": messages}


def main() -> None:
    classifier = default_classifier()
    cases = {p.stem: json.loads(p.read_text("utf-8")) for p in sorted(DATA.glob("*.json"))}
    cases["long_session"] = long_session()
    print(f"long_session_kb: {len(json.dumps(cases['long_session'])) / 1024:.0f}")
    for name, body in cases.items():
        number = 20 if name == "long_session" else 2000
        print(f"parse_{name}_us: {per_call_us(lambda b=body: parse_turn(b), number):.1f}")
        print(
            f"classify_{name}_us: "
            f"{per_call_us(lambda b=body: classifier.classify_turn(b), number):.1f}"
        )
    hostile = {
        "reminders": "<system-reminder>" * 60000,
        "ide": "<ide_a>" * 150000,
        "interrupted": "[Request interrupted by user" * 40000,
    }
    for name, payload in hostile.items():
        ms = min(timeit.repeat(partial(parse_turn, payload), number=1, repeat=3)) * 1e3
        print(f"hostile_{name}_ms: {ms:.0f}")
    text = parse_turn(cases["claude_code_session"]).text
    print(f"bare_classify_us: {per_call_us(lambda: classifier.classify(text), 20000):.2f}")


if __name__ == "__main__":
    main()
