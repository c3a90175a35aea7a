"""SPEC §4.9 learning: record_outcome → learned pairs (store, learned_pairs.json,
agreements/*.md, any other sink) → the map short-circuit hint of the next similar
session; 30-day purge; pairs whose symbol vanished are dropped."""

from __future__ import annotations

import json

import pytest
from code_intel.gating.agreements import AgreementFiles, agreement_name
from code_intel.gating.errors import GatingError
from test_gating_fakes import FakeClock, FakeIndex, make_engine, ready_session


class RecordingSink:
    def __init__(self):
        self.calls = []

    def pairs_changed(self, current, added, removed):
        self.calls.append(([p.symbol for p in current], [p.symbol for p in added],
                           [p.symbol for p in removed]))


def learn(engine, outcome="success"):
    sid = ready_session(engine)
    engine.validate_symbol_relevance(
        sid, "ログイン機能", ["LoginController", "AuthService", "OrderController"],
        {"LoginController": "login() checks the credentials",
         "AuthService": "attempt() and isLockedOut()",
         "OrderController": "none"},
    )
    return sid, engine.record_outcome(sid, outcome, "locked the account after 5 attempts")


def test_success_learns_the_approved_pairs(tmp_path):
    engine = make_engine(tmp_path)
    sid, r = learn(engine)
    learned = {(p["nl_term"], p["symbol"]) for p in r["learned_pairs"]}
    assert learned == {("ログイン機能", "LoginController"), ("ログイン機能", "AuthService")}
    pair = engine.store.learned_pairs()[0]
    assert pair.session_id == sid and pair.code_evidence and pair.similarity > 0.6
    assert pair.learned_at == FakeClock().now()
    assert r["recorded"]["outcome"] == "success" and r["recorded"]["phase"] == "READY"


def test_failure_learns_nothing_but_is_logged(tmp_path):
    engine = make_engine(tmp_path)
    sid, r = learn(engine, "failure")
    assert r["learned_pairs"] == [] and engine.store.learned_pairs() == []
    assert [o.outcome.value for o in engine.store.outcomes(sid)] == ["failure"]


def test_next_similar_request_gets_the_map_hint(tmp_path):
    engine = make_engine(tmp_path)
    learn(engine)
    hint = engine.start_session("MODIFY", "ログインできないので直して")["shortcircuit_hint"]
    assert hint["found"] is True
    assert set(hint["symbols"]) == {"LoginController", "AuthService"}
    assert hint["confidence"] >= 0.7 and "verify" in hint["recommendation"]
    other = engine.start_session("MODIFY", "注文の合計金額を直して")["shortcircuit_hint"]
    assert other["found"] is False


def test_no_hint_before_anything_was_learned(tmp_path):
    engine = make_engine(tmp_path)
    hint = engine.start_session("MODIFY", "ログインできないので直して")["shortcircuit_hint"]
    assert hint["found"] is False


def test_pairs_go_to_learned_pairs_json_and_agreements(tmp_path):
    engine = make_engine(tmp_path)
    engine.sinks = (AgreementFiles(engine.root),)
    learn(engine)
    data = json.loads((engine.root / ".code-intel/learned_pairs.json").read_text())
    assert data["version"] == 1
    assert {p["symbol"] for p in data["pairs"]} == {"LoginController", "AuthService"}
    assert set(data["pairs"][0]) == {"nl_term", "symbol", "similarity", "code_evidence",
                                     "session_id", "learned_at"}
    agreements = sorted(p.name for p in (engine.root / ".code-intel/agreements").iterdir())
    assert len(agreements) == 2
    text = (engine.root / ".code-intel/agreements" / agreements[0]).read_text()
    assert "ログイン機能" in text and "## Code evidence" in text


def test_pairs_older_than_the_purge_age_are_removed(tmp_path):
    clock = FakeClock()
    sink = RecordingSink()
    engine = make_engine(tmp_path, clock=clock, sinks=[sink, AgreementFiles(tmp_path / "ws")])
    learn(engine)
    clock.advance(29 * 86400)
    assert engine.start_session("MODIFY", "ログインできない")["shortcircuit_hint"]["found"]
    clock.advance(2 * 86400)
    assert not engine.start_session("MODIFY", "ログインできない")["shortcircuit_hint"]["found"]
    assert engine.store.learned_pairs() == []
    assert sorted(sink.calls[-1][2]) == ["AuthService", "LoginController"]
    assert not list((engine.root / ".code-intel/agreements").iterdir())


def test_purge_age_is_configurable(tmp_path):
    clock = FakeClock()
    engine = make_engine(tmp_path, clock=clock, learned_pair_days=1)
    learn(engine)
    clock.advance(2 * 86400)
    assert engine.prune_learned_pairs()["purged"]
    assert engine.store.learned_pairs() == []


def test_pairs_whose_symbol_vanished_are_dropped_at_sync(tmp_path):
    index = FakeIndex()
    sink = RecordingSink()
    engine = make_engine(tmp_path, index=index, sinks=[sink])
    learn(engine)
    del index.symbols["AuthService"]
    r = engine.prune_learned_pairs()
    assert [p["symbol"] for p in r["dropped"]] == ["AuthService"]
    assert [p.symbol for p in engine.store.learned_pairs()] == ["LoginController"]
    assert sink.calls[-1] == (["LoginController"], [], ["AuthService"])


def test_refuted_symbols_are_not_learned(tmp_path):
    engine = make_engine(tmp_path)
    sid = ready_session(engine)
    engine.validate_symbol_relevance(sid, "ログイン機能", ["OrderController"], "none")
    assert engine.record_outcome(sid, "success")["learned_pairs"] == []


def test_a_pair_learned_again_replaces_the_old_one(tmp_path):
    engine = make_engine(tmp_path)
    learn(engine)
    learn(engine)
    assert len(engine.store.learned_pairs()) == 2


def test_outcome_is_validated_and_allowed_after_the_session_ended(tmp_path):
    engine = make_engine(tmp_path)
    sid = ready_session(engine)
    with pytest.raises(GatingError) as err:
        engine.record_outcome(sid, "great")
    assert "success" in err.value.message
    engine.end_session(sid)
    assert engine.record_outcome(sid, "PARTIAL")["recorded"]["outcome"] == "partial"


def test_agreement_names_are_safe_file_names():
    from code_intel.gating.model import LearnedPair

    name = agreement_name(LearnedPair("ログイン", "App\\Services\\Auth/../x", 0.7, "e", "s", 0))
    assert "/" not in name and "\\" not in name and name.endswith(".md")
