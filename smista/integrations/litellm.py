"""LiteLLM plugins backed by smista (re-exported from :mod:`smista.hosts.litellm`).

Edge layer. In a LiteLLM proxy config, point ``classifier_plugin`` or
``plugins`` at an instance built in your own module, e.g.
``my_plugins.smista_classifier = SmistaClassifier(config="smista.toml")``.
"""

from __future__ import annotations

from smista.hosts.litellm import SmistaClassifier, SmistaRoutingPlugin, tier_for

__all__ = ["SmistaClassifier", "SmistaRoutingPlugin", "tier_for"]
