"""The tier router: the seed's router cases (spec B.12), every outcome, cache, reload,
history and cancellation, with a scripted completer behind the Completer protocol."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from smista.core.errors import ConfigError, EvaluatorTimeout
from smista.tiers import (
    TierCache,
    TierDecision,
    TierOutcome,
    TierRequest,
    TierRouter,
    TiersConfig,
    cache_key,
    router_from_file,
)

DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "tier_router_cases.json").read_text("utf-8")
)
BASE_INPUT: dict[str, Any] = DATA["input"]


class Scripted:
    """A completer whose replies are scripted: text, a function of the user message, or an error."""

    def __init__(self, reply: str | Callable[[str], str] | BaseException | None) -> None:
        self.reply = reply
        self.calls: list[tuple[str, str, float]] = []

    async def complete(self, system: str, user: str, timeout: float) -> str:
        self.calls.append((system, user, timeout))
        reply = self.reply
        if reply is None:
            raise RuntimeError("classifier request failed: error")
        if isinstance(reply, BaseException):
            raise reply
        return reply(user) if callable(reply) else reply


class Blocking:
    """A completer whose first call waits until released; replies in turn from ``replies``."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.calls = 0

    async def complete(self, system: str, user: str, timeout: float) -> str:  # noqa: ARG002
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            await self.release.wait()
        return self.replies[min(self.calls, len(self.replies)) - 1]


def merge(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in change.items():
        out[key] = (
            merge(out[key], value)
            if isinstance(value, dict) and key in out and key != "models"
            else value
        )
    return out


def cfg(**change: Any) -> TiersConfig:
    return TiersConfig.model_validate(merge(DATA["config"], change))


def request(**change: Any) -> TierRequest:
    return TierRequest(**{**BASE_INPUT, **change})


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["case"] for c in DATA["cases"]])
def test_seed_router_case(case: dict[str, Any]) -> None:
    """Each router.test.ts case gives the expected model, outcome and classifier calls."""
    completer = Scripted(case["reply"])
    router = TierRouter(cfg(**case.get("config", {})), completer=completer)
    decisions = [
        router.route_sync(request(**case.get("input", {}))) for _ in range(case.get("repeat", 1))
    ]
    for decision in decisions:
        assert decision.model == case["model"]
        assert decision.outcome.value == case["outcome"]
        if "selected_tier" in case:
            assert decision.selected_tier == case["selected_tier"]
        if "reason" in case:
            assert decision.reason == case["reason"]
        if "classifier_tier" in case:
            assert decision.classifier_tier == case["classifier_tier"]
    if "calls" in case:
        assert len(completer.calls) == case["calls"]
    assert len(router.history) == len(decisions)
    assert router.history[-1] == decisions[-1]


def test_classifier_sees_rendered_prompt_and_user_message() -> None:
    """System prompt lists the tier ids; the user message carries task and solution space."""
    completer = Scripted("hard")
    TierRouter(cfg(), completer=completer).route_sync(request())
    system, user, timeout = completer.calls[0]
    assert "Tiers:\n- cheap\n- normal\n- hard\n" in system
    assert (
        user
        == "Task:\nFix the pagination off-by-one\n\nSolution space:\none fix: slice end in paginate"
    )
    assert timeout == 8.0
    completer = Scripted("hard")
    TierRouter(cfg(), completer=completer).route_sync(request(solution_space=None))
    assert completer.calls[0][1] == "Task:\nFix the pagination off-by-one"


# -- every outcome ------------------------------------------------------------------------

UNMAPPED = {"ids": ["cheap", "normal", "hard"], "models": {"normal": "@task", "hard": "@slow"}}
NO_DEFAULT = {"ids": ["cheap", "normal", "hard"], "models": {"cheap": "@tiny", "hard": "@slow"}}


def _raise(exc: Exception) -> Callable[[str], bool]:
    def check(_model: str) -> bool:
        raise exc

    return check


