"""Bulk classification of JSONL records: streaming, order-preserving, on all cores.

Edge module: reads and writes the binary streams it is given and starts worker
processes; it never opens files, reads the environment or imports pydantic
(the command line in :mod:`smista.cli.batch` does the argument handling).

Each input line is a JSON object ``{"text": ..., "command": ..., "contexts":
[...], "workspace": {...}, "id": ...}`` (only ``text`` is required; ``id`` may
be any JSON value and is echoed back first). Each output line is the
classification's wire JSON, exactly as ``Classification.model_dump_json(
exclude_none=True)`` renders it, preceded by the ``id`` when one was given. A
line that cannot be classified gives ``{"id": ..., "line": N, "error": "..."}``
instead (``id`` only when it could be read); blank lines are skipped. Nothing
in the input can stop the run.

Work is cut into blocks of whole lines (about :data:`BLOCK_BYTES` each); with
more than one worker, blocks go to a process pool with at most a few blocks in
flight per worker, and results are written in input order, so memory stays
bounded whatever the input size.
"""

from __future__ import annotations

import json
import json.scanner
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator
from typing import IO, Any

from smista.engine import CompiledRules, RuleMatch, confidence_of, reason_of
from smista.errors import UnknownIntentError
from smista.intent import TaskIntent

__all__ = [
    "BLOCK_BYTES",
    "RECORD_KEYS",
    "BatchStats",
    "classify_block",
    "default_workers",
    "iter_blocks",
    "run_batch",
]

BLOCK_BYTES = 1 << 18
"""Target size of one unit of work (whole lines; a longer line is its own block)."""

RECORD_KEYS = ("text", "command", "contexts", "workspace", "id")
"""Keys an input record may have."""

_WORKSPACE_KINDS = (
    ("git_diff", "git_diff"),
    ("git_branch", "git_branch"),
    ("active_file", "active_file"),
)
_WORKSPACE_KEYS = ("root", "git_diff", "git_branch", "active_file", "referenced_paths")
_IN_FLIGHT_PER_WORKER = 3


def default_workers() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class _RecordError(ValueError):
    """A record that cannot be classified (message names the key)."""


def _reject_constant(name: str) -> Any:
    raise _RecordError(f"invalid JSON: {name} is not a JSON number")


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (_INF, -_INF):
        raise _RecordError(f"invalid JSON: number {text} is out of range")
    return value


_INF = float("inf")
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)
_SCAN: Any = json.scanner.make_scanner(_DECODER)  # type: ignore[arg-type]
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_dump = _ENCODER.encode
_ALLOWED = frozenset(RECORD_KEYS)


