"""How far the word signals are trusted, per request (file_fusion.word_confidence).

The shape that failed on real apps (set (b) tune, English): a request whose words every
file of the app uses ("organization", "project", "time entry" in a time tracker) gives
chunk BM25 a flat top ten. Its first file is then a guess, yet rank fusion counted it
as much as for a request whose rare words single out one file, and the guess outranked
the file the vectors placed first (healthchecks en, umami en). With the words' weight
following their peak, flat words count less and peaked words more.
"""

from __future__ import annotations

import math

import pytest
from code_intel.indexing import file_fusion, search
from code_intel.indexing.file_fusion import confident_weights, word_confidence
from code_intel.indexing.lexical import FileHit

RIGHT = "app/Services/RoundingService.php"  # the vectors' first file
GUESS = "app/Models/Entry.php"  # the word signals' first file
FILLERS = [f"app/Models/Model{i}.php" for i in range(1, 9)]


def test_flat_word_scores_count_half_and_peaked_ones_more():
    lo, hi = file_fusion.WORD_CONFIDENCE
    flat = {f"f{i}.py": 11.0 - 0.1 * i for i in range(10)}  # best 11.0, tenth 10.1
    assert word_confidence(flat) == lo
    peaked = {**flat, "f0.py": 40.0}
    assert word_confidence(peaked) == hi
    at_reference = {**flat, "f0.py": 10.1 * math.exp(file_fusion.WORD_PEAK)}
    assert word_confidence(at_reference) == pytest.approx(1.0)


def test_the_peak_is_measured_against_the_tenth_file_or_the_last():
    three = {"a.py": 10.0 * math.exp(file_fusion.WORD_PEAK * 0.8), "b.py": 10.5, "c.py": 10.0}
    assert word_confidence(three) == pytest.approx(0.8)
    assert word_confidence({"a.py": 3.0}) == 1.0  # nothing to compare
    assert word_confidence({}) == 1.0


def test_only_chunk_and_whole_file_bm25_are_scaled():
    w = confident_weights(search.FILE_WEIGHTS, 0.5)
    assert w["lexical"] == search.FILE_WEIGHTS["lexical"] * 0.5
    assert w["file"] == search.FILE_WEIGHTS["file"] * 0.5
    assert {k: v for k, v in w.items() if k not in ("lexical", "file")} == {
        k: v for k, v in search.FILE_WEIGHTS.items() if k not in ("lexical", "file")}


def _candidates(with_vectors: bool = True) -> list[search._Candidate]:
    """The vectors rank RIGHT 1st (no clear lead: 0.01 over the next file) and GUESS 4th;
    chunk BM25 is flat (11.0 … 10.1 over ten files), GUESS 1st and RIGHT 6th."""
    out = []

    def cand(path: str, **kw: float) -> None:
        c = search._Candidate(path + "#c", path, "f", "method", "f", 0, 10, **kw)
        out.append(c)

    lexical_order = [GUESS, FILLERS[0], FILLERS[1], FILLERS[2], FILLERS[3], RIGHT, *FILLERS[4:]]
    vector = {RIGHT: (0.60, 1), "app/Other/A.php": (0.59, 2), "app/Other/B.php": (0.585, 3), GUESS: (0.58, 4)}
    for i, path in enumerate(lexical_order):
        kw: dict = {"lexical": 11.0 - 0.1 * i, "lexical_rank": i + 1}
        if with_vectors and path in vector:
            kw["vector"], kw["vector_rank"] = vector[path]
        cand(path, **kw)
    if with_vectors:
        for path in ("app/Other/A.php", "app/Other/B.php"):
            cand(path, vector=vector[path][0], vector_rank=vector[path][1])
    return out


def _file_hits() -> dict[str, FileHit]:
    order = [GUESS, FILLERS[0], FILLERS[1], FILLERS[2], RIGHT, *FILLERS[3:]]
    return {p: FileHit(p, 20.0 - i, i + 1, ("entry",)) for i, p in enumerate(order)}


def _rank(cands, translated=False, weights=None):  # type: ignore[no-untyped-def]
    return search._rank_files(cands, _file_hits(), {}, "rrf", 10, frozenset(), 0.25,
                              weights or search.FILE_WEIGHTS, translated=translated)


def test_flat_words_no_longer_outrank_the_vectors_first_file():
    files = _rank(_candidates())
    assert files[0].path == RIGHT
    # the same evidence with the words' full weight (main before this change) ranked the guess first
    full = file_fusion.rank_fusion(
        {"vector": {RIGHT: 1, "app/Other/A.php": 2, "app/Other/B.php": 3, GUESS: 4},
         "lexical": {p: i + 1 for i, p in enumerate(
             [GUESS, FILLERS[0], FILLERS[1], FILLERS[2], FILLERS[3], RIGHT, *FILLERS[4:]])},
         "file": {p: h.rank for p, h in _file_hits().items()}},
        search.FILE_WEIGHTS)
    assert max(full, key=full.get) == GUESS


def test_a_japanese_requests_translated_words_keep_their_weight():
    weights = file_fusion.translated_weights(search.FILE_WEIGHTS)
    scaled = {f.path: f.score for f in _rank(_candidates(), translated=True, weights=weights)}
    english_like = {f.path: f.score for f in _rank(_candidates(), translated=False, weights=weights)}
    assert scaled[GUESS] > english_like[GUESS]  # not halved: the translation discount stands alone


def test_without_vectors_the_word_signals_keep_their_weight():
    # words only (the model still loading, or the lexical-only evaluation row): nothing to
    # trade the words' weight against, so the ranking is rank fusion's own
    files = _rank(_candidates(with_vectors=False))
    assert files[0].path == GUESS
    assert files[0].score == pytest.approx(
        search.FILE_WEIGHTS["file"] / 61 + file_fusion.AGREEMENT_DECAY * search.FILE_WEIGHTS["lexical"] / 61)
