"""Loading rule files straight into the compiled matcher, without pydantic when possible.

I/O edge (reads rule files, reads and writes a cache directory, reads the
environment). ``load_rules(path)`` returns the :class:`CompiledRules` of a rules
file (``None``: the shipped default pack). A file seen before is not parsed or
validated again: its compiled form is read from a cache entry keyed by

* the file's content (BLAKE2b digest of its bytes), so any change misses;
* the smista version, the Python version and build, the entry format and
  the engine's data format, all of which are stored in the entry and checked.

The cache trusts nothing it reads. An entry is JSON, generic over whatever
JSON-shaped data :meth:`CompiledRules.to_data` produces (arrays stand for
tuples; data that does not survive that round trip is simply not cached)::

    smista-rules-cache 1\n
    <BLAKE2b-256 of the payload, hex> <payload length>\n
    <payload: {"stamp": [...], "key": "...", "data": ...}>

Loading an entry cannot execute anything or allocate without bound: the file
is opened without following symlinks, must be a regular file owned by the
current user and at most :data:`ENTRY_LIMIT` bytes, its length and checksum
are verified before the JSON is parsed, the stamp and key must match, the
data must rebuild through :meth:`CompiledRules.from_data`, and every intent
label and priority is then checked against the types. Any fault (a
truncated, mutated, foreign, hostile or special file) is a miss: the rules
are rebuilt from the source file and the entry is rewritten, so a cache
directory full of hostile bytes changes no answer. The directory is created
0700; one owned by another user, or writable by others, is not used (one of
ours that is too open is narrowed to 0700). Writes go to a temporary file
renamed into place (atomic), and a cache directory that cannot be written is
simply not used. A file never seen before is validated through the pydantic
models with exactly the messages of :func:`smista.load_config`.

The shipped default pack is precompiled into :mod:`smista.config._default_pack`
(regenerate with ``python -m smista.config.rulecache --write-default-pack``); it is used
only when its recorded digest equals the digest of the pack file on disk. It holds the
rules (``DATA``) and the tables the engine derives from them (``DERIVED``,
:meth:`CompiledRules.derived_data`), so the first classify unmarshals them with the
module's bytecode instead of deriving them: smista's own module, never a cache entry
(a cache entry is data a user's disk holds, and is rebuilt through ``from_data`` only).

Cache directory: ``$SMISTA_CACHE_DIR``, else ``$XDG_CACHE_HOME/smista``, else
``~/.cache/smista``. Set ``SMISTA_CACHE_DIR`` to an empty string to disable it.

Must never unpickle or execute cache contents, trust an entry it has not
validated, or import pydantic unless a file has to be validated.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from smista import __version__
from smista.config._files import CONFIG_LIMIT, MODEL_LIMIT, model_path, read_bounded
from smista.config._shipped import shipped_rules_file, shipped_rules_path
from smista.core.engine import FORMAT, CompiledRules
from smista.core.intent import TaskIntent

if TYPE_CHECKING:
    from pathlib import Path

try:  # the builtin module: importing hashlib would also load OpenSSL
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - non-CPython builds
    from hashlib import blake2b

__all__ = [
    "CACHE_LIMIT",
    "ENTRY_LIMIT",
    "cache_dir",
    "cache_key",
    "default_pack_path",
    "load_rules",
    "render_default_pack",
]

CACHE_LIMIT = 64
"""Most entries kept in the cache directory (oldest removed first)."""

ENTRY_LIMIT = 32 << 20
"""Largest cache entry read (32 MiB); a larger one is a miss."""

ENTRY_FORMAT = 1
"""Version of the entry layout (header, checksum, JSON payload)."""

_MAGIC = b"smista-rules-cache %d\n" % ENTRY_FORMAT
_INTENTS = frozenset(i.value for i in TaskIntent)
_MAX_PRIORITY = 2**32 - 1  # smista.core.rules.MAX_PRIORITY (not imported: it loads pydantic)


def default_pack_path() -> Path:
    """The shipped default pack (``smista/_rules`` in a wheel, ``rules/`` in a checkout)."""
    return shipped_rules_path("default")


def cache_dir() -> Path | None:
    """Where compiled rules are cached (``None``: caching disabled)."""
    from pathlib import Path  # not at import: the shipped pack's cold path never needs it

    explicit = os.environ.get("SMISTA_CACHE_DIR")
    if explicit is not None:
        return Path(explicit) if explicit else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "smista"
    home = os.path.expanduser("~")
    if home == "~":
        return None
    return Path(home) / ".cache" / "smista"


def _stamp() -> tuple[str, str, int, int]:
    """Everything besides the content that a compiled entry depends on."""
    return (__version__, sys.version, ENTRY_FORMAT, FORMAT)


def digest(content: bytes) -> str:
    """The content digest used in cache keys."""
    return blake2b(content, digest_size=20).hexdigest()


def cache_key(content: bytes) -> str:
    """The cache file name for a rules file with bytes ``content``."""
    stamp = repr(_stamp()).encode()
    return blake2b(content + b"\0" + stamp, digest_size=20).hexdigest()


def load_rules(path: str | Path | None) -> CompiledRules:
    """The compiled rules of ``path`` (or of the shipped default pack)."""
    source = shipped_rules_file("default") if path is None else path
    try:
        content = read_bounded(source, CONFIG_LIMIT)
    except OSError:
        return _validated(source, None)  # raises the loader's own ConfigError
    shipped = _shipped(content)
    if shipped is not None and _model_unchanged(shipped, source):
        return shipped
    directory = cache_dir()
    key = cache_key(content)
    if directory is not None and _private(directory, create=False):
        cached = _read_entry(directory / _entry_name(key), key)
        if cached is not None and _model_unchanged(cached, source):
            return cached
    rules = _validated(source, content)
    if directory is not None:
        _write_entry(directory, key, rules)
    return rules


def _model_unchanged(rules: CompiledRules, source: str | Path) -> bool:
    """Whether the text model file compiled ``rules`` read (if any) still has its bytes:
    the rules file's digest does not cover it, so a changed model is a miss."""
    model_source = rules.options.model_source
    if not model_source:
        return True
    file, recorded = model_source
    try:
        raw = read_bounded(model_path(file, str(source)), MODEL_LIMIT)
    except OSError:
        return False
    return digest(raw) == recorded


