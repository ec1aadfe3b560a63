"""Pluggable POST endpoints (``/v1/preview``, ``/v1/tier``, ``/v1/route``) built from the config.

I/O edge contract, no I/O of its own. An :class:`Endpoint` names its path, its
request and response models (they go into ``/openapi.json``), the request
fields held to the prompt-size limit, the extra error statuses it may answer,
how to *build* its runtime from the config document (called on every load and
reload, so a bad section fails the reload and the old rules stay in service),
how to *commit* a runtime once its state is in service (for a long-lived
object that must only switch after the swap), and how to *handle* one
validated request with that runtime. The service mounts every endpoint :func:`available_endpoints`
finds; an endpoint whose module is not installed is simply absent.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from smista.core.classifier import Classifier

__all__ = [
    "ENDPOINT_MODULES",
    "Endpoint",
    "Handled",
    "RequestContext",
    "available_endpoints",
]

ENDPOINT_MODULES: tuple[str, ...] = (
    "smista.server.preview",
    "smista.server.tier",
    "smista.server.route",
)
"""Modules that may provide an ``ENDPOINT``; a missing one is skipped."""


@dataclass(frozen=True, slots=True)
class RequestContext:
    """What a handler may know about the request besides its body."""

    request_id: str
    classifier: Classifier
    log_prompts: bool
    max_prompt_chars: int | None = None
    """The service's prompt limit (for texts a handler reads out of a turn)."""


@dataclass(frozen=True, slots=True)
class Handled:
    """A handler's answer and the fields it adds to the decision log record."""

    response: BaseModel
    log: Mapping[str, object] = field(default_factory=dict)


class Endpoint(Protocol):
    """A pluggable ``POST`` endpoint."""

    @property
    def name(self) -> str:
        """Short name, used in logs and as the key of its runtime (``preview``)."""

    @property
    def path(self) -> str:
        """URL path (``/v1/preview``)."""

    @property
    def summary(self) -> str:
        """One line for the OpenAPI document."""

    @property
    def request_model(self) -> type[BaseModel]:
        """The body model; validated before :meth:`handle` is called."""

    @property
    def response_model(self) -> type[BaseModel]:
        """The 200 response model."""

    @property
    def prompt_fields(self) -> tuple[str, ...]:
        """Request fields (strings or null) held to the service's prompt limit."""

    @property
    def error_statuses(self) -> Mapping[int, str]:
        """Statuses beyond the common ones this endpoint answers, with a description."""

    def build(
        self,
        document: Mapping[str, Any],
        source: str | None,
        classifier: Classifier,
        previous: Any,
    ) -> object:
        """The runtime for one rule-set generation; raise ``ConfigError`` if invalid.

        ``previous`` is this endpoint's runtime in the generation being
        replaced (``None`` at start), for state worth keeping across reloads.
        The new runtime must not disturb ``previous``, which keeps serving the
        requests that began on it; switch shared objects in :meth:`commit`.
        """

    def commit(self, runtime: Any) -> None:
        """``runtime``'s state is now in service (at start and after each reload).

        Must not raise.
        """

    async def handle(self, runtime: Any, request: Any, ctx: RequestContext) -> Handled:
        """Answer one validated request; raise ``ApiError`` for a refusal."""


def available_endpoints() -> tuple[Endpoint, ...]:
    """The endpoints whose modules are importable, in :data:`ENDPOINT_MODULES` order."""
    found: list[Endpoint] = []
    for module_name in ENDPOINT_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        found.append(module.ENDPOINT)
    return tuple(found)
