"""The seed walkthroughs (seed 001 "可変速実装のメカニズム") on the real index of the
Laravel fixture: a vague MODIFY request is HIGH risk and cannot reach READY before
the HIGH requirements; a detailed one is LOW and reaches READY after the base ones.

The index is the project's own (synced SQLite store behind `IndexSymbols`); the
embedder is the deterministic fake (the real model is tested with the search work).
"""

from __future__ import annotations

import shutil

import pytest
from code_intel.gating import GatingConfig, GatingEngine, SessionStore, sessions_db_path
from code_intel.gating.index_adapter import IndexSymbols
from code_intel.indexing.config import Config
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from test_gating_fakes import (
    DETAILED,
    DETAILED_SLOTS,
    FIXTURES,
    FakeClock,
    FakeEmbedder,
    assert_plain_json,
)

CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"
AUTH = "app/Services/AuthService.php"
USERS = "app/Repositories/UserRepository.php"
ROUTES = "routes/web.php"
USER = "app/Models/User.php"


@pytest.fixture(scope="module")
def laravel(tmp_path_factory):
    root = tmp_path_factory.mktemp("walkthrough") / "laravel_app"
    shutil.copytree(FIXTURES / "laravel_app", root)
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config())
    yield root, IndexSymbols.for_store(store)
    store.close()


@pytest.fixture
def engine(laravel, tmp_path):
    root, index = laravel
    return GatingEngine(
        SessionStore(tmp_path / "sessions.db"),
        index,
        FakeEmbedder(),
        GatingConfig(workspace_root=root),
        clock=FakeClock(),
    )


def run(engine, sid, tool, files=(), **args):
    assert engine.check_tool(sid, tool, args)["allowed"]
    return engine.record_tool_call(sid, tool, args, result_files=list(files))


def test_index_adapter_resolves_the_names_agents_use(laravel):
    _, index = laravel
    assert index.lookup("AuthService")[0].path == AUTH
    assert index.lookup("App\\Services\\AuthService")[0].kind == "class"
    attempt = "App\\Services\\AuthService::attempt"
    login = "App\\Http\\Controllers\\Auth\\LoginController::login"
    for member, qualified in (
        ("AuthService::attempt", attempt),
        ("AuthService.attempt", attempt),
        ("LoginController@login", login),  # Laravel route notation
        (login, login),
    ):
        assert [s.qualified_name for s in index.lookup(member)] == [qualified], member
    assert index.lookup("OrderController::attempt") == []
    assert index.lookup("TokenValidator") == [] and index.lookup("  ") == []
    assert index.file_exists(ROUTES) and not index.file_exists("app/Nope.php")


