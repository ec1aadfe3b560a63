"""A real ``smista serve`` process on a loopback port, for the HTTP service tests.

Starts ``python -m smista serve --port 0 ...`` from this checkout, reads its
JSON log lines from stderr on a thread (so the pipe never fills), learns the
bound port from the ``listening`` record, and offers an httpx client, signals
and log queries.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Self

import httpx

from tests.conftest import cli_env

Record = dict[str, Any]


class LiveServer:
    """One server process; use as a context manager (stops it on exit)."""

    def __init__(
        self,
        args: Sequence[str] = (),
        *,
        env: dict[str, str] | None = None,
        host: str = "127.0.0.1",
        connect_host: str = "127.0.0.1",
        startup_timeout: float = 30.0,
    ) -> None:
        self.args = ["--host", host, "--port", "0", *args]
        self.env = cli_env()
        self.env.pop("SMISTA_API_TOKEN", None)  # only a test's own token counts
        self.env.update(env or {})
        self.connect_host = connect_host
        self.startup_timeout = startup_timeout
        self.records: list[Record] = []
        self.raw_lines: list[str] = []
        self._cond = threading.Condition()
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> LiveServer:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "smista", "serve", *self.args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=self.env,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        rec = self.wait_for(lambda r: r.get("event") == "listening", self.startup_timeout)
        self.port = int(rec["port"])
        return self

    def _read(self) -> None:
        assert self.proc is not None
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            try:
                rec = json.loads(line)
            except ValueError:
                rec = {"event": "non_json", "line": line}
            with self._cond:
                self.raw_lines.append(line)
                self.records.append(rec)
                self._cond.notify_all()
        with self._cond:
            self.records.append({"event": "_eof"})
            self._cond.notify_all()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait; the exit status."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            self._reader.join(timeout)
            if self.proc.stderr is not None:
                self.proc.stderr.close()

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)

    # -- talking to it ----------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.connect_host}:{self.port}"

    def client(self, **kwargs: Any) -> httpx.Client:
        """A client of the service; its bodies are JSON (``content=`` ones included)."""
        headers = {"content-type": "application/json", **kwargs.pop("headers", {})}
        return httpx.Client(base_url=self.url, timeout=30.0, headers=headers, **kwargs)

    def connect(self) -> socket.socket:
        return socket.create_connection((self.connect_host, self.port), timeout=30.0)

    # -- logs -----------------------------------------------------------------------

    def wait_for(
        self, predicate: Callable[[Record], bool], timeout: float = 30.0, start: int = 0
    ) -> Record:
        """The first record from index ``start`` satisfying ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for rec in self.records[start:]:
                    if predicate(rec):
                        return rec
                if any(r.get("event") == "_eof" for r in self.records[start:]):
                    raise AssertionError(f"server exited; log:\n{self.log_text()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no such log record; log:\n{self.log_text()}")
                self._cond.wait(left)

    def mark(self) -> int:
        """An index into the records, for :meth:`wait_for` ``start``."""
        with self._cond:
            return len(self.records)

    def find(self, predicate: Callable[[Record], bool]) -> list[Record]:
        with self._cond:
            return [r for r in self.records if predicate(r)]

    def log_text(self) -> str:
        with self._cond:
            return "\n".join(self.raw_lines)


class ThreadServer:
    """An ASGI app served by uvicorn on a loopback port in a thread of this process."""

    def __init__(self, app: Any, **config: Any) -> None:
        """``config``: more ``uvicorn.Config`` options (``http=`` a protocol class ...)."""
        import uvicorn

        options: dict[str, Any] = {"log_config": None, "lifespan": "on", **config}
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, **options))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.port = 0

    def __enter__(self) -> Self:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise AssertionError("server did not start")
            time.sleep(0.01)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30.0, **kwargs)


def recv_all(sock: socket.socket, timeout: float = 20.0) -> bytes:
    """Everything ``sock`` receives until the peer closes (each read bounded by ``timeout``)."""
    sock.settimeout(timeout)
    chunks: list[bytes] = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
