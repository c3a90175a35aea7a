"""A Japanese request's second vector query: its English pseudo-translation.

The encoder and the vector store are fakes here (two-dimensional vectors placed by hand),
so the test pins the rule itself: the pseudo-translation's list wins a chunk only when it
is surer than the Japanese query by more than PSEUDO_TRANSLATION_OFFSET. The store, the
lexical index, the segmenter and the dictionary are real (the Laravel fixture, MeCab,
JMdict). Measured on real apps in benchmarks/retrieval_eval.py (set (b))."""

from __future__ import annotations

import numpy as np
import pytest
from code_intel.indexing import ja_terms
from code_intel.indexing.embeddings.base import Thresholds
from code_intel.indexing.search import (
    PSEUDO_TRANSLATION_OFFSET,
    best_similarity,
    hybrid_query,
    vector_queries,
)
from code_intel.indexing.vectors import ForestHit

REQUEST = "ユーザーをログアウトさせる"  # "log the user out"
GOLD = "app/Services/AuthService.php"  # holds logout()
OTHER = "app/Models/User.php"


class _Encoder:
    """Japanese text → `ja`, anything else (the pseudo-translation) → `en`."""

    thresholds = Thresholds(fact=0.6, reject=0.3, consistency=0.5, map_hit=0.9)

    def __init__(self, ja: list[float], en: list[float]) -> None:
        self.vectors = {True: np.asarray(ja, np.float32), False: np.asarray(en, np.float32)}
        self.seen: list[str] = []

    def embed_queries(self, texts):  # type: ignore[no-untyped-def]
        self.seen.extend(texts)
        return np.stack([self.vectors[ja_terms.has_japanese(t)] for t in texts])

    def embed_query(self, text):  # type: ignore[no-untyped-def]
        return self.embed_queries([text])[0]


class _Forest:
    """Two chunks: GOLD at (1, 0), OTHER at (0, 1); exact nearest neighbours."""

    def __init__(self, encoder: _Encoder) -> None:
        self.embedder = encoder
        self.chunks = {GOLD: np.asarray([1.0, 0.0], np.float32), OTHER: np.asarray([0.0, 1.0], np.float32)}

    def query_forest(self, vector, n_results=10, where=None, *, store=None):  # type: ignore[no-untyped-def]
        scored = sorted(((float(v @ vector), p) for p, v in self.chunks.items()), reverse=True)
        return [ForestHit(id=p, path=p, symbol_name=p.rsplit("/", 1)[-1], symbol_type="class", qualified_name=p,
                          start_line=0, end_line=5, score=s, text="", rank=i, chunk_id=p)
                for i, (s, p) in enumerate(scored[:n_results], 1)]

    def query_forests(self, vectors, n_results=10, where=None):  # type: ignore[no-untyped-def]
        return [self.query_forest(v, n_results, where) for v in vectors]

    def query_map(self, vector, n_results=5):  # type: ignore[no-untyped-def]
        return []


def _vector_files(laravel_words, encoder: _Encoder) -> list[str]:
    store, lexical = laravel_words
    result = hybrid_query(REQUEST, store=store, lexical=lexical, vectors=_Forest(encoder),  # type: ignore[arg-type]
                          signals=("vector",), top=10)
    return [f.path for f in result.files]


def test_the_pseudo_translation_finds_what_the_japanese_query_missed(laravel_words):
    # the Japanese query leans to User.php (0.8 against 0.6); the English one is sure of AuthService
    encoder = _Encoder(ja=[0.6, 0.8], en=[1.0, 0.0])
    files = _vector_files(laravel_words, encoder)
    assert files[0] == GOLD, files
    assert any(not ja_terms.has_japanese(t) and "logout" in t for t in encoder.seen), encoder.seen


def test_a_pseudo_translation_only_a_little_surer_does_not_outbid_the_japanese(laravel_words):
    # a wrong sense's English similarity runs higher than a Japanese one for the same code:
    # 0.85 - PSEUDO_TRANSLATION_OFFSET is below the Japanese query's 0.8
    encoder = _Encoder(ja=[0.6, 0.8], en=[0.85, float(np.sqrt(1 - 0.85**2))])
    assert _vector_files(laravel_words, encoder)[0] == OTHER


def test_an_english_request_has_one_query():
    assert vector_queries("log the user out", ja_terms.Translation()) == [("log the user out", 0.0)]


def test_a_japanese_request_has_its_own_query_first_and_the_pseudo_translation_offset():
    queries = vector_queries(REQUEST, ja_terms.Translation(english="user logout"))
    assert queries == [(f"{REQUEST} (user logout)", 0.0), ("user logout", PSEUDO_TRANSLATION_OFFSET)]


def test_best_similarity_takes_each_querys_offset_off():
    assert best_similarity([0.6, 1.0], [0.0, 0.08]) == pytest.approx(0.92)
    assert best_similarity([0.8, 0.85], [0.0, 0.08]) == pytest.approx(0.8)
    assert best_similarity([0.5], [0.0]) == pytest.approx(0.5)