def test_vague_modify_request_is_high_and_needs_the_high_evidence(engine):
    # 1. 「ログイン機能直して」: target and wish, no observed problem
    sid = engine.start_session("MODIFY", "ログイン機能直して")["session_id"]
    frame = engine.set_query_frame(sid, {
        "target_feature": {"value": "ログイン機能", "quote": "ログイン機能"},
        "trigger_condition": None,
        "observed_issue": None,
        "desired_action": {"value": "直して", "quote": "直して"},
    })
    assert frame["success"] and frame["risk"] == "HIGH"
    assert frame["missing_slots"] == ["trigger_condition", "observed_issue"]
    assert frame["plan"]["tools"] == ["search_text", "query", "find_definitions"]
    assert frame["requirements"]["symbols"] == 5
    assert frame["requirements"]["slot_evidence"] == ["target_feature", "observed_issue"]

    # 2. a first exploration at the LOW level is not enough
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    run(engine, sid, "find_references", files=[AUTH], symbol="AuthService")
    run(engine, sid, "search_text", files=[CONTROLLER], pattern="Failed login")
    first = engine.submit_understanding(
        sid,
        symbols_identified=["LoginController", "LoginController::login", "AuthService"],
        entry_points=["LoginController::login"],
        files_analyzed=[CONTROLLER, AUTH],
        existing_patterns=["ValidationException::withMessages for bad credentials"],
        slot_evidence={"target_feature": {"tool": "find_definitions",
                                          "params": {"symbol": "LoginController"},
                                          "result_summary": "Auth/LoginController.php"}},
    )
    assert first["phase"] == "SEMANTIC" and first["risk"] == "HIGH"
    assert [(m["kind"], m["have"], m["need"]) for m in first["missing_requirements"]] == [
        ("symbols_identified", 3, 5),
        ("entry_points", 1, 2),
        ("files_analyzed", 2, 4),
        ("existing_patterns", 1, 2),
        ("slot_evidence", None, None),
    ]
    assert first["missing_requirements"][-1]["subject"] == "observed_issue"
    assert engine.check_write_target(sid, CONTROLLER)["allowed"] is False

    # 3. back to exploration, keeping what was found; explore more
    engine.revert_to_exploration(sid, keep_results=True)
    run(engine, sid, "find_definitions", files=[USERS], symbol="UserRepository")
    run(engine, sid, "analyze_structure", files=[ROUTES], path="routes/web.php")
    more = {
        "symbols_identified": ["LoginController::logout", "UserRepository::findByEmail"],
        "entry_points": ["LoginController::logout"],
        "files_analyzed": [USERS, ROUTES],
        "existing_patterns": ["RateLimiter throttle key per e-mail in AuthService"],
    }
    # an observed issue "found" by a search that never ran does not count
    claimed = engine.submit_understanding(
        sid, **more,
        resolved_frame={"observed_issue": "ロック後もログインできる"},
        slot_evidence={"observed_issue": {"tool": "search_text",
                                          "params": {"pattern": "tooManyAttempts"}}},
    )
    assert claimed["phase"] == "SEMANTIC"
    assert [m["subject"] for m in claimed["missing_requirements"]] == ["observed_issue"]
    assert {e["slot"] for e in claimed["validation_errors"]} == {"observed_issue"}

    # 4. with evidence of a search that really ran, READY
    engine.revert_to_exploration(sid, keep_results=True)
    ready = engine.submit_understanding(
        sid,
        resolved_frame={"observed_issue": "失敗したログインはエラーを返すだけで記録が不十分"},
        slot_evidence={"observed_issue": {"tool": "search_text",
                                          "params": {"pattern": "Failed login"},
                                          "result_summary": "Log::warning in login()"}},
    )
    assert ready["phase"] == "READY", ready["missing_requirements"]
    status = engine.get_session_status(sid)
    assert len(status["understanding"]["symbols"]) == 5
    assert len(status["understanding"]["files"]) == 4
    assert status["query_frame"]["slot_evidence"]["observed_issue"]["tool"] == "search_text"
    assert engine.check_write_target(sid, CONTROLLER)["allowed"] is True
    assert engine.check_write_target(sid, "app/Http/Kernel.php")["allowed"] is False
    assert_plain_json(status)


def test_detailed_request_is_low_and_ready_after_the_base_requirements(engine):
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    frame = engine.set_query_frame(sid, DETAILED_SLOTS)
    assert frame["risk"] == "LOW" and frame["missing_slots"] == []
    assert frame["plan"]["tools"] == ["find_definitions", "find_references"]
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    run(engine, sid, "find_references", files=[AUTH], symbol="isLockedOut")
    r = engine.submit_understanding(
        sid,
        symbols_identified=["LoginController", "LoginController::login",
                            "AuthService::isLockedOut"],
        entry_points=["LoginController::login"],
        files_analyzed=[CONTROLLER, AUTH],
        existing_patterns=["RateLimiter::tooManyAttempts keyed by the e-mail"],
    )
    assert r["phase"] == "READY", r["missing_requirements"]
    assert r["risk"] == "LOW"
    assert {c["symbol"] for c in r["symbol_confidences"] if c["tier"] == "FACT"} >= {
        "LoginController"}
    assert engine.check_write_target(sid, AUTH)["allowed"] is True


def test_sessions_db_lives_beside_the_index(laravel):
    root, _ = laravel
    assert sessions_db_path(root).parent == (root / ".code-intel")
