"""The HTTP service (``smista serve``): an ASGI app served by uvicorn.

Needs the ``server`` extra (starlette, uvicorn). ``create_app(settings)``
gives the ASGI app to mount elsewhere; ``serve(settings)`` runs it. The
modules: ``models`` (request/response shapes), ``app`` (routes, auth, logs),
``state`` (atomic rule reloads), ``watch`` (``--watch``), ``openapi``,
``plugins`` (pluggable ``/v1/preview`` and ``/v1/tier``), ``run`` (uvicorn).
"""

from __future__ import annotations

from smista.server.app import create_app
from smista.server.run import serve
from smista.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app", "serve"]
