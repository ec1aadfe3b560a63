"""The optional decision-model stage: provider-neutral contract, task complexity, switching.

Everything importable from here is pure (no I/O, no environment, no network).
Providers that talk HTTP live in :mod:`smista.decision.providers` and are never
imported by this package; build one with
:func:`smista.decision.providers.build_stage`. Names load lazily (PEP 562) so
that importing :mod:`smista.core.routing` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smista._edge.lazy import lazy_getattr

_EXPORTS: dict[str, str] = {
    "Answer": "smista.decision.contract",
    "BoundedState": "smista.decision.state",
    "Complexity": "smista.core.decisionresult",
    "Conversation": "smista.decision.state",
    "DecisionConfig": "smista.decision.config",
    "DecisionOutcome": "smista.decision.stage",
    "DecisionRequest": "smista.decision.contract",
    "DecisionResponse": "smista.decision.contract",
    "DecisionResult": "smista.core.decisionresult",
    "DecisionStage": "smista.decision.stage",
    "Evaluator": "smista.decision.contract",
    "Message": "smista.decision.state",
    "Question": "smista.decision.contract",
    "StateTooLarge": "smista.decision.state",
    "SwitchConfig": "smista.decision.switch",
    "SwitchDecision": "smista.decision.switch",
    "Usage": "smista.core.decisionresult",
    "UsageLedger": "smista.decision.ledger",
    "bound_state": "smista.decision.state",
    "decide_switch": "smista.decision.switch",
    "parse_result": "smista.decision.taskcomplexity",
    "task_complexity_questions": "smista.decision.taskcomplexity",
}

__all__ = [
    "Answer",
    "BoundedState",
    "Complexity",
    "Conversation",
    "DecisionConfig",
    "DecisionOutcome",
    "DecisionRequest",
    "DecisionResponse",
    "DecisionResult",
    "DecisionStage",
    "Evaluator",
    "Message",
    "Question",
    "StateTooLarge",
    "SwitchConfig",
    "SwitchDecision",
    "Usage",
    "UsageLedger",
    "bound_state",
    "decide_switch",
    "parse_result",
    "task_complexity_questions",
]

if TYPE_CHECKING:
    from smista.core.decisionresult import Complexity, DecisionResult, Usage
    from smista.decision.config import DecisionConfig
    from smista.decision.contract import (
        Answer,
        DecisionRequest,
        DecisionResponse,
        Evaluator,
        Question,
    )
    from smista.decision.ledger import UsageLedger
    from smista.decision.stage import DecisionOutcome, DecisionStage
    from smista.decision.state import (
        BoundedState,
        Conversation,
        Message,
        StateTooLarge,
        bound_state,
    )
    from smista.decision.switch import SwitchConfig, SwitchDecision, decide_switch
    from smista.decision.taskcomplexity import parse_result, task_complexity_questions


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