SCENARIOS: list[
    tuple[str, dict[str, Any], Any, dict[str, Any], dict[str, Any], str, str | None]
] = [
    # name, config change, reply, request change, router options, outcome, model
    ("routed", {}, "hard", {}, {}, "routed", "@slow"),
    ("disabled", {"enabled": False}, "hard", {}, {}, "router_disabled", None),
    (
        "explicit model",
        {},
        "hard",
        {"role": None, "model": "vendor/model-x"},
        {},
        "explicit_model_preserved",
        None,
    ),
    ("completer raises", {}, ValueError("boom"), {}, {}, "classifier_failed", "@task"),
    (
        "completer times out",
        {},
        EvaluatorTimeout("read timeout"),
        {},
        {},
        "classifier_timeout",
        "@task",
    ),
    ("builtin timeout", {}, TimeoutError(), {}, {}, "classifier_timeout", "@task"),
    (
        "prose, not a tier",
        {},
        "total nonsense with no tier",
        {},
        {},
        "invalid_classifier_output",
        "@task",
    ),
    ("empty reply", {}, "", {}, {}, "invalid_classifier_output", "@task"),
    ("JSON without tier", {}, '{"level":"hard"}', {}, {}, "invalid_classifier_output", "@task"),
    ("unknown bare tier", {}, "frontier", {}, {}, "unknown_tier", "@task"),
    ("unknown JSON tier", {}, '{"tier":"epic"}', {}, {}, "unknown_tier", "@task"),
    ("chosen tier unmapped", UNMAPPED, "cheap", {}, {}, "no_mapping", None),
    ("fallback tier unmapped", NO_DEFAULT, "frontier", {}, {}, "no_mapping", None),
    (
        "nothing to classify",
        {},
        "hard",
        {"task": "", "solution_space": None},
        {},
        "task_left_unchanged",
        None,
    ),
    (
        "host rejects model",
        {},
        "hard",
        {},
        {"model_exists": lambda m: m != "@slow"},
        "task_left_unchanged",
        None,
    ),
    (
        "host check raises",
        {},
        "hard",
        {},
        {"model_exists": _raise(KeyError("x"))},
        "task_left_unchanged",
        None,
    ),
]


@pytest.mark.parametrize(
    ("change", "reply", "req", "options", "outcome", "model"),
    [s[1:] for s in SCENARIOS],
    ids=[s[0] for s in SCENARIOS],
)
def test_outcome_scenario(
    change: dict[str, Any],
    reply: Any,
    req: dict[str, Any],
    options: dict[str, Any],
    outcome: str,
    model: str | None,
) -> None:
    """Each scenario produces its outcome and model (None: the task is left unchanged)."""
    router = TierRouter(cfg(**change), completer=Scripted(reply), **options)
    decision = router.route_sync(request(**req))
    assert decision.outcome.value == outcome, decision
    assert decision.model == model
    assert decision.reason
    if outcome == "routed":
        assert decision.fallback_reason is None
    else:
        assert decision.fallback_reason


def test_default_tier_used_when_no_rule_matches() -> None:
    """The rules classifier choosing nothing is default_tier_used, not a failure."""
    router = router_from_file()
    decision = router.route_sync(TierRequest(task="say hello to the team"))
    assert decision.outcome is TierOutcome.DEFAULT_TIER_USED
    assert decision.selected_tier == "normal"
    assert decision.model == "@task"
    assert decision.classifier_tier is None
    assert "no tier rule matched" in decision.reason


def test_every_outcome_is_reached() -> None:
    """The scenarios above plus default_tier_used cover all ten outcomes."""
    reached = {s[5] for s in SCENARIOS} | {"default_tier_used"}
    assert reached == {o.value for o in TierOutcome}


def test_unknown_tier_keeps_descriptive_reason() -> None:
    """The unknown tier is named in the reason and recorded as what the classifier said."""
    decision = TierRouter(cfg(), completer=Scripted('{"tier":"frontier","reason":"x"}')).route_sync(
        request()
    )
    assert decision.fallback_reason == 'classifier returned unknown tier "frontier"'
    assert decision.classifier_tier == "frontier"
    assert decision.classifier_reason == "x"


def test_no_mapping_reasons_say_which_tier() -> None:
    """no_mapping names the unmapped tier, and the fallback cause when there was one."""
    chosen = TierRouter(cfg(**UNMAPPED), completer=Scripted("cheap")).route_sync(request())
    assert chosen.fallback_reason == 'tier "cheap" has no configured model'
    assert chosen.selected_tier == "cheap"
    fallback = TierRouter(cfg(**NO_DEFAULT), completer=Scripted("???")).route_sync(request())
    assert fallback.fallback_reason is not None
    assert fallback.fallback_reason.startswith("invalid_classifier_output (")
    assert 'default tier "normal" has no configured model' in fallback.fallback_reason


def test_missing_completer_fails_open() -> None:
    """An llm config with no client at all falls back to the default tier."""
    config = cfg(llm={"endpoint": "http://127.0.0.1:9/v1"})
    decision = TierRouter(config).route_sync(request())
    assert decision.outcome is TierOutcome.CLASSIFIER_FAILED
    assert decision.model == "@task"

    def broken(_: Any) -> Any:
        raise RuntimeError("no client today")

    decision = TierRouter(config, completer_factory=broken).route_sync(request())
    assert decision.outcome is TierOutcome.CLASSIFIER_FAILED
    assert "no client today" in decision.reason


