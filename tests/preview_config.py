"""The smista config shared by the preview tests (``smista preview`` and ``POST /v1/preview``).

:data:`ROUTING` holds ``[classification]`` (``refactor`` -> edit) and ``[routing]``
(default ``ollama/mock-local``; edits under ``src/auth/`` go to Claude; complex
work to Opus); :data:`SWITCH` a ``[decision.switch]`` table; :func:`decision_table`
a ``[decision]`` table for a loopback decision server.
"""

from __future__ import annotations

from tests.decision_server import base_url_for

ROUTING = """
[classification]
default_intent = "chat"
[[classification.rules]]
intent = "edit"
keywords = ["refactor"]

[routing.default]
model = "ollama/mock-local"
fallbacks = ["openai/gpt-mini"]

[[routing.rules]]
name = "auth edits use Claude"
priority = 30
effort = "high"
intent = "edit"
paths = ["src/auth/**"]
model = "anthropic/claude-sonnet"
fallbacks = ["openai/gpt-5.5-thinking"]

[[routing.rules]]
name = "complex work"
priority = 40
complexity = "complex"
model = "anthropic/opus"
"""

SWITCH = """
[decision.switch]
simple = "openai/mini"
standard = "openai/std"
complex = "anthropic/opus"
"""


def decision_table(url: str, *, provider: str, key_env: str) -> str:
    """An enabled ``[decision]`` table: model ``jev``, a 10 s timeout (generous: a loaded machine is slow, not faulty), the key in ``key_env``."""
    return (
        f'\n[decision]\nenabled = true\nprovider = "{provider}"\n'
        f'base_url = "{base_url_for(provider, url)}"\n'
        f'model = "jev"\napi_key_env = "{key_env}"\ntimeout_s = 10\n'
    )
