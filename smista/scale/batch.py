"""Bulk classification of JSONL records: streaming, order-preserving, on all cores.

Edge module: reads and writes the binary streams it is given and starts worker
processes; it never opens files, reads the environment or imports pydantic
(the command line in :mod:`smista.cli.batch` does the argument handling).

Each input line is a JSON object ``{"text": ..., "command": ..., "contexts":
[...], "workspace": {...}, "id": ...}`` (only ``text`` is required; ``id`` may
be any JSON value and is echoed back first). A line may hold ``messages`` (a
whole turn in any format :func:`smista.core.turns.parse_turn` reads) instead of
``text``: its output is :meth:`smista.core.turnclassify.TurnResult.to_wire` (the
wire JSON plus a ``turn`` object); such lines import the turn modules (and
pydantic) on first use, plain text lines never do. Each output line is the
classification's wire JSON, exactly as ``Classification.model_dump_json(
exclude_none=True)`` renders it, preceded by the ``id`` when one was given. A
line that cannot be classified gives ``{"id": ..., "line": N, "error": "..."}``
instead (``id`` only when it could be read); blank lines are skipped. Nothing
in the input can stop the run.

Work is cut into blocks of whole lines (about :data:`BLOCK_BYTES` each); with
more than one worker, each worker process holds one block at a time and gets
the next as soon as it is done; results are written in input order (early ones
are held, at most a few blocks per worker), so memory stays bounded whatever
the input size.
"""

from __future__ import annotations

import json
import json.scanner
import os
import sys
from collections.abc import Callable, Iterator
from itertools import chain
from typing import IO, TYPE_CHECKING, Any

from smista.core import wire
from smista.core.engine import CompiledRules, RuleMatch, wire_of
from smista.core.errors import SmistaError, UnknownIntentError
from smista.core.intent import TaskIntent
from smista.core.wire import json_kind as _kind

if TYPE_CHECKING:
    from smista.core.turnrules import TurnSettings

try:  # memchr, from the optional C extension; bytes.count otherwise
    from smista.core._speedups import count_newlines as _count_newlines
except ImportError:  # pragma: no cover - exercised on machines without a C compiler

    def _count_newlines(data: bytes | bytearray | memoryview, /) -> int:
        return bytes(data).count(b"\n")


__all__ = [
    "BLOCK_BYTES",
    "MAX_LINE_BYTES",
    "RECORD_KEYS",
    "BatchInputError",
    "BatchStats",
    "classify_block",
    "classify_block_counted",
    "default_workers",
    "iter_blocks",
    "max_workers",
    "run_batch",
]

BLOCK_BYTES = 1 << 18
"""Target size of one unit of work (whole lines; a longer line is its own block)."""

MAX_LINE_BYTES = 64 << 20
"""Longest input line (64 MiB): a longer one (a file of zeros, a binary file) stops
the run with :class:`BatchInputError` instead of growing memory without bound."""

RECORD_KEYS = ("text", "messages", "command", "contexts", "workspace", "id")
"""Keys an input record may have."""

_AHEAD_PER_WORKER = 4


def default_workers() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def max_workers(cores: int) -> int:
    """The most worker processes a batch may start: 4 per core (at least 8), so a typo
    such as ``--workers 4000`` is refused instead of forking thousands of interpreters."""
    return max(8, 4 * cores)


class BatchInputError(SmistaError):
    """The input cannot be read as JSONL at all (a line over :data:`MAX_LINE_BYTES`)."""

    def __init__(self, line: int) -> None:
        super().__init__(
            f"input line {line} is longer than {MAX_LINE_BYTES} bytes (is the input JSONL?)"
        )


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


