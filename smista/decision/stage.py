"""The decision stage: bounded state -> evaluator -> validated result, failing open.

Pure orchestration over an :class:`~smista.decision.contract.Evaluator` it is
given (this module does no I/O of its own). :meth:`DecisionStage.classify`
never raises for an evaluator fault: an unreachable endpoint, a timeout, a
transport or protocol error, invalid answers or an oversized current message
all end as a :class:`DecisionOutcome` whose ``reason`` reads
``decision unavailable: <why>``, and the turn goes on with deterministic
routing alone. A valid result whose confidence is below ``min_confidence``
(clamped like :mod:`smista.core.abstain`) is reported but is no signal.

Usage of every call that produced a valid result goes to the usage ledger.
Failures are logged on the ``smista.decision`` logger without secrets; the
library never configures logging.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from smista._edge.secrets import redact
from smista.core.abstain import DEFAULT_CLASSIFIER_THRESHOLD, clamp_threshold, should_abstain_at
from smista.core.decisionresult import DecisionResult
from smista.core.errors import EvaluatorError
from smista.decision.contract import Evaluator, validate_response
from smista.decision.ledger import UsageLedger
from smista.decision.state import (
    DEFAULT_MAX_STATE_BYTES,
    BoundedState,
    Conversation,
    bound_state,
    has_previous_user_task,
)
from smista.decision.taskcomplexity import build_request, parse_result

__all__ = ["DecisionOutcome", "DecisionStage", "StateInfo"]

logger = logging.getLogger("smista.decision")
logger.addHandler(logging.NullHandler())

Status = Literal["ok", "abstained", "unavailable", "disabled", "skipped"]


class StateInfo(BaseModel):
    """How the state sent to the evaluator was bounded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bytes: Annotated[StrictInt, Field(ge=0)]
    messages: Annotated[StrictInt, Field(ge=0)]
    dropped: Annotated[StrictInt, Field(ge=0)]
    budget: Annotated[StrictInt, Field(ge=1)]

    @classmethod
    def of(cls, state: BoundedState) -> StateInfo:
        return cls(
            bytes=state.size, messages=state.messages, dropped=state.dropped, budget=state.budget
        )


class DecisionOutcome(BaseModel):
    """What the decision stage produced for one turn.

    ``status`` is ``ok`` (``result`` is a usable signal), ``abstained`` (a
    valid result below the confidence gate; not a signal), ``unavailable``
    (no result; ``reason`` says why), ``disabled`` (no stage configured) or
    ``skipped`` (a stage is configured but this request asked not to call it).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Status
    reason: str | None = None
    provider: str | None = None
    result: DecisionResult | None = None
    state: StateInfo | None = None

    @property
    def signal(self) -> DecisionResult | None:
        """The result routing and switching may act on, or ``None``."""
        return self.result if self.status == "ok" else None

    @classmethod
    def disabled(cls) -> DecisionOutcome:
        return cls(status="disabled", reason="decision disabled")

    @classmethod
    def skipped(cls) -> DecisionOutcome:
        return cls(status="skipped", reason="decision skipped on request")

    @classmethod
    def unavailable(
        cls, why: str, provider: str | None = None, state: StateInfo | None = None
    ) -> DecisionOutcome:
        return cls(
            status="unavailable",
            reason=f"decision unavailable: {why}",
            provider=provider,
            state=state,
        )

    def describe(self) -> str:
        """One line for people."""
        if self.result is not None and self.status == "ok":
            via = f" [{self.result.model} via {self.provider}]" if self.provider else ""
            return self.result.summary() + via
        if self.result is not None:
            return f"{self.result.summary()} - {self.reason}"
        return self.reason or self.status


def _seconds(value: float) -> str:
    return f"{value:g}s"


class DecisionStage:
    """Task-complexity classification through one evaluator, failing open.

    ``max_state_bytes`` bounds the serialized state; ``min_confidence`` is the
    abstention threshold (``<= 0`` means 0.5, ``> 1`` means 1); ``timeout_s``
    optionally bounds a whole evaluation on top of the provider's own timeouts.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        *,
        model: str,
        max_state_bytes: int = DEFAULT_MAX_STATE_BYTES,
        min_confidence: float = DEFAULT_CLASSIFIER_THRESHOLD,
        ledger: UsageLedger | None = None,
        timeout_s: float | None = None,
    ) -> None:
        if not model.strip():
            raise ValueError("decision model is required")
        if max_state_bytes < 1:
            raise ValueError("max_state_bytes must be at least 1")
        self.evaluator = evaluator
        self.model = model.strip()
        self.max_state_bytes = max_state_bytes
        self.min_confidence = clamp_threshold(min_confidence)
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.timeout_s = timeout_s

    def __repr__(self) -> str:
        return f"DecisionStage(provider={self.evaluator.id!r}, model={self.model!r})"

    async def evaluate(self, conversation: Conversation) -> tuple[DecisionResult, BoundedState]:
        """The validated result and the state it was computed on; raises on any fault."""
        state = bound_state(conversation, self.max_state_bytes)
        request = build_request(self.model, state)
        if self.timeout_s is None:
            response = await self.evaluator.evaluate(request)
        else:
            async with asyncio.timeout(self.timeout_s):
                response = await self.evaluator.evaluate(request)
        validate_response(request, response)
        result = parse_result(response)
        if not has_previous_user_task(conversation):
            result = result.model_copy(update={"new_task": 1.0})
        self.ledger.record(self.evaluator.id, result.model, result.usage)
        return result, state

    async def classify(self, conversation: Conversation) -> DecisionOutcome:
        """Classify one accepted turn; never raises for evaluator faults."""
        provider = self.evaluator.id
        try:
            result, state = await self.evaluate(conversation)
        except EvaluatorError as exc:
            return self._unavailable(str(exc), provider)
        except TimeoutError:
            return self._unavailable(f"timeout after {_seconds(self.timeout_s or 0)}", provider)
        info = StateInfo.of(state)
        if should_abstain_at(result.confidence, self.min_confidence):
            reason = (
                f"decision abstained: confidence {result.confidence:.2f} is below "
                f"min_confidence {self.min_confidence:.2f}"
            )
            logger.info("%s", reason)
            return DecisionOutcome(
                status="abstained", reason=reason, provider=provider, result=result, state=info
            )
        return DecisionOutcome(status="ok", provider=provider, result=result, state=info)

    def classify_sync(self, conversation: Conversation) -> DecisionOutcome:
        """:meth:`classify` for synchronous callers (safe inside a running event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._classify_once(conversation))
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self._classify_once(conversation)).result()

    async def _classify_once(self, conversation: Conversation) -> DecisionOutcome:
        """:meth:`classify` on an event loop about to end: its HTTP client is closed too."""
        try:
            return await self.classify(conversation)
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Close the evaluator's HTTP client for the running event loop (if it has one).

        A host that runs the stage on a long-lived loop calls this at shutdown;
        :meth:`classify_sync` does it itself.
        """
        close = getattr(self.evaluator, "aclose", None)
        if close is not None:
            await close()

    @staticmethod
    def _unavailable(why: str, provider: str) -> DecisionOutcome:
        why = redact(why)  # any evaluator's text, a custom one's too
        logger.warning("decision unavailable (%s): %s", provider, why)
        return DecisionOutcome.unavailable(why, provider)
