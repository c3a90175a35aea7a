"""The MCP bridge's pure parts: the tool catalog and its schemas, argument checks and
the remembered session, reply bounds and truncation, text rendering, error → tool
error mapping, and the PreToolUse hook's payload parsing and verdicts. The Bridge's
call flow is exercised over a scripted link (the real server is in tests/e2e)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from code_intel.gating.phases import TOOL_PHASES
from code_intel.lsp_server import protocol as lsp_protocol
from code_intel.mcp_bridge import bounds, hook_rules, replies
from code_intel.mcp_bridge.connection import ConnectionLost, ServerUnavailable
from code_intel.mcp_bridge.render import hints as render_hints
from code_intel.mcp_bridge.render import render
from code_intel.mcp_bridge.requests import ArgumentError, SessionMemory, validate_arguments
from code_intel.mcp_bridge.server import Bridge, agent_session_of
from code_intel.mcp_bridge.tools import SPEC_TOOLS, TOOLS, SessionArg
from pygls.exceptions import JsonRpcException

# ---- catalog -------------------------------------------------------------------------------


def test_every_spec_tool_has_a_valid_schema_and_a_description_with_its_phases():
    assert set(SPEC_TOOLS) <= set(TOOLS)
    for spec in TOOLS.values():
        schema = spec.input_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema.get("required", [])) <= set(schema["properties"])
        assert len(spec.summary) > 30, spec.name  # short (tokens), yet saying something
        assert "Phases:" in spec.description
    assert TOOLS["add_explored_files"].description.endswith("Phases: READY.")
    assert "Phases: EXPLORATION, VERIFICATION, READY." in TOOLS["find_definitions"].description
    assert "Phases: all." in TOOLS["start_session"].description
    assert all(t in TOOL_PHASES for t in SPEC_TOOLS)


def test_index_tools_are_the_protocols_requests_and_session_tools_its_session_methods():
    index = {
        "search_text": lsp_protocol.SEARCH_TEXT, "find_definitions": lsp_protocol.FIND_DEFINITIONS,
        "find_references": lsp_protocol.FIND_REFERENCES, "get_symbols": lsp_protocol.GET_SYMBOLS,
        "analyze_structure": lsp_protocol.ANALYZE_STRUCTURE,
        "get_function_at_line": lsp_protocol.GET_FUNCTION_AT_LINE,
        "semantic_search": lsp_protocol.SEMANTIC_SEARCH, "query": lsp_protocol.QUERY,
        "sync_index": lsp_protocol.SYNC_INDEX,
    }
    for name, method in index.items():
        assert TOOLS[name].method == method and TOOLS[name].session is SessionArg.GATED
        assert lsp_protocol.tool_name(method) == name  # the server gates it under this name
    for name, spec in TOOLS.items():
        if name not in index:
            assert spec.method == lsp_protocol.SESSION_PREFIX + name


def test_schema_limits_match_the_servers_params():
    props = TOOLS["search_text"].input_schema()["properties"]
    assert props["max_results"]["maximum"] == 1000
    assert TOOLS["find_definitions"].properties["limit"]["maximum"] == 500
    assert TOOLS["find_references"].properties["limit"]["maximum"] == 5000
    assert "session_id" in props and "session_id" not in TOOLS["start_session"].input_schema()[
        "properties"]


# ---- arguments and the remembered session ------------------------------------------------


def test_arguments_are_checked_by_field():
    with pytest.raises(ArgumentError, match="'name' is a required property"):
        validate_arguments(TOOLS["find_definitions"], {})
    with pytest.raises(ArgumentError, match="'symbol' was unexpected"):
        validate_arguments(TOOLS["find_definitions"], {"name": "X", "symbol": "X"})
    with pytest.raises(ArgumentError, match="intent: 'DANCE' is not one of"):
        validate_arguments(TOOLS["start_session"], {"intent": "DANCE", "query": "x"})
    with pytest.raises(ArgumentError, match=r"slots\.observed_issue: 'quote' is a required"):
        validate_arguments(TOOLS["set_query_frame"], {"slots": {"observed_issue": {"value": "v"}}})
    with pytest.raises(ArgumentError, match="limit: 0 is less than the minimum"):
        validate_arguments(TOOLS["find_definitions"], {"name": "X", "limit": 0})


def test_string_numbers_and_booleans_are_accepted_where_the_schema_is_clear():
    args = validate_arguments(TOOLS["find_definitions"], {"name": "X", "limit": "5", "exact": "false"})
    assert args == {"name": "X", "limit": 5, "exact": False}
    with pytest.raises(ArgumentError):
        validate_arguments(TOOLS["find_definitions"], {"name": "X", "limit": "five"})


def test_the_session_started_here_is_passed_on_unless_given():
    memory = SessionMemory()
    assert memory.needs_session(TOOLS["get_session_status"], {})
    assert not memory.needs_session(TOOLS["check_write_target"], {"file_path": "a.py"})
    assert memory.params_for(TOOLS["find_definitions"], {"name": "X"}) == {"name": "X"}
    memory.observe(TOOLS["start_session"], {}, {"session_id": "sess_1", "phase": "EXPLORATION"})
    assert memory.params_for(TOOLS["find_definitions"], {"name": "X"})["session_id"] == "sess_1"
    assert memory.params_for(TOOLS["submit_understanding"], {})["session_id"] == "sess_1"
    assert memory.params_for(TOOLS["check_write_target"], {"file_path": "a"})["session_id"] == "sess_1"
    assert "session_id" not in memory.params_for(TOOLS["start_session"], {"intent": "QUESTION"})
    assert memory.params_for(TOOLS["get_session_status"], {"session_id": "sess_0"}) == {
        "session_id": "sess_0"}
    memory.observe(TOOLS["end_session"], {"session_id": "sess_1"}, {"status": "ended"})
    assert memory.session_id is None
    memory.observe(TOOLS["get_session_status"], {"session_id": "sess_2"}, {"status": "active"})
    assert memory.session_id == "sess_2"  # adopted after a restart of the bridge


# ---- bounds ------------------------------------------------------------------------------------


def _symbol(n: int) -> dict[str, Any]:
    rng = {"start": {"line": n, "character": 0}, "end": {"line": n + 9, "character": 1}}
    return {"name": f"f{n}", "kind": "function", "qualified_name": f"m.f{n}", "path": "m.py",
            "uri": "file:///w/m.py", "line": n + 1, "range": rng, "selection_range": rng,
            "language": "python"}


def test_compact_drops_editor_locations_and_keeps_the_end_line():
    out = bounds.compact({"definitions": [_symbol(4)], "name": "f4"})
    d = out["definitions"][0]
    assert "uri" not in d and "range" not in d and "selection_range" not in d
    assert d["line"] == 5 and d["end_line"] == 14


def test_fit_cuts_the_largest_list_and_reports_it():
    data = {"matches": [{"path": "a.py", "line": i, "content": "x" * 80} for i in range(2000)],
            "total": 5000, "truncated": True}
    out, cuts = bounds.fit(data, 10_000)
    assert bounds.size(out) <= 10_000
    assert [c.to_json() for c in cuts] == [
        {"path": "matches", "shown": len(out["matches"]), "total": 2000, "unit": "items"}]
    assert 50 < len(out["matches"]) < 2000 and out["total"] == 5000
    small, none = bounds.fit({"a": [1, 2, 3]}, 10_000)
    assert small == {"a": [1, 2, 3]} and none == []


def test_fit_keeps_a_single_class_and_cuts_its_members_or_a_long_text():
    outline = {"symbols": [{"name": "Big", "children": [{"name": f"m{i}", "doc": "d" * 100}
                                                          for i in range(500)]}]}
    out, cuts = bounds.fit(outline, 5_000)
    assert out["symbols"][0]["name"] == "Big" and 0 < len(out["symbols"][0]["children"]) < 500
    assert cuts[0].where == "symbols[0].children"
    text, cuts = bounds.fit({"content": "line\n" * 10_000}, 3_000)
    assert bounds.size(text) <= 3_000 and text["content"].endswith("[cut]")
    assert cuts[0].unit == "characters" and cuts[0].total == 50_000


def test_cap_text_cuts_whole_lines_and_says_how_to_get_more():
    text = "\n".join(f"line {i}" for i in range(10_000))
    capped = bounds.cap_text(text, 2_000, "narrow with path")
    assert len(capped) <= 2_000 and capped.endswith("(narrow with path)")
    assert "more line(s) not shown" in capped


# ---- replies -----------------------------------------------------------------------------------


def test_a_huge_search_reply_is_truncated_within_the_bound_and_says_so():
    answer = {"matches": [{"path": f"src/f{i % 40}.py", "line": i, "column": 1, "content": "y" * 120,
                           "before": ["b" * 60], "after": ["a" * 60]} for i in range(1000)],
              "total": 48_000, "truncated": True}
    reply = replies.success(TOOLS["search_text"], answer, {"pattern": "."})
    assert not reply.is_error
    assert bounds.size(reply.structured) <= bounds.MAX_STRUCTURED_CHARS
    assert len(reply.text) <= bounds.MAX_TEXT_CHARS
    assert reply.structured["truncated"] is True
    cut = reply.structured["truncation"]["cuts"][0]
    assert cut["path"] == "matches" and cut["total"] == 1000 and cut["shown"] < 1000
    assert "narrow with path or glob" in reply.structured["truncation"]["how_to_get_more"]
    assert reply.text.startswith("48000 matches for '.'")
    assert "[truncated to fit the reply: matches:" in reply.text and "narrow with path" in reply.text


def test_initializing_is_passed_on_as_an_answer_to_retry():
    reply = replies.success(TOOLS["semantic_search"], {"status": "initializing",
                                                       "retry_after_seconds": 7}, {})
    assert not reply.is_error and reply.structured["retry_after_seconds"] == 7
    assert "again in 7 seconds" in reply.text


def test_a_gating_refusal_names_the_phase_and_the_next_step():
    data = {"error": "wrong_phase", "tool": "add_explored_files", "phase": "EXPLORATION",
            "allowed_phases": ["READY"], "next_step": "explore, then call submit_understanding",
            "message": "add_explored_files is not allowed in EXPLORATION; it is allowed in READY. "
                       "Next: explore, then call submit_understanding"}
    reply = replies.from_rpc_error(TOOLS["add_explored_files"], -32001, data["message"], data)
    assert reply.is_error
    assert "Current phase: EXPLORATION. add_explored_files is allowed in: READY." in reply.text
    assert reply.text.count("Next: explore, then call submit_understanding") == 1
    assert reply.structured["error"] == "wrong_phase"
    assert reply.structured["allowed_phases"] == ["READY"]
    unknown = replies.from_rpc_error(TOOLS["submit_understanding"], -32001, "not defined",
                                     {"error": "unknown_symbols", "message": "not defined: X",
                                      "unknown_symbols": ["X"]})
    assert 'unknown_symbols: ["X"]' in unknown.text
    gone = replies.from_rpc_error(TOOLS["get_session_status"], -32001, "no session 'x'",
                                  {"error": "unknown_session", "message": "no session 'x'"})
    assert "call start_session" in gone.text


def test_invalid_params_and_server_errors_are_tool_errors():
    bad = replies.from_rpc_error(TOOLS["start_session"], -32602, "intent 'DANCE' is not one of",
                                 {"error": "invalid_params"})
    assert bad.is_error and "Invalid arguments for start_session: intent" in bad.text
    boom = replies.from_rpc_error(TOOLS["sync_index"], -32603, "sync failed", None)
    assert boom.is_error and "sync failed" in boom.text and boom.structured["code"] == -32603


# ---- rendering ---------------------------------------------------------------------------------


def test_find_definitions_text_is_one_line_per_definition():
    data = bounds.compact({"name": "login", "truncated": False,
                           "definitions": [_symbol(3) | {"name": "login", "kind": "method",
                                                         "qualified_name": "A::login",
                                                         "path": "app/A.php"},
                                           _symbol(8) | {"qualified_name": "B::login"}]})
    text = render("find_definitions", data, {"name": "login"})
    assert text.splitlines() == ["2 definitions of login:", "app/A.php:4 method A::login",
                                 "m.py:9 function B::login"]
    assert "No definition of 'nope'" in render("find_definitions", {"definitions": []},
                                               {"name": "nope"})


def test_refused_write_text_lists_the_recovery_options():
    text = render("check_write_target", {
        "allowed": False, "relative_path": "app/B.php", "reason": "session s: app/B.php was not "
        "explored", "reason_code": "unexplored",
        "recovery_options": [{"tool": "add_explored_files", "params": {"paths": ["app/B.php"]},
                              "description": "explore it, then add it"}]})
    assert text.startswith("REFUSED: app/B.php")
    assert 'add_explored_files({"paths":["app/B.php"]}): explore it, then add it' in text


def test_an_answer_of_an_unexpected_shape_still_renders():
    assert "weird" in render("find_definitions", {"definitions": "weird"})
    assert render("sync_index", [1, 2]) == "[1,2]"


# ---- the Bridge over a scripted link -----------------------------------------------------------


class ScriptedLink:
    """Answers requests from a script: a value, or an exception to raise."""

    def __init__(self, **answers: Any) -> None:
        self.answers = {"codeIntel/indexStatus": {"state": "ready", "progress": {}}, **answers}
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def request(self, method: str, params: dict[str, Any] | None = None, **_: Any) -> Any:
        self.sent.append((method, dict(params or {})))
        answer = self.answers[method]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async def close(self) -> None:
        pass


async def test_bridge_injects_the_started_session_and_maps_refusals():
    link = ScriptedLink(**{
        "codeIntel/session/start_session": {"session_id": "sess_9", "phase": "EXPLORATION"},
        "codeIntel/findDefinitions": {"name": "X", "definitions": [], "truncated": False},
        "codeIntel/session/add_explored_files": JsonRpcException(
            "not in EXPLORATION", -32001, {"error": "wrong_phase", "phase": "EXPLORATION",
                                           "allowed_phases": ["READY"], "next_step": "explore"}),
    })
    bridge = Bridge(Path("/nonexistent"), link)  # type: ignore[arg-type]
    assert (await bridge.call("get_session_status", {})).structured["error"] == "no_session"
    await bridge.call("start_session", {"intent": "MODIFY", "query": "fix X"})
    await bridge.call("find_definitions", {"name": "X"})
    assert link.sent[-1] == ("codeIntel/findDefinitions", {"name": "X", "session_id": "sess_9"})
    refused = await bridge.call("add_explored_files", {"paths": ["a.py"]})
    assert refused.is_error and "allowed in: READY" in refused.text and "Next: explore" in refused.text
    bad = await bridge.call("find_definitions", {"nme": "X"})
    assert bad.is_error and "'nme' was unexpected" in bad.text
    assert (await bridge.call("no_such_tool", {})).structured["error"] == "unknown_tool"


async def test_the_bridge_tells_start_session_which_claude_code_conversation_it_serves():
    """Claude Code 2.1.330 starts one MCP server per conversation with
    CLAUDE_CODE_SESSION_ID set (the hooks' `session_id`): start_session records it so
    the hook judges that conversation by its own session."""
    assert agent_session_of({"CLAUDE_CODE_SESSION_ID": " f62dea42 "}) == "f62dea42"
    assert agent_session_of({}) is None
    link = ScriptedLink(**{
        "codeIntel/session/start_session": {"session_id": "sess_9", "phase": "EXPLORATION"}})
    bridge = Bridge(Path("/nonexistent"), link, agent_session="f62dea42")  # type: ignore[arg-type]
    await bridge.call("start_session", {"intent": "MODIFY", "query": "fix X"})
    assert link.sent[-1] == ("codeIntel/session/start_session",
                             {"intent": "MODIFY", "query": "fix X", "agent_session": "f62dea42"})
    assert "agent_session" not in TOOLS["start_session"].input_schema()["properties"]


def test_read_payloads_name_the_files_the_agent_saw():
    root = Path("/repo")
    read = hook_rules.parse_read_payload(json.dumps({
        "session_id": "c1", "cwd": "/repo", "tool_name": "Read",
        "tool_input": {"file_path": "/repo/app/A.php"},
        "tool_response": {"type": "text", "file": {"filePath": "/repo/app/A.php"}}}), "/")
    assert read == hook_rules.ReadCall("Read", (root / "app/A.php",), root, "c1")
    grep = hook_rules.parse_read_payload(json.dumps({
        "session_id": "c1", "cwd": "/repo", "tool_name": "Grep", "tool_input": {"pattern": "x"},
        "tool_response": {"mode": "content", "content": "app/B.php:3:x\napp/C.php:9:  x"}}), "/")
    assert grep is not None and grep.paths == (root / "app/B.php", root / "app/C.php")
    glob = hook_rules.parse_read_payload(json.dumps({
        "session_id": "c1", "cwd": "/repo", "tool_name": "Glob", "tool_input": {"pattern": "*"},
        "tool_response": {"filenames": ["/repo/a.py", "b.py"], "numFiles": 2}}), "/")
    assert glob is not None and glob.paths == (root / "a.py", root / "b.py")
    for useless in ("nope", json.dumps({"tool_name": "Read", "tool_input": {"file_path": "/a"}}),
                    json.dumps({"session_id": "c1", "tool_name": "Bash", "tool_input": {}})):
        assert hook_rules.parse_read_payload(useless, "/") is None


async def test_bridge_reports_a_dead_server_and_a_lost_state_change_clearly():
    link = ScriptedLink(**{
        "codeIntel/findReferences": ServerUnavailable("cannot start the server"),
        "codeIntel/session/record_outcome": ConnectionLost("closed"),
    })
    bridge = Bridge(Path("/nonexistent"), link)  # type: ignore[arg-type]
    gone = await bridge.call("find_references", {"name": "X"})
    assert gone.is_error and "not available" in gone.text and "cannot start" in gone.text
    lost = await bridge.call("record_outcome", {"outcome": "success", "session_id": "s"})
    assert lost.is_error and "get_session_status" in lost.text


async def test_bridge_waits_for_the_first_sync_and_reports_sync_progress(monkeypatch):
    link = ScriptedLink(**{
        "codeIntel/indexStatus": {"state": "indexing", "progress": {"done": 3, "total": 10}},
        "codeIntel/getSymbols": {"symbols": [], "truncated": False},
        "codeIntel/syncIndex": {"added": [], "modified": ["a.py"], "deleted": [], "unchanged": 9,
                                "skipped": {}, "elapsed_seconds": 0.2},
    })
    monkeypatch.setattr("code_intel.mcp_bridge.server.INDEX_WAIT_SECONDS", 0.3)
    bridge = Bridge(Path("/nonexistent"), link)  # type: ignore[arg-type]
    reply = await bridge.call("get_symbols", {})
    assert reply.text.startswith("note: the index is still being built (3/10 files)")
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    synced = await bridge.call("sync_index", {}, progress)
    assert "1 modified" in synced.text and seen[-1] == (1.0, 1.0, "done")


async def test_advice_is_in_the_structured_result_the_model_reads():
    """Claude Code 2.1.330 sends the model only structuredContent when a result has it
    (seen in the fake API's request log): hints, notes and next steps must be in it."""
    link = ScriptedLink(**{
        "codeIntel/indexStatus": {"state": "indexing", "progress": {"done": 3, "total": 10}},
        "codeIntel/findDefinitions": {"name": "LoginControler", "definitions": [],
                                      "truncated": False},
        "codeIntel/getSymbols": {"symbols": [{"name": "A", "path": "a.py", "line": 1}],
                                 "truncated": True},
    })
    bridge = Bridge(Path("/nonexistent"), link)  # type: ignore[arg-type]
    bridge.index_ready = False
    none = (await bridge.call("find_definitions", {"name": "LoginControler"})).structured
    assert any("still being built" in h for h in none["hints"])
    assert any("Try exact=false" in h for h in none["hints"])
    more = (await bridge.call("get_symbols", {})).structured
    assert any("raise the limit or narrow" in h for h in more["hints"])
    for reply in (replies.unavailable(TOOLS["query"], "x"),
                  replies.interrupted(TOOLS["record_outcome"], "x"),
                  replies.timed_out(TOOLS["query"], 5),
                  replies.invalid(TOOLS["query"], "text: required"),
                  replies.no_session(TOOLS["get_session_status"]),
                  replies.from_rpc_error(TOOLS["query"], -32603, "boom", None),
                  replies.from_rpc_error(TOOLS["get_session_status"], -32001, "gone",
                                         {"error": "unknown_session"})):
        assert reply.structured["next_step"], reply


def test_a_qualified_name_that_matches_nothing_suggests_its_last_segment():
    hint, = render_hints("find_definitions", {"name": "LoginController::login",
                                              "definitions": []}, {"exact": False})
    assert "'login' with exact=false" in hint


# ---- the hook's rules --------------------------------------------------------------------------


def _payload(tool: str, tool_input: dict[str, Any], cwd: str = "/w") -> str:
    return json.dumps({"session_id": "cc", "transcript_path": "/t.jsonl", "cwd": cwd,
                       "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": tool_input})


@pytest.mark.parametrize("tool,key", [("Edit", "file_path"), ("Write", "file_path"),
                                      ("MultiEdit", "file_path"), ("NotebookEdit", "notebook_path")])
def test_write_payloads_name_the_file(tool: str, key: str):
    call = hook_rules.parse_payload(_payload(tool, {key: "app/x.py", "content": "x"}), "/other")
    assert isinstance(call, hook_rules.WriteCall)
    assert call.tool == tool and call.file_path == Path("/w/app/x.py") and call.cwd == Path("/w")
    assert call.creates_files is (tool == "Write")


def test_other_tools_pass_and_bad_payloads_are_non_blocking_errors():
    assert hook_rules.parse_payload(_payload("Bash", {"command": "rm -rf x"}), "/") == \
        hook_rules.Verdict("allow")
    assert hook_rules.parse_payload(_payload("Read", {"file_path": "/w/a"}), "/").decision == "allow"
    bad = hook_rules.parse_payload("{not json", "/")
    assert bad.decision == "error" and "not JSON" in bad.message and "\n" not in bad.message
    missing = hook_rules.parse_payload(_payload("Edit", {"old_string": "a"}), "/")
    assert missing.decision == "error" and "tool_input.file_path" in missing.message
    assert hook_rules.parse_payload("[]", "/").decision == "error"
    assert hook_rules.parse_payload(json.dumps({"tool_input": {}}), "/").decision == "error"


def test_the_workspace_is_the_one_cwd_belongs_to_else_the_files():
    call = hook_rules.WriteCall("Edit", Path("/repo/sub/app/x.py"), Path("/elsewhere/src"))
    assert hook_rules.find_workspace(call, lambda p: p == Path("/repo")) == Path("/repo")
    here = hook_rules.find_workspace(call, lambda p: p in {Path("/repo"), Path("/elsewhere")})
    assert here == Path("/elsewhere")  # the session's workspace, not the file's
    assert hook_rules.outside(call, here).decision == "deny"
    assert "outside this session's workspace" in hook_rules.outside(call, here).message
    assert hook_rules.outside(call, Path("/repo")) is None
    assert hook_rules.find_workspace(call, lambda p: False) is None


def test_a_refusal_is_claude_codes_decision_json_and_errors_are_one_line():
    code, out, err = hook_rules.Verdict("deny", "code-intel blocked Edit: why. Next: x").render()
    assert code == 0 and err == ""
    assert json.loads(out) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "code-intel blocked Edit: why. Next: x"}}
    assert hook_rules.Verdict("allow").render() == (0, "", "")
    assert hook_rules.Verdict("error", "bad input").render() == (1, "", "bad input")


