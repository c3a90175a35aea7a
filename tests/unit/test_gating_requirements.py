"""SPEC §4.4: consistency checks, the requirement table, tool use from the server's
own call log, symbols and files checked against the index and the workspace."""

from __future__ import annotations

import pytest
from code_intel.gating.errors import GatingError
from code_intel.gating.model import Intent, Risk, Slot
from code_intel.gating.requirements import REQUIREMENT_TABLE, consistency_problems, requirements_for
from test_gating_fakes import (
    AUTH,
    CONTROLLER,
    DETAILED,
    DETAILED_SLOTS,
    ROUTES,
    USER,
    USERS,
    FakeEmbedder,
    assert_plain_json,
    make_engine,
    run,
)

SYMBOLS = [
    "LoginController::login",
    "LoginController::logout",
    "LoginController",
    "AuthService",
    "AuthService::attempt",
    "UserRepository",
]
FILES = [CONTROLLER, AUTH, USERS, USER, ROUTES]
PATTERNS = ["ValidationException::withMessages on bad credentials", "RateLimiter throttling"]

MEDIUM_QUERY = "ログイン機能でエラーが出る"
MEDIUM_SLOTS = {
    "target_feature": {"value": "ログイン機能", "quote": "ログイン機能で"},
    "observed_issue": {"value": "エラーが出る", "quote": "エラーが出る"},
}
HIGH_QUERY = "ログイン機能直して"
HIGH_SLOTS = {
    "target_feature": {"value": "ログイン機能", "quote": "ログイン機能"},
    "desired_action": {"value": "直して", "quote": "直して"},
}
TARGET_EVIDENCE = {"tool": "find_definitions", "params": {"symbol": "LoginController"},
                   "result_summary": "LoginController in app/Http/Controllers/Auth"}
ISSUE_EVIDENCE = {"tool": "search_text", "params": {"pattern": "Failed login"},
                  "result_summary": "Log::warning('Failed login') in LoginController::login"}


def submission(symbols: int, entries: int, files: int, patterns: int) -> dict:
    return {
        "symbols_identified": SYMBOLS[:symbols],
        "entry_points": SYMBOLS[:entries],
        "files_analyzed": FILES[:files],
        "existing_patterns": PATTERNS[:patterns],
    }


def session_at(engine, intent: Intent, risk: Risk) -> str:
    """A session of `intent` whose request gives `risk`, with the base tools run."""
    query, slots = {
        Risk.LOW: (DETAILED, DETAILED_SLOTS),
        Risk.MEDIUM: (MEDIUM_QUERY, MEDIUM_SLOTS),
        Risk.HIGH: (HIGH_QUERY, HIGH_SLOTS),
    }[risk]
    if intent is Intent.IMPLEMENT and risk is Risk.MEDIUM:
        slots = {"target_feature": MEDIUM_SLOTS["target_feature"]}
    sid = engine.start_session(intent.value, query)["session_id"]
    engine.set_query_frame(sid, slots)
    if intent is Intent.IMPLEMENT and risk is Risk.HIGH:
        # IMPLEMENT is never HIGH by its frame; a grey-zone relevance forces it
        engine.validate_symbol_relevance(sid, "ログイン機能", ["User"], "User is authenticated")
    assert engine.get_session_status(sid)["risk"] == risk.value
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    run(engine, sid, "find_references", files=[AUTH], symbol="AuthService")
    run(engine, sid, "search_text", files=[CONTROLLER], pattern="Failed login")
    return sid


def grey_engine(tmp_path):
    return make_engine(tmp_path, embedder=FakeEmbedder(overrides={("ログイン機能", "User"): 0.45}))


TABLE = [
    (Intent.MODIFY, Risk.LOW, (3, 1, 2, 1), ()),
    (Intent.IMPLEMENT, Risk.LOW, (3, 1, 2, 1), ()),
    (Intent.MODIFY, Risk.MEDIUM, (3, 1, 2, 1), (Slot.TARGET_FEATURE,)),
    (Intent.IMPLEMENT, Risk.MEDIUM, (3, 1, 2, 1), (Slot.TARGET_FEATURE,)),
    (Intent.MODIFY, Risk.HIGH, (5, 2, 4, 2), (Slot.TARGET_FEATURE, Slot.OBSERVED_ISSUE)),
    (Intent.IMPLEMENT, Risk.HIGH, (5, 2, 4, 2), (Slot.TARGET_FEATURE, Slot.OBSERVED_ISSUE)),
]


