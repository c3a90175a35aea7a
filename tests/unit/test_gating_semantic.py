"""SPEC §4.6: the semantic reason must fit what is missing; findings are HYPOTHESIS;
verification promotes only what the index supports; READY is impossible while a
HYPOTHESIS remains; a rejected hypothesis cannot be used."""

from __future__ import annotations

import pytest
from code_intel.gating.errors import GatingError
from code_intel.gating.model import MissingRequirement, Requirement
from code_intel.gating.semantic import SemanticReason, check_reason
from test_gating_fakes import (
    AUTH,
    CONTROLLER,
    DETAILED,
    DETAILED_SLOTS,
    LOW_UNDERSTANDING,
    make_engine,
    run,
)

M = MissingRequirement


def semantic_session(engine, **overrides) -> str:
    """LOW MODIFY session sent to SEMANTIC for lack of one symbol."""
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(sid, DETAILED_SLOTS)
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    run(engine, sid, "find_references", files=[AUTH], symbol="AuthService")
    sub = {**LOW_UNDERSTANDING, "symbols_identified": ["LoginController", "LoginController::login"],
           **overrides}
    r = engine.submit_understanding(sid, **sub)
    assert r["phase"] == "SEMANTIC"
    return sid


@pytest.mark.parametrize(
    "kind, good, bad",
    [
        (Requirement.SYMBOLS, "no_definition_found", "no_reference_found"),
        (Requirement.SYMBOLS, "architecture_unknown", "context_fragmented"),
        (Requirement.ENTRY_POINTS, "no_reference_found", "no_similar_implementation"),
        (Requirement.PATTERNS, "no_similar_implementation", "no_definition_found"),
        (Requirement.FILES, "context_fragmented", "no_reference_found"),
    ],
)
def test_reason_must_fit_what_is_missing(kind, good, bad):
    missing = [M(kind, "x")]
    assert check_reason(good, missing) is SemanticReason(good)
    with pytest.raises(GatingError) as err:
        check_reason(bad, missing)
    assert err.value.code == "invalid_semantic_reason"
    assert good in err.value.details["fitting_reasons"][kind.value]


def test_slot_evidence_reasons_follow_the_slot():
    issue = [M(Requirement.SLOT_EVIDENCE, "x", subject="observed_issue")]
    assert check_reason("context_fragmented", issue)
    with pytest.raises(GatingError):
        check_reason("no_definition_found", issue)


def test_unknown_reason_and_tool_only_gaps_are_refused():
    with pytest.raises(GatingError) as err:
        check_reason("because", [M(Requirement.SYMBOLS, "x")])
    assert err.value.code == "invalid_params"
    with pytest.raises(GatingError) as err:
        check_reason("no_definition_found", [M(Requirement.TOOLS, "x", subject="find_references")])
    assert "revert_to_exploration" in err.value.message


def test_semantic_findings_enter_as_hypothesis(tmp_path):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    r = engine.submit_semantic(
        sid,
        [{"kind": "symbol", "subject": "AuthService::isLockedOut",
          "evidence": "forest hit: RateLimiter::tooManyAttempts in AuthService"}],
        "no_definition_found",
    )
    assert r["phase"] == "VERIFICATION"
    assert [(h["id"], h["status"]) for h in r["hypotheses"]] == [("h1", "HYPOTHESIS")]
    mapped = engine.get_session_status(sid)["query_frame"]["mapped_symbols"]
    assert ("AuthService::isLockedOut", "HYPOTHESIS") in [(m["name"], m["source"]) for m in mapped]


def test_wrong_reason_keeps_the_session_in_semantic(tmp_path):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    with pytest.raises(GatingError):
        engine.submit_semantic(
            sid, [{"kind": "symbol", "subject": "AuthService", "evidence": "e"}],
            "context_fragmented",
        )
    assert engine.get_session_status(sid)["phase"] == "SEMANTIC"


