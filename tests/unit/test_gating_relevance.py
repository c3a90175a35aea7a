"""SPEC §4.5: code evidence required, three tiers on the backend's thresholds, grey
forces HIGH, reinvestigation guidance, cached matches and embedding suggestions."""

from __future__ import annotations

import pytest
from code_intel.gating.errors import GatingError
from code_intel.gating.interfaces import EmbedderNotReady, SimilarityThresholds
from code_intel.gating.model import LearnedPair, Tier
from code_intel.gating.relevance import cached_matches, judge, split_identifier, tier_for
from test_gating_fakes import (
    CONTROLLER,
    DETAILED,
    DETAILED_SLOTS,
    FakeClock,
    FakeEmbedder,
    assert_plain_json,
    make_engine,
    ready_session,
    run,
)

NOW = FakeClock().now()
GREY = FakeEmbedder(overrides={("ログイン機能", "User Repository"): 0.45})


def session(engine, intent="MODIFY", query=DETAILED):
    sid = engine.start_session(intent, query)["session_id"]
    engine.set_query_frame(sid, DETAILED_SLOTS)
    return sid


@pytest.mark.parametrize(
    "name, words",
    [
        ("AuthService", "Auth Service"),
        ("auth_service", "auth service"),
        ("App\\Services\\AuthService::isLockedOut", "App Services Auth Service is Locked Out"),
        ("HTTPClient", "HTTP Client"),
        ("ログイン", "ログイン"),
    ],
)
def test_identifiers_are_split_before_comparison(name, words):
    assert split_identifier(name) == words


def test_tier_boundaries_follow_the_spec():
    t = SimilarityThresholds()
    assert tier_for(0.61, t) is Tier.FACT
    assert tier_for(0.6, t) is Tier.GREY  # "> 0.6" is FACT, 0.6 itself is grey
    assert tier_for(0.3, t) is Tier.GREY
    assert tier_for(0.29, t) is Tier.REJECTED


def test_tiers_use_the_backends_calibration():
    """usem3-like and e5-like backends score on different scales."""
    e5 = SimilarityThresholds(fact=0.88, reject=0.84, consistency=0.86, map_hit=0.9)
    assert tier_for(0.86, SimilarityThresholds()) is Tier.FACT
    assert tier_for(0.86, e5) is Tier.GREY
    assert tier_for(0.83, e5) is Tier.REJECTED


def test_engine_takes_thresholds_from_the_embedder(tmp_path):
    e5 = SimilarityThresholds(fact=0.88, reject=0.84)
    engine = make_engine(
        tmp_path, embedder=FakeEmbedder(e5, overrides={("ログイン機能", "Login Controller"): 0.86})
    )
    sid = session(engine)
    r = engine.validate_symbol_relevance(sid, "ログイン機能", ["LoginController"], "login()")
    assert r["results"][0]["tier"] == "GREY"
    assert r["thresholds"]["fact"] == 0.88


def test_japanese_feature_and_english_symbol_pass_through_the_embedder(tmp_path):
    embedder = FakeEmbedder()
    engine = make_engine(tmp_path, embedder=embedder)
    sid = session(engine)
    r = engine.validate_symbol_relevance(
        sid, "ログイン機能", ["AuthService"], "AuthService::attempt() checks the password"
    )
    assert r["results"][0]["tier"] == "FACT" and r["approved"] == ["AuthService"]
    assert ("ログイン機能", "Auth Service") in embedder.asked  # split, then compared


def test_code_evidence_is_required(tmp_path):
    engine = make_engine(tmp_path)
    sid = session(engine)
    for evidence in (None, "", "   ", {"LoginController": "login()"}):
        with pytest.raises(GatingError) as err:
            engine.validate_symbol_relevance(
                sid, "ログイン機能", ["LoginController", "AuthService"], evidence
            )
        assert err.value.code == "code_evidence_required"
    assert not engine.get_session_status(sid)["relevance"]


def test_per_symbol_evidence_is_kept(tmp_path):
    engine = make_engine(tmp_path)
    sid = session(engine)
    r = engine.validate_symbol_relevance(
        sid, "ログイン機能", ["LoginController", "AuthService"],
        {"LoginController": "login() route", "AuthService": "attempt()"},
    )
    assert [x["code_evidence"] for x in r["results"]] == ["login() route", "attempt()"]