@pytest.mark.parametrize("intent, risk, counts, slots", TABLE)
def test_requirement_table_numbers(intent, risk, counts, slots):
    req = requirements_for(intent, risk)
    assert (req.symbols, req.entry_points, req.files, req.patterns) == counts
    assert req.slot_evidence == slots
    assert req.tools == ("find_definitions", "find_references")


def test_investigate_and_question_rows():
    inv = requirements_for(Intent.INVESTIGATE, Risk.HIGH)
    assert (inv.symbols, inv.entry_points, inv.files, inv.patterns, inv.tools) == (1, 0, 1, 0, ())
    assert requirements_for(Intent.QUESTION, Risk.LOW).ready_at_once
    assert len(REQUIREMENT_TABLE) == 8


def evidence_for(slots):
    evidence = {}
    resolved = {}
    if Slot.TARGET_FEATURE in slots:
        evidence["target_feature"] = TARGET_EVIDENCE
    if Slot.OBSERVED_ISSUE in slots:
        evidence["observed_issue"] = ISSUE_EVIDENCE
        resolved["observed_issue"] = "failed logins are not reported to the user"
    return {"slot_evidence": evidence, "resolved_frame": resolved}


@pytest.mark.parametrize("intent, risk, counts, slots", TABLE)
def test_exact_requirements_reach_ready(tmp_path, intent, risk, counts, slots):
    engine = grey_engine(tmp_path)
    sid = session_at(engine, intent, risk)
    r = engine.submit_understanding(sid, **submission(*counts), **evidence_for(slots))
    assert r["phase"] == "READY", r["missing_requirements"]
    assert_plain_json(r)


@pytest.mark.parametrize("intent, risk, counts, slots", TABLE)
@pytest.mark.parametrize("dimension", range(4))
def test_one_short_in_any_dimension_goes_to_semantic(tmp_path, intent, risk, counts, slots,
                                                     dimension):
    short = list(counts)
    short[dimension] -= 1
    engine = grey_engine(tmp_path)
    sid = session_at(engine, intent, risk)
    r = engine.submit_understanding(sid, **submission(*short), **evidence_for(slots))
    assert r["phase"] == "SEMANTIC"
    kinds = [m["kind"] for m in r["missing_requirements"]]
    name = ["symbols_identified", "entry_points", "files_analyzed", "existing_patterns"][dimension]
    assert kinds == [name]
    assert f"{short[dimension]} of {counts[dimension]}" in r["missing_requirements"][0]["message"]


@pytest.mark.parametrize("intent, risk, counts, slots", [t for t in TABLE if t[3]])
def test_required_slot_evidence_is_enforced(tmp_path, intent, risk, counts, slots):
    engine = grey_engine(tmp_path)
    sid = session_at(engine, intent, risk)
    r = engine.submit_understanding(sid, **submission(*counts))
    assert r["phase"] == "SEMANTIC"
    assert {m["subject"] for m in r["missing_requirements"]} == {s.value for s in slots}