def _entry_name(key: str) -> str:
    return f"rules-{key}.json"


def _validated(source: str | Path, content: bytes | None) -> CompiledRules:
    """Parse and validate with the pydantic models (identical errors to load_config)."""
    from smista.config.load import load_config, parse_config
    from smista.core.classifier import compile_rules

    if content is None:
        return compile_rules(load_config(source))
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return compile_rules(load_config(source))  # reports the decoding error
    return compile_rules(parse_config(text, str(source)))


def _shipped(content: bytes) -> CompiledRules | None:
    try:
        from smista.config import _default_pack
    except ImportError:
        return None
    if digest(content) != _default_pack.DIGEST:
        return None
    try:
        return CompiledRules.from_data(_default_pack.DATA, _default_pack.DERIVED)
    except ValueError:
        return None


def _private(directory: Path, *, create: bool) -> bool:
    """Whether ``directory`` is ours and private (0700), creating it if asked."""
    try:
        if create:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(directory)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        return False
    if info.st_mode & 0o077:
        try:
            os.chmod(directory, 0o700)
        except OSError:
            return False
    return True


def _plain(value: Any) -> Any:
    """JSON-decoded data with every array as a tuple (the engine's data uses tuples)."""
    if type(value) is list:
        return tuple(_plain(v) for v in value)
    if type(value) is dict:
        return {k: _plain(v) for k, v in value.items()}
    return value


def encode_entry(key: str, data: Any) -> bytes | None:
    """The entry bytes for ``data`` (``None``: not JSON data that round-trips exactly)."""
    import json  # not at import: the shipped pack's cold path reads no entry

    try:
        payload = json.dumps(
            {"stamp": _stamp(), "key": key, "data": data},
            ensure_ascii=True,
            separators=(",", ":"),
            allow_nan=False,
        ).encode("ascii")
    except (TypeError, ValueError, RecursionError):
        return None
    try:
        if _plain(json.loads(payload)["data"]) != data:
            return None
    except RecursionError:
        return None
    check = blake2b(payload, digest_size=32).hexdigest().encode("ascii")
    return _MAGIC + check + b" %d\n" % len(payload) + payload


def decode_entry(raw: bytes, key: str) -> Any:
    """The data of a verified entry for ``key``; ``ValueError`` for anything else."""
    import json

    if not raw.startswith(_MAGIC):
        raise ValueError("not a cache entry of this format")
    # (compiled here, not at import: only a cache entry needs it; re caches it)
    header = re.compile(rb"([0-9a-f]{64}) ([1-9][0-9]{0,9})\n").match(raw, len(_MAGIC))
    if header is None:
        raise ValueError("bad entry header")
    payload = raw[header.end() :]
    if len(payload) != int(header.group(2)):
        raise ValueError("entry length mismatch")
    if blake2b(payload, digest_size=32).hexdigest().encode("ascii") != header.group(1):
        raise ValueError("entry checksum mismatch")
    try:
        entry = json.loads(payload.decode("ascii"))
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ValueError("bad entry payload") from exc
    if not (
        type(entry) is dict
        and entry.keys() == {"stamp", "key", "data"}
        and _plain(entry["stamp"]) == _stamp()
        and entry["key"] == key
    ):
        raise ValueError("entry of another version or key")
    return _plain(entry["data"])