def test_slow_completer_hits_the_deadline() -> None:
    """A completer slower than timeout_ms gives classifier_timeout and the default model."""

    class Slow:
        async def complete(self, system: str, user: str, timeout: float) -> str:  # noqa: ARG002
            await asyncio.sleep(3600)
            return "hard"

    router = TierRouter(cfg(llm={"timeout_ms": 20}), completer=Slow())
    decision = router.route_sync(request())
    assert decision.outcome is TierOutcome.CLASSIFIER_TIMEOUT
    assert decision.model == "@task"
    assert "timed out after 20 ms" in decision.reason


def test_caller_cancellation_is_recorded_as_timeout_and_propagates() -> None:
    """Cancelling a route re-raises CancelledError and records classifier_timeout."""
    blocking = Blocking("hard")
    router = TierRouter(cfg(), completer=blocking)

    async def scenario() -> None:
        task = asyncio.create_task(router.route(request()))
        await blocking.entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert [d.outcome for d in router.history] == [TierOutcome.CLASSIFIER_TIMEOUT]
    assert router.history[0].reason == "classification cancelled by the caller"
    assert len(router.cache) == 0


def test_route_sync_refuses_inside_event_loop_for_llm() -> None:
    """route_sync needs no loop for rules, and refuses to nest one for llm."""

    async def inside() -> tuple[TierDecision, BaseException | None]:
        rules = router_from_file().route_sync(TierRequest(task="rename x"))
        try:
            TierRouter(cfg(), completer=Scripted("hard")).route_sync(request())
        except RuntimeError as exc:
            return rules, exc
        return rules, None

    rules, error = asyncio.run(inside())
    assert rules.outcome is TierOutcome.ROUTED
    assert isinstance(error, RuntimeError)


# -- cache ---------------------------------------------------------------------------------


def test_cache_key_is_task_space_model_prompt_ordered_ids() -> None:
    """The key holds exactly the five inputs; missing texts count as empty."""
    key = cache_key(
        "Fix the pagination off-by-one",
        "one fix: slice end in paginate",
        "@tiny",
        "P",
        ["cheap", "normal", "hard"],
    )
    assert tuple(key) == (
        "Fix the pagination off-by-one",
        "one fix: slice end in paginate",
        "@tiny",
        "P",
        ("cheap", "normal", "hard"),
    )
    assert cache_key(None, None, "m", "p", ["a"]) == cache_key("", "", "m", "p", ("a",))
    assert cache_key("t", "", "m", "p", ["a", "b"]) != cache_key("t", "", "m", "p", ["b", "a"])


def test_cache_is_fifo_not_lru() -> None:
    """Lookups do not refresh; the first inserted entry is evicted first."""
    cache = TierCache(3)
    keys = [cache_key(str(i), "", "m", "p", ["a"]) for i in range(4)]
    from smista.tiers import CachedTier

    for key in keys[:3]:
        cache.put(key, CachedTier("a", None))
    assert cache.get(keys[0]) is not None
    cache.put(keys[0], CachedTier("a", "again"))  # an update keeps its place
    cache.put(keys[3], CachedTier("a", None))
    assert keys[0] not in cache
    assert list(cache) == keys[1:]
    with pytest.raises(ValueError, match="at least 1"):
        TierCache(0)


def test_cache_is_bounded_by_the_characters_its_texts_hold() -> None:
    """Few, large tasks evict by characters; an entry over the whole budget is never kept.
    The shared model, prompt and tier ids are not counted, only each entry's own texts."""
    from smista.tiers import CachedTier

    cache = TierCache(256, max_chars=100)
    prompt = "p" * 1000  # (shared by every entry: not counted)
    keys = [cache_key(str(i) * 30, "", "m", prompt, ["a"]) for i in range(5)]  # 30 + tier 1
    for key in keys[:3]:
        cache.put(key, CachedTier("a", None))
    assert list(cache) == keys[:3]
    assert cache.chars == 3 * 31
    cache.put(keys[3], CachedTier("a", None))  # 124 > 100: the oldest goes
    assert list(cache) == keys[1:4]
    assert cache.chars == 93
    big = cache_key("x" * 200, "", "m", prompt, ["a"])
    cache.put(big, CachedTier("a", None))
    assert big not in cache
    assert list(cache) == keys[1:4]
    # An update that outgrows the budget drops the stored entry rather than keep an old answer.
    cache.put(keys[1], CachedTier("a", "r" * 100))
    assert keys[1] not in cache
    assert cache.chars == 62
    cache.put(keys[2], CachedTier("b", "why"))  # an update in budget keeps its place
    assert list(cache) == keys[2:4]
    assert cache.get(keys[2]) == CachedTier("b", "why")
    assert cache.chars == 65
    cache.clear()
    assert cache.chars == 0
    with pytest.raises(ValueError, match="budget"):
        TierCache(3, max_chars=0)