def test_impossible_paths_are_refused_without_touching_the_disk():
    long_path = "/w/" + "a/" * 50_000 + "x.py"
    refused = hook_rules.parse_payload(_payload("Edit", {"file_path": long_path}), "/")
    assert refused.decision == "deny" and "characters long" in refused.message
    name = hook_rules.parse_payload(_payload("Write", {"file_path": "/w/" + "n" * 300}), "/")
    assert name.decision == "deny"
    nul = hook_rules.parse_payload(_payload("Write", {"file_path": "/w/a\x00.py"}), "/")
    assert nul.decision == "deny" and "NUL" in nul.message


def test_an_undecided_write_is_denied_unless_the_workspace_opted_out():
    call = hook_rules.WriteCall("Edit", Path("/repo/a.py"), Path("/repo"))
    closed = hook_rules.undecided(call, "no answer in time", fail_open=False)
    assert closed.decision == "deny" and "no answer in time" in closed.message
    assert "get_session_status" in closed.message
    assert hook_rules.undecided(call, "x", fail_open=True).decision == "error"


def test_answers_become_exit_codes_with_actionable_reasons():
    call = hook_rules.WriteCall("Edit", Path("/repo/app/B.php"), Path("/repo"))
    assert hook_rules.from_answer(call, {"allowed": True, "reason": "explored"}) == \
        hook_rules.Verdict("allow")
    blocked = hook_rules.from_answer(call, {
        "allowed": False, "relative_path": "app/B.php", "reason_code": "unexplored",
        "reason": "session s: app/B.php was not explored in this session",
        "recovery_options": [
            {"tool": "add_explored_files", "params": {"paths": ["app/B.php"]},
             "description": "explore app/B.php, then add it"},
            {"tool": "revert_to_exploration", "params": {"keep_results": True},
             "description": "go back to EXPLORATION"}]})
    assert blocked.decision == "deny"
    assert blocked.message.startswith("code-intel blocked Edit on app/B.php: session s:")
    assert '- add_explored_files(paths=["app/B.php"]): explore app/B.php' in blocked.message
    assert "- revert_to_exploration(keep_results=true)" in blocked.message
    phase = hook_rules.from_answer(call, {"allowed": False, "reason_code": "phase",
                                          "reason": "only in READY", "next_step": "explore"})
    assert phase.decision == "deny" and "Next: explore" in phase.message
    new_dir = hook_rules.from_answer(call, {
        "allowed": False, "relative_path": "app/New/C.php", "reason_code": "unexplored_directory",
        "reason": "r", "recovery_options": [
            {"tool": "add_explored_files", "params": {"paths": ["app/New/C.php"]},
             "description": "add the new file"}]})
    # only the gate's own recovery (one that works): not add_explored_files on a directory
    # that does not exist, which the gate refuses (issue 14)
    assert 'add_explored_files(paths=["app/New/C.php"])' in new_dir.message
    assert "app/New/\"" not in new_dir.message
    assert hook_rules.from_answer(call, "weird").decision == "error"


