"""A real HTTP decision-model server on loopback, for provider and CLI tests.

It speaks both protocols smista's providers use:

- SystemOne: ``POST /v1/systemone`` with a bearer key; answers every question
  of the request (choice -> the configured category, noul -> the configured
  probabilities);
- OpenAI-compatible: ``POST /v1/chat/completions``; answers in
  ``choices[0].message.content`` as a JSON object keyed by question id.

Faults are injected by setting ``server.fault`` (see :data:`FAULTS`). Every
request is recorded (path, headers, decoded body). The ``echo_*`` faults send
back the key the request carried (read from the header it came in, so the
server echoes what smista really sent) in one encoding each, see
:func:`key_echoes`; ``gzip_bomb`` sends a small gzip body that inflates far
past any cap.
"""

from __future__ import annotations

import base64
import gzip
import json
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, quote_plus

FAULTS = (
    "none",
    "slow",  # sleeps before answering, past any test timeout
    "trickle",  # sends headers at once, then the body a byte at a time, slowly
    "500",
    "401",
    "malformed",  # 200 with a body that is not JSON
    "wrong_types",  # 200, valid JSON, wrong field types
    "huge",  # 200 with a body over the size cap (Content-Length declared)
    "huge_chunked",  # 200 with an oversized chunked body (no Content-Length)
    "echo_key",  # 400 whose body quotes the Authorization header
    "invalid_answers",  # 200, protocol-valid shape, category outside the three
    "fenced",  # openai only: reply content wrapped in a ```json fence
    "deep",  # 200 with JSON nested far beyond the decoder's recursion limit
    "gzip_bomb",  # 200, Content-Encoding: gzip, ~64 KiB that inflates to 64 MiB
    "echo_reason",  # 400 whose reason phrase is the raw key
    "echo_model",  # 200, a valid reply whose model name (and content) is the key
    *(
        f"echo_{name}"
        for name in (
            "raw",
            "json",
            "unicode",
            "url",
            "url_plus",
            "base64",
            "basic",
            "wrapped",
            "upper",
            "lower",
            "double_json",
        )
    ),
)


def key_echoes(key: str) -> dict[str, str]:
    """The key written every way an upstream might echo it, by fault name suffix."""
    unicode = "".join(f"\\u{ord(c):04x}" for c in key)
    return {
        "raw": key,
        "json": json.dumps(key)[1:-1].replace("/", "\\/"),
        "unicode": unicode,
        "url": quote(key, safe=""),
        "url_plus": quote_plus(f"Bearer {key}"),
        "base64": base64.b64encode(key.encode()).decode(),
        "basic": base64.b64encode(f"user:{key}".encode()).decode(),
        "wrapped": "\n".join(key[i : i + 7] for i in range(0, len(key), 7)),
        "upper": key.upper(),
        "lower": key.lower(),
        "double_json": json.dumps(json.dumps(key))[1:-1],
    }


_BOMB: list[bytes] = []


def gzip_bomb() -> bytes:
    """~64 KiB of gzip that inflates to 64 MiB of zero bytes (built once)."""
    if not _BOMB:
        _BOMB.append(gzip.compress(b"\0" * (64 << 20), compresslevel=9))
    return _BOMB[0]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any
    peer: tuple[str, int] = ("", 0)  # the client's address: one per connection


@dataclass
class Behaviour:
    expected_key: str | None = None
    category: str = "standard"
    probability: float = 0.82
    confidence: float = 0.74
    consequential: float = 0.25
    new_task: float = 0.1
    model: str = "jev-test"
    usage: tuple[int, int] = (12, 3)
    fault: str = "none"
    huge_size: int = 2 * 1024 * 1024
    key_header: str = "Authorization"  # where the key is expected (and read for echoes)
    canned: Any = None  # a JSON value sent verbatim instead of computed answers
    requests: list[Recorded] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    hung_up: threading.Event = field(default_factory=threading.Event)  # a client left early