def test_investigate_needs_one_symbol_and_one_file(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("INVESTIGATE", "ログイン処理の流れを調べて")["session_id"]
    assert engine.submit_understanding(sid, files_analyzed=[CONTROLLER])["phase"] == "SEMANTIC"
    engine.revert_to_exploration(sid)
    r = engine.submit_understanding(sid, symbols_identified=["LoginController"])
    assert r["phase"] == "READY"


def test_question_is_ready_at_once(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("QUESTION", "ログインの試行回数の上限はいくつ?")["session_id"]
    assert engine.submit_understanding(sid)["phase"] == "READY"


def test_change_intents_need_the_target_feature(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    slots = {k: v for k, v in DETAILED_SLOTS.items() if k != "target_feature"}
    engine.set_query_frame(sid, slots)
    run(engine, sid, "find_definitions", symbol="LoginController")
    run(engine, sid, "find_references", symbol="AuthService")
    r = engine.submit_understanding(sid, **submission(3, 1, 2, 1))
    # MEDIUM (MODIFY stating its issue, not every slot): the target needs evidence too
    assert [m["kind"] for m in r["missing_requirements"]] == ["target_feature", "slot_evidence"]
    # resolved with evidence from a real call, it counts
    engine.revert_to_exploration(sid)
    r = engine.submit_understanding(
        sid,
        resolved_frame={"target_feature": "ログイン"},
        slot_evidence={"target_feature": {"tool": "find_definitions",
                                          "params": {"symbol": "LoginController"}}},
    )
    assert r["phase"] == "READY", r["missing_requirements"]


# ---- tool use counted from the server's log --------------------------------------------


def test_tools_not_run_are_missing_whatever_the_model_claims(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(sid, DETAILED_SLOTS)
    run(engine, sid, "find_definitions", symbol="LoginController")
    r = engine.submit_understanding(sid, **submission(3, 1, 2, 1))
    assert [(m["kind"], m["subject"]) for m in r["missing_requirements"]] == [
        ("tools", "find_references")
    ]
    assert "revert_to_exploration" in r["next_step"]


def test_claimed_slot_evidence_without_the_call_does_not_count(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", MEDIUM_QUERY)["session_id"]
    engine.set_query_frame(sid, MEDIUM_SLOTS)
    run(engine, sid, "find_definitions", symbol="AuthService")
    run(engine, sid, "find_references", symbol="AuthService")
    r = engine.submit_understanding(
        sid, **submission(3, 1, 2, 1), slot_evidence={"target_feature": TARGET_EVIDENCE}
    )
    # find_definitions ran for AuthService, not for LoginController as claimed
    assert r["phase"] == "SEMANTIC"
    assert r["validation_errors"][0]["slot"] == "target_feature"
    assert "claimed tool use does not count" in r["validation_errors"][0]["error"]
    assert [m["subject"] for m in r["missing_requirements"]] == ["target_feature"]


def test_failed_and_phase_refused_calls_do_not_count(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(sid, DETAILED_SLOTS)
    run(engine, sid, "find_definitions", symbol="LoginController")
    assert engine.record_tool_call(sid, "find_references", {"symbol": "x"}, ok=False)[
        "counted"] is False
    r = engine.submit_understanding(sid, **submission(3, 1, 2, 0))
    assert r["phase"] == "SEMANTIC"
    # in SEMANTIC the exploration tools are not allowed: a call made anyway is not evidence
    logged = engine.record_tool_call(sid, "find_references", {"symbol": "AuthService"})
    assert logged == {"seq": logged["seq"], "counted": False, "phase": "SEMANTIC"}
    status = engine.get_session_status(sid)
    assert "find_references" not in status["tools_used"]
    assert status["tool_calls"] == {"logged": 3, "counted": 1}


# ---- consistency and existence ---------------------------------------------------------


def test_consistency_rules():
    assert consistency_problems(["A"], ["B"], [], []) == [
        ("entry_points ['B'] are not among symbols_identified: every entry point is also a "
         "symbol you identified")
    ]
    assert "more than once" in consistency_problems(["A", "A"], [], [], [])[0]
    assert "more than once" in consistency_problems([], [], [], ["f", "f"])[0]
    assert "need files_analyzed" in consistency_problems(["A"], [], ["p"], [])[0]
    assert consistency_problems(["A"], ["A"], ["p"], ["f"]) == []


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"entry_points": ["AuthService"]}, "not among symbols_identified"),
        ({"symbols_identified": ["LoginController", "LoginController"]}, "more than once"),
        ({"files_analyzed": [], "existing_patterns": ["x"]}, "need files_analyzed"),
        ({"files_analyzed": ["app/Nope.php"]}, "does not exist"),
        ({"files_analyzed": ["../outside.php"]}, "outside the workspace"),
        ({"files_analyzed": ["/etc/passwd"]}, "outside the workspace"),
    ],
)
def test_inconsistent_submission_is_refused_before_the_table(tmp_path, change, fragment):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    base = {"symbols_identified": ["LoginController"], "entry_points": ["LoginController"],
            "files_analyzed": [CONTROLLER]}
    with pytest.raises(GatingError) as err:
        engine.submit_understanding(sid, **{**base, **change})
    assert err.value.code == "inconsistent_submission"
    assert fragment in err.value.message
    assert engine.get_session_status(sid)["phase"] == "EXPLORATION"


def test_unknown_symbols_are_refused_by_name(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    with pytest.raises(GatingError) as err:
        engine.submit_understanding(
            sid, symbols_identified=["LoginController", "TokenValidator", "JwtGuard"],
            files_analyzed=[CONTROLLER],
        )
    assert err.value.code == "unknown_symbols"
    assert err.value.details["unknown_symbols"] == ["TokenValidator", "JwtGuard"]
    assert "TokenValidator" in err.value.message


def test_absolute_paths_inside_the_workspace_are_normalised(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("INVESTIGATE", "ログインを調べる")["session_id"]
    r = engine.submit_understanding(
        sid, symbols_identified=["LoginController"],
        files_analyzed=[str(engine.root / CONTROLLER)],
    )
    assert r["phase"] == "READY"
    assert engine.get_session_status(sid)["understanding"]["files"] == [CONTROLLER]


def test_symbol_confidences_are_returned(tmp_path):
    engine = make_engine(tmp_path)
    sid = session_at(engine, Intent.MODIFY, Risk.LOW)
    r = engine.submit_understanding(sid, **submission(6, 1, 2, 1))
    by_symbol = {c["symbol"]: (c["confidence"], c["tier"]) for c in r["symbol_confidences"]}
    assert by_symbol["LoginController"] == (1.0, "FACT")
    assert by_symbol["LoginController::logout"] == (0.7071, "FACT")
    assert by_symbol["UserRepository"] == (0.0, "REJECTED")
    mapped = engine.get_session_status(sid)["query_frame"]["mapped_symbols"]
    assert {m["name"]: m["confidence"] for m in mapped}["LoginController::logout"] == 0.7071


def test_no_symbol_related_to_the_feature_blocks_ready(tmp_path):
    engine = make_engine(tmp_path)
    sid = session_at(engine, Intent.MODIFY, Risk.LOW)
    r = engine.submit_understanding(
        sid,
        symbols_identified=["OrderController", "StripePaymentGateway", "Product"],
        entry_points=["OrderController"],
        files_analyzed=[CONTROLLER, AUTH],
        existing_patterns=["x"],
    )
    assert r["phase"] == "SEMANTIC"
    assert [m["kind"] for m in r["missing_requirements"]] == ["nl_symbol_mapping"]


def test_resolved_slot_without_evidence_is_not_taken(tmp_path):
    engine = make_engine(tmp_path)
    sid = session_at(engine, Intent.MODIFY, Risk.HIGH)
    r = engine.submit_understanding(
        sid, **submission(5, 2, 4, 2),
        resolved_frame={"observed_issue": "ロック後もログインできる"},
        slot_evidence={"target_feature": TARGET_EVIDENCE},
    )
    assert r["phase"] == "SEMANTIC"
    assert r["validation_errors"] == [
        {"slot": "observed_issue", "value": "ロック後もログインできる",
         "error": "a resolved slot needs slot_evidence citing the call that found it"}
    ]
    assert r["query_frame"]["resolved"] == {}
    assert r["query_frame"]["observed_issue"] is None


def test_evidence_for_a_slot_without_a_value_is_not_enough(tmp_path):
    engine = make_engine(tmp_path)
    sid = session_at(engine, Intent.MODIFY, Risk.HIGH)
    r = engine.submit_understanding(
        sid, **submission(5, 2, 4, 2),
        slot_evidence={"target_feature": TARGET_EVIDENCE, "observed_issue": ISSUE_EVIDENCE},
    )
    assert r["phase"] == "SEMANTIC"
    assert [m["subject"] for m in r["missing_requirements"]] == ["observed_issue"]


def test_a_symbol_approved_by_validate_symbol_relevance_satisfies_the_mapping(tmp_path):
    embedder = FakeEmbedder(overrides={("ログイン機能", "User"): 0.7})
    engine = make_engine(tmp_path, embedder=embedder)
    sid = session_at(engine, Intent.MODIFY, Risk.LOW)  # target_feature "ログイン画面"
    engine.validate_symbol_relevance(sid, "ログイン機能", ["User"], "User is Authenticatable")
    r = engine.submit_understanding(
        sid,
        symbols_identified=["User", "Product", "OrderController"],
        entry_points=["OrderController"],
        files_analyzed=[CONTROLLER, AUTH],
        existing_patterns=["x"],
    )
    assert r["phase"] == "READY", r["missing_requirements"]
    assert {c["symbol"]: c["tier"] for c in r["symbol_confidences"]}["User"] == "FACT"
