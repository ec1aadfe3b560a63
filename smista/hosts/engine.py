"""What smista would decide for one host turn: intent, confidence and routed model.

Edge layer shared by every host adapter. :meth:`HostEngine.load` reads an
optional smista config file (``[classification]`` and ``[routing]``; without
one the shipped default rules and no routing policy); :meth:`HostEngine.decide`
is then pure: it classifies the turn (housekeeping calls are reported, not
classified) and routes it on the deterministic rules. It never calls the
decision model: hosts give hooks a few seconds at most, and a routing rule
with decision conditions is simply skipped, as ``route()`` does without a
decision result (a gateway adapter may pass one it computed). The tool-call grounding check lives in
:mod:`smista.hosts.tools`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smista.classifier import Classifier
from smista.decision.result import DecisionResult
from smista.errors import RoutingError
from smista.hosts._turn import HostTurn, classify_turn
from smista.intent import TaskIntent
from smista.result import Classification
from smista.routing import RoutingDecision, RoutingPolicy, route

__all__ = ["HostDecision", "HostEngine"]


@dataclass(frozen=True, slots=True)
class HostDecision:
    """smista's view of one turn.

    ``classification`` is ``None`` for a housekeeping call (``turn.housekeeping``
    says which) and for a turn with no user text; ``routing`` is ``None`` when
    there is no routing policy or nothing routes (``no_route`` says why).
    """

    turn: HostTurn
    classification: Classification | None
    routing: RoutingDecision | None
    no_route: str | None = None

    @property
    def skipped(self) -> str | None:
        """Why smista has no opinion on this turn, or ``None`` when it has one."""
        if self.turn.housekeeping is not None:
            return f"housekeeping call ({self.turn.housekeeping})"
        if self.classification is None:
            return "no user text in the turn"
        return None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (the MCP tools and the route endpoint build on it)."""
        out: dict[str, Any] = {"skipped": self.skipped}
        if self.classification is not None:
            out["classification"] = self.classification.to_wire()
        if self.routing is not None:
            out["routing"] = self.routing.model_dump(mode="json")
        elif self.no_route is not None:
            out["no_route"] = self.no_route
        return out


@dataclass(frozen=True, slots=True)
class HostEngine:
    """A classifier, an optional routing policy and tool-grounding overrides.

    ``tool_required`` maps a tool name to the input keys that must be
    concrete, overriding :data:`smista.hosts.tools.CLAUDE_CODE_REQUIRED`.
    """

    classifier: Classifier
    routing: RoutingPolicy | None = None
    source: str | None = None
    tool_required: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def load(cls, config: str | Path | None = None) -> HostEngine:
        """From a smista config file, or the shipped default rules when ``None``.

        Raises :class:`~smista.errors.ConfigError` for an invalid file. A file
        without ``[routing]`` rules or default gives no routing policy.
        """
        if config is None:
            from smista.defaults import default_classifier

            return cls(default_classifier())
        from smista.settings import load_settings

        settings = load_settings(config)
        policy = settings.routing
        has_policy = policy.default is not None or bool(policy.rules)
        return cls(Classifier(settings.classification), policy if has_policy else None, str(config))

    def decide(
        self,
        turn: HostTurn,
        *,
        command: TaskIntent | str | None = None,
        touched_files: Iterable[str] = (),
        explicit_model: str | None = None,
        decision: DecisionResult | None = None,
    ) -> HostDecision:
        """Classify and route ``turn`` (pure; never raises for a well-formed turn).

        ``decision`` is a decision-stage result computed by the caller, if any.
        """
        if turn.housekeeping is not None or not turn.text:
            return HostDecision(turn, None, None)
        result = classify_turn(self.classifier, turn, command=command)
        if self.routing is None:
            return HostDecision(turn, result, None, "no routing policy configured")
        try:
            routed = route(
                result,
                self.routing,
                touched_files=touched_files,
                decision=decision,
                explicit_model=explicit_model,
            )
        except RoutingError as exc:
            return HostDecision(turn, result, None, str(exc))
        return HostDecision(turn, result, routed)
