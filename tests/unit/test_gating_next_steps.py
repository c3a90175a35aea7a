"""Issue 14: every refusal's next step names a tool the current phase allows.

A refusal whose next step names a tool the phase refuses makes the agent loop (the
real case: SEMANTIC with slot evidence missing pointed at submit_understanding). This
walks every refusal the gate gives — each tool refused by the phase matrix, every
session request called in the wrong phase, write checks of every kind in every phase,
the SEMANTIC / VERIFICATION answers, add_explored_files' refusal and the hook's text
built from them — and checks that the first tool each next step names, and every
recovery option's tool, is allowed in the phase the session is in.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from code_intel.gating.errors import GatingError
from code_intel.gating.model import Phase
from code_intel.gating.phases import TOOL_PHASES, WRITE, check_tool_allowed
from code_intel.mcp_bridge import hook_rules
from test_gating_fakes import (
    AUTH,
    CONTROLLER,
    DETAILED,
    DETAILED_SLOTS,
    USERS,
    make_engine,
    ready_session,
    run,
)

TOOLS = sorted((t for t in TOOL_PHASES if t != WRITE), key=len, reverse=True)
NAMED = re.compile(r"\b(" + "|".join(TOOLS) + r")\b")
WRITES = (USERS, CONTROLLER, "app/Models/Session.php", "app/Services/Lockout/Policy.php",
          "database/seeders/Seeder.php", "evil.php")


def first_tool(text: str) -> str | None:
    found = NAMED.search(text)
    return found.group(1) if found else None


def allowed(phase: Phase, tool: str) -> bool:
    return check_tool_allowed(phase, tool) is None


def sessions(engine) -> dict[Phase, str]:
    """One session in each phase; SEMANTIC with the slot evidence missing."""
    out = {Phase.EXPLORATION: engine.start_session("MODIFY", DETAILED)["session_id"]}
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(sid, {k: v for k, v in DETAILED_SLOTS.items()
                                 if k != "target_feature"})
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    r = engine.submit_understanding(sid, symbols_identified=["LoginController"],
                                    files_analyzed=[CONTROLLER])
    assert r["phase"] == "SEMANTIC"
    assert {"slot_evidence", "target_feature"} <= {m["kind"] for m in r["missing_requirements"]}
    out[Phase.SEMANTIC] = sid
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(sid, DETAILED_SLOTS)
    engine.submit_understanding(sid, symbols_identified=["LoginController"])
    engine.submit_semantic(sid, [{"kind": "symbol", "subject": "AuthService",
                                  "evidence": "semantic hit"}], "no_definition_found")
    out[Phase.VERIFICATION] = sid
    out[Phase.READY] = ready_session(engine)
    for phase, sid in out.items():
        assert engine.get_session_status(sid)["phase"] == phase.value
    return out


@pytest.fixture
def walk(tmp_path):
    engine = make_engine(tmp_path)
    return engine, sessions(engine)


def steps_of(engine, phase: Phase, sid: str) -> list[tuple[str, str, list[str]]]:
    """(where, next step text, recovery tools) of every refusal a session in `phase` gets."""
    out: list[tuple[str, str, list[str]]] = []
    for tool in TOOLS:
        refusal = check_tool_allowed(phase, tool)
        if refusal is not None:
            out.append((f"matrix {tool}", refusal.next_step, []))
            hook_text = refusal.message.split("Next:", 1)[1]
            out.append((f"matrix message {tool}", hook_text, []))
    calls = {
        "set_query_frame": {"slots": DETAILED_SLOTS},
        "submit_understanding": {},
        "validate_symbol_relevance": {"target_feature": "x", "symbols": ["LoginController"],
                                      "code_evidence": "e"},
        "submit_semantic": {"hypotheses": [{"kind": "symbol", "subject": "A", "evidence": "e"}],
                            "semantic_reason": "no_definition_found"},
        "submit_verification": {"results": [{"id": "h1", "confirmed": False}]},
        "add_explored_files": {"paths": [USERS]},
        "revert_to_exploration": {},
    }
    for tool, args in calls.items():
        if allowed(phase, tool):
            continue
        with pytest.raises(GatingError) as err:
            getattr(engine, tool)(sid, **args)
        assert err.value.code == "wrong_phase"
        out.append((f"engine {tool}", err.value.details["next_step"], []))
    status = engine.get_session_status(sid)
    out.append(("status", status["next_step"], []))
    for path in WRITES:
        for new in (False, True):
            r = engine.check_write_target(sid, path, allow_new_files=new)
            if r["allowed"]:
                continue
            tools = [o["tool"] for o in r["recovery_options"]]
            out.append((f"write {path} new={new}", r.get("next_step", ""), tools))
            verdict = hook_rules.from_answer(
                hook_rules.WriteCall("Edit", Path("/ws") / path, Path("/ws")), r)
            bullets = re.findall(r"^- (\w+)\(", verdict.message, re.MULTILINE)
            nexts = re.findall(r"^Next: (.*)$", verdict.message, re.MULTILINE)
            out.append((f"hook {path} new={new}", nexts[0] if nexts else "", bullets))
    return out


@pytest.mark.parametrize("phase", list(Phase))
def test_every_refusal_names_a_tool_the_phase_allows(walk, phase):
    engine, by_phase = walk
    steps = steps_of(engine, phase, by_phase[phase])
    assert steps
    for where, text, recovery in steps:
        if text:
            tool = first_tool(text)
            assert tool is not None, (where, text)
            assert allowed(phase, tool), f"{phase}: {where} → {tool}: {text}"
        for tool in recovery:
            assert allowed(phase, tool), f"{phase}: {where} recovery {tool}"
        assert text or recovery, (where, "no way out named")


def test_semantic_with_slot_evidence_missing_points_at_a_slot_hypothesis(walk):
    engine, by_phase = walk
    step = engine.get_session_status(by_phase[Phase.SEMANTIC])["next_step"]
    assert first_tool(step) == "semantic_search" and "submit_semantic" in step
    assert "kind: 'slot'" in step and "submit_understanding" not in step


def test_add_explored_files_refusal_names_reading_tools(walk):
    engine, by_phase = walk
    with pytest.raises(GatingError) as err:
        engine.add_explored_files(by_phase[Phase.READY], [USERS, AUTH + "x/New.php"])
    assert allowed(Phase.READY, first_tool(err.value.details["next_step"]))
