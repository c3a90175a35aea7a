"""SPEC §4.8: write checks, workspace confinement, documentation exemption, recovery
(add_explored_files, revert_to_exploration), decisions and blocked writes kept."""

from __future__ import annotations

import os

import pytest
from test_gating_fakes import CONTROLLER, DETAILED, USERS, make_engine, ready_session, run

from code_intel.gating.errors import GatingError


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
    assert options["add_explored_files"]["params"] == {"paths": [USERS]}
    assert options["revert_to_exploration"]["params"] == {"keep_results": True}


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


def test_add_explored_files_unblocks_and_stays_ready(engine):
    sid = ready_session(engine)
    assert engine.check_write_target(sid, USERS)["allowed"] is False
    assert [b["path"] for b in engine.blocked_writes(sid)] == [USERS]
    r = engine.add_explored_files(sid, [USERS, "app/Policies/../Models"])
    assert r["phase"] == "READY" and r["added"] == [USERS, "app/Models/"]
    assert [b["path"] for b in r["blocked_writes"]] == [USERS]  # until checked again
    assert engine.check_write_target(sid, USERS)["allowed"] is True
    assert engine.blocked_writes(sid) == []  # cleared once the session allows it
    # an added directory admits new files
    assert engine.check_write_target(sid, "app/Models/Session.php", allow_new_files=True)[
        "allowed"]


def test_add_explored_files_refuses_bad_paths(engine):
    sid = ready_session(engine)
    for path, fragment in (
        ("../etc", "outside the workspace"),
        ("app/Nope.php", "does not exist"),
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
    engine.add_explored_files(sid, ["routes"])
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
    engine.add_explored_files(sid, [USERS])
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


def test_recovery_for_a_new_file_points_at_its_directory(engine):
    sid = ready_session(engine)
    new_file = "app/Models/Session.php"
    r = engine.check_write_target(sid, new_file, allow_new_files=True)
    assert r["reason_code"] == "unexplored_directory"
    add = next(o for o in r["recovery_options"] if o["tool"] == "add_explored_files")
    assert add["params"]["paths"] == ["app/Models"]
    engine.add_explored_files(sid, **add["params"])  # following the advice works
    assert engine.check_write_target(sid, new_file, allow_new_files=True)["allowed"] is True
