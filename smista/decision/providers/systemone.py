"""The ``systemone`` provider: TypeSafe-compatible ``POST {base_url}/v1/systemone``.

I/O edge (network, via httpx). The request body is
``{"model", "questions": {id: {"criteria"?, "instructions", "type"}}, "state"}``
with keys sorted and the caller's JSON state embedded as a value; the API key
goes only in ``Authorization: Bearer``. The reply
``{"model", "answers": {id: {...}}, "usage": {"input_tokens", "output_tokens"}}``
is read and protocol-validated against the questions asked.
"""

from __future__ import annotations

from smista.decision.contract import (
    DecisionRequest,
    DecisionResponse,
    response_from_json,
    validate_response,
)
from smista.decision.providers._http import JsonPoster
from smista.decision.state import go_json

__all__ = ["SystemOneEvaluator"]


class SystemOneEvaluator:
    """An :class:`~smista.decision.contract.Evaluator` speaking the SystemOne protocol."""

    provider_id = "systemone"

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        timeout_s: float,
        max_response_bytes: int,
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self._poster = JsonPoster(
            provider=self.provider_id,
            api_key=api_key,
            timeout_s=timeout_s,
            max_response_bytes=max_response_bytes,
        )

    @property
    def id(self) -> str:
        return self.provider_id

    @property
    def url(self) -> str:
        return f"{self.base_url}/v1/systemone"

    def __repr__(self) -> str:
        return f"SystemOneEvaluator(url={self.url!r})"

    @staticmethod
    def body(request: DecisionRequest) -> str:
        """The wire body for ``request`` (sorted keys, Go-compatible escaping)."""
        questions = {
            qid: q.model_dump(mode="json", exclude_none=True)
            for qid, q in request.questions.items()
        }
        payload = {
            "model": request.model.strip(),
            "questions": questions,
            "state": request.state_value(),
        }
        return go_json(payload, sort_keys=True)

    async def evaluate(self, request: DecisionRequest) -> DecisionResponse:
        data = await self._poster.post(self.url, self.body(request))
        response = response_from_json(data)
        validate_response(request, response)
        return response
