"""Latency of route() and of bounding a decision state; prints ``name: value`` lines.

Run: ``PYTHONPATH=. python benchmarks/bench_routing.py``. Times are the best of
7 repeats (stdlib ``timeit``), per call, in microseconds.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from functools import partial

from smista.core.intent import Confidence, IntentSource, TaskIntent
from smista.core.result import Classification
from smista.core.routing import DefaultRoute, RoutingPolicy, RoutingRule, route
from smista.decision.state import Conversation, Message, bound_state


def _policy(n: int) -> RoutingPolicy:
    intents = list(TaskIntent)
    rules = tuple(
        RoutingRule(
            name=f"rule {i}",
            priority=i,
            intent=intents[i % len(intents)] if i % 3 else None,
            paths=(f"src/module{i}/**", f"**/*.ext{i}") if i % 2 else (),
            model=f"provider/model-{i}",
        )
        for i in range(n)
    )
    return RoutingPolicy(default=DefaultRoute(model="provider/default"), rules=rules)


def _best_us(stmt: Callable[[], object], number: int) -> float:
    times = timeit.repeat(stmt, number=number, repeat=7)
    return min(times) / number * 1e6


def main() -> None:
    chat = Classification(
        intent=TaskIntent.CHAT, source=IntentSource.INFERRED, reason="x", confidence=Confidence.LOW
    )
    files = ["src/auth/login.rs", "docs/readme.md", "Cargo.toml"]
    for n in (10, 100):
        policy = _policy(n)
        route(chat, policy, touched_files=files)  # warm the glob cache
        us = _best_us(partial(route, chat, policy, touched_files=files), 200)
        print(f"route_{n}_rules_no_match_us: {us:.1f}")
    history = tuple(
        Message(role="user" if i % 2 == 0 else "assistant", content="lorem ipsum é <b> " * 40)
        for i in range(400)
    )
    conversation = Conversation(cwd="/work", git_branch="main", history=history, message="go")
    state = bound_state(conversation)
    us = _best_us(lambda: bound_state(conversation), 5)
    print(f"bound_state_400_messages_us: {us:.0f}")
    print(f"bound_state_kept_messages: {state.messages}")
    print(f"bound_state_bytes: {state.size}")


if __name__ == "__main__":
    main()