def _decode(raw: bytes) -> Any:
    """``json.loads`` of one UTF-8 line (same results and messages), minus its overhead."""
    text = raw.decode("utf-8")
    if text[:1] == "{" and text[-1:] == "}":  # the usual line: no surrounding space
        try:
            obj, end = _SCAN(text, 0)
        except StopIteration as err:
            raise json.JSONDecodeError("Expecting value", text, err.value) from None
        if end == len(text):
            return obj
    return _DECODER.decode(text)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _strings(value: object, key: str) -> list[str]:
    if not isinstance(value, list):
        raise _RecordError(f"{key}: expected an array of strings, got {_kind(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise _RecordError(f"{key}[{i}]: expected a string, got {_kind(item)}")
    return value


def _workspace_kinds(value: object) -> list[str]:
    if not isinstance(value, dict):
        raise _RecordError(f"workspace: expected an object, got {_kind(value)}")
    for key, item in value.items():
        if key not in _WORKSPACE_KEYS:
            raise _RecordError(
                f"workspace.{key}: unknown key; expected one of: {', '.join(_WORKSPACE_KEYS)}"
            )
        if key != "referenced_paths" and item is not None and not isinstance(item, str):
            raise _RecordError(f"workspace.{key}: expected a string or null, got {_kind(item)}")
    kinds = [kind for key, kind in _WORKSPACE_KINDS if value.get(key) is not None]
    if "referenced_paths" in value and _strings(
        value["referenced_paths"], "workspace.referenced_paths"
    ):
        kinds.append("referenced_paths")
    return kinds


class _Renderer:
    """Classifies records with one compiled rule set; caches rendered results."""

    def __init__(self, rules: CompiledRules) -> None:
        self.match_text = rules.match_text
        self.rendered: dict[RuleMatch, str] = {}
        self.explicit = {
            intent: _dump(
                {
                    "intent": intent.value,
                    "source": "explicit",
                    "reason": f"explicit command '{intent.value}'",
                }
            )
            for intent in TaskIntent
        }

    def render(self, match: RuleMatch) -> str:
        text = self.rendered.get(match)
        if text is None:
            out: dict[str, object] = {
                "intent": match.label,
                "source": "inferred",
                "reason": reason_of(match),
            }
            if match.rule is not None:
                out["matched_rule"] = match.rule
            out["confidence"] = confidence_of(match)
            text = _dump(out)
            if len(self.rendered) < 1 << 16:
                self.rendered[match] = text
        return text

    def record(self, obj: dict[str, Any]) -> str:
        """The wire JSON (without ``id``) for one decoded record."""
        if not obj.keys() <= _ALLOWED:
            key = next(k for k in obj if k not in _ALLOWED)
            raise _RecordError(f"{key}: unknown key; expected one of: {', '.join(RECORD_KEYS)}")
        text = obj.get("text")
        if not isinstance(text, str):
            if "text" not in obj:
                raise _RecordError("text: missing required key")
            raise _RecordError(f"text: expected a string, got {_kind(text)}")
        command = obj.get("command")
        if command is not None:
            if not isinstance(command, str):
                raise _RecordError(f"command: expected a string or null, got {_kind(command)}")
            try:
                return self.explicit[TaskIntent.parse(command)]
            except UnknownIntentError as exc:
                raise _RecordError(f"command: {exc}") from None
        contexts: list[str] = []
        value = obj.get("contexts")
        if value is not None:
            contexts = _strings(value, "contexts")
        value = obj.get("workspace")
        if value is not None:
            contexts = contexts + _workspace_kinds(value)
        return self.render(self.match_text(text, frozenset(contexts) if contexts else ()))

    def line(self, raw: bytes, number: int) -> str | None:
        """The output line for input line ``number`` (``None`` for a blank line)."""
        if not raw.strip():
            return None
        obj: Any = None
        try:
            obj = _decode(raw)
            if not isinstance(obj, dict):
                raise _RecordError(f"expected a JSON object, got {_kind(obj)}")
            body = self.record(obj)
            if "id" in obj:
                body = '{"id":' + _dump(obj["id"]) + "," + body[1:]
        except (_RecordError, ValueError, RecursionError) as exc:
            message = str(exc) if isinstance(exc, _RecordError) else _json_error(exc)
            error = {"line": number, "error": message}
            if isinstance(obj, dict) and "id" in obj:
                try:
                    return _dump({"id": obj["id"], **error})
                except (ValueError, RecursionError):
                    pass
            return _dump(error)
        return body


def _json_error(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not valid UTF-8 (byte {exc.start})"
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply"
    return f"invalid JSON: {exc}"


def classify_block(rules: CompiledRules, block: bytes, first_line: int) -> bytes:
    """Output lines (UTF-8, newline-terminated) for a block of whole input lines."""
    renderer = _renderer_for(rules)
    out: list[str] = []
    for offset, raw in enumerate(block.split(b"\n")):
        line = renderer.line(raw, first_line + offset)
        if line is not None:
            out.append(line)
    if not out:
        return b""
    out.append("")
    # A lone surrogate (from a \\udXXX escape in an id) is written back as that
    # same JSON escape, so every output line stays valid UTF-8 and valid JSON.
    return "\n".join(out).encode("utf-8", "backslashreplace")


_RENDERERS: dict[int, tuple[CompiledRules, _Renderer]] = {}


def _renderer_for(rules: CompiledRules) -> _Renderer:
    found = _RENDERERS.get(id(rules))
    if found is None or found[0] is not rules:
        found = (rules, _Renderer(rules))
        _RENDERERS.clear()
        _RENDERERS[id(rules)] = found
    return found[1]


def iter_blocks(stream: IO[bytes], size: int = BLOCK_BYTES) -> Iterator[tuple[bytes, int, int]]:
    """``(block, first line number, line count)`` triples of whole lines.

    A block holds whole lines joined by newlines, without the last newline.
    """
    line = 1
    pending = b""
    while True:
        chunk = stream.read(size)
        if not chunk:
            break
        data = pending + chunk if pending else chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data
            continue
        block, pending = data[:cut], data[cut + 1 :]
        count = block.count(b"\n") + 1
        yield block, line, count
        line += count
    if pending:
        yield pending, line, pending.count(b"\n") + 1


class BatchStats:
    """Counters of a run (updated as output is written): input lines, output
    records and input bytes."""

    __slots__ = ("bytes_in", "lines", "records")

    def __init__(self) -> None:
        self.lines = 0
        self.records = 0
        self.bytes_in = 0


# -- worker processes ----------------------------------------------------------
#
# Each worker owns one duplex pipe and has at most one block in flight: the main
# process sends block k to worker k % N only after reading that worker's
# previous result, so neither side can block on a full pipe while the other
# waits for it, and results come back in input order without any reordering.


def _worker_main(conn: Any, data: tuple[object, ...] | None, rules: CompiledRules | None) -> None:
    compiled = rules if rules is not None else CompiledRules.from_data(data)
    try:
        while True:
            header = conn.recv_bytes()
            if not header:
                break
            block = conn.recv_bytes()
            conn.send_bytes(classify_block(compiled, block, int.from_bytes(header, "little")))
    except (EOFError, OSError, KeyboardInterrupt):
        pass
    finally:
        conn.close()


def run_batch(
    rules: CompiledRules,
    source: IO[bytes],
    sink: IO[bytes],
    *,
    workers: int = 1,
    progress: Callable[[BatchStats], None] | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> BatchStats:
    """Classify every line of ``source`` into ``sink``; returns the final counters."""
    stats = BatchStats()
    blocks = iter_blocks(source, block_bytes)

    def emit(out: bytes, lines: int, size: int) -> None:
        sink.write(out)
        stats.lines += lines
        stats.records += out.count(b"\n")
        stats.bytes_in += size
        if progress is not None:
            progress(stats)

    if workers <= 1:
        for block, first, lines in blocks:
            emit(classify_block(rules, block, first), lines, len(block) + 1)
        return stats

    import multiprocessing

    fork = sys.platform == "linux"
    context = multiprocessing.get_context("fork" if fork else None)
    conns: list[Any] = []
    procs: list[Any] = []
    try:
        for _ in range(workers):
            here, there = context.Pipe(duplex=True)
            proc = context.Process(
                target=_worker_main,
                args=(there, None if fork else rules.to_data(), rules if fork else None),
                daemon=True,
            )
            proc.start()
            there.close()
            conns.append(here)
            procs.append(proc)
        in_flight: deque[tuple[int, int]] = deque()  # (lines, bytes) sent, oldest first
        k = 0
        for block, first, lines in blocks:
            conn = conns[k % workers]
            if len(in_flight) == workers:  # this worker still holds block k - workers
                out = _receive(conn)
                conn.send_bytes(first.to_bytes(8, "little"))
                conn.send_bytes(block)
                emit(out, *in_flight.popleft())
            else:
                conn.send_bytes(first.to_bytes(8, "little"))
                conn.send_bytes(block)
            in_flight.append((lines, len(block) + 1))
            k += 1
        while in_flight:
            conn = conns[(k - len(in_flight)) % workers]
            emit(_receive(conn), *in_flight.popleft())
        for conn in conns:
            conn.send_bytes(b"")
        for proc in procs:
            proc.join()
    finally:
        for conn in conns:
            conn.close()
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join()
    return stats


def _receive(conn: Any) -> bytes:
    try:
        data: bytes = conn.recv_bytes()
    except (EOFError, OSError):
        from smista.errors import SmistaError

        raise SmistaError("a worker process stopped unexpectedly") from None
    return data