def test_the_router_passes_its_character_budget_to_its_cache() -> None:
    router = TierRouter(cfg(), completer=Scripted("{}"), cache_chars=123)
    assert router.cache.max_chars == 123


def test_router_cache_holds_256_and_evicts_oldest() -> None:
    """257 distinct tasks: the first is evicted (re-classified), the second is still cached."""
    completer = Scripted("cheap")
    router = TierRouter(cfg(), completer=completer)
    for i in range(257):
        router.route_sync(request(task=f"task {i}"))
    assert len(router.cache) == 256
    assert len(completer.calls) == 257
    second = router.route_sync(request(task="task 1"))
    assert second.cached
    assert second.latency_ms == 0.0
    assert len(completer.calls) == 257
    router.route_sync(request(task="task 0"))
    assert len(completer.calls) == 258


@pytest.mark.parametrize(
    "reply",
    [RuntimeError("down"), EvaluatorTimeout("slow"), "total nonsense", "frontier", ""],
    ids=["failure", "timeout", "invalid", "unknown", "empty"],
)
def test_unusable_results_are_not_cached(reply: Any) -> None:
    """Failures, timeouts, invalid output and unknown tiers are asked again next time."""
    completer = Scripted(reply)
    router = TierRouter(cfg(), completer=completer)
    router.route_sync(request())
    router.route_sync(request())
    assert len(completer.calls) == 2
    assert len(router.cache) == 0


def test_cache_switch_off_classifies_every_time() -> None:
    """cache = false: every route asks the classifier."""
    completer = Scripted("hard")
    router = TierRouter(cfg(llm={"cache": False}), completer=completer)
    for _ in range(3):
        assert router.route_sync(request()).outcome is TierOutcome.ROUTED
    assert len(completer.calls) == 3


def test_cache_survival_sequence() -> None:
    """Reloads keep the cache for mapping-only changes and drop it for prompt or model changes."""
    completer = Scripted("cheap")
    router = TierRouter(cfg(), completer=completer)
    config: dict[str, Any] = {}
    for step in DATA["cache_survival"]:
        if step["action"] == "reload same":
            assert router.reload(cfg(**config)) is None
        elif step["action"] == "reload":
            config = merge(config, step["change"])
            assert router.reload(cfg(**config)) is None
        decision = router.route_sync(request())
        assert len(completer.calls) == step["calls"], step
        if "model" in step:
            assert decision.model == step["model"]


def test_reload_with_renamed_or_reordered_tiers_drops_cache() -> None:
    """Rename: the next route classifies again and routes to the new tier."""
    completer = Scripted("cheap")
    router = TierRouter(cfg(), completer=completer)
    assert router.route_sync(request()).model == "@tiny"
    router.reload(cfg(models={"budget": "@tiny", "normal": "@task", "hard": "@slow"}))
    completer.reply = "budget"
    decision = router.route_sync(request())
    assert (decision.model, decision.outcome) == ("@tiny", TierOutcome.ROUTED)
    assert len(completer.calls) == 2
    router.reload(cfg(models={"normal": "@task", "budget": "@tiny", "hard": "@slow"}))
    router.route_sync(request())
    assert len(completer.calls) == 3


def test_in_flight_result_cannot_fill_the_reloaded_cache() -> None:
    """A classification started before a tier rename lands under the old key only."""
    blocking = Blocking("cheap", "budget")
    router = TierRouter(cfg(), completer=blocking)

    async def scenario() -> tuple[TierDecision, TierDecision]:
        first = asyncio.create_task(router.route(request()))
        await blocking.entered.wait()
        router.reload(cfg(models={"budget": "@tiny", "normal": "@task", "hard": "@slow"}))
        blocking.release.set()
        old = await first
        new = await router.route(request())
        return old, new

    old, new = asyncio.run(scenario())
    assert (old.model, old.outcome) == ("@tiny", TierOutcome.ROUTED)  # its own config
    assert (new.model, new.outcome, new.selected_tier) == ("@tiny", TierOutcome.ROUTED, "budget")
    assert blocking.calls == 2