def _typed(rules: CompiledRules) -> bool:
    """Every intent label and priority of ``rules`` is one the types allow."""
    if rules.default_label not in _INTENTS:
        return False
    for spec in rules.specs:
        label = getattr(spec, "label", None)
        priority = getattr(spec, "priority", None)
        if label not in _INTENTS or type(priority) is not int:
            return False
        if not 0 <= priority <= _MAX_PRIORITY:
            return False
    return True


def _read_entry(file: Path, key: str) -> CompiledRules | None:
    """The rules of a trustworthy entry, or ``None`` (any fault is a miss)."""
    try:
        raw = read_bounded(file, ENTRY_LIMIT, follow_symlinks=False, owner=os.geteuid())
        rules = CompiledRules.from_data(decode_entry(raw, key))
    except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None
    except Exception:  # whatever else a hostile entry provokes: still only a miss
        return None
    return rules if _typed(rules) else None


def _write_entry(directory: Path, key: str, rules: CompiledRules) -> None:
    """Store ``rules`` atomically; any failure leaves the cache as it was."""
    import tempfile

    data = encode_entry(key, rules.to_data())
    if data is None or not _private(directory, create=True):
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".rules-", suffix=".tmp", dir=directory)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, directory / _entry_name(key))
    except OSError:
        with suppress(OSError):
            os.unlink(tmp)
        return
    _prune(directory)


def _prune(directory: Path) -> None:
    try:
        entries = sorted(
            (p for p in directory.glob("rules-*") if p.is_file() and not p.is_symlink()),
            key=lambda p: p.lstat().st_mtime,
        )
    except OSError:
        return
    current = [p for p in entries if p.suffix == ".json"]
    stale = [p for p in entries if p.suffix != ".json"]  # entries of the old format
    for old in stale + current[:-CACHE_LIMIT]:
        with suppress(OSError):
            old.unlink()


def render_default_pack() -> str:
    """Source of :mod:`smista.config._default_pack` for the current default pack file."""
    from pprint import pformat

    source = default_pack_path()
    content = source.read_bytes()
    rules = _validated(source, content)
    return (
        '"""Generated by ``python -m smista.config.rulecache --write-default-pack``: '
        "do not edit.\n\n"
        "The shipped default pack (rules/default.toml), compiled. ``DIGEST`` is the\n"
        "digest of the pack file it was compiled from; smista.config.rulecache uses ``DATA``\n"
        "(and ``DERIVED``, the tables the engine derives from it) only while the file on\n"
        'disk still has that digest.\n"""\n\n'
        "from __future__ import annotations\n\n"
        f"DIGEST = {digest(content)!r}\n\n"
        "DATA: tuple[object, ...] = " + pformat(rules.to_data(), width=96, compact=True) + "\n\n"
        "DERIVED: tuple[object, ...] = " + _literal(rules.derived_data()) + "\n"
    )


_ZIPPED = 16
"""Dicts of at least this many items are written as ``dict(zip(keys, values))``."""


def _literal(value: object) -> str:
    """Python source for plain data, the same in every process: frozensets are
    written sorted, dicts and tuples in their order (one line: the module is
    generated, and a line per item would only make it longer)."""
    if type(value) is tuple:
        items = ", ".join(map(_literal, value))
        return f"({items},)" if len(value) == 1 else f"({items})"
    if type(value) is dict:
        if len(value) < _ZIPPED:
            return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
        # (keys and values as two constant tuples: the module's bytecode builds the dict
        # in one call instead of a load and a store per item)
        keys, values = _literal(tuple(value)), _literal(tuple(value.values()))
        return f"dict(zip({keys}, {values}, strict=True))"
    if type(value) is frozenset:
        return f"frozenset({_literal(tuple(sorted(value)))})" if value else "frozenset()"
    if value is None or type(value) in (str, int, bool, bytes):
        return repr(value)
    raise TypeError(f"not plain data: {type(value).__name__}")


def _main(argv: list[str]) -> int:
    from pathlib import Path

    if argv != ["--write-default-pack"]:
        print("usage: python -m smista.config.rulecache --write-default-pack", file=sys.stderr)
        return 2
    target = Path(__file__).resolve().parent / "_default_pack.py"
    target.write_text(render_default_pack(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
