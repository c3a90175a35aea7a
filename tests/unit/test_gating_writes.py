"""SPEC §4.8: write checks, workspace confinement, documentation exemption, recovery
(add_explored_files, revert_to_exploration), decisions and blocked writes kept."""

from __future__ import annotations

import os

import pytest
from code_intel.gating.errors import GatingError
from test_gating_fakes import CONTROLLER, DETAILED, USERS, make_engine, ready_session, run


@pytest.fixture
def engine(tmp_path):
    return make_engine(tmp_path)


def test_explored_file_is_allowed(engine):
    sid = ready_session(engine)
    r = engine.check_write_target(sid, CONTROLLER)
    assert r["allowed"] is True and r["reason_code"] == "explored"


def test_unexplored_file_is_blocked_with_recovery_options(engine):
    sid = ready_session(engine)
    r = engine.check_write_target(sid, USERS)
    assert r["allowed"] is False and r["reason_code"] == "unexplored"
    assert sid in r["reason"] and USERS in r["reason"]
    options = {o["tool"]: o for o in r["recovery_options"]}
    assert options["analyze_structure"]["params"] == {"path": USERS}
    assert options["revert_to_exploration"]["params"] == {"keep_results": True}
    assert "add_explored_files" not in options  # it would refuse a file nobody read
    run(engine, sid, "analyze_structure", files=[USERS], path=USERS)  # following the advice
    assert engine.check_write_target(sid, USERS)["allowed"] is True


def test_files_returned_by_the_sessions_tools_count_as_explored(engine):
    sid = ready_session(engine)
    run(engine, sid, "find_references", files=[USERS], symbol="UserRepository")
    assert engine.check_write_target(sid, USERS)["allowed"] is True


def test_writes_only_in_ready(engine):
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    r = engine.check_write_target(sid, CONTROLLER)
    assert r["allowed"] is False and r["reason_code"] == "phase"
    assert "submit_understanding" in r["next_step"]


def test_new_file_needs_allow_new_files_and_an_explored_directory(engine):
    sid = ready_session(engine)
    new_in_explored = "app/Services/LockoutPolicy.php"
    assert engine.check_write_target(sid, new_in_explored)["reason_code"] == "new_file_not_allowed"
    r = engine.check_write_target(sid, new_in_explored, allow_new_files=True)
    assert r["allowed"] is True and r["reason_code"] == "new_file"
    r = engine.check_write_target(sid, "app/Policies/LoginPolicy.php", allow_new_files=True)
    assert r["allowed"] is False and r["reason_code"] == "unexplored_directory"
    # a sub-directory of an explored one is not explored
    r = engine.check_write_target(sid, "app/Services/Auth/Guard.php", allow_new_files=True)
    assert r["reason_code"] == "unexplored_directory"


def test_add_explored_files_adds_only_what_the_session_has_seen(engine):
    """Issue 14: add_explored_files accepted paths nothing explored, and the next Edit
    went through. It now refuses them, says why and what to do."""
    sid = ready_session(engine)
    assert engine.check_write_target(sid, USERS)["allowed"] is False
    for path in (USERS, "app/Policies/../Models", "app/Models/"):
        with pytest.raises(GatingError) as err:
            engine.add_explored_files(sid, [path])
        assert err.value.code == "invalid_paths"
        assert "only adds what this session has seen" in err.value.message
        assert "analyze_structure" in err.value.message or "get_symbols" in err.value.message
    assert engine.check_write_target(sid, USERS)["allowed"] is False
    assert engine.get_session_status(sid)["phase"] == "READY"
    # the agent's own Read of the file (seen by the hook) makes it explored
    sess = engine.store.load_session(sid)
    sess.agent_session = "conv-1"
    engine.store.save_session(sess)
    assert engine.record_agent_reads("conv-1", "Read", [str(engine.root / USERS)])[
        "recorded"] == [USERS]
    r = engine.add_explored_files(sid, [USERS])
    assert r["phase"] == "READY" and r["added"] == [USERS]
    assert engine.check_write_target(sid, USERS)["allowed"] is True
    assert engine.blocked_writes(sid) == []  # cleared once the session allows it
    # a directory with explored code in it can be added; it admits new files
    r = engine.add_explored_files(sid, ["app/Policies/../Repositories"])
    assert r["added"] == ["app/Repositories/"]
    assert engine.check_write_target(sid, "app/Repositories/Cache.php", allow_new_files=True)[
        "allowed"]


def test_add_explored_files_refuses_bad_paths(engine):
    sid = ready_session(engine)
    for path, fragment in (
        ("../etc", "outside the workspace"),
        ("database/Nope.php", "nearest existing directory database"),
        ("lib/new/Nope.php", "nearest existing directory ."),
        (".code-intel/config.json", "own state"),
    ):
        with pytest.raises(GatingError) as err:
            engine.add_explored_files(sid, [path])
        assert fragment in err.value.message


