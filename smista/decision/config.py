"""``[decision]``: the opt-in decision-model stage and its switch policy.

Pure data (pydantic v2, frozen). Structure is checked by the model;
:meth:`DecisionConfig.problems` lists what an enabled stage additionally needs
(provider, base URL, model, and an API-key variable for ``systemone``). The
configuration never holds a secret: ``api_key_env`` names the environment
variable that does, and only the provider (at the edge) reads it.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from smista.core.abstain import DEFAULT_CLASSIFIER_THRESHOLD
from smista.decision.state import DEFAULT_MAX_STATE_BYTES
from smista.decision.switch import SwitchConfig

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT_S",
    "PROVIDERS",
    "DecisionConfig",
]

PROVIDERS: tuple[str, ...] = ("systemone", "openai")
"""Decision providers smista ships."""

DEFAULT_TIMEOUT_S = 5.0
DEFAULT_MAX_RESPONSE_BYTES = 1 << 20

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}")

Provider = Literal["systemone", "openai"]


class DecisionConfig(BaseModel):
    """Settings of the decision stage (``enabled = false`` by default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: StrictBool = False
    provider: Provider | None = None
    base_url: StrictStr | None = None
    model: StrictStr | None = None
    api_key_env: StrictStr | None = None
    api_key_header: StrictStr = "Authorization"
    """The header the key travels in: ``Authorization`` carries ``Bearer <key>``,
    any other header (``x-api-key``, ``api-key``) the key itself."""
    proxy: StrictStr | None = None
    """An explicit proxy URL; the environment's proxy settings are never used."""
    timeout_s: Annotated[StrictFloat, Field(gt=0, le=600, allow_inf_nan=False)] = DEFAULT_TIMEOUT_S
    max_state_bytes: Annotated[StrictInt, Field(ge=1)] = DEFAULT_MAX_STATE_BYTES
    max_response_bytes: Annotated[StrictInt, Field(ge=1)] = DEFAULT_MAX_RESPONSE_BYTES
    min_confidence: Annotated[StrictFloat, Field(allow_inf_nan=False)] = (
        DEFAULT_CLASSIFIER_THRESHOLD
    )
    switch: SwitchConfig | None = None

    def problems(self) -> list[tuple[str, str]]:
        """What keeps this config from building an evaluator (key paths relative to it)."""
        out: list[tuple[str, str]] = []
        if self.api_key_env is not None and not _ENV_NAME.fullmatch(self.api_key_env):
            out.append(
                ("api_key_env", f"expected an environment variable name, got {self.api_key_env!r}")
            )
        if not _HEADER.fullmatch(self.api_key_header):
            out.append(
                ("api_key_header", f"expected an HTTP header name, got {self.api_key_header!r}")
            )
        if self.proxy is not None and not self.proxy.startswith(("http://", "https://")):
            out.append(("proxy", f"expected an http:// or https:// URL, got {self.proxy!r}"))
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            out.append(("base_url", f"expected an http:// or https:// URL, got {self.base_url!r}"))
        if not self.enabled:
            return out
        if self.provider is None:
            out.append(("provider", f"required when enabled; one of: {', '.join(PROVIDERS)}"))
        if not self.base_url:
            out.append(("base_url", "required when enabled"))
        if not (self.model or "").strip():
            out.append(("model", "required when enabled (the decision model id)"))
        if self.provider == "systemone" and not self.api_key_env:
            out.append(
                (
                    "api_key_env",
                    "required for provider 'systemone' (the name of the environment "
                    "variable holding the API key)",
                )
            )
        return out

    def endpoint_base(self) -> str:
        """``base_url`` without trailing slashes."""
        return (self.base_url or "").strip().rstrip("/")
