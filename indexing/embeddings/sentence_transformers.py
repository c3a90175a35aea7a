"""`sentence-transformers:<name-or-path>`: any sentence-transformers model (extra `st`).

A local directory is loaded with the hub switched off, so nothing is downloaded; a
hub name works where the hub is reachable (for instance
`sentence-transformers:intfloat/multilingual-e5-small`). Models whose name says E5
get the `query: ` / `passage: ` prefixes they were trained with and the E5
thresholds; others get the thresholds measured on all-MiniLM-L6-v2.

`import sentence_transformers` alone takes ~8 s (torch): it happens here, in the
loader, which `LazyEmbedder` runs off the request path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the threshold table must not load numpy
    import numpy as np

from .base import Embedder, EmbedderConfigError, EmbeddingError, Thresholds
from .e5_q4 import THRESHOLDS as E5_THRESHOLDS

PREFIX = "sentence-transformers:"

# all-MiniLM-L6-v2 (English only): related English pairs 0.41–0.66, unrelated ≤ 0.10,
# paraphrased requests 0.81–0.93 but two different English requests reached 0.70;
# Japanese queries land near 0 whatever they mean.
MINILM_THRESHOLDS = Thresholds(fact=0.4, reject=0.15, consistency=0.4, map_hit=0.75)


def is_e5(name: str) -> bool:
    return "e5" in Path(name.rstrip("/")).name.lower().replace("_", "-").split("-")


def thresholds_for(name: str) -> Thresholds:
    return E5_THRESHOLDS if is_e5(name) else MINILM_THRESHOLDS


class SentenceTransformerEmbedder(Embedder):
    batch_size = 32

    def __init__(self, name_or_path: str) -> None:
        super().__init__()
        if not name_or_path.strip():
            raise EmbedderConfigError(
                "embedding_model 'sentence-transformers:' needs a model name or path after the colon"
            )
        self.spec = PREFIX + name_or_path
        self.thresholds = thresholds_for(name_or_path)
        self._prefixes = ("query: ", "passage: ") if is_e5(name_or_path) else ("", "")
        local = Path(name_or_path).expanduser()
        if local.exists():
            # Never reach for the hub for a model we have on disk.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            target = str(local.resolve())
        elif name_or_path.startswith(("/", ".", "~")):
            raise EmbedderConfigError(f"sentence-transformers model path {name_or_path} does not exist")
        else:
            target = name_or_path
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderConfigError(
                "embedding_model 'sentence-transformers:…' needs the sentence-transformers "
                f"package (pip install 'code-intel[st]'): {exc}"
            ) from None
        try:
            self._model = SentenceTransformer(target, device="cpu")
        except Exception as exc:  # noqa: BLE001 - hub errors, missing files, bad configs
            raise EmbeddingError(f"cannot load sentence-transformers model {name_or_path!r}: {exc}") from None
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        self.dimension = int(dim) if dim else int(self._model.encode(["x"]).shape[-1])

    def _encode(self, texts: list[str], prefix: str) -> np.ndarray:
        return self._model.encode(
            [prefix + t for t in texts],
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    def _encode_documents(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, self._prefixes[1])

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, self._prefixes[0])
