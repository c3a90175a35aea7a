"""SPEC §4.7: the v3.9 permission matrix for every tool of SPEC §5.2, refusals that
name the allowing phase and the next step, and the engine enforcing it."""

from __future__ import annotations

import pytest
from code_intel.gating.errors import GatingError
from code_intel.gating.model import Phase
from code_intel.gating.phases import check_tool_allowed, known_tools, semantic_collections
from test_gating_fakes import DETAILED, make_engine

E, S, V, R = Phase.EXPLORATION, Phase.SEMANTIC, Phase.VERIFICATION, Phase.READY

SPEC_5_2_TOOLS = ["start_session", "set_query_frame", "get_session_status", "query", "search_text", "find_definitions", "find_references", "get_symbols", "analyze_structure", "get_function_at_line", "semantic_search", "sync_index", "submit_understanding", "validate_symbol_relevance", "submit_semantic", "submit_verification", "check_write_target", "add_explored_files", "revert_to_exploration", "record_outcome", "get_session_analysis", "get_improvement_insights"]

EXPLORATION = ["query", "search_text", "find_definitions", "find_references", "get_symbols",
               "analyze_structure", "get_function_at_line"]

EXPECTED = {
    **{t: {E, V, R} for t in EXPLORATION},
    "write": {R},
    "set_query_frame": {E},
    "submit_understanding": {E},
    "submit_semantic": {S},
    "submit_verification": {V},
    "validate_symbol_relevance": {E, V, R},
    "add_explored_files": {R},
    "revert_to_exploration": {S, V, R},
    **{t: {E, S, V, R} for t in ("start_session", "get_session_status", "sync_index",
                                 "record_outcome", "get_session_analysis",
                                 "get_improvement_insights", "check_write_target",
                                 "semantic_search")},
}


def test_every_spec_tool_is_in_the_matrix():
    assert set(SPEC_5_2_TOOLS) | {"write"} == set(known_tools()) == set(EXPECTED)


@pytest.mark.parametrize("tool", sorted(EXPECTED))
@pytest.mark.parametrize("phase", list(Phase))
def test_matrix(tool, phase):
    refusal = check_tool_allowed(phase, tool)
    assert (refusal is None) == (phase in EXPECTED[tool])
    if refusal is not None:
        assert set(refusal.allowed_phases) == EXPECTED[tool]
        for p in EXPECTED[tool]:
            assert p.value in refusal.message
        assert refusal.next_step and "Next:" in refusal.message


@pytest.mark.parametrize(
    "phase, map_ok, forest_ok",
    [(E, True, False), (S, True, True), (V, True, False), (R, True, True)],
)
def test_semantic_search_per_collection(phase, map_ok, forest_ok):
    assert (check_tool_allowed(phase, "semantic_search", {"collection": "map"}) is None) == map_ok
    forest = check_tool_allowed(phase, "semantic_search", {"collection": "forest"})
    assert (forest is None) == forest_ok
    if forest is not None:
        assert forest.allowed_phases == (S, R)
    # auto is allowed everywhere, restricted to what the phase may read
    assert check_tool_allowed(phase, "semantic_search", {"collection": "auto"}) is None
    assert ("forest" in semantic_collections(phase)) == forest_ok


def test_refusal_in_semantic_points_to_submit_semantic():
    refusal = check_tool_allowed(S, "find_definitions")
    assert "submit_semantic" in refusal.next_step
    assert refusal.allowed_phases == (E, V, R)


def test_engine_check_tool_answers_with_the_refusal(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    r = engine.check_tool(sid, "semantic_search", {"collection": "forest"})
    assert r["allowed"] is False and r["allowed_phases"] == ["SEMANTIC", "READY"]
    assert engine.check_tool(sid, "semantic_search", {})["collections"] == ["map"]
    assert engine.check_tool(sid, "find_definitions")["allowed"] is True
    # the refusal is in the DecisionLog with its reason, the permitted checks are not
    refused = [d for d in engine.store.decisions(sid) if d.kind == "tool_refused"]
    assert [d.detail["tool"] for d in refused] == ["semantic_search"]
    assert "SEMANTIC" in refused[0].reason
    with pytest.raises(GatingError) as err:
        engine.check_tool(sid, "rm_rf")
    assert err.value.code == "unknown_tool"


def test_engine_enforces_the_matrix_on_its_own_requests(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    for call in (
        lambda: engine.submit_semantic(sid, [], "no_definition_found"),
        lambda: engine.submit_verification(sid, []),
        lambda: engine.add_explored_files(sid, ["app"]),
        lambda: engine.revert_to_exploration(sid),
    ):
        with pytest.raises(GatingError) as err:
            call()
        assert err.value.code == "wrong_phase"
        assert err.value.details["phase"] == "EXPLORATION"
        assert err.value.details["allowed_phases"]
        assert "submit_understanding" in err.value.details["next_step"]
    refused = [d for d in engine.store.decisions(sid) if d.kind == "tool_refused"]
    assert len(refused) == 4


def test_status_lists_the_tools_allowed_now(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    allowed = engine.get_session_status(sid)["allowed_tools"]
    assert "find_definitions" in allowed and "write" not in allowed
    assert "submit_semantic" not in allowed
