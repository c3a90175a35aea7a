"""The gating engine (SPEC §4): sessions move EXPLORATION → SEMANTIC → VERIFICATION →
READY, and the server, not the model, decides when enough evidence exists.

Pure rule modules (query_frame, risk, requirements, relevance, semantic, phases,
writes, learning, logs) behind small interfaces (`interfaces`), persisted by `store`,
driven by `engine.GatingEngine`.
"""

from .config import GatingConfig, sessions_db_path
from .engine import GatingEngine
from .errors import GatingError
from .interfaces import Embedder, EmbedderNotReady, SimilarityThresholds, SymbolIndex
from .store import SessionStore

__all__ = [
    "Embedder",
    "EmbedderNotReady",
    "GatingConfig",
    "GatingEngine",
    "GatingError",
    "SessionStore",
    "SimilarityThresholds",
    "SymbolIndex",
    "sessions_db_path",
]