def _strings(value: object, key: str) -> list[str]:
    if not isinstance(value, list):
        raise _RecordError(f"{key}: expected an array of strings, got {_kind(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise _RecordError(f"{key}[{i}]: expected a string, got {_kind(item)}")
    return value


def _contexts(value: object) -> list[str]:
    """A record's ``contexts``: strings, none blank (as ``--context`` and the service)."""
    names = _strings(value, "contexts")
    for i, name in enumerate(names):
        if not name or name.isspace():
            raise _RecordError(f"contexts[{i}]: a context kind cannot be empty")
    return names


def _workspace_kinds(value: object) -> list[str]:
    if not isinstance(value, dict):
        raise _RecordError(f"workspace: expected an object, got {_kind(value)}")
    for key, item in value.items():
        if key not in wire.WORKSPACE_KEYS:
            raise _RecordError(
                f"workspace.{key}: unknown key; expected one of: {', '.join(wire.WORKSPACE_KEYS)}"
            )
        if key != "referenced_paths" and item is not None and not isinstance(item, str):
            raise _RecordError(f"workspace.{key}: expected a string or null, got {_kind(item)}")
    if "referenced_paths" in value:
        _strings(value["referenced_paths"], "workspace.referenced_paths")
    return wire.workspace_kinds(value)


class _Renderer:
    """Classifies records with one compiled rule set; caches rendered results."""

    def __init__(self, rules: CompiledRules, turns: TurnSettings | None = None) -> None:
        self.rules = rules
        self.turns = turns
        self.turn_rules: Any = None
        self.match_text = rules.match_text
        self.rendered: dict[RuleMatch, str] = {}
        self.bad = 0  # error records written since the counters were last read
        self.first_bad = 0  # input line number of the first of them
        self.explicit = {intent: _dump(wire.explicit(intent.value)) for intent in TaskIntent}

    def render(self, match: RuleMatch) -> str:
        text = self.rendered.get(match)
        if text is None:
            text = _dump(wire_of(match))
            if len(self.rendered) < 1 << 16:
                self.rendered[match] = text
        return text

    def record(self, obj: dict[str, Any]) -> str:
        """The wire JSON (without ``id``) for one decoded record."""
        if not obj.keys() <= _ALLOWED:
            key = next(k for k in obj if k not in _ALLOWED)
            raise _RecordError(f"{key}: unknown key; expected one of: {', '.join(RECORD_KEYS)}")
        text = obj.get("text")
        if "messages" in obj:
            if "text" in obj:
                raise _RecordError("give exactly one of 'text' and 'messages'")
            return self.turn(obj)
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
            contexts = _contexts(value)
        value = obj.get("workspace")
        if value is not None:
            contexts = contexts + _workspace_kinds(value)
        return self.render(self.match_text(text, frozenset(contexts) if contexts else ()))

    def turn(self, obj: dict[str, Any]) -> str:
        """The turn answer for a record with ``messages``."""
        from smista.core.turns import TurnError

        if self.turn_rules is None:
            from smista.core.turnclassify import CompiledRulesClassifier

            self.turn_rules = CompiledRulesClassifier(self.rules, self.turns)
        command = obj.get("command")
        if command is not None and not isinstance(command, str):
            raise _RecordError(f"command: expected a string or null, got {_kind(command)}")
        contexts: list[str] = []
        if obj.get("contexts") is not None:
            contexts = _contexts(obj["contexts"])
        if obj.get("workspace") is not None:
            contexts = contexts + _workspace_kinds(obj["workspace"])
        try:
            result = self.turn_rules.classify_turn(
                obj["messages"], command=command, contexts=contexts
            )
        except TurnError as exc:
            raise _RecordError(str(exc.under("messages"))) from None
        except UnknownIntentError as exc:
            raise _RecordError(f"command: {exc}") from None
        return _dump(result.to_wire())

    def line(self, raw: bytes, number: int) -> str | None:
        """The output line for input line ``number`` (``None`` for a blank line)."""
        if not raw.strip():
            return None
        obj: Any = None
        try:
            obj = _decode(raw)
            if (b"\\ud" in raw or b"\\uD" in raw) and _lone_surrogate(obj):
                obj = None  # the id cannot be echoed either
                raise _RecordError(LONE_SURROGATE)
            if not isinstance(obj, dict):
                raise _RecordError(f"expected a JSON object, got {_kind(obj)}")
            body = self.record(obj)
            if "id" in obj:
                body = '{"id":' + _dump(obj["id"]) + "," + body[1:]
        except (_RecordError, ValueError, RecursionError) as exc:
            message = str(exc) if isinstance(exc, _RecordError) else _json_error(exc)
            error = {"line": number, "error": message}
            self.bad += 1
            self.first_bad = self.first_bad or number
            if isinstance(obj, dict) and "id" in obj:
                try:
                    return _dump({"id": obj["id"], **error})
                except (ValueError, RecursionError):
                    pass
            return _dump(error)
        return body


LONE_SURROGATE = (
    "invalid JSON: lone surrogate in a string (a \\ud800-\\udfff escape without its pair)"
)
"""The error for a line holding a lone surrogate escape: not valid Unicode, so
refused as the HTTP service refuses it (as invalid JSON)."""


def _lone_surrogate(obj: Any) -> bool:
    try:
        _dump(obj).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _json_error(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not valid UTF-8 (byte {exc.start})"
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply"
    return f"invalid JSON: {exc}"


def classify_block(
    rules: CompiledRules, block: bytes, first_line: int, turns: TurnSettings | None = None
) -> bytes:
    """Output lines (UTF-8, newline-terminated) for a block of whole input lines.

    ``turns`` is the ``[classification.turns]`` table for lines with ``messages``.
    """
    return classify_block_counted(rules, block, first_line, turns)[0]


def classify_block_counted(
    rules: CompiledRules, block: bytes, first_line: int, turns: TurnSettings | None = None
) -> tuple[bytes, int, int]:
    """:func:`classify_block`, with the number of bad lines and the first one's number
    (0 when none is bad)."""
    renderer = _renderer_for(rules, turns)
    renderer.bad = renderer.first_bad = 0
    out: list[str] = []
    for offset, raw in enumerate(block.split(b"\n")):
        line = renderer.line(raw, first_line + offset)
        if line is not None:
            out.append(line)
    if not out:
        return b"", 0, 0
    out.append("")
    # Lines with lone surrogates are refused (LONE_SURROGATE), so the output is
    # valid UTF-8; "backslashreplace" stays as a guard that never fires.
    return "\n".join(out).encode("utf-8", "backslashreplace"), renderer.bad, renderer.first_bad


_RENDERERS: dict[int, tuple[CompiledRules, _Renderer]] = {}


def _renderer_for(rules: CompiledRules, turns: TurnSettings | None = None) -> _Renderer:
    found = _RENDERERS.get(id(rules))
    if found is None or found[0] is not rules or found[1].turns is not turns:
        found = (rules, _Renderer(rules, turns))
        _RENDERERS.clear()
        _RENDERERS[id(rules)] = found
    return found[1]


def iter_blocks(stream: IO[bytes], size: int = BLOCK_BYTES) -> Iterator[tuple[bytes, int, int]]:
    """``(block, first line number, line count)`` triples of whole lines.

    A block holds whole lines joined by newlines, without the last newline.
    """
    line = 1
    pending = b""
    partial: list[bytes] = []  # chunks of one long line, joined once it ends
    partial_size = 0
    while True:
        chunk = stream.read(size)
        if not chunk:
            break
        cut = chunk.rfind(b"\n")
        if cut < 0:
            partial.append(chunk)
            partial_size += len(chunk)
            if len(pending) + partial_size > MAX_LINE_BYTES:
                raise BatchInputError(line)
            continue
        if partial:
            data = pending + b"".join(partial) + chunk
            cut += len(data) - len(chunk)
            partial.clear()
            partial_size = 0
        elif pending:
            data = pending + chunk
            cut += len(pending)
        else:
            data = chunk
        block, pending = data[:cut], data[cut + 1 :]
        count = _count_newlines(block) + 1
        yield block, line, count
        line += count
    if partial:
        pending += b"".join(partial)
    if pending:
        yield pending, line, _count_newlines(pending) + 1


def _regular_file(stream: IO[bytes]) -> tuple[int, int, int] | None:
    """``(fd, offset, size)`` when ``stream`` reads a regular file (else ``None``)."""
    import stat

    try:
        fd = stream.fileno()
        info = os.fstat(fd)
        offset = stream.tell()
    except (AttributeError, OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or offset > info.st_size:
        return None
    return fd, offset, info.st_size


def iter_spans(
    fd: int, start: int, end: int, size: int = BLOCK_BYTES
) -> Iterator[tuple[int, int, int, int]]:
    """``(offset, length, first line number, line count)`` of the blocks of a file.

    Like :func:`iter_blocks` over bytes ``start:end`` of the file: whole
    lines, cut near every ``size`` bytes, numbered from 1 at ``start``. The
    cuts are found through a memory map, so the lines are never copied here.
    """
    import mmap

    if end <= start:
        return
    with mmap.mmap(fd, end, access=mmap.ACCESS_READ) as mapped:
        view = memoryview(mapped)
        try:
            line = 1
            pos = start
            while pos < end:
                limit = pos + size
                if limit >= end:
                    cut = end if mapped[end - 1 : end] != b"\n" else end - 1
                else:
                    cut = mapped.rfind(b"\n", pos, limit)
                    if cut < 0:
                        longest = min(end, pos + MAX_LINE_BYTES + 1)
                        cut = mapped.find(b"\n", limit, longest)
                        if cut < 0:
                            if longest < end or end - pos > MAX_LINE_BYTES:
                                raise BatchInputError(line)
                            cut = end
                count = _count_newlines(view[pos:cut]) + 1
                yield pos, cut - pos, line, count
                line += count
                pos = cut + 1
        finally:
            view.release()


class BatchStats:
    """Counters of a run (updated as output is written): input lines, output
    records, input bytes, bad lines (error records) and the first bad line's
    number (0 while none is bad)."""

    __slots__ = ("bad", "bytes_in", "first_bad", "lines", "records")

    def __init__(self) -> None:
        self.lines = 0
        self.records = 0
        self.bytes_in = 0
        self.bad = 0
        self.first_bad = 0


# -- worker processes ----------------------------------------------------------
#
# Each worker owns one duplex pipe and holds at most one block at a time. The
# main process waits for whichever worker finishes first, hands it the next
# block at once (the worker is then blocked reading, so the send cannot
# stall), and writes results in input order, keeping those that arrive early.
# A worker is never given a block more than _AHEAD_PER_WORKER * N blocks past
# the oldest result not yet written, which bounds the results held.


def _worker_main(
    conn: Any,
    data: tuple[object, ...] | None,
    rules: CompiledRules | None,
    fd: int | None = None,
    turns: TurnSettings | None = None,
) -> None:
    compiled = rules if rules is not None else CompiledRules.from_data(data)
    try:
        while True:
            header = conn.recv_bytes()
            if not header:
                break
            first = int.from_bytes(header[:8], "little")
            if len(header) == 24:  # a span of the input file: read it here
                offset = int.from_bytes(header[8:16], "little")
                block = _pread(fd, int.from_bytes(header[16:], "little"), offset)
            else:
                block = conn.recv_bytes()
            out, bad, first_bad = classify_block_counted(compiled, block, first, turns)
            conn.send_bytes(bad.to_bytes(8, "little") + first_bad.to_bytes(8, "little"))
            conn.send_bytes(out)
    except (EOFError, OSError, KeyboardInterrupt):
        pass
    finally:
        conn.close()


def _pread(fd: int | None, length: int, offset: int) -> bytes:
    if fd is None:
        raise OSError("no input file")
    parts: list[bytes] = []
    while length > 0:
        part = os.pread(fd, length, offset)
        if not part:
            raise OSError("the input file shrank while it was being read")
        parts.append(part)
        length -= len(part)
        offset += len(part)
    return b"".join(parts) if len(parts) != 1 else parts[0]


def run_batch(
    rules: CompiledRules,
    source: IO[bytes],
    sink: IO[bytes],
    *,
    workers: int = 1,
    progress: Callable[[BatchStats], None] | None = None,
    block_bytes: int = BLOCK_BYTES,
    turns: TurnSettings | None = None,
) -> BatchStats:
    """Classify every line of ``source`` into ``sink``; returns the final counters.

    ``turns`` is the rules' ``[classification.turns]`` table (for ``messages`` lines).
    """
    stats = BatchStats()
    blocks = iter_blocks(source, block_bytes)

    def emit(counted: tuple[bytes, int, int], lines: int, size: int) -> None:
        out, bad, first_bad = counted
        sink.write(out)
        if bad:
            stats.bad += bad
            stats.first_bad = stats.first_bad or first_bad
        stats.lines += lines
        stats.records += _count_newlines(out)
        stats.bytes_in += size
        if progress is not None:
            progress(stats)

    if workers <= 1:
        for block, first, lines in blocks:
            emit(classify_block_counted(rules, block, first, turns), lines, len(block) + 1)
        return stats

    import multiprocessing
    from multiprocessing.connection import wait

    fork = sys.platform == "linux"
    context = multiprocessing.get_context("fork" if fork else None)
    # A regular input file is not piped to the workers: each reads its own
    # spans (a forked worker shares the descriptor; pread needs no position).
    regular = _regular_file(source) if fork else None
    units: Iterator[tuple[bytes, int, int, int, int]]
    if regular is not None:
        fd, start, end = regular
        units = (
            (b"", first, lines, offset, length)
            for offset, length, first, lines in iter_spans(fd, start, end, block_bytes)
        )
    else:
        units = ((block, first, lines, -1, len(block)) for block, first, lines in blocks)
    # The first block is classified here, before any worker starts: the
    # workers inherit (forked) or are sent a plan that has already learned
    # the commonest tokens and imported what classifying needs, instead of
    # each learning them again.
    head = next(units, None)
    if head is not None:
        block, first, lines, offset, length = head
        if offset >= 0 and regular is not None:
            block = _pread(regular[0], length, offset)
        emit(classify_block_counted(rules, block, first, turns), lines, length + 1)
        del block
    second = next(units, None)
    if second is None:  # nothing left for a worker
        if regular is not None:
            source.seek(regular[2])  # consumed, as if it had been read
        return stats
    units = chain((second,), units)
    conns: list[Any] = []
    procs: list[Any] = []
    try:
        for _ in range(workers):
            here, there = context.Pipe(duplex=True)
            proc = context.Process(
                target=_worker_main,
                args=(
                    there,
                    None if fork else rules.to_data(),
                    rules if fork else None,
                    regular[0] if regular is not None else None,
                    turns,
                ),
                daemon=True,
            )
            proc.start()
            there.close()
            conns.append(here)
            procs.append(proc)
        limit = workers * _AHEAD_PER_WORKER
        sizes: dict[int, tuple[int, int]] = {}  # block number -> (lines, bytes)
        held: dict[int, tuple[bytes, int, int]] = {}  # results that came before their turn
        holding: dict[Any, int] = {}  # worker conn -> block number it holds
        waiting: list[Any] = []  # idle workers (only while too far ahead)
        sent = written = 0
        exhausted = False

        def hand_out(conn: Any) -> None:
            """Give ``conn`` the next block, unless none is left or it is too far ahead."""
            nonlocal sent, exhausted
            if exhausted:
                return
            if sent - written >= limit:
                waiting.append(conn)
                return
            item = next(units, None)
            if item is None:
                exhausted = True
                return
            block, first, lines, offset, length = item
            if offset >= 0:
                conn.send_bytes(
                    first.to_bytes(8, "little")
                    + offset.to_bytes(8, "little")
                    + length.to_bytes(8, "little")
                )
            else:
                conn.send_bytes(first.to_bytes(8, "little"))
                conn.send_bytes(block)
            holding[conn] = sent
            sizes[sent] = (lines, length + 1)
            sent += 1

        for conn in conns:
            hand_out(conn)
        while holding:
            for conn in wait(list(holding)):
                number = holding.pop(conn)
                held[number] = _receive(conn)
                while written in held:
                    emit(held.pop(written), *sizes.pop(written))
                    written += 1
                idle = [conn, *waiting]
                waiting.clear()
                for each in idle:
                    hand_out(each)
        for conn in conns:
            conn.send_bytes(b"")
        for proc in procs:
            proc.join()
        if regular is not None:
            source.seek(regular[2])  # consumed, as if it had been read
    finally:
        for conn in conns:
            conn.close()
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join()
    return stats


def _receive(conn: Any) -> tuple[bytes, int, int]:
    try:
        counts: bytes = conn.recv_bytes()
        data: bytes = conn.recv_bytes()
    except (EOFError, OSError):
        from smista.core.errors import SmistaError

        raise SmistaError("a worker process stopped unexpectedly") from None
    return data, int.from_bytes(counts[:8], "little"), int.from_bytes(counts[8:], "little")