@pytest.mark.parametrize("phase_ready", [False, True])
def test_paths_outside_the_workspace_are_always_refused(engine, phase_ready, tmp_path):
    sid = ready_session(engine) if phase_ready else engine.start_session(
        "MODIFY", DETAILED)["session_id"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.php").write_text("<?php")
    (outside / "notes.md").write_text("# x")
    (engine.root / "app" / "escape").symlink_to(outside, target_is_directory=True)
    (engine.root / "app" / "leak.md").symlink_to(outside / "notes.md")
    cases = {
        "../etc/passwd": "'..' leads outside",
        "app/../../outside/secret.php": "'..' leads outside",
        "/etc/passwd": "absolute path outside",
        str(outside / "secret.php"): "absolute path outside",
        "app/escape/secret.php": "symlink leads outside",
        "app/escape/new.php": "symlink leads outside",
        "app/leak.md": "symlink leads outside",  # not even documentation through a link
    }
    for path, why in cases.items():
        r = engine.check_write_target(sid, path, allow_new_files=True)
        assert r["allowed"] is False and r["reason_code"] == "outside_workspace", path
        assert why in r["reason"], path
        assert r["recovery_options"] == []


def test_absolute_path_inside_the_workspace_is_the_same_file(engine):
    sid = ready_session(engine)
    r = engine.check_write_target(sid, str(engine.root / CONTROLLER))
    assert r["allowed"] is True and r["relative_path"] == CONTROLLER


def test_symlink_inside_the_workspace_is_judged_by_its_target(engine):
    sid = ready_session(engine)
    os.symlink(engine.root / CONTROLLER, engine.root / "login.php")
    assert engine.check_write_target(sid, "login.php")["relative_path"] == CONTROLLER
    assert engine.check_write_target(sid, "login.php")["allowed"] is True


@pytest.mark.parametrize("path", ["README.md", "docs/setup.md", "docs/conf.py", "notes/x.rst",
                                  "app/CHANGELOG.txt"])
def test_documentation_is_exempt_in_every_phase(engine, path):
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    r = engine.check_write_target(sid, path, allow_new_files=False)
    assert r["allowed"] is True and r["reason_code"] == "documentation"


def test_exempt_patterns_are_configurable(tmp_path):
    engine = make_engine(tmp_path, write_exempt_patterns=["**/*.md", "lang/**"])
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    assert engine.check_write_target(sid, "lang/ja/auth.php")["allowed"] is True
    assert engine.check_write_target(sid, "docs/conf.py")["allowed"] is False
    assert engine.check_write_target(sid, "notes.txt")["allowed"] is False


def test_code_intel_state_is_never_writable(engine):
    sid = ready_session(engine)
    run(engine, sid, "search_text", files=["composer.json"], pattern="x")  # the root explored
    for path in (".code-intel/config.json", ".code-intel/sessions.db", ".code-intel/x.md"):
        r = engine.check_write_target(sid, path, allow_new_files=True)
        assert r["allowed"] is False and r["reason_code"] == "protected"


def test_every_write_decision_is_recorded_with_its_reason(engine):
    sid = ready_session(engine)
    engine.check_write_target(sid, CONTROLLER)
    engine.check_write_target(sid, USERS)
    checks = [d for d in engine.store.decisions(sid) if d.kind == "write_check"]
    assert [(d.detail["file_path"], d.detail["allowed"]) for d in checks] == [
        (CONTROLLER, True), (USERS, False)
    ]
    assert all(d.reason for d in checks)


def test_blocked_writes_are_kept_per_session_and_cleared_at_end(engine):
    a = ready_session(engine)
    b = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.check_write_target(a, USERS)
    engine.check_write_target(b, CONTROLLER)
    assert [w["path"] for w in engine.blocked_writes(a)] == [USERS]
    assert [w["path"] for w in engine.blocked_writes(b)] == [CONTROLLER]
    assert {w["session_id"] for w in engine.blocked_writes()} == {a, b}
    blocked = engine.blocked_writes(b)[0]
    assert b in blocked["reason"] and "READY" in blocked["reason"]
    assert engine.end_session(b)["cleared_blocked_writes"] == [CONTROLLER]
    assert [w["session_id"] for w in engine.blocked_writes()] == [a]


def test_revert_keeping_results(engine):
    sid = ready_session(engine)
    r = engine.revert_to_exploration(sid, keep_results=True)
    assert r["phase"] == "EXPLORATION"
    assert r["understanding"]["symbols"]
    assert CONTROLLER in r["explored_files"]
    # the kept understanding counts: READY again with nothing new
    assert engine.submit_understanding(sid)["phase"] == "READY"


def test_revert_discarding_results(engine):
    sid = ready_session(engine)
    sess = engine.store.load_session(sid)
    sess.agent_session = "conv-1"
    engine.store.save_session(sess)
    engine.record_agent_reads("conv-1", "Read", [USERS])
    engine.add_explored_files(sid, [USERS, "app/Repositories/Cache/New.php"])
    r = engine.revert_to_exploration(sid, keep_results=False)
    assert r["phase"] == "EXPLORATION"
    assert r["understanding"] is None and r["explored_files"] == []
    assert r["tools_used"] == []  # earlier calls no longer count
    assert r["query_frame"]["target_feature"] == "ログイン画面"  # the request stays
    assert engine.submit_understanding(sid, symbols_identified=["LoginController"])[
        "phase"] == "SEMANTIC"


def test_write_check_validates_its_input(engine):
    sid = ready_session(engine)
    with pytest.raises(GatingError):
        engine.check_write_target(sid, "")
    with pytest.raises(GatingError):
        engine.check_write_target(sid, CONTROLLER, allow_new_files="yes")
    assert engine.check_write_target(sid, "app")["reason_code"] == "is_directory"


def test_tool_result_paths_are_placed_in_the_workspace(engine):
    sid = ready_session(engine)
    run(engine, sid, "search_text", pattern="User",
        files=[str(engine.root / USERS), "../outside.php", "/etc/passwd",
               ".code-intel/config.json"])
    explored = engine.get_session_status(sid)["explored_files"]
    assert USERS in explored
    assert not [f for f in explored if "outside" in f or "passwd" in f or "code-intel" in f]
    assert engine.check_write_target(sid, USERS)["allowed"] is True


def test_without_a_session_id_the_latest_active_session_decides(engine):
    older = engine.start_session("MODIFY", "fix the login")["session_id"]
    engine.clock.advance(5)
    newer = engine.start_session("INVESTIGATE", "how are orders paid")["session_id"]
    r = engine.check_write_target(None, CONTROLLER)
    assert r["allowed"] is False and r["session_id"] == newer != older
    engine.end_session(newer)
    assert engine.check_write_target(None, CONTROLLER)["session_id"] == older


def test_without_any_session_docs_pass_and_code_is_refused(engine):
    assert engine.check_write_target(None, "README.md")["allowed"] is True
    with pytest.raises(GatingError, match="start_session") as exc:
        engine.check_write_target(None, CONTROLLER)
    assert exc.value.code == "no_session"


def test_recovery_for_a_new_file_points_at_a_way_that_works(engine):
    sid = ready_session(engine)
    new_file = "app/Models/Session.php"  # app/Models exists; nothing in it was read
    r = engine.check_write_target(sid, new_file, allow_new_files=True)
    assert r["reason_code"] == "unexplored_directory"
    explore = r["recovery_options"][0]
    assert explore["tool"] == "get_symbols" and explore["params"] == {"path": "app/Models"}
    run(engine, sid, "get_symbols", files=["app/Models/User.php"], **explore["params"])
    assert engine.check_write_target(sid, new_file, allow_new_files=True)["allowed"] is True


def test_a_new_file_in_a_new_directory_has_a_path_that_works(engine):
    """Issue 14: the hook said add_explored_files on the directory, which refused a
    directory that does not exist. A new file next to explored code can be added."""
    sid = ready_session(engine)
    new_file = "app/Services/Lockout/LockoutPolicy.php"  # app/Services/Lockout is new
    r = engine.check_write_target(sid, new_file, allow_new_files=True)
    assert r["allowed"] is False and r["reason_code"] == "unexplored_directory"
    add = r["recovery_options"][0]
    assert add == {**add, "tool": "add_explored_files", "params": {"paths": [new_file]}}
    assert engine.add_explored_files(sid, **add["params"])["added"] == [new_file]
    assert engine.check_write_target(sid, new_file, allow_new_files=True)["allowed"] is True
    # far from anything explored: refused, and the way out explores first
    r = engine.check_write_target(sid, "database/seeders/UserSeeder.php", allow_new_files=True)
    explore = r["recovery_options"][0]
    # the nearest directory that exists: database/seeders does not
    assert explore["tool"] == "get_symbols" and explore["params"] == {"path": "database"}
    with pytest.raises(GatingError, match="database"):
        engine.add_explored_files(sid, ["database/seeders/UserSeeder.php"])


def test_documentation_never_makes_its_directory_explored(engine):
    """Issue 14: once README.md was explored, the root counted as explored, so a new
    code file at the root was allowed."""
    (engine.root / "README.md").write_text("# app\n")
    (engine.root / "app" / "NOTES.md").write_text("# notes\n")
    sid = ready_session(engine)
    run(engine, sid, "search_text", files=["README.md", "app/NOTES.md"], pattern="x")
    status = engine.get_session_status(sid)
    assert "README.md" in status["explored_files"]
    assert "." not in status["explored_directories"] and "app" not in status[
        "explored_directories"]
    for new in ("evil.php", "app/Evil.php"):
        r = engine.check_write_target(sid, new, allow_new_files=True)
        assert r["allowed"] is False and r["reason_code"] == "unexplored_directory", new
    with pytest.raises(GatingError):
        engine.add_explored_files(sid, ["evil.php"])