@pytest.mark.parametrize(
    "hypotheses, fragment",
    [
        ([], "non-empty list"),
        ([{"kind": "guess", "subject": "A", "evidence": "e"}], "kind must be one of"),
        ([{"kind": "symbol", "subject": "A"}], "evidence is required"),
        ([{"kind": "slot", "subject": "observed_issue", "evidence": "e"}], "value is required"),
        ([{"kind": "slot", "subject": "feature", "value": "v", "evidence": "e"}], "slot name"),
        ([{"kind": "symbol", "subject": "A", "evidence": "e", "score": 1}], "unknown key"),
    ],
)
def test_malformed_hypotheses_are_refused(tmp_path, hypotheses, fragment):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    with pytest.raises(GatingError) as err:
        engine.submit_semantic(sid, hypotheses, "no_definition_found")
    assert fragment in err.value.message


def test_verification_promotes_only_symbols_in_the_index(tmp_path):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    engine.submit_semantic(
        sid,
        [{"kind": "symbol", "subject": "AuthService::isLockedOut", "evidence": "forest"},
         {"kind": "symbol", "subject": "LockoutPolicy", "evidence": "forest"}],
        "no_definition_found",
    )
    r = engine.submit_verification(
        sid, [{"id": "h1", "confirmed": True}, {"id": "h2", "confirmed": True}]
    )
    assert [p["subject"] for p in r["promoted"]] == ["AuthService::isLockedOut"]
    rejected = {h["subject"]: h["verification"] for h in r["rejected_hypotheses"]}
    assert "not defined in the index" in rejected["LockoutPolicy"]
    assert r["phase"] == "READY"  # the confirmed symbol is the third one
    status = engine.get_session_status(sid)
    assert "AuthService::isLockedOut" in status["understanding"]["symbols"]
    assert "LockoutPolicy" not in [m["name"] for m in status["query_frame"]["mapped_symbols"]]


def test_hypothesis_left_open_blocks_ready(tmp_path):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    engine.submit_semantic(
        sid,
        [{"kind": "symbol", "subject": "AuthService", "evidence": "forest"},
         {"kind": "pattern", "subject": "lockout after N attempts", "evidence": "forest"}],
        "no_definition_found",
    )
    # the symbol alone satisfies the table, but the pattern is still a HYPOTHESIS
    r = engine.submit_verification(sid, [{"id": "h1", "confirmed": True}])
    assert r["phase"] == "VERIFICATION"
    assert [h["id"] for h in r["open_hypotheses"]] == ["h2"]
    assert [m["kind"] for m in r["missing_requirements"]] == ["hypotheses"]
    assert engine.check_write_target(sid, CONTROLLER)["allowed"] is False
    # a pattern needs a real call as evidence; a claimed one leaves it open
    r = engine.submit_verification(
        sid, [{"id": "h2", "confirmed": True,
               "evidence": {"tool": "search_text", "params": {"pattern": "tooManyAttempts"}}}]
    )
    assert r["phase"] == "VERIFICATION" and "claimed tool use" in r["errors"][0]["error"]
    run(engine, sid, "search_text", files=[AUTH], pattern="tooManyAttempts")
    r = engine.submit_verification(
        sid, [{"id": "h2", "confirmed": True,
               "evidence": {"tool": "search_text", "params": {"pattern": "tooManyAttempts"}}}]
    )
    assert r["phase"] == "READY" and not r["open_hypotheses"]


def test_open_hypothesis_kept_through_revert_still_blocks_ready(tmp_path):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    engine.submit_semantic(
        sid, [{"kind": "symbol", "subject": "AuthService", "evidence": "forest"}],
        "no_definition_found",
    )
    engine.revert_to_exploration(sid, keep_results=True)
    r = engine.submit_understanding(sid, symbols_identified=["AuthService::isLockedOut"])
    assert r["phase"] == "VERIFICATION"
    assert r["missing_requirements"][0]["kind"] == "hypotheses"


