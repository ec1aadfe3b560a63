"""Timing helpers robust to a shared, noisy machine.

Functions being compared are timed *interleaved* on the same prompt (so a burst
of load elsewhere hits all of them alike), each as a short loop whose cost is
divided by its length, keeping the best of several rounds; the cost of an
empty call loop is measured the same way and subtracted.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter_ns

__all__ = ["Times", "interleaved"]


@dataclass(frozen=True)
class Times:
    """Per-prompt best times (ns) for one function."""

    per_prompt: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.per_prompt)

    @property
    def total(self) -> float:
        return sum(self.per_prompt)


def _noop(_: str) -> None:
    return None


def interleaved(
    funcs: Sequence[Callable[[str], object]],
    prompts: Sequence[str],
    *,
    rounds: int = 5,
    inner: int = 3,
) -> list[Times]:
    """Best per-prompt time of every function in ``funcs`` over ``prompts``."""
    best = [[float("inf")] * len(prompts) for _ in funcs]
    base = [float("inf")] * len(prompts)
    loop = range(inner)
    for _ in range(rounds):
        for i, prompt in enumerate(prompts):
            start = perf_counter_ns()
            for _ in loop:
                _noop(prompt)
            base[i] = min(base[i], (perf_counter_ns() - start) / inner)
            for k, func in enumerate(funcs):
                start = perf_counter_ns()
                for _ in loop:
                    func(prompt)
                best[k][i] = min(best[k][i], (perf_counter_ns() - start) / inner)
    return [Times([max(1.0, t - b) for t, b in zip(row, base, strict=True)]) for row in best]