def test_three_tiers_in_one_call(tmp_path):
    engine = make_engine(tmp_path, embedder=GREY)
    sid = session(engine)
    r = engine.validate_symbol_relevance(
        sid, "ログイン機能", ["LoginController", "UserRepository", "StripePaymentGateway"],
        "LoginController::login uses UserRepository::findByEmail",
    )
    tiers = {x["symbol"]: (x["tier"], x["approved"]) for x in r["results"]}
    assert tiers == {
        "LoginController": ("FACT", True),
        "UserRepository": ("GREY", True),
        "StripePaymentGateway": ("REJECTED", False),
    }
    grey = next(x for x in r["results"] if x["symbol"] == "UserRepository")
    assert "grey zone" in grey["warning"]
    rejected = next(x for x in r["results"] if x["symbol"] == "StripePaymentGateway")
    assert rejected["source"] == "REJECTED"
    guidance = rejected["reinvestigation_guidance"]
    assert any("search_text" in a for a in guidance["next_actions"])
    assert any("find_references" in a for a in guidance["next_actions"])
    assert "SEMANTIC" in guidance["fallback"]
    assert r["rejected"] == ["StripePaymentGateway"]
    assert_plain_json(r)


def test_grey_zone_forces_high_and_raises_the_requirements(tmp_path):
    engine = make_engine(tmp_path, embedder=GREY)
    sid = session(engine)
    assert engine.get_session_status(sid)["risk"] == "LOW"
    r = engine.validate_symbol_relevance(sid, "ログイン機能", ["UserRepository"], "findByEmail")
    assert r["risk"] == "HIGH" and r["risk_forced_high"] is True
    status = engine.get_session_status(sid)
    assert status["risk"] == "HIGH" and status["requirements"]["symbols"] == 5
    # the LOW numbers no longer reach READY
    run(engine, sid, "find_definitions", symbol="LoginController")
    run(engine, sid, "find_references", symbol="AuthService")
    r = engine.submit_understanding(
        sid,
        symbols_identified=["LoginController", "LoginController::login", "AuthService"],
        entry_points=["LoginController::login"],
        files_analyzed=[CONTROLLER, "app/Services/AuthService.php"],
        existing_patterns=["throttling"],
    )
    assert r["phase"] == "SEMANTIC" and r["risk"] == "HIGH"


def test_nothing_called_in_ready_demotes_the_session(tmp_path):
    """Issue 14: the /code workflow's validate_symbol_relevance, called in READY with a
    grey or rejected verdict, pushed the session back to SEMANTIC and the next Edit was
    blocked. Only revert_to_exploration leaves READY."""
    engine = make_engine(tmp_path, embedder=GREY)
    sid = ready_session(engine)
    r = engine.validate_symbol_relevance(sid, "ログイン機能", ["UserRepository"], "findByEmail")
    assert r["phase"] == "READY" and r["risk"] == "LOW"
    assert "revert_to_exploration" in r["warning"]
    status = engine.get_session_status(sid)
    assert status["phase"] == "READY" and status["missing_requirements"] == []
    assert engine.check_write_target(sid, CONTROLLER)["allowed"] is True
    engine.revert_to_exploration(sid)  # the agent asks: then it leaves READY
    assert engine.check_write_target(sid, CONTROLLER)["allowed"] is False


def test_best_symbol_only_grey_at_submission_forces_high(tmp_path):
    engine = make_engine(
        tmp_path, embedder=FakeEmbedder(overrides={("ログイン画面", "User"): 0.4})
    )
    sid = session(engine)
    run(engine, sid, "find_definitions", symbol="User")
    run(engine, sid, "find_references", symbol="User")
    r = engine.submit_understanding(
        sid, symbols_identified=["User", "UserRepository", "Product"], entry_points=["User"],
        files_analyzed=["app/Models/User.php", "app/Repositories/UserRepository.php"],
        existing_patterns=["Eloquent model"],
    )
    assert r["risk"] == "HIGH" and r["phase"] == "SEMANTIC"


def test_unknown_symbols_are_refused(tmp_path):
    engine = make_engine(tmp_path)
    sid = session(engine)
    with pytest.raises(GatingError) as err:
        engine.validate_symbol_relevance(sid, "ログイン機能", ["LoginService"], "guess")
    assert err.value.details["unknown_symbols"] == ["LoginService"]


