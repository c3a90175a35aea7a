"""The two-tier rules on their own: which tier a stored chunk and a file have, the
one cheap text of a fast vector, the progress line, and the config key."""

from __future__ import annotations

import pytest
from code_intel.indexing.config import ConfigError, parse_config
from code_intel.indexing.embed_text import FAST_PLAIN_WORDS, compact_views, fast_view
from code_intel.indexing.model import Chunk
from code_intel.indexing.vector_tiers import (
    FAST,
    FULL,
    chunk_tier,
    file_tier,
    first_tier,
    progress_summary,
    scaled_vector_weight,
)


def test_vectors_from_before_the_tiers_count_as_full():
    assert chunk_tier({"path": "a.py"}) == FULL
    assert chunk_tier(None) == FULL
    assert chunk_tier({"tier": "fast"}) == FAST
    assert chunk_tier({"tier": "bogus"}) == FULL


def test_a_file_is_full_only_when_every_chunk_is():
    assert file_tier([FULL, FULL]) == FULL
    assert file_tier([FULL, FAST]) == FAST
    assert file_tier([]) == FULL  # nothing embedded, nothing to refine
    assert first_tier(True) == FAST and first_tier(False) == FULL


def test_the_fast_text_of_a_symbol_is_its_short_label():
    chunk = Chunk(
        "app/Http/Controllers/Auth/LoginController.php", "php", "login", "method", 10, 12,
        "public function login() { $this->auth->attempt(); }",
        {"qualified_name": "App\\Http\\Controllers\\Auth\\LoginController::login"},
    )
    views = compact_views(chunk)
    assert len(views) == 3
    assert fast_view(views) == views[0] == "Login Controller login"


def test_the_fast_text_of_a_window_keeps_its_first_words_and_its_file():
    words = ["install", "the", "package", "with", "pip", "then", "run", "the", "server", "and", "open",
             "the", "editor", "to", "see", "what", "the", "index", "found", "in", "every", "folder"]
    body = " ".join(words * 8)
    chunk = Chunk("docs/guide/install.md", "markdown", "", "lines", 0, 49, body)
    views = compact_views(chunk)
    text = fast_view(views)
    head, file_line = text.split("\n")
    assert head.split() == words[:FAST_PLAIN_WORDS]
    assert file_line == "file: docs guide install md"
    assert len(text) < len(views[0]) / 4
    assert fast_view(["no file line here at all"]) == "no file line here at all"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("syncing", FAST, 3, 40, 0), "fast vectors: 3/40 files"),
        (("syncing", FULL, 3, 40, 0), "embedding: 3/40 files"),
        (("syncing", "refining", 128, 900, 0), "searchable (fast); refining 128/900 chunks"),
        (("idle", "", 0, 0, 772), "searchable (fast); 772 chunks not refined yet"),
        (("idle", "", 0, 0, 0), "searchable"),
        (("waiting_for_model", "", 0, 0, 0), "waiting for the embedding model"),
        (("error", "", 0, 0, 0), "vector sync failed"),
    ],
)
def test_progress_says_which_tier(args, expected):
    assert progress_summary(*args) == expected


def test_the_config_key_is_validated():
    assert parse_config({}).embed_fast_tier is True
    assert parse_config({"embed_fast_tier": False}).embed_fast_tier is False
    with pytest.raises(ConfigError, match="embed_fast_tier"):
        parse_config({"embed_fast_tier": "sometimes"})


def test_fast_vector_hits_count_less_in_the_fusion():
    assert scaled_vector_weight(2.0, 0.0, 0.5) == 2.0  # all refined: as before
    assert scaled_vector_weight(2.0, 1.0, 0.5) == 1.0  # all fast: half
    assert scaled_vector_weight(2.0, 0.5, 0.5) == 1.5
    assert scaled_vector_weight(2.0, 3.0, 0.5) == 1.0  # a share is clamped