def test_invalid_reload_disables_then_valid_reload_restores_with_cache() -> None:
    """A bad config disables routing with its error; the cache returns with an equal config."""
    completer = Scripted("hard")
    router = TierRouter(cfg(), completer=completer)
    router.route_sync(request())
    error = router.reload(ConfigError([("tiers.enabled", "expected a boolean")], "x.toml"))
    assert error is not None
    assert router.error is error
    disabled = router.route_sync(request())
    assert disabled.outcome is TierOutcome.ROUTER_DISABLED
    assert "x.toml: tiers.enabled" in disabled.reason
    semantic = router.reload(cfg(default_tier="huge"))
    assert semantic is not None
    assert "tiers.default_tier" in str(semantic)
    assert router.reload(cfg()) is None
    assert router.route_sync(request()).cached
    assert len(completer.calls) == 1


# -- history -------------------------------------------------------------------------------


def test_history_is_fifo_200_with_full_records() -> None:
    """200 records kept, oldest dropped; each has the documented fields."""
    ticks = iter(range(1000))
    router = TierRouter(
        cfg(),
        completer=Scripted('{"tier":"hard","reason":"deep"}'),
        clock=lambda: float(next(ticks)),
    )
    for i in range(205):
        router.route_sync(request(task=f"task {i}   with\n\tspace"))
    history = router.history
    assert len(history) == 200
    assert history[0].task_preview == "task 5 with space"
    assert history[0].timestamp == 5.0
    record = history[-1]
    assert record.as_dict() == {
        "timestamp": 204.0,
        "outcome": "routed",
        "reason": "deep",
        "selected_tier": "hard",
        "model": "@slow",
        "mapped_model": "@slow",
        "classifier": "llm",
        "classifier_model": "@tiny",
        "classifier_tier": "hard",
        "classifier_reason": "deep",
        "fallback_reason": None,
        "task_preview": "task 204 with space",
        "solution_space_preview": "one fix: slice end in paginate",
        "model_role": "task",
        "requested_model": None,
        "latency_ms": record.latency_ms,
        "cached": False,
    }
    assert [d.task_preview for d in router.recent(2)] == [
        "task 203 with space",
        "task 204 with space",
    ]
    assert router.recent(0) == []


def test_history_size_is_configurable() -> None:
    """history_size bounds the deque."""
    router = TierRouter(cfg(), completer=Scripted("hard"), history_size=3)
    for _ in range(5):
        router.route_sync(request())
    assert len(router.history) == 3


# -- rules classifier ----------------------------------------------------------------------


def test_rules_classifier_uses_solution_space_and_contexts() -> None:
    """Rules read the task and the solution space; solution_space is a context kind."""
    config = TiersConfig.model_validate(
        {
            "rules": [
                {"tier": "hard", "priority": 1, "requires_any_context": ["security_review"]},
                {
                    "tier": "cheap",
                    "priority": 2,
                    "keywords": ["rename"],
                    "requires_any_context": ["solution_space"],
                },
                {"tier": "hard", "priority": 3, "keywords": ["deadlock"]},
            ]
        }
    )
    router = TierRouter(config)
    assert router.route_sync(TierRequest(task="rename it")).outcome is TierOutcome.DEFAULT_TIER_USED
    spaced = router.route_sync(TierRequest(task="rename it", solution_space="exact names given"))
    assert (spaced.selected_tier, spaced.model) == ("cheap", "@task_cheap")
    hidden = router.route_sync(TierRequest(task="tidy up", solution_space="maybe a deadlok"))
    assert hidden.selected_tier == "hard"  # typo-tolerant, in the solution space
    context = router.route_sync(
        TierRequest(task="anything", contexts=frozenset({"security_review"}))
    )
    assert context.selected_tier == "hard"
    assert context.reason == "context 'security_review' matched rule 0"


@pytest.mark.parametrize(
    ("task", "tier"),
    [
        ("Rename getUser to fetchUser across all 100 files", "cheap"),
        ("Fix the typo in the README", "cheap"),
        ("A 5-line concurrency bug with unknown cause and no repro", "hard"),
        ("Design the plugin architecture for the new importer", "hard"),
        ("Migrate the billing tables to the new schema", "hard"),
        ("Fix the pagination off-by-one", "normal"),
        ("Implement the export feature following the CSV handler", "normal"),
    ],
)
def test_shipped_pack_tiers(task: str, tier: str) -> None:
    """The shipped pack: size does not make a task hard; unknown causes and design do."""
    decision = router_from_file().route_sync(TierRequest(task=task))
    assert decision.outcome is TierOutcome.ROUTED
    assert decision.selected_tier == tier
