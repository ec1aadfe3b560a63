"""The ``systemone`` provider: TypeSafe-compatible ``POST {base_url}/v1/systemone``.

I/O edge (network, via :mod:`smista._edge.http`). The request body is
``{"model", "questions": {id: {"criteria"?, "instructions", "type"}}, "state"}``
with keys sorted and the caller's JSON state embedded as a value; the API key
goes only in ``Authorization: Bearer``. The reply
``{"model", "answers": {id: {...}}, "usage": {"input_tokens", "output_tokens"}}``
is read and protocol-validated against the questions asked.
"""

from __future__ import annotations

from typing import Any

from smista.decision.contract import DecisionRequest, DecisionResponse, response_from_json
from smista.decision.providers._base import HttpEvaluator
from smista.decision.state import go_json

__all__ = ["SystemOneEvaluator"]


class SystemOneEvaluator(HttpEvaluator):
    """An :class:`~smista.decision.contract.Evaluator` speaking the SystemOne protocol."""

    provider_id = "systemone"
    path = "/v1/systemone"

    @staticmethod
    def body(request: DecisionRequest) -> str:
        """The wire body for ``request`` (sorted keys, Go-compatible escaping)."""
        payload = {
            "model": request.model.strip(),
            "questions": request.questions_value(),
            "state": request.state_value(),
        }
        return go_json(payload, sort_keys=True)

    @staticmethod
    def read(request: DecisionRequest, data: Any) -> DecisionResponse:  # noqa: ARG004
        return response_from_json(data)
