"""Load and abuse of ``smista serve`` on loopback, bounded in time: does good traffic hold?

Not a test: prints ``name: value`` lines. It starts its own server (from this
checkout, with ``[decision]`` pointed at a loopback upstream that misbehaves)
and, for ``--duration`` seconds, runs three things at once:

* good load: ``--clients`` keep-alive clients posting ``/v1/classify``
  (every answer must be a 200 with JSON; anything else is an error);
* a probe: ``GET /healthz`` every 20 ms on its own connection, whose worst
  latency shows whether any request stalled the event loop;
* abuse: a cycle of faults — slow headers, stalled bodies, garbage HTTP, a
  connection flood over the limit, bodies over the size and count limits,
  huge invalid batches, deep nesting, lone surrogates, and ``/v1/preview``
  against an upstream that echoes the API key (every encoding), sends a gzip
  bomb, hangs or fails. A fault is *survived* when the service answers it as
  designed (JSON 4xx/503, a cut connection, a fail-open preview with no key in
  it) and ``/healthz`` answers right after.

Printed: good throughput and p99 with its error count, the probe's p99 and
worst latency, faults survived / tried, and key leaks (server log included).

    python benchmarks/abuse.py --duration 8 --clients 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load import PROMPTS, client, percentile, read_response  # noqa: E402
from tests.decision_server import decision_server, key_echoes  # noqa: E402
from tests.preview_config import ROUTING, decision_table  # noqa: E402

KEY = "sk-live-Q7vX2pLm9RtZ4wKc/+Jd8Hn3"
MAX_CONNECTIONS = 96


def leaked(text: str) -> bool:
    lower = "".join(text.split()).lower()
    forms = [f.lower() for f in key_echoes(KEY).values()]
    return any(f in text.lower() for f in forms) or any(
        KEY[i : i + 10].lower() in lower for i in range(len(KEY) - 9)
    )


def spawn(config: Path) -> tuple[subprocess.Popen[bytes], int, list[str]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("SMISTA_API_TOKEN", None)
    env["SMISTA_LEAK_KEY"] = KEY
    args = [
        "--port", "0", "--config", str(config), "--log-level", "debug",
        "--header-timeout", "1", "--body-timeout", "1",
        "--max-connections", str(MAX_CONNECTIONS),
    ]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "smista", "serve", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    for raw in proc.stderr:
        lines.append(raw.decode("utf-8", "replace"))
        rec = json.loads(raw)
        if rec.get("event") == "listening":
            port = int(rec["port"])
            break
    else:
        raise SystemExit("server did not start:\n" + "".join(lines))
    stream = proc.stderr
    threading.Thread(
        target=lambda: lines.extend(r.decode("utf-8", "replace") for r in stream), daemon=True
    ).start()
    return proc, port, lines


class Abuser:
    """Runs one fault at a time against ``port``; counts tried and survived."""

    def __init__(self, port: int, upstream: object) -> None:
        self.port = port
        self.upstream = upstream
        self.tried = 0
        self.survived = 0
        self.failures: list[str] = []
        self.leaks = 0

    async def raw(self, data: bytes, *, wait: float = 5.0) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            writer.write(data)
            await writer.drain()
            chunks = []
            async with asyncio.timeout(wait):
                while chunk := await reader.read(65536):
                    chunks.append(chunk)
            return b"".join(chunks)
        finally:
            writer.close()

    async def post(self, path: str, body: bytes, timeout: float = 30.0) -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            writer.write(
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            async with asyncio.timeout(timeout):
                return await read_response(reader)
        finally:
            writer.close()

    async def healthy(self) -> bool:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            async with asyncio.timeout(10):
                status, _ = await read_response(reader)
            writer.close()
            return status == 200
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            return False

    async def attempt(self, name: str, fault: Callable[[], Awaitable[bool]]) -> None:
        self.tried += 1
        try:
            ok = await fault()
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
            ok, name = False, f"{name} ({type(exc).__name__})"
        if ok and await self.healthy():
            self.survived += 1
        else:
            self.failures.append(name)

    # -- the faults --------------------------------------------------------------

    async def slow_header(self) -> bool:
        raw = await self.raw(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        )
        return raw.startswith(b"HTTP/1.1 408") and b'"header_timeout"' in raw

    async def stalled_body(self) -> bool:
        raw = await self.raw(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 99\r\n\r\n{"
        )
        return raw == b"" or raw.startswith(b"HTTP/1.1 4")

    async def garbage(self) -> bool:
        raw = await self.raw(b"\x16\x03\x01 not http\r\n\r\n")
        return raw.startswith(b"HTTP/1.1 400") and b'"invalid_http"' in raw

    async def flood(self) -> bool:
        conns = []
        try:
            for _ in range(MAX_CONNECTIONS + 20):
                conns.append(await asyncio.open_connection("127.0.0.1", self.port))
            refused = 0
            for reader, _ in conns[-10:]:
                async with asyncio.timeout(5):
                    data = await reader.read(4096)
                refused += data.startswith(b"HTTP/1.1 503") and b"too_many_connections" in data
            return refused > 0
        finally:
            for _, writer in conns:
                writer.close()

    async def expect(self, path: str, body: bytes, status: int, code: str) -> bool:
        got, answer = await self.post(path, body)
        return got == status and json.loads(answer)["error"]["code"] == code

    async def oversized(self) -> bool:
        raw = await self.raw(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000000\r\n\r\n{"
        )
        return raw.startswith(b"HTTP/1.1 413")

    async def preview(self, fault: str) -> bool:
        self.upstream.fault = fault  # type: ignore[attr-defined]
        self.upstream.release.clear()  # type: ignore[attr-defined]
        body = json.dumps({"text": "refactor the session handling"}).encode()
        status, answer = await self.post("/v1/preview", body)
        if fault == "slow":
            self.upstream.release.set()  # type: ignore[attr-defined]
        text = answer.decode("utf-8", "replace")
        if leaked(text):
            self.leaks += 1
            return False
        return status == 200 and json.loads(answer)["decision"]["status"] != "ok"

    def faults(self) -> list[tuple[str, Callable[[], Awaitable[bool]]]]:
        invalid_batch = json.dumps(
            {"items": [{"text": "x", "contexts": [1] * 300} for _ in range(1000)]}  # ~0.9 MB
        ).encode()
        plain: list[tuple[str, Callable[[], Awaitable[bool]]]] = [
            ("slow header", self.slow_header),
            ("stalled body", self.stalled_body),
            ("garbage http", self.garbage),
            ("connection flood", self.flood),
            ("oversized body", self.oversized),
            (
                "batch over the count",
                lambda: self.expect(
                    "/v1/classify/batch", b'{"items":[' + b"1," * 200_000 + b"1]}", 422,
                    "batch_too_large",
                ),
            ),
            (
                "huge invalid batch",
                lambda: self.expect("/v1/classify/batch", invalid_batch, 422, "invalid_request"),
            ),
            (
                "too many contexts",
                lambda: self.expect(
                    "/v1/classify", json.dumps({"text": "x", "contexts": [1] * 300_000}).encode(),
                    422, "too_many_items",
                ),
            ),
            (
                "deep nesting",
                lambda: self.expect(
                    "/v1/classify", b'{"text":' + b"[" * 50_000 + b"]" * 50_000 + b"}", 400,
                    "invalid_json",
                ),
            ),
            (
                "lone surrogate",
                lambda: self.expect("/v1/classify", b'{"text":"\\ud800"}', 400, "invalid_json"),
            ),
            (
                "malformed json",
                lambda: self.expect("/v1/classify", b'{"text": "x",', 400, "invalid_json"),
            ),
        ]  # fmt: skip
        upstream = [f"echo_{n}" for n in key_echoes(KEY)] + [
            "echo_reason", "echo_model", "gzip_bomb", "slow", "500", "malformed", "deep",
        ]  # fmt: skip
        for fault in upstream:
            plain.append((f"upstream {fault}", lambda f=fault: self.preview(f)))  # type: ignore[misc]
        return plain

    async def run(self, stop_at: float) -> None:
        faults = self.faults()
        i = 0
        while time.perf_counter() < stop_at or i < len(faults):
            name, fault = faults[i % len(faults)]
            await self.attempt(name, fault)
            i += 1
            if i >= len(faults) and time.perf_counter() >= stop_at:
                break


async def probe(port: int, stop_at: float, latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await read_response(reader)
            latencies.append(time.perf_counter() - started)
            await asyncio.sleep(0.02)
    finally:
        writer.close()


async def main_async(args: argparse.Namespace, port: int, upstream: object) -> dict[str, object]:
    bodies = [json.dumps({"text": p, "contexts": ["git_diff"]}).encode() for p in PROMPTS]
    good: list[float] = []
    errors: list[str] = []
    probes: list[float] = []
    started = time.perf_counter()
    stop_at = started + args.duration
    abuser = Abuser(port, upstream)
    await asyncio.gather(
        *(
            client("127.0.0.1", port, "/v1/classify", bodies, None, stop_at, good, errors)
            for _ in range(args.clients)
        ),
        probe(port, stop_at, probes),
        abuser.run(stop_at),
    )
    elapsed = time.perf_counter() - started
    good.sort()
    probes.sort()
    return {
        "duration_s": f"{elapsed:.2f}",
        "good_clients": args.clients,
        "good_requests": len(good),
        "good_throughput_rps": f"{len(good) / args.duration:.1f}",
        "good_latency_p99_ms": f"{percentile(good, 0.99) * 1000:.2f}",
        "good_errors": len(errors),
        "healthz_probe_p99_ms": f"{percentile(probes, 0.99) * 1000:.2f}",
        "healthz_probe_max_ms": f"{(probes[-1] if probes else float('nan')) * 1000:.2f}",
        "faults_survived": f"{abuser.survived}/{abuser.tried}",
        "faults_failed": ", ".join(sorted(set(abuser.failures))) or "none",
        "key_leaks_in_answers": abuser.leaks,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=4, help="good keep-alive clients (4)")
    p.add_argument("--duration", type=float, default=8.0, help="seconds of load (8)")
    args = p.parse_args()
    with (
        decision_server(expected_key=KEY) as (url, upstream),
        tempfile.TemporaryDirectory() as tmp,
    ):
        config = Path(tmp) / "smista.toml"
        table = decision_table(url, provider="openai", key_env="SMISTA_LEAK_KEY")
        config.write_text(ROUTING + table.replace("timeout_s = 2", "timeout_s = 1.0"))
        proc, port, lines = spawn(config)
        try:
            figures = asyncio.run(main_async(args, port, upstream))
        finally:
            upstream.release.set()
            proc.terminate()
            proc.wait(30)
        time.sleep(0.2)
        figures["key_leaks_in_log"] = sum(leaked(line) for line in lines)
        figures["server_errors_in_log"] = sum('"status":500' in line for line in lines)
    for name, value in figures.items():
        print(f"{name}: {value}")
    bad = figures["good_errors"] or figures["key_leaks_in_answers"] or figures["key_leaks_in_log"]
    return 1 if bad or figures["faults_failed"] != "none" else 0


if __name__ == "__main__":
    raise SystemExit(main())