def test_gating_errors_block_or_pass_as_they_should():
    call = hook_rules.WriteCall("Write", Path("/repo/a.py"), Path("/repo"))
    none = hook_rules.from_refusal(call, "no_session", "no active code-intel session: call "
                                   "start_session", {})
    assert none.decision == "deny" and "start_session" in none.message
    assert hook_rules.from_refusal(call, "invalid_params", "file_path is empty", {}).decision == "error"


def test_find_references_text_lists_undecided_occurrences_apart():
    data = {"name": "Model.close", "references": [], "files": 0, "truncated": False,
            "possible": [{"path": "shop/repo.py", "line": 15, "reason": "the receiver's type is not known"}]}
    text = render("find_references", data, {"name": "Model.close"})
    assert text.splitlines() == [
        "No references to 'Model.close' outside its definitions.",
        "1 possible reference (undecided):",
        "shop/repo.py:15  (the receiver's type is not known)",
    ]


def test_query_takes_a_whole_pasted_issue_and_the_prose_switch():
    issue = "KeyError in checkout\n" + "  File \"app/cart.py\", line 3, in total\n" * 1500
    assert len(issue) > 50_000
    args = validate_arguments(TOOLS["query"], {"text": issue, "include_prose": True})
    assert args["text"] == issue and args["include_prose"] is True
    with pytest.raises(ArgumentError, match="include_prose"):
        validate_arguments(TOOLS["query"], {"text": "login", "include_prose": "maybe"})


