"""The phase permission matrix (SPEC §4.7, seed 003 "Router への影響", v3.9) — once.

Every tool of SPEC §5.2 is listed with the phases that allow it; `check_tool_allowed`
is the only place a phase decision about a tool is made. A refusal names the phases
that allow the tool and the step that leaves the current phase.

semantic_search is decided per collection: the map (learned agreements, facts) is
readable in every phase, the forest (raw code vectors, guesses) only in SEMANTIC and
READY. `auto` is allowed everywhere but restricted to the map where the forest is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import Phase, Refusal

ALL = frozenset(Phase)
FACT_PHASES = frozenset({Phase.EXPLORATION, Phase.VERIFICATION, Phase.READY})

EXPLORATION_TOOLS = (
    "query",
    "search_text",
    "find_definitions",
    "find_references",
    "get_symbols",
    "analyze_structure",
    "get_function_at_line",
)
SEMANTIC_SEARCH = "semantic_search"
WRITE = "write"  # Edit / Write / MultiEdit / NotebookEdit, as the hook asks

# Tools whose calls can be evidence (the server's own call log, SPEC §4.4).
INDEX_TOOLS = frozenset({*EXPLORATION_TOOLS, SEMANTIC_SEARCH})

COLLECTIONS: dict[str, frozenset[Phase]] = {
    "map": ALL,
    "forest": frozenset({Phase.SEMANTIC, Phase.READY}),
}

TOOL_PHASES: dict[str, frozenset[Phase]] = {
    **{t: FACT_PHASES for t in EXPLORATION_TOOLS},
    SEMANTIC_SEARCH: ALL,  # narrowed per collection below
    "start_session": ALL,
    "get_session_status": ALL,
    "sync_index": ALL,
    "record_outcome": ALL,
    "get_session_analysis": ALL,
    "get_improvement_insights": ALL,
    "check_write_target": ALL,  # it answers; the write itself is WRITE
    "set_query_frame": frozenset({Phase.EXPLORATION}),
    "submit_understanding": frozenset({Phase.EXPLORATION}),
    "validate_symbol_relevance": FACT_PHASES,
    "submit_semantic": frozenset({Phase.SEMANTIC}),
    "submit_verification": frozenset({Phase.VERIFICATION}),
    "add_explored_files": frozenset({Phase.READY}),
    "revert_to_exploration": frozenset({Phase.SEMANTIC, Phase.VERIFICATION, Phase.READY}),
    WRITE: frozenset({Phase.READY}),
}

NEXT_STEP: dict[Phase, str] = {
    Phase.EXPLORATION: (
        "explore with query, find_definitions, find_references, search_text, get_symbols, "
        "analyze_structure or get_function_at_line, then call submit_understanding; the "
        "session becomes READY when the requirements hold, SEMANTIC otherwise"
    ),
    Phase.SEMANTIC: (
        "use semantic_search (collection 'forest' or 'map') to form hypotheses for what is "
        "missing, then call submit_semantic(hypotheses, semantic_reason); the session moves "
        "to VERIFICATION (or revert_to_exploration to explore again)"
    ),
    Phase.VERIFICATION: (
        "check every hypothesis with the exploration tools, then call "
        "submit_verification(results); confirmed facts lead to READY"
    ),
    Phase.READY: "every tool is allowed in READY; call check_write_target before each edit",
}


def known_tools() -> tuple[str, ...]:
    return tuple(TOOL_PHASES)


def _order(phases: frozenset[Phase]) -> tuple[Phase, ...]:
    return tuple(p for p in Phase if p in phases)


def _refusal(tool: str, phase: Phase, allowed: frozenset[Phase], what: str) -> Refusal:
    allowed_phases = _order(allowed)
    names = ", ".join(p.value for p in allowed_phases)
    return Refusal(
        tool=tool,
        phase=phase,
        allowed_phases=allowed_phases,
        next_step=NEXT_STEP[phase],
        message=f"{what} is not allowed in {phase.value}; it is allowed in {names}. "
        f"Next: {NEXT_STEP[phase]}",
    )


def check_tool_allowed(
    phase: Phase, tool: str, args: Mapping[str, Any] | None = None
) -> Refusal | None:
    """None when `tool` may run in `phase`, else the refusal to send back.

    Raises KeyError for a tool SPEC §5.2 does not define (the caller reports it).
    """
    allowed = TOOL_PHASES[tool]
    if phase not in allowed:
        return _refusal(tool, phase, allowed, tool)
    if tool == SEMANTIC_SEARCH:
        collection = (args or {}).get("collection", "auto")
        if collection in COLLECTIONS and phase not in COLLECTIONS[collection]:
            return _refusal(
                tool, phase, COLLECTIONS[collection], f"semantic_search(collection={collection!r})"
            )
    return None


def semantic_collections(phase: Phase) -> tuple[str, ...]:
    """The collections `semantic_search(collection='auto')` may read in `phase`."""
    return tuple(c for c, phases in COLLECTIONS.items() if phase in phases)