def test_slot_hypothesis_needs_a_real_call_to_become_fact(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", "ログイン機能でエラーが出る")["session_id"]
    engine.set_query_frame(sid, {
        "target_feature": {"value": "ログイン機能", "quote": "ログイン機能で"},
        "observed_issue": {"value": "エラーが出る", "quote": "エラーが出る"},
    })  # MEDIUM: target_feature evidence required
    run(engine, sid, "find_definitions", symbol="AuthService")
    run(engine, sid, "find_references", symbol="AuthService")
    r = engine.submit_understanding(sid, **LOW_UNDERSTANDING)
    assert [m["subject"] for m in r["missing_requirements"]] == ["target_feature"]
    engine.submit_semantic(
        sid, [{"kind": "slot", "subject": "target_feature", "value": "LoginController の login",
               "evidence": "forest: LoginController::login"}],
        "no_definition_found",
    )
    assert engine.get_session_status(sid)["query_frame"]["slot_source"]["target_feature"] == (
        "HYPOTHESIS")
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    r = engine.submit_verification(
        sid, [{"id": "h1", "confirmed": True, "evidence": {
            "tool": "find_definitions", "params": {"symbol": "LoginController"},
            "result_summary": "LoginController.php:18"}}]
    )
    assert r["phase"] == "READY", r["missing_requirements"]
    frame = engine.get_session_status(sid)["query_frame"]
    assert frame["slot_source"]["target_feature"] == "FACT"
    assert frame["slot_evidence"]["target_feature"]["tool"] == "find_definitions"


def test_rejected_hypothesis_cannot_be_used(tmp_path):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    engine.submit_semantic(
        sid,
        [{"kind": "symbol", "subject": "AuthService", "evidence": "forest"},
         {"kind": "file", "subject": "app/Models/User.php", "evidence": "forest"}],
        "no_definition_found",
    )
    r = engine.submit_verification(
        sid, [{"id": "h1", "confirmed": False, "note": "not involved"},
              {"id": "h2", "confirmed": False}]
    )
    assert [h["subject"] for h in r["rejected_hypotheses"]] == ["AuthService",
                                                                 "app/Models/User.php"]
    assert r["phase"] == "SEMANTIC"  # still one symbol short
    # not as a new hypothesis
    with pytest.raises(GatingError) as err:
        engine.submit_semantic(
            sid, [{"kind": "symbol", "subject": "AuthService", "evidence": "again"}],
            "no_definition_found",
        )
    assert err.value.code == "rejected_hypothesis"
    # not in a submission after going back to exploration
    engine.revert_to_exploration(sid, keep_results=False)
    with pytest.raises(GatingError) as err:
        engine.submit_understanding(sid, symbols_identified=["AuthService"])
    assert err.value.code == "rejected_hypothesis" and err.value.details["rejected"] == [
        "AuthService"]
    # not as the target of a write, even once READY
    run(engine, sid, "find_definitions", files=["app/Models/User.php"], symbol="User")
    run(engine, sid, "find_references", symbol="AuthService")
    engine.submit_understanding(sid, **LOW_UNDERSTANDING)
    assert engine.get_session_status(sid)["phase"] == "READY"
    w = engine.check_write_target(sid, "app/Models/User.php")
    assert w["allowed"] is False and w["reason_code"] == "rejected_hypothesis"


def test_unknown_hypothesis_id_is_refused(tmp_path):
    engine = make_engine(tmp_path)
    sid = semantic_session(engine)
    engine.submit_semantic(sid, [{"kind": "symbol", "subject": "AuthService", "evidence": "e"}],
                           "no_definition_found")
    with pytest.raises(GatingError) as err:
        engine.submit_verification(sid, [{"id": "h9", "confirmed": True}])
    assert "h9" in err.value.message and "h1" in err.value.message
