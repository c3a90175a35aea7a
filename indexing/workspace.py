"""Locating a workspace and opening its config and store together."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import CONFIG_DIR, Config, load_config
from .paths import resolve_path
from .store import IndexStore


def find_root(start: Path) -> Path:
    """The nearest ancestor holding `.code-intel/` (or `.git/`), else `start` itself."""
    start = start.resolve()
    for marker in (CONFIG_DIR, ".git"):
        for candidate in (start, *start.parents):
            if (candidate / marker).is_dir():
                return candidate
    return start


@dataclass
class Workspace:
    root: Path
    config: Config
    store: IndexStore

    @classmethod
    def open(cls, root: Path) -> Workspace:
        root = root.resolve()
        config = load_config(root)
        return cls(root, config, IndexStore.for_workspace(root))

    def relative(self, path: str | Path) -> str:
        """Workspace-relative POSIX path for a user-given path (absolute or relative)."""
        resolved = resolve_path(path, Path.cwd())  # UnusablePath is a ValueError
        try:
            return resolved.relative_to(self.root).as_posix()
        except ValueError:
            raise ValueError(f"{path} is outside the workspace {self.root}") from None
