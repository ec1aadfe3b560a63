"""The pure core: everything that decides, nothing that touches the world.

Owns the intents and errors, the tokenizer and fuzzy matching, the rule model
and its condition kinds (``conditions/``), the compiled engine (and the
optional C scan ``_speedups``), the classifier, explain, the reference
evaluator, routing, turns, grounding and the wire shapes of results.

Must never do I/O: no files, sockets, subprocesses, clocks for decisions or
model calls, and never import from the edge (``smista.config``,
``smista.authoring``, ``smista.scale``, ``smista.cli``, ``smista.server``,
``smista.hosts``, ``smista.integrations``, ``smista.decision``,
``smista.tiers``, ``smista._edge``). Its modules import only the standard
library, pydantic, rapidfuzz and ``smista.core.*``; ``tests/test_purity.py``
checks that statically and by importing it.
"""

from __future__ import annotations
