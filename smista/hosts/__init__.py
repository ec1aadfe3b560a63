"""Host adapters: Claude Code and Codex hooks, LiteLLM plugins, the MCP server.

Edge layer. Each module here translates one host's real payloads into smista's
library calls and smista's answers back into that host's wire format. They
import the core (classifier, routing, grounding, turns); the core never imports
them. Optional third-party packages (``litellm``, ``mcp``) are imported only by
the module that needs them, so ``import smista.hosts`` stays light.

Every adapter *fails open*: a failure of smista itself never blocks the host's
prompt or tool call; it gives "no opinion" instead.
"""

from __future__ import annotations
