"""Integrations with third-party routers and gateways (edge layer).

``smista.integrations.litellm``: a complexity-router ``ClassifierPlugin`` and
a ``RoutingPlugin`` for LiteLLM (see ``docs/hosts.md``).
"""

from __future__ import annotations
