"""The engine of one workspace, built the same way by the language server and by the
Claude Code hook when no server runs (both read and write `.code-intel/sessions.db`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from code_intel.indexing.config import Config
from code_intel.indexing.store import IndexStore

from .agreements import AgreementFiles
from .config import GatingConfig, sessions_db_path
from .engine import GatingEngine
from .index_adapter import IndexSymbols
from .interfaces import Embedder, PairSink, SymbolIndex
from .store import SessionStore


def open_engine(
    root: Path,
    config: Config,
    embedder: Embedder,
    *,
    index: SymbolIndex | None = None,
    store: IndexStore | None = None,
    sinks: Sequence[PairSink] = (),
    sync_status: Callable[[], Mapping[str, Any]] | None = None,
) -> GatingEngine:
    """`index` defaults to the on-disk index (`store`, opened when not given);
    learned pairs always go to `learned_pairs.json` and `agreements/*.md`."""
    root = Path(root).resolve()
    if index is None:
        index = IndexSymbols.for_store(store or IndexStore.for_workspace(root))
    return GatingEngine(
        SessionStore(sessions_db_path(root)),
        index,
        embedder,
        GatingConfig.from_workspace(root, config),
        sinks=(AgreementFiles(root), *sinks),
        sync_status=sync_status,
    )
