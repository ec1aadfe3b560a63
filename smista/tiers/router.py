"""The tier router: which model capability tier a delegated task needs.

Pure core: no I/O, no environment, no network. The LLM classifier is reached
only through an injected :class:`~smista.tiers.request.Completer`; clocks are
injectable. Routing is a sans-I/O state machine: :meth:`TierRouter._begin`
decides everything it can without the classifier, and the async step only
awaits the completion, so the rules classifier routes synchronously.

It fails open everywhere: any classifier failure falls back to the default
tier's model, a missing mapping leaves the task unchanged, an invalid config
disables routing with its error, and an unexpected exception inside the router
is recorded as ``task_left_unchanged``. Every decision is appended to a
bounded history (200, oldest dropped first).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from smista._edge.secrets import redact
from smista.core.engine import CompiledRules
from smista.core.errors import ConfigError, EvaluatorTimeout
from smista.tiers.cache import (
    CACHE_CHARS,
    CACHE_SIZE,
    CachedTier,
    CacheKey,
    TierCache,
    cache_key,
)
from smista.tiers.model import LlmClassifierConfig, TiersConfig, config_problems
from smista.tiers.outcomes import TierOutcome
from smista.tiers.parse import parse_tier_output
from smista.tiers.prompt import preview, render_prompt, user_message
from smista.tiers.request import (
    Completer,
    TierDecision,
    TierRequest,
    effective_role,
    explicit_model_preserved,
)
from smista.tiers.rules import compile_tier_rules, match_tier

__all__ = ["HISTORY_SIZE", "CompleterFactory", "TierRouter"]

HISTORY_SIZE = 200
"""Decisions kept in a router's history before the oldest is dropped."""

CompleterFactory = Callable[[LlmClassifierConfig], Completer]
"""Builds the completion client for an ``llm`` classifier config."""

_O = TierOutcome


@dataclass(frozen=True, slots=True)
class _State:
    """One configuration, compiled; routes hold the state they started with."""

    config: TiersConfig
    error: ConfigError | None
    ids: tuple[str, ...]
    rules: CompiledRules | None
    completer: Completer | None
    completer_error: str | None
    system_prompt: str
    cache: TierCache

    def cache_inputs(self) -> tuple[str, str, tuple[str, ...]]:
        return (self.config.llm.model, self.config.llm.prompt, self.ids)


@dataclass(frozen=True, slots=True)
class _Pending:
    """A route waiting for the LLM classifier."""

    state: _State
    draft: TierDecision
    key: CacheKey
    user: str


