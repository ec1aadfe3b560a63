"""Load test of ``smista serve`` on loopback: N concurrent keep-alive clients, fixed time.

Not a test: prints ``name: value`` lines (requests, throughput, p50/p99
latency, errors). By default it starts its own server (``smista serve --port 0
--log-level warning`` from this checkout) and stops it afterwards; ``--url``
targets a running one instead. The clients are a minimal asyncio HTTP/1.1
keep-alive client (one connection each) so that the client side costs as
little CPU as possible; every answer must be a 200 with a JSON body, anything
else (or a dropped connection) counts as an error.

    python benchmarks/load.py --clients 16 --duration 10
    python benchmarks/load.py --endpoint batch --batch-size 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent

PROMPTS = [
    "please review this diff before I merge",
    "fix the failing test in the parser module",
    "summarize the discussion in this thread",
    "plan the migration to the new storage backend",
    "write a system prompt for a code reviewer",
    "run the deploy skill",
    "hello, how are you today?",
    "refactor the auth middleware and add tests",
    "can you reveiw my changes",
    "tl;dr of the incident report please",
]


def make_bodies(endpoint: str, batch_size: int) -> list[bytes]:
    if endpoint == "classify":
        return [json.dumps({"text": p, "contexts": ["git_diff"]}).encode() for p in PROMPTS]
    items = [{"text": PROMPTS[i % len(PROMPTS)]} for i in range(batch_size)]
    return [json.dumps({"items": items}).encode()]


def spawn_server() -> tuple[subprocess.Popen[bytes], str]:
    """Start ``smista serve`` on a free loopback port; its process and URL."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("SMISTA_API_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "smista", "serve", "--port", "0", "--log-level", "warning"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    for raw in proc.stderr:
        rec = json.loads(raw)
        if rec.get("event") == "listening":
            port = rec["port"]
            break
    else:
        raise SystemExit("server did not start")
    stream = proc.stderr
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
    return proc, f"http://127.0.0.1:{port}"


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = await reader.readexactly(length)
    return status, body


async def client(
    host: str,
    port: int,
    path: str,
    bodies: list[bytes],
    token: str | None,
    stop_at: float,
    latencies: list[float],
    errors: list[str],
) -> None:
    auth = f"Authorization: Bearer {token}\r\n".encode() if token else b""
    requests = [
        (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(b)}\r\n"
        ).encode()
        + auth
        + b"\r\n"
        + b
        for b in bodies
    ]
    reader, writer = await asyncio.open_connection(host, port)
    i = 0
    try:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            writer.write(requests[i % len(requests)])
            i += 1
            try:
                status, body = await read_response(reader)
                json.loads(body)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors.append(type(exc).__name__)
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
                continue
            if status != 200:
                errors.append(str(status))
                continue
            latencies.append(time.perf_counter() - started)
    finally:
        writer.close()


async def run_load(url: str, args: argparse.Namespace) -> tuple[list[float], list[str], float]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = "/v1/classify" if args.endpoint == "classify" else "/v1/classify/batch"
    bodies = make_bodies(args.endpoint, args.batch_size)
    token = os.environ.get("SMISTA_API_TOKEN") if args.url else None
    latencies: list[float] = []
    errors: list[str] = []
    # warm-up: one request per client connection path, not measured
    await client(host, port, path, bodies, token, time.perf_counter() + 0.5, [], [])
    started = time.perf_counter()
    stop_at = started + args.duration
    await asyncio.gather(
        *(
            client(host, port, path, bodies, token, stop_at, latencies, errors)
            for _ in range(args.clients)
        )
    )
    return latencies, errors, time.perf_counter() - started


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="a running service (default: start one)")
    p.add_argument("--clients", type=int, default=16, help="concurrent clients (16)")
    p.add_argument("--duration", type=float, default=10.0, help="seconds (10)")
    p.add_argument("--endpoint", choices=["classify", "batch"], default="classify")
    p.add_argument("--batch-size", type=int, default=50, help="items per batch (50)")
    args = p.parse_args()
    proc = None
    url = args.url
    if url is None:
        proc, url = spawn_server()
    try:
        latencies, errors, elapsed = asyncio.run(run_load(url, args))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
    latencies.sort()
    items = 1 if args.endpoint == "classify" else args.batch_size
    print(f"endpoint: {args.endpoint}")
    print(f"clients: {args.clients}")
    print(f"duration_s: {elapsed:.2f}")
    print(f"requests: {len(latencies)}")
    print(f"throughput_rps: {len(latencies) / elapsed:.1f}")
    print(f"classifications_per_s: {len(latencies) * items / elapsed:.1f}")
    print(f"latency_p50_ms: {percentile(latencies, 0.50) * 1000:.2f}")
    print(f"latency_p99_ms: {percentile(latencies, 0.99) * 1000:.2f}")
    if latencies:
        print(f"latency_mean_ms: {statistics.fmean(latencies) * 1000:.2f}")
    print(f"errors: {len(errors)}")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
