"""The routing policy (``[routing]``) and ``route()``: which model serves a request.

Pure and deterministic: ``route()`` is a function of its arguments. It never
reads files or the environment and never calls a model; an optional decision
result computed elsewhere is passed in, never fetched.

Precedence, as in the Rust original's policy matcher:

1. an explicit model override wins outright (no fallbacks);
2. otherwise the first matching rule in (priority ascending, specificity
   descending, configuration index ascending) order;
3. otherwise the default route;
4. otherwise :class:`~smista.core.errors.NoRouteError`.

Specificity is the original's ladder (path+intent 3 > path 2 > intent 1 >
catch-all 0). The decision conditions ``complexity`` and ``min_consequential``
(smista additions) do not move a rule on that ladder, so the original reason
wording stays exact; they add a second, lower-order specificity: at equal
priority and rung, a rule with more decision conditions is tried first. A rule
with decision conditions matches only when a valid decision result is given
that satisfies them; without one it is skipped, never guessed.

Structure is validated by the models; semantic problems (invalid globs,
duplicate names, ambiguous rule pairs, bad fallbacks) are listed by
:meth:`RoutingPolicy.problems`, which config loading turns into errors.
An invalid glob that still reaches ``route()`` matches nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum, StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictInt, StrictStr

from smista.core.decisionresult import Complexity, DecisionResult, Probability
from smista.core.errors import NoRouteError, RoutingError
from smista.core.glob import GlobError, compile_glob, paths_match
from smista.core.intent import TaskIntent
from smista.core.modelref import ModelRef, split_model_ref
from smista.core.result import Classification

__all__ = [
    "DEFAULT_ROUTE_PRIORITY",
    "DefaultRoute",
    "Effort",
    "RoutingDecision",
    "RoutingPolicy",
    "RoutingRule",
    "Specificity",
    "route",
]

DEFAULT_ROUTE_PRIORITY = 1000
_MAX_PRIORITY = 2**32 - 1


class Effort(StrEnum):
    """Reasoning effort a matched rule asks of its model."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    XHIGH = "xhigh"


class Specificity(IntEnum):
    """The original's specificity ladder (higher is more specific)."""

    DEFAULT = 0
    INTENT = 1
    PATH = 2
    PATH_INTENT = 3


_RUNG_WORDS = {
    Specificity.PATH_INTENT: "on intent and path",
    Specificity.PATH: "on path",
    Specificity.INTENT: "on intent",
    Specificity.DEFAULT: "as a catch-all",
}


class RoutingRule(BaseModel):
    """One rule: all present conditions must hold; a rule with none matches everything."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Annotated[StrictStr, Field(min_length=1)]
    priority: Annotated[StrictInt, Field(ge=0, le=_MAX_PRIORITY)] = DEFAULT_ROUTE_PRIORITY
    effort: Effort = Effort.MEDIUM
    intent: TaskIntent | None = None
    paths: tuple[StrictStr, ...] = ()
    complexity: Complexity | None = None
    min_consequential: Probability | None = None
    model: ModelRef
    fallbacks: tuple[ModelRef, ...] = ()

    @property
    def specificity(self) -> Specificity:
        """The rung on the original's ladder (intent and paths only)."""
        if self.paths:
            return Specificity.PATH_INTENT if self.intent is not None else Specificity.PATH
        return Specificity.INTENT if self.intent is not None else Specificity.DEFAULT

    @property
    def decision_conditions(self) -> int:
        """How many decision conditions (complexity, min_consequential) the rule has."""
        return (self.complexity is not None) + (self.min_consequential is not None)

    def precedence(self) -> tuple[int, int, int]:
        """Sort key: priority ascending, then rung and decision conditions descending."""
        return (self.priority, -int(self.specificity), -self.decision_conditions)

    def matches(
        self,
        intent: TaskIntent,
        touched_files: Sequence[str],
        decision: DecisionResult | None = None,
    ) -> bool:
        """Whether every present condition holds for this request."""
        if self.intent is not None and self.intent != intent:
            return False
        if self.paths and not paths_match(self.paths, touched_files):
            return False
        if self.decision_conditions:
            if decision is None:
                return False
            if self.complexity is not None and decision.category != self.complexity:
                return False
            if (
                self.min_consequential is not None
                and not decision.consequential >= self.min_consequential
            ):
                return False
        return True

    def reason(self) -> str:
        """Why this rule matched, in the original's words (plus decision conditions)."""
        conditions = []
        if self.complexity is not None:
            conditions.append(f"complexity '{self.complexity}'")
        if self.min_consequential is not None:
            conditions.append(f"consequentiality >= {self.min_consequential:g}")
        if not conditions:
            return f"rule '{self.name}' matched {_RUNG_WORDS[self.specificity]}"
        extra = " and ".join(conditions)
        if self.specificity is Specificity.DEFAULT:
            return f"rule '{self.name}' matched on {extra}"
        return f"rule '{self.name}' matched {_RUNG_WORDS[self.specificity]} with {extra}"


