"""SPEC §4.1 and §6: sessions persist in SQLite, survive a restart, several at once,
expire and end; the logs are append-only; a foreign or corrupt file is set aside."""

from __future__ import annotations

import sqlite3

import pytest
from code_intel.gating.config import GatingConfig, sessions_db_path
from code_intel.gating.errors import GatingError
from code_intel.gating.store import SessionStore
from test_gating_fakes import (
    AUTH,
    CONTROLLER,
    DETAILED,
    DETAILED_SLOTS,
    LOW_UNDERSTANDING,
    USERS,
    FakeClock,
    assert_plain_json,
    make_engine,
    run,
)


def test_start_session_answer(tmp_path):
    engine = make_engine(tmp_path)
    engine.sync_status = lambda: {"state": "ready", "files": 31}
    r = engine.start_session("modify", DETAILED)
    assert r["session_id"].startswith("sess_") and r["phase"] == "EXPLORATION"
    assert r["intent"] == "MODIFY"
    assert DETAILED in r["extraction_prompt"] and r["slot_schema"]["properties"]
    assert r["shortcircuit_hint"] == {"found": False, "best_score": None,
                                      "recommendation": r["shortcircuit_hint"]["recommendation"]}
    assert r["sync_status"] == {"state": "ready", "files": 31}
    assert_plain_json(r)


@pytest.mark.parametrize("intent", ["ADD", "DELETE", "EXPLORE", "", None, 3])
def test_only_the_four_intents(tmp_path, intent):
    engine = make_engine(tmp_path)
    with pytest.raises(GatingError) as err:
        engine.start_session(intent, "x")
    assert "IMPLEMENT" in err.value.message


@pytest.mark.parametrize("query", ["", "   ", None, ["ログイン"], "x" * 20_001])
def test_empty_or_bad_query_is_refused(tmp_path, query):
    engine = make_engine(tmp_path)
    with pytest.raises(GatingError) as err:
        engine.start_session("MODIFY", query)
    assert err.value.code == "invalid_params" and "query" in err.value.message


def test_unknown_session(tmp_path):
    engine = make_engine(tmp_path)
    with pytest.raises(GatingError) as err:
        engine.get_session_status("sess_nope")
    assert err.value.code == "unknown_session" and "start_session" in err.value.message


