"""A Japanese request's translated word names a definition only if few definitions share it
(search.TRANSLATED_SINGLE_WORD_MAX_DEFINITIONS).

The shape that failed on real apps (set (b) tune, Japanese): a word becomes a common English
name (ブックマーク → bookmark in linkding, ユーザー → user in laravel.io, 組織 → organization in
solidtime) that many models and resources define, so the definition signal voted for each of
them and they outranked the file the request is about. Here: 保存 → save, defined by three
models, for 下書きを保存する (save the draft). A translated word is a guess at the request's
word; a guess that names many definitions names none of them.
Only with the vector signal: words alone (the model still loading) keep every vote.
Real tree-sitter indexing, real FTS5, real MeCab and JMdict; the encoder and the vector
store are fakes (every chunk about as near: a flat vector signal with no clear leader).
"""

from __future__ import annotations

import numpy as np
import pytest
from code_intel.indexing.embeddings.base import Thresholds
from code_intel.indexing.search import hybrid_query
from code_intel.indexing.store import IndexStore
from code_intel.indexing.vectors import ForestHit

from tests.conftest import indexed_words

MODELS = ("app/models/user.py", "app/models/tag.py", "app/models/team.py")
FILES = {
    **{path: (f"class {path.rsplit('/', 1)[1][:-3].title()}:\n    def save(self):\n"
              f'        """Save the record."""\n        self.db.write(self)\n') for path in MODELS},
    "app/drafts/keeper.py": ('class DraftKeeper:\n    def keep(self, draft):\n'
                             '        """Keep a draft until it is published."""\n        self.drafts.append(draft)\n'),
    "app/drafts/publisher.py": ('def publish(draft):\n    """Publish a draft: it becomes a post."""\n'
                                "    draft.state = 'published'\n"),
}
WORDS = ("lexical", "definition", "reference")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return indexed_words(tmp_path_factory.mktemp("translated_definitions") / "ws", FILES)


class _Encoder:
    thresholds = Thresholds(fact=0.6, reject=0.3, consistency=0.5, map_hit=0.9)

    def embed_queries(self, texts):  # type: ignore[no-untyped-def]
        return np.ones((len(texts), 2), np.float32)


class _Vectors:
    """Every chunk of the workspace at about the same similarity: the drafts' 0.51, the
    models' 0.50. A flat vector signal, with no clear leader."""

    def __init__(self, store: IndexStore) -> None:
        self.embedder = _Encoder()
        self.spans = [k for path in sorted(FILES) for k in store.chunk_spans(path)]

    def query_forest(self, vector, n_results=10, where=None, *, store=None):  # type: ignore[no-untyped-def]
        scored = sorted(self.spans, key=lambda k: (k.path.startswith("app/models/"), k.path, k.start_line))
        return [ForestHit(id=f"{k.path}:{k.start_line}", path=k.path, symbol_name=k.symbol_name,
                          symbol_type=k.symbol_type, qualified_name=k.qualified_name, start_line=k.start_line,
                          end_line=k.end_line, score=0.50 if k.path.startswith("app/models/") else 0.51,
                          text="", rank=i)
                for i, k in enumerate(scored[:n_results], 1)]

    def query_forests(self, vectors, n_results=10, where=None):  # type: ignore[no-untyped-def]
        return [self.query_forest(v, n_results, where) for v in vectors]

    def query_map(self, vector, n_results=5):  # type: ignore[no-untyped-def]
        return []


def _files(workspace, text: str, with_vectors: bool = True):  # type: ignore[no-untyped-def]
    store, lexical = workspace
    vectors = _Vectors(store) if with_vectors else None
    signals = (*WORDS, "vector") if with_vectors else WORDS
    return hybrid_query(text, store=store, lexical=lexical, vectors=vectors, signals=signals).files  # type: ignore[arg-type]


def test_a_translated_word_every_model_defines_does_not_pull_the_models_up(workspace):
    files = _files(workspace, "下書きを保存する")  # save the draft; 保存 → save
    assert files[0].path == "app/drafts/keeper.py"
    # before: the models' `save()` votes put app/models/tag.py first
    assert not any("save" in f.evidence.get("definitions", ()) for f in files)


def test_words_alone_keep_the_shared_definitions_vote(workspace):
    # no vector signal (the model still loading): the definition votes are kept, as before
    files = _files(workspace, "下書きを保存する", with_vectors=False)
    assert {f.path for f in files if "save" in f.evidence.get("definitions", ())} == set(MODELS)


def test_a_translated_word_one_definition_has_still_names_it(workspace):
    files = _files(workspace, "下書きを公開する")  # publish the draft; 公開 → publish
    assert files[0].path == "app/drafts/publisher.py"
    assert files[0].evidence["definitions"] == ["publish"]


def test_an_english_request_keeps_naming_the_shared_definition(workspace):
    files = _files(workspace, "save the draft")
    assert {f.path for f in files if "save" in f.evidence.get("definitions", ())} == set(MODELS)
