"""LiteLLM plugins: a complexity-router ``ClassifierPlugin`` and a ``RoutingPlugin``.

Edge adapter; public as :mod:`smista.integrations.litellm`. Both classes
satisfy LiteLLM's runtime-checkable protocols structurally (an async
``classify(context)`` / ``run(context)``) and read only the documented
``RoutingContext`` fields (``structured_messages``: the request in OpenAI chat
form; ``candidate_models``; ``signals``), so this module never imports
``litellm`` itself.

* :class:`SmistaClassifier` (``classifier_type: custom``): classifies the
  current user turn, routes it with the smista routing policy (and, with a
  decision stage, its complexity signal), and names a tier. With ``tiers``,
  the first of these keys found gives the tier: the routed ``provider/model``,
  the matched routing rule's name, the intent, and ``housekeeping`` for
  housekeeping calls. Without ``tiers`` the tier is the routed
  ``provider/model`` when a policy routes, else the intent name. Anything
  else declines (``None``), and LiteLLM's ``classifier_fallback`` decides.
* :class:`SmistaRoutingPlugin` (``Router(plugins=[...])``): narrows
  ``candidate_models`` to the deployments serving the routed model (or, when
  none does, its first fallback that one serves); with no match, no route or
  a housekeeping call it leaves the list alone. It records what it decided in
  ``context.signals["smista"]``.

Both fail open: an error inside smista declines / leaves the context as it
came (the error is logged, never raised into the router). ``litellm.Router``
deep-copies its model list; a deep copy of a plugin is the plugin itself.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from smista.core.decisionresult import DecisionResult
from smista.core.turnclassify import TurnResult
from smista.decision.stage import DecisionStage
from smista.decision.state import Conversation, Message
from smista.hosts._turn import HostTurn, turn_from_body
from smista.hosts.engine import HostDecision, HostEngine

__all__ = ["SmistaClassifier", "SmistaRoutingPlugin", "tier_for"]

log = logging.getLogger("smista.integrations.litellm")


def tier_for(decision: HostDecision, tiers: Mapping[str, str] | None) -> str | None:
    """The tier name for a decided turn (see the module docstring), or ``None``."""
    if decision.housekeeping is not None:
        return tiers.get("housekeeping") if tiers is not None else None
    c, r = decision.classification, decision.routing
    if c is None:
        return None
    if tiers is None:
        return r.model_ref if r is not None else c.intent.value
    keys = [r.model_ref, r.matched_rule] if r is not None else []
    for key in (*keys, c.intent.value):
        if key is not None and key in tiers:
            return tiers[key]
    return None


def _engine(engine: HostEngine | None, config: str | Path | None) -> HostEngine:
    if engine is not None and config is not None:
        raise ValueError("pass either engine or config, not both")
    return engine if engine is not None else HostEngine.load(config)


def _turn(context: Any) -> HostTurn:
    messages = getattr(context, "structured_messages", None) or getattr(
        context, "raw_messages", None
    )
    return turn_from_body({"messages": list(messages or [])})


class _Base:
    """What both plugins share: the engine and an optional decision stage."""

    def __init__(
        self,
        engine: HostEngine | None = None,
        *,
        config: str | Path | None = None,
        decision_stage: DecisionStage | None = None,
    ) -> None:
        self.engine = _engine(engine, config)
        self.decision_stage = decision_stage

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        # litellm.Router deep-copies its model_list, plugin instances included. The
        # plugin is immutable shared state (and a decision stage holds an HTTP client
        # and locks, which cannot be copied), so every copy is this same object.
        return self

    async def _signal(self, result: TurnResult) -> DecisionResult | None:
        turn = result.turn
        if self.decision_stage is None or turn.housekeeping is not None or not turn.text:
            return None
        history = tuple(Message(role="user", content=t) for t in turn.history)
        outcome = await self.decision_stage.classify(
            Conversation(history=history, message=turn.text)
        )
        return outcome.signal

    async def decide(self, context: Any) -> HostDecision:
        """smista's decision for the request in ``context``."""
        result = self.engine.classify(_turn(context))
        return self.engine.route(result, decision=await self._signal(result))


class SmistaClassifier(_Base):
    """A LiteLLM complexity-router ``ClassifierPlugin`` backed by smista.

    ``engine`` (or ``config``, a smista config file) supplies the rules and
    the routing policy; ``tiers`` maps routed models, rule names, intents or
    ``housekeeping`` to LiteLLM tier names; ``decision_stage`` optionally
    adds the complexity signal that routing rules with ``complexity`` use.
    """

    def __init__(
        self,
        engine: HostEngine | None = None,
        *,
        config: str | Path | None = None,
        tiers: Mapping[str, str] | None = None,
        decision_stage: DecisionStage | None = None,
    ) -> None:
        super().__init__(engine, config=config, decision_stage=decision_stage)
        self.tiers = dict(tiers) if tiers is not None else None

    async def classify(self, context: Any) -> str | None:
        """The tier for the request, or ``None`` to decline."""
        try:
            return tier_for(await self.decide(context), self.tiers)
        except Exception:
            log.exception("smista classifier failed; declining")
            return None


class SmistaRoutingPlugin(_Base):
    """A LiteLLM ``RoutingPlugin`` narrowing ``candidate_models`` by the routing policy.

    ``models`` maps a smista ``provider/model`` to the ``litellm_params.model``
    strings that serve it (default: the same string).
    """

    def __init__(
        self,
        engine: HostEngine | None = None,
        *,
        config: str | Path | None = None,
        models: Mapping[str, Sequence[str]] | None = None,
        decision_stage: DecisionStage | None = None,
    ) -> None:
        super().__init__(engine, config=config, decision_stage=decision_stage)
        self.models = {k: tuple(v) for k, v in (models or {}).items()}

    def _serving(self, ref: str) -> tuple[str, ...]:
        return self.models.get(ref, (ref,))

    async def run(self, context: Any) -> Any:
        """Narrow ``context.candidate_models``; always returns ``context``."""
        try:
            decision = await self.decide(context)
            signal: dict[str, Any] = decision.to_json()
            routed = decision.routing
            candidates = list(context.candidate_models)
            kept: list[str] = []
            if routed is not None:
                for ref in (routed.model_ref, *routed.fallbacks):
                    serving = set(self._serving(ref))
                    kept = [m for m in candidates if m in serving]
                    if kept:
                        signal["serving"] = ref
                        break
            signal["narrowed"] = bool(kept) and len(kept) < len(candidates)
            if kept:
                context.candidate_models = kept
            context.signals["smista"] = signal
        except Exception:
            log.exception("smista routing plugin failed; leaving the candidates alone")
        return context