def test_cached_matches_come_from_learned_pairs(tmp_path):
    engine = make_engine(tmp_path)
    engine.store.add_learned_pairs(
        [LearnedPair("ログイン機能", "AuthService", 0.8, "attempt()", "sess_old", NOW, "q"),
         LearnedPair("注文", "OrderController", 0.9, "store()", "sess_old", NOW, "q")]
    )
    sid = session(engine)
    r = engine.validate_symbol_relevance(
        sid, "ログイン機能", ["AuthService", "OrderController"], "evidence"
    )
    assert [(m["nl_term"], m["symbol"]) for m in r["cached_matches"]] == [
        ("ログイン機能", "AuthService")
    ]


def test_cached_matches_accept_a_similar_term():
    pairs = [LearnedPair("sign in", "AuthService", 0.8, "e", "s", 1.0)]
    e = FakeEmbedder()
    assert cached_matches("ログイン", ["AuthService"], pairs, e.similarity, e.thresholds)
    assert not cached_matches("注文", ["AuthService"], pairs, e.similarity, e.thresholds)


def test_embedding_suggestions_rank_symbols_the_session_saw(tmp_path):
    engine = make_engine(tmp_path)
    sid = session(engine)
    run(engine, sid, "get_symbols", symbols=["LoginController::showLoginForm", "OrderController"],
        path="app/Http/Controllers")
    r = engine.validate_symbol_relevance(sid, "ログイン機能", ["UserRepository"], "findByEmail")
    suggested = {s["symbol"]: s["submitted"] for s in r["embedding_suggestions"]}
    assert suggested == {"LoginController::showLoginForm": False}


def test_rejected_symbols_leave_the_mapped_symbols(tmp_path):
    engine = make_engine(tmp_path)
    sid = session(engine)
    engine.validate_symbol_relevance(
        sid, "ログイン機能", ["LoginController", "OrderController"], "evidence"
    )
    mapped = engine.get_session_status(sid)["query_frame"]["mapped_symbols"]
    assert [(m["name"], m["source"]) for m in mapped] == [("LoginController", "FACT")]


def test_judge_is_pure():
    v = judge("ログイン", "AuthService", 0.1, SimilarityThresholds(), "x")
    assert v.tier is Tier.REJECTED and not v.approved and v.reinvestigation_guidance


def test_loading_model_answers_initializing(tmp_path):
    class Loading(FakeEmbedder):
        def similarity(self, a, b):
            raise EmbedderNotReady(3)

    engine = make_engine(tmp_path, embedder=Loading())
    started = engine.start_session("MODIFY", "ログイン機能直して")  # still starts
    assert started["shortcircuit_hint"]["found"] is False
    sid = started["session_id"]
    with pytest.raises(GatingError) as err:
        engine.validate_symbol_relevance(sid, "ログイン機能", ["AuthService"], "attempt()")
    assert err.value.code == "initializing" and err.value.details["retry_after_seconds"] == 3


def test_a_backends_own_not_ready_error_is_understood(tmp_path):
    class BackendNotReady(RuntimeError):  # indexing.embeddings has its own class
        retry_after_seconds = 4

    class Loading(FakeEmbedder):
        def similarity(self, a, b):
            raise BackendNotReady("loading")

    engine = make_engine(tmp_path, embedder=Loading())
    sid = engine.start_session("MODIFY", "ログイン機能直して")["session_id"]
    with pytest.raises(GatingError) as err:
        engine.validate_symbol_relevance(sid, "ログイン機能", ["AuthService"], "attempt()")
    assert err.value.details == {"status": "initializing", "retry_after_seconds": 4}


def test_thresholds_follow_a_backend_that_finishes_loading(tmp_path):
    embedder = FakeEmbedder(SimilarityThresholds(fact=0.9, reject=0.8))
    engine = make_engine(tmp_path, embedder=embedder)
    assert engine.thresholds.fact == 0.9
    embedder.thresholds = SimilarityThresholds()
    assert engine.thresholds.fact == 0.6
    pinned = make_engine(tmp_path, embedder=embedder,
                         thresholds=SimilarityThresholds(fact=0.7, reject=0.2))
    assert pinned.thresholds.fact == 0.7