def test_the_bridge_serves_the_project_dir_or_the_nearest_workspace(tmp_path: Path):
    from code_intel.mcp_bridge.server import workspace_root

    (tmp_path / "repo/.code-intel").mkdir(parents=True)
    (tmp_path / "repo/src/deep").mkdir(parents=True)
    deep = tmp_path / "repo/src/deep"
    assert workspace_root(deep, {}) == tmp_path / "repo"
    assert workspace_root(deep, {"CLAUDE_PROJECT_DIR": str(tmp_path)}) == tmp_path
    assert workspace_root(deep, {"CLAUDE_PROJECT_DIR": str(tmp_path / "gone")}) == tmp_path / "repo"
    plain = tmp_path / "plain"
    plain.mkdir()
    assert workspace_root(plain, {}) == plain


def test_claude_codes_project_dir_is_the_workspace_even_before_any_state(tmp_path: Path):
    call = hook_rules.WriteCall("Edit", tmp_path / "app/x.py", tmp_path / "app")
    assert hook_rules.find_workspace(call, lambda p: False, str(tmp_path)) == tmp_path
    assert hook_rules.find_workspace(call, lambda p: False, "relative/dir") is None


def test_the_tools_claude_code_loads_up_front_cost_at_most_4k_tokens(capsys):
    """Claude Code sends name, description and input_schema of every tool not deferred
    behind its ToolSearch on every request; the rest cost only their names."""
    from code_intel.mcp_bridge.server import ALWAYS_LOAD, FIRST_TURN_TOOLS

    tools = Bridge(Path(".")).tools()
    loaded = [t for t in tools if (t.meta or {}).get(ALWAYS_LOAD)]
    assert {t.name for t in loaded} == FIRST_TURN_TOOLS
    assert "start_session" in FIRST_TURN_TOOLS  # /code step 1 is there on the first turn
    chars = sum(len(json.dumps({"name": t.name, "description": t.description,
                                "input_schema": t.input_schema})) for t in loaded)
    everything = sum(len(json.dumps({"name": t.name, "description": t.description,
                                     "input_schema": t.input_schema})) for t in tools)
    with capsys.disabled():
        print(f"\nup-front tool definitions: {len(loaded)} tools, {chars} chars "
              f"≈ {chars // 4} tokens (chars/4); all {len(tools)} tools: {everything} chars "
              f"≈ {everything // 4} tokens")
    assert chars // 4 <= 4000
    # issue 14 Deliver 8: all of them together (a client that loads every tool pays this
    # on every request) within 4k tokens, each still naming the phases that allow it
    assert len(tools) == 23 and everything // 4 <= 4000
    for tool in tools:
        assert "Phases: " in tool.description, tool.name