def systemone_answers(questions: dict[str, Any], b: Behaviour) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for qid, q in questions.items():
        if q.get("type") == "choice":
            answers[qid] = {
                "type": "choice",
                "choice": b.category,
                "probabilities": {b.category: b.probability},
                "confidence": b.confidence,
            }
        elif qid == "new_task":
            answers[qid] = {"type": "noul", "noul": b.new_task}
        else:
            answers[qid] = {"type": "noul", "noul": b.consequential}
    return answers


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive, as real upstreams do

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, *, length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        b = self.server.behaviour
        size = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(size)
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        peer = (str(self.client_address[0]), int(self.client_address[1]))
        b.requests.append(Recorded(self.path, dict(self.headers.items()), body, peer))
        sent = self.headers.get(b.key_header, "")
        key = sent.removeprefix("Bearer ") if b.key_header.lower() == "authorization" else sent
        if b.expected_key is not None and key != b.expected_key:
            self._send(401, b'{"error":"unauthorized"}')
            return
        fault = b.fault
        if fault.startswith("echo_") and fault not in ("echo_key", "echo_reason", "echo_model"):
            text = key_echoes(key)[fault.removeprefix("echo_")]
            self._send(400, json.dumps({"error": {"message": f"bad key {text} rejected"}}).encode())
            return
        if fault == "echo_reason":
            self.send_response(400, f"Bad key {key}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if fault == "echo_model":
            b.model = key
            b.category = key
        if fault == "gzip_bomb":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            bomb = gzip_bomb()
            self.send_header("Content-Length", str(len(bomb)))
            self.end_headers()
            with suppress(OSError):
                self.wfile.write(bomb)
            return
        if fault == "slow":
            b.release.wait(10)
            self._send(200, b"{}")
            return
        if fault == "500":
            self._send(500, b'{"error":"internal failure"}')
            return
        if fault == "401":
            self._send(401, b'{"error":"invalid api key"}')
            return
        if fault == "echo_key":
            auth = self.headers.get("Authorization", "")
            self._send(400, json.dumps({"error": f"bad request, you sent {auth}"}).encode())
            return
        if fault == "malformed":
            self._send(200, b'{"model": "jev-test", "answers": {')
            return
        if fault == "deep":
            self._send(200, b"[" * 30000 + b"]" * 30000)
            return
        if fault == "huge":
            self._send(200, b" " * b.huge_size)
            return
        if fault == "huge_chunked":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b" " * 65536
            try:
                for _ in range(b.huge_size // len(chunk) + 2):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            return
        if b.canned is not None:
            self._send(200, json.dumps(b.canned).encode())
        elif self.path.endswith("/chat/completions"):
            self._openai(body, b)
        else:
            self._systemone(body, b)

    def _systemone(self, body: Any, b: Behaviour) -> None:
        questions = body.get("questions", {}) if isinstance(body, dict) else {}
        answers = systemone_answers(questions, b)
        if b.fault == "invalid_answers":
            for a in answers.values():
                if a["type"] == "choice":
                    a["choice"] = "trivial"
                    a["probabilities"] = {"trivial": 0.9}
        if b.fault == "wrong_types":
            for a in answers.values():
                if a["type"] == "choice":
                    a["confidence"] = "high"
        reply = {
            "model": b.model,
            "answers": answers,
            "usage": {"input_tokens": b.usage[0], "output_tokens": b.usage[1]},
        }
        self._reply(json.dumps(reply).encode(), b)

    def _openai(self, body: Any, b: Behaviour) -> None:
        content = ""
        if isinstance(body, dict):
            task = json.loads(body["messages"][-1]["content"])
            answers = systemone_answers(task["questions"], b)
            for a in answers.values():
                a.pop("type")
            if b.fault == "invalid_answers":
                answers["category"]["choice"] = "trivial"
            content = json.dumps(answers)
            if b.fault == "fenced":
                content = f"```json\n{content}\n```"
        reply: dict[str, Any] = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": b.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": b.usage[0], "completion_tokens": b.usage[1]},
        }
        if b.fault == "wrong_types":
            reply["choices"][0]["message"]["content"] = 42
        self._reply(json.dumps(reply).encode(), b)

    def _reply(self, data: bytes, b: Behaviour) -> None:
        if b.fault != "trickle":
            self._send(200, data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
                if b.release.wait(0.05):
                    break
        except OSError:
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    behaviour: Behaviour

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-answer (its cap was reached) is expected:
        note it quietly instead of printing a ``BrokenPipeError`` traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            self.behaviour.hung_up.set()
            return
        super().handle_error(request, client_address)


@contextmanager
def decision_server(**kwargs: Any) -> Iterator[tuple[str, Behaviour]]:
    """A running server: yields its base URL (``http://127.0.0.1:PORT``) and behaviour."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.behaviour = Behaviour(**kwargs)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.behaviour
    finally:
        server.behaviour.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def refused_url() -> str:
    """A loopback URL nothing listens on (connection refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


def base_url_for(provider: str, url: str) -> str:
    """The ``base_url`` a provider is configured with to reach the server at ``url``.

    The openai provider's base URL carries the API version (``/v1``); SystemOne's
    does not (it posts to ``/v1/systemone`` itself).
    """
    return f"{url}/v1" if provider == "openai" else url
