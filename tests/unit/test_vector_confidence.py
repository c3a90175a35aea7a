"""How far the vector signal is trusted, per request (file_fusion.vector_confidence).

The shape that failed on real apps (set (b) tune, English): the vectors put the right file
first, well above most other files ("download and cache the favicon of a website": the
favicon loader), while the words' first file is one they place lower; rank fusion gave the
vectors' first file `2/(K+1)` whether the vector signal singled it out or every file was
about as near, and the words' agreement won. With the vector weight following the vectors'
own peak (best file against the tenth), a peaked vector signal counts more and a flat one
keeps its weight.
"""

from __future__ import annotations

import pytest
from code_intel.indexing import file_fusion, search
from code_intel.indexing.file_fusion import vector_confidence
from code_intel.indexing.lexical import FileHit

GREY = 0.25  # the model's grey-zone width (fact − reject)
RIGHT = "bookmarks/services/favicon_loader.py"  # the vectors' first file
GUESS = "bookmarks/api/routes.py"  # the words' first file
NEAR = [f"bookmarks/near/v{i}.py" for i in range(1, 11)]  # files only the vectors find
WORDY = [f"bookmarks/wordy/w{i}.py" for i in range(1, 11)]  # files only the words find
#: the vectors' file similarities, best first: RIGHT 0.62, then 0.60 (no clear leader:
#: the gap is under CLEAR_LEAD), then far lower (peaked) or about as near (flat)
PEAKED = [0.62, 0.60] + [0.58 - 0.015 * i for i in range(8)]
FLAT = [0.62, 0.60] + [0.60 - 0.004 * i for i in range(8)]


def test_a_flat_vector_signal_keeps_its_weight_and_a_peaked_one_counts_more():
    lo, hi = file_fusion.VECTOR_CONFIDENCE
    flat = {p: s for p, s in zip(NEAR, FLAT, strict=True)}
    peaked = {p: s for p, s in zip(NEAR, PEAKED, strict=True)}
    assert vector_confidence(flat, GREY) == lo == 1.0
    assert vector_confidence(peaked, GREY) == hi > 1.0
    at_reference = {"a.py": 0.5 + file_fusion.VECTOR_PEAK * GREY * 1.1, "b.py": 0.5}
    assert vector_confidence(at_reference, GREY) == pytest.approx(min(hi, 1.1))


def test_nothing_to_compare_or_no_grey_zone_keeps_the_weight():
    assert vector_confidence({"a.py": 0.7}, GREY) == 1.0
    assert vector_confidence({}, GREY) == 1.0
    assert vector_confidence({"a.py": 0.9, "b.py": 0.1}, 0.0) == 1.0  # leaders not trusted


def _candidates(similarities: list[float]) -> list[search._Candidate]:
    """The vectors rank RIGHT 1st and GUESS 5th; chunk BM25 ranks GUESS 1st and RIGHT 2nd,
    with a typical peak (word confidence 1.0) and no clear leader."""
    vec = [RIGHT, *NEAR[:3], GUESS, *NEAR[3:8]]
    lex = [GUESS, RIGHT, *WORDY[:9]]
    lex_scores = [17.16] + [16.0 - 0.75 * i for i in range(9)] + [9.5]
    out = []
    for path in dict.fromkeys([*vec, *lex]):
        kw: dict = {}
        if path in vec:
            kw["vector"], kw["vector_rank"] = similarities[vec.index(path)], vec.index(path) + 1
        if path in lex:
            kw["lexical"], kw["lexical_rank"] = lex_scores[lex.index(path)], lex.index(path) + 1
        out.append(search._Candidate(path + "#c", path, "f", "function", "f", 0, 10, **kw))
    return out


def _file_hits() -> dict[str, FileHit]:
    order = [GUESS, *WORDY[:5], RIGHT, *WORDY[5:9]]  # whole-file BM25: GUESS 1st, RIGHT 7th
    return {p: FileHit(p, 20.0 - i, i + 1, ("favicon",)) for i, p in enumerate(order)}


def _scores(similarities: list[float], translated: bool = False) -> dict[str, float]:
    weights = file_fusion.translated_weights(search.FILE_WEIGHTS) if translated else search.FILE_WEIGHTS
    files = search._rank_files(_candidates(similarities), _file_hits(), {}, "rrf", 10, frozenset(), GREY,
                               weights, translated=translated)
    return {f.path: f.score for f in files}


def _rank(similarities: list[float]) -> list[str]:
    scores = _scores(similarities)
    return sorted(scores, key=lambda p: (-scores[p], p))


def test_a_peaked_vector_signals_first_file_outranks_the_words_first_file(monkeypatch):
    assert _rank(PEAKED)[0] == RIGHT
    # the same evidence with the vectors' weight fixed (main before this change): the words won
    monkeypatch.setattr(file_fusion, "VECTOR_CONFIDENCE", (1.0, 1.0))
    assert _rank(PEAKED)[0] == GUESS


def test_a_flat_vector_signal_leaves_the_words_first_file_ahead():
    # the same ranks with every file about as near: the vectors' order is a guess
    assert _rank(FLAT)[0] == GUESS


def test_a_japanese_requests_vectors_keep_their_weight(monkeypatch):
    # its vectors already weigh more against translated words (translated_weights); scaling
    # them too lowered linkding and solidtime ja on the tune data
    scaled = _scores(PEAKED, translated=True)
    monkeypatch.setattr(file_fusion, "VECTOR_CONFIDENCE", (1.0, 1.0))
    assert scaled == _scores(PEAKED, translated=True)
