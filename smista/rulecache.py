"""Loading rule files straight into the compiled matcher, without pydantic when possible.

I/O edge (reads rule files, reads and writes a cache directory, reads the
environment). ``load_rules(path)`` returns the :class:`CompiledRules` of a rules
file (``None``: the shipped default pack). A file seen before is not parsed or
validated again: its compiled form is read from a cache entry keyed by

* the file's content (BLAKE2b digest of its bytes), so any change misses;
* the smista version, the Python version and build, the marshal format and
  the engine's data format, all of which are stored in the entry and checked.

Entries are plain nested tuples of ``str``/``int`` written with :mod:`marshal`
(never pickle) and validated field by field on load; an entry that is
unreadable, truncated, of another version or of the wrong shape is ignored and
rebuilt. Writes go to a temporary file renamed into place (atomic), and a
cache directory that cannot be written is simply not used. A file never seen
before is validated through the pydantic models with exactly the messages of
:func:`smista.load_config`.

The shipped default pack is precompiled into :mod:`smista._default_pack`
(regenerate with ``python -m smista.rulecache --write-default-pack``); it is used
only when its recorded digest equals the digest of the pack file on disk.

Cache directory: ``$SMISTA_CACHE_DIR``, else ``$XDG_CACHE_HOME/smista``, else
``~/.cache/smista``. Set ``SMISTA_CACHE_DIR`` to an empty string to disable it.

Must never unpickle or execute cache contents, trust an entry it has not
validated, or import pydantic unless a file has to be validated.
"""

from __future__ import annotations

import marshal
import os
import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

from smista import __version__
from smista._files import CONFIG_LIMIT, read_bounded
from smista.engine import FORMAT, CompiledRules

try:  # the builtin module: importing hashlib would also load OpenSSL
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - non-CPython builds
    from hashlib import blake2b

__all__ = [
    "CACHE_LIMIT",
    "cache_dir",
    "cache_key",
    "default_pack_path",
    "load_rules",
    "render_default_pack",
]

CACHE_LIMIT = 64
"""Most entries kept in the cache directory (oldest removed first)."""

_MAGIC = "smista-rules"


def default_pack_path() -> Path:
    """The shipped default pack (``smista/_rules`` in a wheel, ``rules/`` in a checkout)."""
    here = Path(__file__).resolve().parent
    packaged = here / "_rules" / "default.toml"
    if packaged.is_file():
        return packaged
    return here.parent / "rules" / "default.toml"


def cache_dir() -> Path | None:
    """Where compiled rules are cached (``None``: caching disabled)."""
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
    return (__version__, sys.version, marshal.version, FORMAT)


def digest(content: bytes) -> str:
    """The content digest used in cache keys."""
    return blake2b(content, digest_size=20).hexdigest()


def cache_key(content: bytes) -> str:
    """The cache file name for a rules file with bytes ``content``."""
    stamp = repr(_stamp()).encode()
    return blake2b(content + b"\0" + stamp, digest_size=20).hexdigest()


def load_rules(path: str | Path | None) -> CompiledRules:
    """The compiled rules of ``path`` (or of the shipped default pack)."""
    source = default_pack_path() if path is None else path
    try:
        content = read_bounded(source, CONFIG_LIMIT)
    except OSError:
        return _validated(source, None)  # raises the loader's own ConfigError
    shipped = _shipped(content)
    if shipped is not None:
        return shipped
    directory = cache_dir()
    key = cache_key(content)
    if directory is not None:
        cached = _read_entry(directory / f"rules-{key}.bin", key)
        if cached is not None:
            return cached
    rules = _validated(source, content)
    if directory is not None:
        _write_entry(directory, key, rules)
    return rules


def _validated(source: str | Path, content: bytes | None) -> CompiledRules:
    """Parse and validate with the pydantic models (identical errors to load_config)."""
    from smista.classifier import compile_rules
    from smista.config import load_config, parse_config

    if content is None:
        return compile_rules(load_config(source))
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return compile_rules(load_config(source))  # reports the decoding error
    return compile_rules(parse_config(text, str(source)))


def _shipped(content: bytes) -> CompiledRules | None:
    try:
        from smista import _default_pack
    except ImportError:
        return None
    if digest(content) != _default_pack.DIGEST:
        return None
    try:
        return CompiledRules.from_data(_default_pack.DATA)
    except ValueError:
        return None


def _read_entry(file: Path, key: str) -> CompiledRules | None:
    try:
        raw = file.read_bytes()
    except OSError:
        return None
    try:
        entry: Any = marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return None
    if not (
        type(entry) is tuple
        and len(entry) == 4
        and entry[0] == _MAGIC
        and entry[1] == _stamp()
        and entry[2] == key
    ):
        return None
    try:
        return CompiledRules.from_data(entry[3])
    except (ValueError, TypeError):
        return None


def _write_entry(directory: Path, key: str, rules: CompiledRules) -> None:
    """Store ``rules`` atomically; any failure leaves the cache as it was."""
    import tempfile

    entry: Any = (_MAGIC, _stamp(), key, rules.to_data())
    data = marshal.dumps(entry)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".rules-", suffix=".tmp", dir=directory)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, directory / f"rules-{key}.bin")
    except OSError:
        with suppress(OSError):
            os.unlink(tmp)
        return
    _prune(directory)


def _prune(directory: Path) -> None:
    try:
        entries = sorted(directory.glob("rules-*.bin"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    for old in entries[:-CACHE_LIMIT]:
        with suppress(OSError):
            old.unlink()


def render_default_pack() -> str:
    """Source of :mod:`smista._default_pack` for the current default pack file."""
    from pprint import pformat

    source = default_pack_path()
    content = source.read_bytes()
    rules = _validated(source, content)
    return (
        '"""Generated by ``python -m smista.rulecache --write-default-pack``: do not edit.\n\n'
        "The shipped default pack (rules/default.toml), compiled. ``DIGEST`` is the\n"
        "digest of the pack file it was compiled from; smista.rulecache uses ``DATA``\n"
        'only while the file on disk still has that digest.\n"""\n\n'
        "from __future__ import annotations\n\n"
        f"DIGEST = {digest(content)!r}\n\n"
        "DATA: tuple[object, ...] = " + pformat(rules.to_data(), width=96, compact=True) + "\n"
    )


def _main(argv: list[str]) -> int:
    if argv != ["--write-default-pack"]:
        print("usage: python -m smista.rulecache --write-default-pack", file=sys.stderr)
        return 2
    target = Path(__file__).resolve().parent / "_default_pack.py"
    target.write_text(render_default_pack(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
