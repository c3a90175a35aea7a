"""The gating engine's settings, taken from the workspace config in one place."""

from __future__ import annotations

from pathlib import Path

import attrs
from code_intel.indexing.config import Config
from code_intel.indexing.private import store_dir

from .interfaces import SimilarityThresholds

SESSIONS_DB = "sessions.db"
DEFAULT_EXEMPT_PATTERNS = ("**/*.md", "**/*.rst", "**/*.txt", "docs/**")


@attrs.frozen
class GatingConfig:
    """`workspace_root` confines writes (SPEC §4.8); `write_exempt_patterns` are the
    documentation files a write check lets through without exploration;
    `session_ttl_hours` is the inactivity after which a session expires;
    `learned_pair_days` purges learned pairs (SPEC §4.9, `auto_purge_days`);
    `thresholds` overrides the embedder's own calibration when set."""

    workspace_root: Path = attrs.field(converter=lambda p: Path(p).resolve())
    write_exempt_patterns: tuple[str, ...] = attrs.field(
        default=DEFAULT_EXEMPT_PATTERNS, converter=tuple
    )
    session_ttl_hours: float = 24.0
    learned_pair_days: int = 30
    thresholds: SimilarityThresholds | None = None
    max_plan_tools: int = 4

    @classmethod
    def from_workspace(cls, root: Path, config: Config, **overrides: object) -> GatingConfig:
        return cls(
            workspace_root=root,
            write_exempt_patterns=tuple(config.write_exempt_patterns),
            learned_pair_days=config.auto_purge_days,
            **overrides,  # type: ignore[arg-type]
        )


def sessions_db_path(root: Path) -> Path:
    """A sibling of the index database: the index is rebuilt on schema changes,
    sessions must survive that."""
    return store_dir(Path(root)) / SESSIONS_DB