def test_a_new_engine_on_the_same_file_continues_the_session(tmp_path):
    db = tmp_path / "sessions.db"
    first = make_engine(tmp_path, db=db)
    sid = first.start_session("MODIFY", DETAILED)["session_id"]
    first.set_query_frame(sid, DETAILED_SLOTS)
    run(first, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    first.store.close()  # the server stops mid-session

    second = make_engine(tmp_path, db=db)
    status = second.get_session_status(sid)
    assert status["phase"] == "EXPLORATION" and status["risk"] == "LOW"
    assert status["tools_used"] == ["find_definitions"]
    assert status["query_frame"]["target_feature"] == "ログイン画面"
    run(second, sid, "find_references", files=[AUTH], symbol="AuthService")
    assert second.submit_understanding(sid, **LOW_UNDERSTANDING)["phase"] == "READY"
    second.check_write_target(sid, USERS)
    second.store.close()

    third = make_engine(tmp_path, db=db)
    assert third.get_session_status(sid)["phase"] == "READY"
    assert third.check_write_target(sid, CONTROLLER)["allowed"] is True
    assert [b["path"] for b in third.blocked_writes(sid)] == [USERS]


def test_two_engines_share_one_store_file(tmp_path):
    """The language server writes while the hook reads the same file."""
    db = tmp_path / "sessions.db"
    server, hook = make_engine(tmp_path, db=db), make_engine(tmp_path, db=db)
    sid = server.start_session("MODIFY", DETAILED)["session_id"]
    assert hook.check_write_target(sid, CONTROLLER)["reason_code"] == "phase"
    assert hook.list_sessions()[0]["session_id"] == sid


def test_several_sessions_at_once_stay_independent(tmp_path):
    engine = make_engine(tmp_path)
    a = engine.start_session("MODIFY", DETAILED)["session_id"]
    b = engine.start_session("QUESTION", "ログインの試行上限は?")["session_id"]
    engine.set_query_frame(a, DETAILED_SLOTS)
    run(engine, a, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    assert engine.submit_understanding(b)["phase"] == "READY"
    sa, sb = engine.get_session_status(a), engine.get_session_status(b)
    assert (sa["phase"], sb["phase"]) == ("EXPLORATION", "READY")
    assert sa["tools_used"] == ["find_definitions"] and sb["tools_used"] == []
    assert sb["query_frame"]["target_feature"] is None
    assert {s["session_id"] for s in engine.list_sessions()} == {a, b}


def test_sessions_expire_after_inactivity(tmp_path):
    clock = FakeClock()
    engine = make_engine(tmp_path, clock=clock, session_ttl_hours=2)
    old = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.check_write_target(old, CONTROLLER)
    clock.advance(3600)
    fresh = engine.start_session("MODIFY", DETAILED)["session_id"]
    clock.advance(1.5 * 3600)  # old: 2.5 h idle, fresh: 1.5 h
    assert engine.expire_sessions() == [old]
    with pytest.raises(GatingError) as err:
        engine.get_session_status(old)
    assert err.value.code == "session_expired"
    assert engine.get_session_status(fresh)["status"] == "active"
    assert engine.blocked_writes() == []
    assert [s["session_id"] for s in engine.list_sessions()] == [fresh]
    assert engine.get_session_analysis(old)["session_id"] == old


def test_activity_keeps_a_session_alive(tmp_path):
    clock = FakeClock()
    engine = make_engine(tmp_path, clock=clock, session_ttl_hours=1)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    for _ in range(3):
        clock.advance(50 * 60)
        run(engine, sid, "search_text", pattern="login")
    assert engine.get_session_status(sid)["status"] == "active"


def test_expiry_is_noticed_on_access(tmp_path):
    clock = FakeClock()
    engine = make_engine(tmp_path, clock=clock, session_ttl_hours=1)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    clock.advance(7200)
    with pytest.raises(GatingError) as err:
        run(engine, sid, "search_text", pattern="login")
    assert err.value.code == "session_expired" and "start a new session" in err.value.message


def test_ended_session_refuses_work_but_reports(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    assert engine.end_session(sid)["status"] == "ended"
    with pytest.raises(GatingError) as err:
        engine.set_query_frame(sid, DETAILED_SLOTS)
    assert err.value.code == "session_ended"
    assert engine.get_session_status(sid)["status"] == "ended"


def test_logs_are_append_only(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    run(engine, sid, "search_text", pattern="login")
    engine.record_outcome(sid, "failure")
    conn = sqlite3.connect(engine.store.path)
    for table in ("decisions", "outcomes", "tool_calls"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(f"UPDATE {table} SET data='{{}}'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(f"DELETE FROM {table}")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_foreign_schema_is_set_aside_with_a_message(tmp_path):
    db = tmp_path / "sessions.db"
    SessionStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    store = SessionStore(db)
    assert "schema version 99" in store.messages[0]
    assert list(tmp_path.glob("sessions.db.broken-*"))


def test_corrupt_file_is_set_aside(tmp_path):
    db = tmp_path / "sessions.db"
    db.write_bytes(b"this is not a database" * 100)
    store = SessionStore(db)
    assert "corrupt" in store.messages[0]
    assert store.list_sessions() == []


def test_default_location_and_config(tmp_path):
    from code_intel.indexing.config import Config

    assert sessions_db_path(tmp_path) == tmp_path / ".code-intel" / "sessions.db"
    cfg = GatingConfig.from_workspace(tmp_path, Config(auto_purge_days=7))
    assert cfg.learned_pair_days == 7
    assert cfg.write_exempt_patterns == ("**/*.md", "**/*.rst", "**/*.txt", "docs/**")


def test_lost_sessions_are_reported_to_the_agent_that_asks_for_one(tmp_path):
    """Garbage pages in sessions.db: set aside at open, and the agent whose session was
    in it is told it could not be recovered (not just 'no session')."""
    db = tmp_path / "sessions.db"
    engine = make_engine(tmp_path, db=db)
    sid = engine.start_session("modify", DETAILED)["session_id"]
    with engine.store.transaction() as c:  # enough rows for several pages
        c.execute("CREATE TABLE padding (x BLOB)")
        c.executemany("INSERT INTO padding VALUES (?)", [(b"p" * 3000,) for _ in range(40)])
    engine.store.close()
    size = db.stat().st_size
    with db.open("r+b") as f:
        for page in (1, size // 4096 // 2, size // 4096 - 1):
            f.seek(page * 4096)
            f.write(b"\xa5" * 4096)
    reopened = make_engine(tmp_path, db=db)
    assert "could not be recovered" in reopened.store.messages[0]
    with pytest.raises(GatingError) as err:
        reopened.check_tool(sid, "search_text", {"pattern": "x"})
    assert "could not be recovered" in err.value.message
