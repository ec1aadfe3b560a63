"""The server's lifespan uses SIGHUP only where the platform has it (not on Windows)."""

from __future__ import annotations

import asyncio
import signal

import pytest

pytest.importorskip("starlette")

from smista.server.app import create_app
from smista.server.settings import ServerSettings


def _run_lifespan() -> list[bool]:
    """Enter and leave the app's lifespan on this (main) thread's event loop."""
    app = create_app(ServerSettings())
    seen: list[bool] = []

    async def main() -> None:
        async with app.router.lifespan_context(app):
            loop = asyncio.get_running_loop()
            handlers = getattr(loop, "_signal_handlers", {})
            seen.append(getattr(signal, "SIGHUP", None) in handlers)

    asyncio.run(main())
    return seen


def test_without_sighup_the_server_starts_and_reloads_only_by_watching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(signal, "SIGHUP", raising=False)
    assert _run_lifespan() == [False]


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_with_sighup_the_lifespan_installs_the_reload_handler() -> None:
    """The control: the same run on POSIX installs the handler (so the first test can fail)."""
    assert _run_lifespan() == [True]
