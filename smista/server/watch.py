"""``--watch``: poll the rule and config files and reload when their content changes.

I/O edge (stats and reads files). Each tick compares every watched file's
``(mtime, size, inode)`` with the last tick; only when that changed is the
content hashed, and only when the hash differs from the state in service is a
reload attempted. A content that failed to load is not retried until it changes
again, so a broken file is reported once, not every second. Polling needs no
dependency and works on every filesystem (network mounts, container volumes).
A reload reads only stable content (see :func:`smista.server.state.load_state`),
and a tick that fails is logged and the watching goes on.
"""

from __future__ import annotations

import asyncio
import logging
import os

from smista.server.state import StateHolder, file_sha256, reload_and_log

__all__ = ["watch_files"]

log = logging.getLogger("smista.server")

Signature = tuple[int, int, int] | None


def _signature(path: str) -> Signature:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _hashes(paths: tuple[str, ...]) -> tuple[str | None, ...]:
    return tuple(file_sha256(p) for p in paths)


async def watch_files(holder: StateHolder, interval: float) -> None:
    """Poll forever (until cancelled), reloading ``holder`` on a content change.

    A tick that fails (a file system error, a bug) is logged as
    ``watch_failed`` and the watcher goes on polling: it never dies silently.
    """
    last: tuple[tuple[str, ...], tuple[Signature, ...]] | None = None
    failed: tuple[str | None, ...] | None = None
    while True:
        try:
            files = holder.current.files
            paths = tuple(f.path for f in files)
            now = (paths, tuple(_signature(p) for p in paths))
            if last is not None and now != last:
                hashes = await asyncio.to_thread(_hashes, paths)
                if hashes not in (tuple(f.sha256 for f in files), failed):
                    if await asyncio.to_thread(reload_and_log, holder, "watch"):
                        failed = None
                    else:
                        failed = hashes
            last = now
        except Exception as exc:  # keep watching whatever happened
            log.error(
                "watch tick failed; still watching",
                extra={"event": "watch_failed", "error": type(exc).__name__, "detail": str(exc)},
            )
        await asyncio.sleep(interval)
