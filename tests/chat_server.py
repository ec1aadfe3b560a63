"""A real OpenAI-compatible chat-completions server on loopback, for classifier tests.

Runs ``http.server.ThreadingHTTPServer`` in a background thread. Each request is
recorded (path, headers, JSON body); ``mode`` picks the behaviour, so tests can
inject delays and faults. ``close()`` releases every waiting handler at once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | Callable[[str], str]


class ChatServer:
    """Modes: reply, slow, drip, status, close, garbage, huge, huge_streamed, parts."""

    def __init__(self) -> None:
        self.mode = "reply"
        self.reply: Reply = "cheap"
        self.delay = 30.0
        self.size = 0
        self.pad = ""  # text sent before the echoed Authorization header in "status" mode
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.chat = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def text_for(self, user: str) -> str:
        return self.reply(user) if callable(self.reply) else self.reply

    def close(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def completion(content: Any) -> bytes:
    return json.dumps(
        {
            "id": "cmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        }
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        chat: ChatServer = self.server.chat  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.loads(raw)
        chat.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        user = body["messages"][-1]["content"]
        mode = chat.mode
        if mode == "slow" and chat.stopping.wait(chat.delay):
            return
        if mode == "drip":
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                while not chat.stopping.wait(0.02):
                    self.wfile.write(b" ")
                    self.wfile.flush()
            except OSError:  # the client gave up: that is the point
                pass
            return
        if mode == "status":
            echo = f"{chat.pad}bad request from {self.headers.get('Authorization')}".encode()
            self._send(500, echo)
        elif mode == "close":
            self.close_connection = True
        elif mode == "garbage":
            self._send(200, b"<html>not json</html>")
        elif mode == "huge":
            self._send(200, b" " * chat.size)
        elif mode == "huge_streamed":
            self._send(200, b" " * chat.size, length=False)
        elif mode == "parts":
            self._send(200, completion([{"type": "text", "text": chat.text_for(user)}]))
        else:
            self._send(200, completion(chat.text_for(user)))