class DefaultRoute(BaseModel):
    """The route used when no rule matches (``[routing.default]``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelRef
    fallbacks: tuple[ModelRef, ...] = ()


class RoutingPolicy(BaseModel):
    """Routing rules plus an optional default route."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: DefaultRoute | None = None
    rules: tuple[RoutingRule, ...] = ()

    _order: tuple[int, ...] = PrivateAttr(default=())

    def model_post_init(self, context: object, /) -> None:  # noqa: ARG002 (pydantic hook)
        self._order = tuple(
            sorted(range(len(self.rules)), key=lambda i: (*self.rules[i].precedence(), i))
        )

    def ordered(self) -> list[tuple[int, RoutingRule]]:
        """``(config index, rule)`` in evaluation order."""
        return [(i, self.rules[i]) for i in self._order]

    def problems(self) -> list[tuple[str, str]]:
        """Semantic problems as ``(key path relative to [routing], message)`` pairs."""
        return _problems(self)


class RoutingDecision(BaseModel):
    """Which model serves the request, and why (the original's ``RoutingDecision``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: TaskIntent
    provider: str
    model: str
    fallbacks: tuple[str, ...] = ()
    matched_rule: str | None = None
    rule_index: int | None = None
    effort: Effort | None = None
    reason: str
    override_used: bool = False
    fallback_used: bool = False

    @property
    def model_ref(self) -> str:
        """The chosen model as ``provider/model``."""
        return f"{self.provider}/{self.model}"


def route(
    classification: Classification,
    policy: RoutingPolicy,
    *,
    touched_files: Iterable[str] = (),
    decision: DecisionResult | None = None,
    explicit_model: str | None = None,
) -> RoutingDecision:
    """Pick exactly one route for a classified request.

    ``touched_files`` feed path globs; ``decision`` (a usable decision result,
    or ``None``) feeds ``complexity`` / ``min_consequential`` conditions;
    ``explicit_model`` (``provider/model``) bypasses the rules. Raises
    :class:`NoRouteError` when nothing matches and there is no default route.
    """
    intent = classification.intent
    if explicit_model is not None:
        try:
            provider, model = split_model_ref(explicit_model)
        except ValueError as exc:
            raise RoutingError(f"explicit model: {exc}") from None
        return RoutingDecision(
            intent=intent,
            provider=provider,
            model=model,
            reason=f"explicit model override '{explicit_model}'",
            override_used=True,
        )
    files = tuple(touched_files)
    for index, rule in policy.ordered():
        if rule.matches(intent, files, decision):
            provider, model = split_model_ref(rule.model)
            return RoutingDecision(
                intent=intent,
                provider=provider,
                model=model,
                fallbacks=rule.fallbacks,
                matched_rule=rule.name,
                rule_index=index,
                effort=rule.effort,
                reason=rule.reason(),
            )
    if policy.default is not None:
        provider, model = split_model_ref(policy.default.model)
        return RoutingDecision(
            intent=intent,
            provider=provider,
            model=model,
            fallbacks=policy.default.fallbacks,
            reason=f"no rule matched; using the default route to '{policy.default.model}'",
        )
    raise NoRouteError()


# ---------------------------------------------------------------------------
# semantic checks


def _fallback_problems(
    model: str, fallbacks: Sequence[str], label: str, where: str
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for j, fallback in enumerate(fallbacks):
        loc = f"{where}.fallbacks[{j}]"
        if fallback == model:
            out.append((loc, f"{label} lists its own model '{model}' as a fallback"))
        if fallback in seen:
            out.append((loc, f"{label} lists the fallback '{fallback}' twice"))
        seen.add(fallback)
    return out


def _overlap(a: RoutingRule, b: RoutingRule) -> bool:
    """Whether one request could satisfy both rules' intent and complexity."""
    intents = a.intent is None or b.intent is None or a.intent == b.intent
    tiers = a.complexity is None or b.complexity is None or a.complexity == b.complexity
    return intents and tiers


def _problems(policy: RoutingPolicy) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if policy.default is not None:
        out += _fallback_problems(
            policy.default.model, policy.default.fallbacks, "the default route", "default"
        )
    first_use: dict[str, int] = {}
    for i, rule in enumerate(policy.rules):
        where = f"rules[{i}]"
        if rule.name in first_use:
            out.append(
                (
                    f"{where}.name",
                    f"duplicate rule name '{rule.name}' (already used by "
                    f"rules[{first_use[rule.name]}]); rule names must be unique",
                )
            )
        else:
            first_use[rule.name] = i
        for j, pattern in enumerate(rule.paths):
            try:
                compile_glob(pattern)
            except GlobError as exc:
                out.append((f"{where}.paths[{j}]", str(exc)))
        out += _fallback_problems(rule.model, rule.fallbacks, f"rule '{rule.name}'", where)
    for j, later in enumerate(policy.rules):
        for i in range(j):
            earlier = policy.rules[i]
            if earlier.precedence() == later.precedence() and _overlap(earlier, later):
                out.append(
                    (
                        f"rules[{j}].priority",
                        f"rules '{earlier.name}' and '{later.name}' share priority "
                        f"{later.priority} and specificity, so their order would be "
                        "decided by file order alone; give them distinct priorities",
                    )
                )
    return out
