"""What smista would decide for one host turn: intent, confidence and routed model.

Edge layer shared by every host adapter. :meth:`HostEngine.load` reads an
optional smista config file (``[classification]`` and ``[routing]``; without
one the shipped default rules and no routing policy); after that everything
is pure. :meth:`HostEngine.classify` reads the turn with the turn model
(housekeeping calls are reported, not classified; follow-ups take the earlier
turn's intent) and :meth:`HostEngine.route` routes it on the deterministic
rules. It never calls the decision model itself: hooks get a few seconds at
most, so a routing rule with decision conditions is skipped, as ``route()``
does without a decision result, unless a gateway adapter passes one it
computed. The tool-call grounding check lives in :mod:`smista.hosts.tools`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smista.core.classifier import Classifier
from smista.core.decisionresult import DecisionResult
from smista.core.errors import RoutingError
from smista.core.intent import TaskIntent
from smista.core.result import Classification
from smista.core.routing import RoutingDecision, RoutingPolicy, route
from smista.core.turnclassify import TurnResult
from smista.core.turns import Housekeeping
from smista.hosts._turn import HostTurn, classify_turn

__all__ = ["HostDecision", "HostEngine", "policy_or_none"]


def policy_or_none(policy: RoutingPolicy) -> RoutingPolicy | None:
    """``policy``, or ``None`` when it has neither rules nor a default route."""
    return policy if policy.default is not None or policy.rules else None


@dataclass(frozen=True, slots=True)
class HostDecision:
    """smista's view of one turn: the turn model's result and the route.

    ``routing`` is ``None`` for a skipped turn (housekeeping, no user text),
    when there is no routing policy, or when nothing routes (``no_route``
    says why).
    """

    result: TurnResult
    routing: RoutingDecision | None = None
    no_route: str | None = None

    @property
    def housekeeping(self) -> Housekeeping | None:
        """The housekeeping call this turn is, if any."""
        return self.result.housekeeping

    @property
    def skipped(self) -> str | None:
        """Why smista has no opinion on this turn, or ``None`` when it has one."""
        found = self.result.housekeeping
        if found is not None:
            return f"housekeeping call ({found.kind}: {found.name})"
        if not self.result.turn.text:
            return "no user text in the turn"
        return None

    @property
    def classification(self) -> Classification | None:
        """The classification to act on, or ``None`` for a skipped turn."""
        return None if self.skipped is not None else self.result.classification

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (the MCP tools and the route endpoint build on it)."""
        out: dict[str, Any] = {
            "skipped": self.skipped,
            "classification": self.result.to_wire(),
        }
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

        Raises :class:`~smista.core.errors.ConfigError` for an invalid file. A file
        without ``[routing]`` rules or default gives no routing policy.
        """
        if config is None:
            from smista.config.defaults import default_classifier

            return cls(default_classifier())
        from smista.config.settings import load_settings

        settings = load_settings(config)
        classifier = Classifier(settings.classification)
        return cls(classifier, policy_or_none(settings.routing), str(config))

    def classify(self, turn: HostTurn, *, command: TaskIntent | str | None = None) -> TurnResult:
        """The turn model's result (raises :class:`~smista.core.turns.TurnError` if malformed)."""
        return classify_turn(self.classifier, turn, command=command)

    def route(
        self,
        result: TurnResult,
        *,
        touched_files: Iterable[str] = (),
        explicit_model: str | None = None,
        decision: DecisionResult | None = None,
    ) -> HostDecision:
        """Route a classified turn (pure; never raises).

        ``decision`` is a decision-stage result computed by the caller, if any.
        """
        found = HostDecision(result)
        if found.skipped is not None:
            return found
        if self.routing is None:
            return HostDecision(result, None, "no routing policy configured")
        try:
            routed = route(
                result.classification,
                self.routing,
                touched_files=touched_files,
                decision=decision,
                explicit_model=explicit_model,
            )
        except RoutingError as exc:
            return HostDecision(result, None, str(exc))
        return HostDecision(result, routed)

    def decide(
        self,
        turn: HostTurn,
        *,
        command: TaskIntent | str | None = None,
        touched_files: Iterable[str] = (),
        explicit_model: str | None = None,
    ) -> HostDecision:
        """:meth:`classify` then :meth:`route` (raises only ``TurnError``)."""
        return self.route(
            self.classify(turn, command=command),
            touched_files=touched_files,
            explicit_model=explicit_model,
        )
