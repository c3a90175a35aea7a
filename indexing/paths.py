"""Resolving a path someone typed or sent, with a sentence instead of a traceback.

`Path.resolve()` raises `ValueError` for a NUL byte, `RuntimeError` for a symlink
loop and `OSError` for a name the OS refuses (too long, undecodable); each entry point
(CLI, LSP, MCP) turns `UnusablePath` into its own kind of clear error.
"""

from __future__ import annotations

import errno
from pathlib import Path

MAX_PATH_CHARS = 4096  # PATH_MAX on Linux; longer cannot name a file anywhere


class UnusablePath(ValueError):
    """The path cannot name a file; the message says why."""


def resolve_path(path: str | Path, base: Path | None = None) -> Path:
    """`path` (relative to `base` when not absolute) resolved, or UnusablePath."""
    text = str(path)
    shown = text if len(text) <= 80 else text[:77] + "..."
    if "\x00" in text:
        raise UnusablePath(f"path {shown!r} contains a NUL byte")
    if len(text) > MAX_PATH_CHARS:
        raise UnusablePath(f"path of {len(text)} characters is longer than any file name can be ({MAX_PATH_CHARS})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UnusablePath(f"path {shown!r} is not valid UTF-8") from None
    candidate = Path(text)
    if base is not None and not candidate.is_absolute():
        candidate = base / candidate
    try:
        return candidate.resolve()
    except RuntimeError:  # Python 3.11-3.12: "Symlink loop from ..."
        raise UnusablePath(f"path {shown!r} goes through a symlink loop") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnusablePath(f"path {shown!r} goes through a symlink loop") from None
        raise UnusablePath(f"path {shown!r} cannot be used: {exc.strerror or exc}") from None