class TierRouter:
    """Routes delegated tasks to model tiers; holds the cache and the history.

    ``completer`` is used for the ``llm`` classifier as is; otherwise
    ``completer_factory`` builds one from each loaded config (the edge
    supplies :func:`smista.tiers.http.client_from_config`). ``model_exists``
    lets a host veto a mapped model it cannot resolve (the task is then left
    unchanged).
    """

    def __init__(
        self,
        config: TiersConfig | ConfigError | None = None,
        *,
        completer: Completer | None = None,
        completer_factory: CompleterFactory | None = None,
        model_exists: Callable[[str], bool] | None = None,
        history_size: int = HISTORY_SIZE,
        cache_size: int = CACHE_SIZE,
        cache_chars: int = CACHE_CHARS,
        clock: Callable[[], float] = time.time,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._completer = completer
        self._factory = completer_factory
        self._model_exists = model_exists
        self._clock = clock
        self._timer = timer
        self._cache_size = cache_size
        self._cache_chars = cache_chars
        self._history: deque[TierDecision] = deque(maxlen=history_size)
        self._state = self._build(TiersConfig() if config is None else config, None)

    # -- configuration -------------------------------------------------------

    @property
    def config(self) -> TiersConfig:
        """The configuration in force (the defaults while disabled by an error)."""
        return self._state.config

    @property
    def error(self) -> ConfigError | None:
        """The configuration error that disabled routing, if any."""
        return self._state.error

    @property
    def cache(self) -> TierCache:
        """The classification cache in use."""
        return self._state.cache

    def reload(self, config: TiersConfig | ConfigError) -> ConfigError | None:
        """Switch to ``config`` (a :class:`ConfigError` disables routing).

        The cache survives when the classifier model, the prompt and the
        ordered tier ids are unchanged (changing only models keeps it); any
        other change starts a new, empty cache. Routes already in flight finish
        with the configuration and cache they started with. Returns the error
        that disabled routing, if any.
        """
        self._state = self._build(config, self._state)
        return self._state.error

    def _build(self, config: TiersConfig | ConfigError, previous: _State | None) -> _State:
        if isinstance(config, ConfigError):
            return self._disabled(config, previous)
        problems = config_problems(config, require_endpoint=self._completer is None)
        if problems:
            error = ConfigError([(f"tiers.{path}", msg) for path, msg in problems])
            return self._disabled(error, previous)
        ids = config.tier_ids
        completer, completer_error = self._completer, None
        if config.classifier == "llm" and completer is None:
            if self._factory is None:
                completer_error = "no completion client is configured for the llm classifier"
            else:
                try:
                    completer = self._factory(config.llm)
                except Exception as exc:  # fail open: routing falls back per task
                    completer_error = f"cannot build the classifier client: {exc}"
        inputs = (config.llm.model, config.llm.prompt, ids)
        keep = previous is not None and previous.cache_inputs() == inputs
        return _State(
            config=config,
            error=None,
            ids=ids,
            rules=compile_tier_rules(config.rules, config.default_tier)
            if config.classifier == "rules"
            else None,
            completer=completer,
            completer_error=completer_error,
            system_prompt=render_prompt(config.llm.prompt, ids),
            cache=previous.cache
            if keep and previous is not None
            else TierCache(self._cache_size, self._cache_chars),
        )

    def _disabled(self, error: ConfigError, previous: _State | None) -> _State:
        # Keep the last configuration's inputs and cache for the next valid one.
        config = previous.config if previous is not None else TiersConfig()
        return _State(
            config=config,
            error=error,
            ids=config.tier_ids,
            rules=None,
            completer=None,
            completer_error=None,
            system_prompt="",
            cache=previous.cache
            if previous is not None
            else TierCache(self._cache_size, self._cache_chars),
        )

    # -- history -------------------------------------------------------------

    @property
    def history(self) -> tuple[TierDecision, ...]:
        """Every kept decision, oldest first."""
        return tuple(self._history)

    def recent(self, count: int) -> list[TierDecision]:
        """The last ``count`` decisions, oldest first."""
        return list(self._history)[-count:] if count > 0 else []

    # -- routing -------------------------------------------------------------

    async def route(self, request: TierRequest) -> TierDecision:
        """Decide the tier and model for ``request`` (never raises, except cancellation)."""
        step = self._begin_safely(request)
        if isinstance(step, TierDecision):
            return step
        return await self._classify(step)

    def route_sync(self, request: TierRequest) -> TierDecision:
        """:meth:`route` for synchronous callers.

        The rules classifier (and an llm cache hit) never needs an event loop;
        an llm classification runs one with :func:`asyncio.run`, so from async
        code ``await route()`` instead.
        """
        step = self._begin_safely(request)
        if isinstance(step, TierDecision):
            return step
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._classify_once(step))
        raise RuntimeError("route_sync() cannot run inside an event loop; await route()")

    def _begin_safely(self, request: TierRequest) -> TierDecision | _Pending:
        state = self._state
        draft = TierDecision(timestamp=self._clock(), outcome=_O.TASK_LEFT_UNCHANGED, reason="")
        try:
            draft = self._draft(state, request, draft.timestamp)
            return self._begin(state, request, draft)
        except Exception as exc:  # fail open: never let routing break the host
            return self._finish(_internal_error(draft, exc))

    def _draft(self, state: _State, request: TierRequest, timestamp: float) -> TierDecision:
        llm = state.config.classifier == "llm"
        return TierDecision(
            timestamp=timestamp,
            outcome=_O.TASK_LEFT_UNCHANGED,
            reason="",
            classifier=state.config.classifier,
            classifier_model=state.config.llm.model if llm else None,
            task_preview=preview(request.task),
            solution_space_preview=preview(request.solution_space),
            model_role=effective_role(request),
            requested_model=request.model,
        )

    def _begin(
        self, state: _State, request: TierRequest, draft: TierDecision
    ) -> TierDecision | _Pending:
        config = state.config
        if state.error is not None:
            why = f"tier config invalid, routing disabled: {state.error}"
            return self._finish(_end(draft, _O.ROUTER_DISABLED, why))
        if not config.enabled:
            return self._finish(
                _end(draft, _O.ROUTER_DISABLED, "tier routing is disabled (enabled = false)")
            )
        role = draft.model_role
        if explicit_model_preserved(config.respect_explicit_model, role, state.ids):
            why = (
                f"explicit model {request.model!r} preserved"
                if role is None
                else f"role {role!r} is not routable; its model is preserved"
            )
            return self._finish(_end(draft, _O.EXPLICIT_MODEL_PRESERVED, why))
        if not request.task and not request.solution_space:
            why = "no task or solution space to classify"
            return self._finish(_end(draft, _O.TASK_LEFT_UNCHANGED, why))
        if state.rules is not None:
            started = self._timer()
            verdict = match_tier(
                state.rules, request.task, request.solution_space, request.contexts
            )
            draft = replace(
                draft,
                latency_ms=(self._timer() - started) * 1000.0,
                classifier_tier=verdict.tier,
                classifier_reason=verdict.reason,
            )
            if verdict.tier is None:
                return self._fallback(state, draft, _O.DEFAULT_TIER_USED, verdict.reason)
            return self._select(state, draft, verdict.tier)
        key = cache_key(
            request.task, request.solution_space, config.llm.model, config.llm.prompt, state.ids
        )
        if config.llm.cache:
            hit = state.cache.get(key)
            if hit is not None:
                draft = replace(
                    draft, classifier_tier=hit.tier, classifier_reason=hit.reason, cached=True
                )
                return self._select(state, draft, hit.tier)
        if state.completer is None:
            why = f"classifier failed: {state.completer_error}"
            return self._fallback(state, draft, _O.CLASSIFIER_FAILED, why)
        return _Pending(state, draft, key, user_message(request.task, request.solution_space))

    async def _classify_once(self, pending: _Pending) -> TierDecision:
        """:meth:`_classify` on an event loop about to end: the completer's client is closed."""
        try:
            return await self._classify(pending)
        finally:
            close = getattr(pending.state.completer, "aclose", None)
            if close is not None:
                await close()

    async def _classify(self, pending: _Pending) -> TierDecision:
        state, draft = pending.state, pending.draft
        completer = state.completer
        assert completer is not None
        timeout_ms = state.config.llm.timeout_ms
        started = self._timer()
        outcome: TierOutcome | None = None
        why = ""
        try:
            async with asyncio.timeout(timeout_ms / 1000.0):
                raw = await completer.complete(
                    state.system_prompt, pending.user, timeout_ms / 1000.0
                )
        except asyncio.CancelledError:
            elapsed = (self._timer() - started) * 1000.0
            why = "classification cancelled by the caller"
            self._finish(_end(replace(draft, latency_ms=elapsed), _O.CLASSIFIER_TIMEOUT, why))
            raise
        except (TimeoutError, EvaluatorTimeout) as exc:
            outcome = _O.CLASSIFIER_TIMEOUT
            detail = str(exc)
            why = f"classifier timed out after {timeout_ms} ms" + (f": {detail}" if detail else "")
        except Exception as exc:
            outcome = _O.CLASSIFIER_FAILED
            why = f"classifier failed: {str(exc) or type(exc).__name__}"
        draft = replace(draft, latency_ms=(self._timer() - started) * 1000.0)
        try:
            if outcome is not None:
                return self._fallback(state, draft, outcome, why)
            parsed = parse_tier_output(raw, state.ids)
            draft = replace(draft, classifier_tier=parsed.tier, classifier_reason=parsed.reason)
            if parsed.tier is not None:
                if state.config.llm.cache:
                    state.cache.put(pending.key, CachedTier(parsed.tier, parsed.reason))
                return self._select(state, draft, parsed.tier)
            if parsed.names_unknown_tier:
                draft = replace(draft, classifier_tier=parsed.candidate)
                why = f'classifier returned unknown tier "{parsed.candidate}"'
                return self._fallback(state, draft, _O.UNKNOWN_TIER, why)
            why = f"invalid classifier output: {redact(str(raw))[:120]!r}"
            return self._fallback(state, draft, _O.INVALID_CLASSIFIER_OUTPUT, why)
        except Exception as exc:  # fail open
            return self._finish(_internal_error(draft, exc))

    # -- outcomes ------------------------------------------------------------

    def _select(self, state: _State, draft: TierDecision, tier: str) -> TierDecision:
        """The classifier chose ``tier``: use its model, if it has one."""
        model = state.config.models.get(tier)
        draft = replace(draft, selected_tier=tier)
        if model is None:
            why = f'tier "{tier}" has no configured model'
            return self._finish(_end(draft, _O.NO_MAPPING, why))
        reason = draft.classifier_reason or f"classifier chose tier '{tier}'"
        return self._apply(draft, model, _O.ROUTED, None, reason)

    def _fallback(
        self, state: _State, draft: TierDecision, outcome: TierOutcome, why: str
    ) -> TierDecision:
        """No usable classification: use the default tier's model, if it has one."""
        tier = state.config.default_tier
        model = state.config.models.get(tier)
        draft = replace(draft, selected_tier=tier)
        if model is None:
            why = f'{outcome.value} ({why}); default tier "{tier}" has no configured model'
            return self._finish(_end(draft, _O.NO_MAPPING, why))
        return self._apply(draft, model, outcome, why, why)

    def _apply(
        self,
        draft: TierDecision,
        model: str,
        outcome: TierOutcome,
        fallback_reason: str | None,
        reason: str,
    ) -> TierDecision:
        draft = replace(draft, mapped_model=model)
        if self._model_exists is not None and not self._model_exists(model):
            why = f'{outcome.value}: tier model "{model}" is not known to the host'
            return self._finish(_end(draft, _O.TASK_LEFT_UNCHANGED, why))
        return self._finish(
            replace(
                draft, model=model, outcome=outcome, fallback_reason=fallback_reason, reason=reason
            )
        )

    def _finish(self, decision: TierDecision) -> TierDecision:
        decision = _redacted(decision)
        self._history.append(decision)
        return decision


def _redacted(decision: TierDecision) -> TierDecision:
    """``decision`` with every registered API key masked in its free texts."""
    changes: dict[str, str] = {}
    for name in ("reason", "fallback_reason", "classifier_tier", "classifier_reason"):
        value = getattr(decision, name)
        if isinstance(value, str):
            clean = redact(value)
            if clean != value:
                changes[name] = clean
    return replace(decision, **changes) if changes else decision  # type: ignore[arg-type]


def _end(draft: TierDecision, outcome: TierOutcome, why: str) -> TierDecision:
    """A decision that leaves the model alone (or falls back) with ``why``."""
    return replace(draft, outcome=outcome, fallback_reason=why, reason=why, model=None)


def _internal_error(draft: TierDecision, exc: Exception) -> TierDecision:
    why = f"internal error: {type(exc).__name__}: {exc}"
    return _end(draft, _O.TASK_LEFT_UNCHANGED, why)
