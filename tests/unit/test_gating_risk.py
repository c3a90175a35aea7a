"""SPEC §4.3: risk in the SPEC's order, routing from missing slots only, the plan in
the DecisionLog."""

from __future__ import annotations

import pytest
from code_intel.gating.model import Intent, Risk, Slot
from code_intel.gating.risk import assess_risk, plan_tools, route
from test_gating_fakes import DETAILED, DETAILED_SLOTS, make_engine

ALL = set(Slot)
NO_ISSUE = ALL - {Slot.OBSERVED_ISSUE}
ONLY_TARGET = {Slot.TARGET_FEATURE}
S = Slot


@pytest.mark.parametrize(
    "intent, filled, risk",
    [
        (Intent.MODIFY, NO_ISSUE, Risk.HIGH),  # rule 1 beats everything
        (Intent.MODIFY, ONLY_TARGET, Risk.HIGH),
        (Intent.MODIFY, ALL, Risk.LOW),  # rule 2
        (Intent.IMPLEMENT, ALL, Risk.LOW),  # rule 2 before rule 3
        (Intent.IMPLEMENT, ONLY_TARGET, Risk.MEDIUM),  # rule 3
        (Intent.IMPLEMENT, set(), Risk.MEDIUM),
        (Intent.INVESTIGATE, set(), Risk.LOW),  # rule 4
        (Intent.QUESTION, ONLY_TARGET, Risk.LOW),
        (Intent.INVESTIGATE, NO_ISSUE, Risk.LOW),  # rule 1 is MODIFY only
        (Intent.MODIFY, {S.TARGET_FEATURE, S.OBSERVED_ISSUE}, Risk.MEDIUM),  # open case
    ],
)
def test_risk_rules_in_spec_order(intent, filled, risk):
    assert assess_risk(intent, filled) is risk


@pytest.mark.parametrize(
    "missing, tools",
    [
        ({S.TARGET_FEATURE}, ("find_definitions", "get_symbols", "query")),
        ({S.TRIGGER_CONDITION}, ("search_text", "find_definitions")),
        ({S.OBSERVED_ISSUE}, ("search_text", "query")),
        ({S.DESIRED_ACTION}, ("find_references", "analyze_structure")),
        # de-duplicated, in priority order (for a change the issue before the trigger)
        ({S.OBSERVED_ISSUE, S.TRIGGER_CONDITION}, ("search_text", "query", "find_definitions")),
        # at most four
        (set(Slot), ("find_definitions", "get_symbols", "query", "search_text")),
        # nothing missing: the requirement table's tools
        (set(), ("find_definitions", "find_references")),
    ],
)
def test_router_maps_missing_slots_to_tools(missing, tools):
    assert plan_tools(Intent.MODIFY, missing) == tools


def test_explore_like_intents_add_the_overview_tool_within_four():
    assert plan_tools(Intent.INVESTIGATE, {S.OBSERVED_ISSUE}) == (
        "search_text", "query", "analyze_structure"
    )
    full = plan_tools(Intent.QUESTION, set(Slot))
    assert len(full) == 4 and full[-1] == "analyze_structure"
    assert "analyze_structure" not in plan_tools(Intent.MODIFY, {S.OBSERVED_ISSUE})


def test_routing_depends_on_slots_and_intent_only_not_on_wording(tmp_path):
    """No regex classifier: two requests with the same frame get the same plan."""
    engine = make_engine(tmp_path)
    plans = []
    for query in ("ログイン機能直して", "ログイン機能のバグを直して、エラーが出る"):
        sid = engine.start_session("MODIFY", query)["session_id"]
        r = engine.set_query_frame(
            sid, {"target_feature": {"value": "ログイン機能", "quote": "ログイン機能"}}
        )
        plans.append(r["plan"])
    assert plans[0] == plans[1]
    assert route(Intent.MODIFY, {S.TARGET_FEATURE}).tools == tuple(plans[0]["tools"])


def test_plan_is_returned_and_written_to_the_decision_log(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    r = engine.set_query_frame(sid, DETAILED_SLOTS)
    assert r["plan"]["tools"] == ["find_definitions", "find_references"]
    plans = [d for d in engine.store.decisions(sid) if d.kind == "plan"]
    assert plans[-1].detail["tools_planned"] == ["find_definitions", "find_references"]
    assert plans[-1].detail["risk_level"] == "LOW"
    assert plans[-1].detail["missing_slots"] == []
    assert plans[-1].detail["query"] == DETAILED


def test_query_tool_runs_are_logged_with_the_plan(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("INVESTIGATE", "注文の合計はどこで計算している?")["session_id"]
    engine.record_tool_call(sid, "query", {"text": "order total"})
    last = engine.store.decisions(sid)[-1]
    assert last.kind == "plan" and last.detail["query_text"] == "order total"


def test_risk_is_recomputed_when_the_frame_changes(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    assert engine.get_session_status(sid)["risk"] == "HIGH"  # nothing known yet
    assert engine.set_query_frame(sid, DETAILED_SLOTS)["risk"] == "LOW"
