"""Private helpers shared by several edge packages; never imported by the core.

``http`` (the bounded httpx client of providers and tiers), ``secrets``
(redaction of credentials in logs and errors), ``extras`` (which optional
extras are installed, install hints) and ``lazy`` (PEP 562 lazy exports of
the ``smista``, ``smista.decision`` and ``smista.tiers`` packages).
"""

from __future__ import annotations
