"""Reading an input file smista was given: a regular file, under a size cap, refused in one line.

I/O edge (opens files). Every file smista reads by name — rules and config
TOML, case files, golden files, preview request files, rule-cache entries —
goes through :func:`read_bounded` (and batch input from a path through
:func:`open_regular`). The file is opened non-blocking (so a FIFO with no
writer cannot hang the open), checked with ``fstat`` to be a regular file and
no larger than the cap, and read with at most ``cap + 1`` bytes requested (a
file that grows while being read is still bounded). ``/dev/zero``, a FIFO, a
socket or a directory is refused at once, and so is a huge sparse file (by its
size, before any byte is read).

Refusals raise :class:`InputFileError`, an ``OSError`` whose ``strerror`` is
a short phrase ("is a FIFO, not a regular file", "is 2147483648 bytes, over
the 8388608-byte limit") and whose ``filename`` is the path; callers word it
as their own one-line error. Must never read more than the cap, block on a
special file, or follow a symlink when told not to.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import IO

__all__ = [
    "CASES_LIMIT",
    "CONFIG_LIMIT",
    "MODEL_LIMIT",
    "InputFileError",
    "model_path",
    "open_regular",
    "read_bounded",
    "read_text",
    "unreadable",
]

CONFIG_LIMIT = 8 << 20
"""Largest rules or config TOML file read (8 MiB; the shipped pack is 9 KB)."""

CASES_LIMIT = 64 << 20
"""Largest case, golden or request file read (64 MiB)."""

MODEL_LIMIT = 16 << 20
"""Largest text model file (``[classification.model] file``) read, in bytes."""


def model_path(file: str, source: str | None) -> str:
    """Where ``[classification.model] file`` points: relative to the rules file's folder
    (to the working directory for a document not read from a file)."""
    if os.path.isabs(file) or source is None:
        return file
    return os.path.join(os.path.dirname(source), file)


class InputFileError(OSError):
    """A file smista refuses to read: not a regular file, or over its size cap."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        super().__init__(errno.EINVAL, why, os.fspath(path))


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory, not a regular file"
    if stat.S_ISFIFO(mode):
        return "is a FIFO, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    return "is not a regular file"


def _open(path: str | os.PathLike[str], follow_symlinks: bool) -> tuple[int, os.stat_result]:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise InputFileError(path, "is a symbolic link, not a regular file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(path, _kind(info.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _too_large(path: str | os.PathLike[str], size: int | None, cap: int) -> InputFileError:
    what = f"is {size} bytes" if size is not None else "is larger than that"
    return InputFileError(path, f"{what}, over the {cap}-byte limit")


def read_bounded(
    path: str | os.PathLike[str],
    cap: int,
    *,
    follow_symlinks: bool = True,
    owner: int | None = None,
) -> bytes:
    """The bytes of regular file ``path``; :class:`InputFileError` if not one or over ``cap``.

    ``owner``, if given, is the only user id the file may belong to.
    """
    fd, info = _open(path, follow_symlinks)
    try:
        if owner is not None and info.st_uid != owner:
            raise InputFileError(path, "is owned by another user")
        if info.st_size > cap:
            raise _too_large(path, info.st_size, cap)
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            chunk = os.read(fd, min(cap + 1 - total, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > cap:
            raise _too_large(path, None, cap)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], cap: int) -> str:
    """The UTF-8 text of regular file ``path`` (:func:`read_bounded`, then decoded).

    Raises ``OSError`` or ``UnicodeDecodeError``; :func:`unreadable` words either.
    """
    return read_bounded(path, cap).decode("utf-8")


def unreadable(exc: OSError | UnicodeDecodeError) -> str:
    """Why :func:`read_text` failed, as a caller's one-line error says it."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not valid UTF-8 (byte {exc.start})"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    return f"cannot read file: {exc.strerror or exc}"


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """``path`` opened for binary reading, if it is a regular file (no size cap: it streams)."""
    fd, _ = _open(path, True)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")
