"""SPEC §4.9 logs: the DecisionLog and OutcomeLog read back per session and across
sessions (tool-failure and risk-level correlations, common failure points)."""

from __future__ import annotations

import pytest
from code_intel.gating.errors import GatingError
from test_gating_fakes import (
    DETAILED,
    DETAILED_SLOTS,
    USERS,
    assert_plain_json,
    make_engine,
    ready_session,
)


def test_session_analysis_joins_decisions_and_outcomes(tmp_path):
    engine = make_engine(tmp_path)
    sid = ready_session(engine)
    engine.check_write_target(sid, USERS)  # refused
    engine.record_outcome(sid, "failure", "edited the wrong file")
    a = engine.get_session_analysis(sid)
    assert a["decision"]["kind"] == "plan"
    assert a["analysis"]["had_decision"] and a["analysis"]["had_outcome"]
    assert a["analysis"]["final_outcome"] == "failure"
    assert a["analysis"]["tools_planned"] == ["find_definitions", "find_references"]
    assert a["analysis"]["failure_point"] == "READY"
    assert a["analysis"]["refusals"] == {"write_check": 1}
    assert a["analysis"]["last_refusal"]["detail"]["file_path"] == USERS
    kinds = [d["kind"] for d in a["decisions"]]
    assert kinds[:2] == ["plan", "set_query_frame"] and "submit_understanding" in kinds
    assert a["outcomes"][0]["analysis"] == "edited the wrong file"
    assert_plain_json(a)


def test_analysis_of_a_session_without_outcome(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("INVESTIGATE", "ログイン処理はどこ?")["session_id"]
    a = engine.get_session_analysis(sid)["analysis"]
    assert a["had_outcome"] is False and a["failure_point"] is None


def test_improvement_insights_correlate_outcomes(tmp_path):
    engine = make_engine(tmp_path)
    ok = ready_session(engine)
    engine.record_outcome(ok, "success")
    vague = engine.start_session("MODIFY", "ログイン機能直して")["session_id"]
    engine.set_query_frame(
        vague, {"target_feature": {"value": "ログイン機能", "quote": "ログイン機能"}}
    )
    engine.record_outcome(vague, "partial")
    engine.record_outcome(vague, "failure")  # the latest outcome counts
    lost = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(lost, DETAILED_SLOTS)
    engine.record_outcome(lost, "failure")

    r = engine.get_improvement_insights(10)
    assert r["total_sessions_with_outcomes"] == 3 and r["sessions_with_decisions"] == 3
    assert r["risk_level_correlation"]["HIGH"] == {
        "sessions": 1, "success": 0, "failure": 1, "partial": 0, "failure_rate": 1.0}
    assert r["risk_level_correlation"]["LOW"]["sessions"] == 2
    assert r["risk_level_correlation"]["LOW"]["failure_rate"] == 0.5
    # the vague request planned search_text, query, find_definitions, find_references
    assert r["tool_failure_correlation"]["find_references"] == {
        "sessions": 3, "failures": 2, "failure_rate": 0.667}
    assert r["tool_failure_correlation"]["query"] == {
        "sessions": 1, "failures": 1, "failure_rate": 1.0}
    assert r["tool_failure_correlation"]["search_text"]["failures"] == 1
    assert r["common_failure_points"] == {"EXPLORATION": 2}
    assert engine.get_improvement_insights(1)["total_sessions_with_outcomes"] == 1
    assert_plain_json(r)


@pytest.mark.parametrize("limit", [0, -1, "10", 1.5, True])
def test_insights_limit_is_validated(tmp_path, limit):
    with pytest.raises(GatingError):
        make_engine(tmp_path).get_improvement_insights(limit)
