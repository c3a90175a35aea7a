"""The workspace's store is private to its owner: `.code-intel/` 0700, its files 0600.

The store holds the code (index, lexical and vector stores), the agents' sessions and
the endpoint's token, so no other local user may read it. SQLite and Chroma create
their files with the process umask, so the modes are set on the directory when a
store opens and tightened again after each sync; an older store made 0755/0644 is
tightened the first time it is opened.

Where the store lives (`store_dir`): `.code-intel/` in the workspace when this user may
write there, else a per-user cache directory keyed by the workspace's real path, so a
read-only checkout (another user's, or `chmod -w`) is still indexed and served.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from pathlib import Path

CONFIG_DIR = ".code-intel"  # here, not in config: the hook finds the store without attrs
DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) and make it 0700; return it."""
    try:
        if not path.parent.exists():  # the cache's own directories are private too
            private_dir(path.parent)
        path.mkdir(mode=DIR_MODE, exist_ok=True)
    except PermissionError as exc:  # a read-only checkout, or another user's
        raise PermissionError(
            exc.errno,
            f"cannot create the code-intel store {path}: permission denied (a read-only or another "
            "user's checkout); index a copy you own",
        ) from None
    with contextlib.suppress(OSError):  # not ours (another user's checkout): reported elsewhere
        if stat.S_IMODE(path.stat().st_mode) != DIR_MODE:
            os.chmod(path, DIR_MODE)
    return path


def tighten(state_dir: Path) -> None:
    """0700 on the directory and every directory in it, 0600 on every file (sockets
    included); symlinks are not followed."""
    if not state_dir.is_dir():
        return
    private_dir(state_dir)
    for dirpath, dirnames, filenames in os.walk(state_dir):
        for name in dirnames:
            _chmod(Path(dirpath, name), DIR_MODE)
        for name in filenames:
            _chmod(Path(dirpath, name), FILE_MODE)


def _chmod(path: Path, mode: int) -> None:
    with contextlib.suppress(OSError):  # vanished meanwhile, or not ours
        st = path.lstat()
        if not stat.S_ISLNK(st.st_mode) and stat.S_IMODE(st.st_mode) & ~mode:
            os.chmod(path, stat.S_IMODE(st.st_mode) & mode)


def store_dir(root: Path) -> Path:
    """The directory holding `root`'s store: `root/.code-intel` if this user can write
    there (or create it), else `cache_store_dir(root)`."""
    local = Path(root) / CONFIG_DIR
    existing = local
    while not existing.exists() and existing.parent != existing:  # a store about to be made
        existing = existing.parent
    return local if os.access(existing, os.W_OK | os.X_OK) else cache_store_dir(root)


def cache_store_dir(root: Path) -> Path:
    """`$XDG_CACHE_HOME/code-intel/<16 hex of sha256(realpath)>` (default `~/.cache`):
    per user and per workspace; created 0700 when a store opens in it."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    cache = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    key = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache / "code-intel" / key


def in_cache(state_dir: Path, root: Path) -> bool:
    return state_dir != Path(root) / CONFIG_DIR
