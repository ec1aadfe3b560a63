"""Exception tree for smista (leaf module: imports nothing from smista).

Owns every error type the library raises on purpose. Messages are short,
lowercase, name the offending value, and never contain secrets::

    SmistaError
      ConfigError(SmistaError, ValueError)        .path, .errors: [(key path, message)]
      UnknownIntentError(SmistaError, ValueError) .value
      RoutingError
        NoRouteError                              "no rule matched and no default route"
      EvaluatorError                              .category
        EvaluatorTimeout, EvaluatorUnavailable, EvaluatorResponseError
"""

from __future__ import annotations

from collections.abc import Sequence


class SmistaError(Exception):
    """Base class of every error smista raises on purpose."""


class ConfigError(SmistaError, ValueError):
    """A configuration file or document is malformed.

    ``path`` names the file (or ``None`` for an in-memory document) and
    ``errors`` lists ``(key path, message)`` pairs such as
    ``("classification.rules[2].keywrods", "unknown key ...")``.
    """

    def __init__(
        self,
        errors: Sequence[tuple[str, str]],
        path: str | None = None,
    ) -> None:
        self.path = path
        self.errors: list[tuple[str, str]] = list(errors)
        super().__init__(self._render())

    def _render(self) -> str:
        parts = [f"{loc}: {msg}" if loc else msg for loc, msg in self.errors]
        body = "; ".join(parts) if parts else "invalid configuration"
        return f"{self.path}: {body}" if self.path else body


class UnknownIntentError(SmistaError, ValueError):
    """A task intent name is not one of the seven known intents."""

    def __init__(self, value: str, allowed: Sequence[str] = ()) -> None:
        self.value = value
        self.allowed = tuple(allowed)
        hint = f" (expected one of: {', '.join(self.allowed)})" if self.allowed else ""
        super().__init__(f"unknown task intent: {value!r}{hint}")


class RoutingError(SmistaError):
    """Routing could not produce a model."""


class NoRouteError(RoutingError):
    """No routing rule matched and there is no default route (API code ``no_route``)."""

    code = "no_route"

    def __init__(self, message: str = "no rule matched and no default route") -> None:
        super().__init__(message)


class EvaluatorError(SmistaError):
    """A decision-model evaluator failed; ``category`` is a short machine tag."""

    category = "error"


class EvaluatorTimeout(EvaluatorError):
    """The evaluator did not answer in time."""

    category = "timeout"


class EvaluatorUnavailable(EvaluatorError):
    """The evaluator endpoint could not be reached or refused the request."""

    category = "unavailable"


class EvaluatorResponseError(EvaluatorError):
    """The evaluator answered with something that is not a valid result."""

    category = "invalid_response"
