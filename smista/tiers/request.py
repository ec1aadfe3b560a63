"""Tier routing inputs and results, and the explicit-model policy.

Pure, standard library only. A :class:`TierRequest` is what a host knows when
it delegates a task; a :class:`TierDecision` is the router's answer and also
the history record. The classifier behind the LLM path is anything with an
async ``complete(system, user, timeout)`` (:class:`Completer`), so the router
itself never touches the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from smista.tiers.outcomes import TierOutcome

__all__ = [
    "ROUTABLE_ROLES",
    "Completer",
    "TierDecision",
    "TierRequest",
    "effective_role",
    "explicit_model_preserved",
]

ROUTABLE_ROLES = frozenset({"task", "default"})
"""Roles that stay routable when explicit models are respected (besides tier ids)."""


class Completer(Protocol):
    """One chat completion: a system prompt and one user message in, text out.

    Implementations raise :class:`smista.core.errors.EvaluatorTimeout` (or
    ``TimeoutError``) when out of time and any other exception on failure;
    the router turns both into fail-open outcomes.
    """

    async def complete(self, system: str, user: str, timeout: float) -> str: ...


@dataclass(frozen=True, slots=True)
class TierRequest:
    """A delegated task to route.

    ``role`` is the model role the host resolved for the task (``task``,
    ``default``, a tier id, or another alias such as ``smol``); a leading
    ``@`` is ignored. ``model`` is an explicit model selector: ``@name`` names
    a role, anything else a concrete model. ``contexts`` are context kinds
    for tier rules' ``requires_any_context``.
    """

    task: str | None = None
    solution_space: str | None = None
    role: str | None = None
    model: str | None = None
    contexts: frozenset[str] = field(default_factory=frozenset)


def effective_role(request: TierRequest) -> str | None:
    """The role that decides routability; ``None`` means a concrete model was chosen.

    The role, when given, is the authority (a concrete ``model`` alongside it
    does not make the task explicit). Without one, ``model="@x"`` is role
    ``x`` and any other model is concrete. With neither, the task runs under
    the host's default task role, ``task``.
    """
    role = (request.role or "").strip().removeprefix("@")
    if role:
        return role
    if request.model is not None and request.model.strip():
        selector = request.model.strip()
        alias = selector.removeprefix("@")
        return alias if selector.startswith("@") and alias else None
    return "task"


def explicit_model_preserved(
    respect_explicit_model: bool, role: str | None, tier_ids: Sequence[str]
) -> bool:
    """Whether the caller's model choice must be left alone (the seed's policy).

    Never when the policy is off; always for a concrete model (no role);
    never for ``task``, ``default`` or a role named like a configured tier;
    always for any other role.
    """
    if not respect_explicit_model:
        return False
    if role is None:
        return True
    return role not in ROUTABLE_ROLES and role not in tier_ids


@dataclass(frozen=True, slots=True)
class TierDecision:
    """One routing decision (also the history record).

    ``model`` is what the host should use; ``None`` leaves the task as it is.
    ``selected_tier``/``mapped_model`` are the tier chosen and its configured
    model (``mapped_model`` can be set while ``model`` is ``None`` when the
    host rejected it). ``classifier_tier``/``classifier_reason`` are what the
    classifier itself said. ``latency_ms`` is the classification time (0 for
    a cache hit or when nothing was classified).
    """

    timestamp: float
    outcome: TierOutcome
    reason: str
    selected_tier: str | None = None
    model: str | None = None
    mapped_model: str | None = None
    classifier: str = "rules"
    classifier_model: str | None = None
    classifier_tier: str | None = None
    classifier_reason: str | None = None
    fallback_reason: str | None = None
    task_preview: str = ""
    solution_space_preview: str = ""
    model_role: str | None = None
    requested_model: str | None = None
    latency_ms: float = 0.0
    cached: bool = False

    @property
    def tier(self) -> str | None:
        """The selected tier (alias of ``selected_tier``)."""
        return self.selected_tier

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (the outcome as its string value)."""
        data = asdict(self)
        data["outcome"] = self.outcome.value
        return data
