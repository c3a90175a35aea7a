"""The MCP tool catalog (SPEC §5.2): name, input schema, description and the
`codeIntel/*` request each tool becomes (docs/protocol.md).

Pure data. The schemas mirror the language server's params exactly (names, types,
limits), so a call the bridge accepts is one the server accepts; the descriptions are
written for the model: what the tool does, when to use it, and which phase allows it.
The phase line is generated from `gating.phases.TOOL_PHASES`, the one place phase
permissions are decided, so descriptions cannot drift from the gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from code_intel.gating.model import Phase
from code_intel.gating.phases import TOOL_PHASES

SESSION_PREFIX = "codeIntel/session/"


class SessionArg(Enum):
    """How a tool relates to the session the bridge remembers."""

    NONE = "none"  # no session_id at all (start_session, get_improvement_insights)
    GATED = "gated"  # index request: with a session_id the server gates and logs it
    SESSION = "session"  # a session request whose session_id defaults to the remembered one
    LATEST = "latest"  # check_write_target: without any session the server takes the latest


@dataclass(frozen=True)
class ToolSpec:
    name: str
    method: str
    summary: str
    properties: Mapping[str, Mapping[str, Any]]
    required: tuple[str, ...] = ()
    session: SessionArg = SessionArg.NONE
    read_only: bool = True
    # Changes session state: after a lost connection it is not re-sent blindly.
    changes_state: bool = False
    # What to do when the reply had to be shortened.
    narrow_hint: str = "ask for less (a narrower path or a lower limit)"

    @property
    def description(self) -> str:
        return f"{self.summary} {phase_line(self.name)}"

    def input_schema(self) -> dict[str, Any]:
        props = dict(self.properties)
        if self.session is not SessionArg.NONE:
            props["session_id"] = SESSION_ID_SCHEMA[self.session]
        schema: dict[str, Any] = {
            "type": "object",
            "properties": props,
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = list(self.required)
        return schema


def phase_line(tool: str) -> str:
    """"Phases: …" from the permission matrix; tools outside it run in every phase.
    Short on purpose: every tool definition is paid for on every model request."""
    phases = TOOL_PHASES.get(tool)
    if phases is None or phases == frozenset(Phase):
        return "Phases: all."
    return "Phases: " + ", ".join(p.value for p in Phase if p in phases) + "."


SESSION_ID_SCHEMA: dict[SessionArg, dict[str, Any]] = {
    SessionArg.GATED: {"type": "string", "description": "Default: this conversation's "
                       "session (gates and counts the call)."},
    SessionArg.SESSION: {"type": "string", "description": "Default: this conversation's "
                         "session."},
    SessionArg.LATEST: {"type": "string", "description": "Default: this conversation's "
                        "session."},
}

_STR = {"type": "string"}


def _described(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """An empty description is left out: where the name says it all, it costs tokens on
    every model request and tells nothing."""
    return {**schema, "description": description} if description else schema


def _str(description: str, **extra: Any) -> dict[str, Any]:
    return _described({"type": "string", **extra}, description)


def _int(description: str, low: int, high: int | None, default: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": low, "default": default}
    if high is not None:
        schema["maximum"] = high
    return _described(schema, description)


def _bool(description: str, default: bool) -> dict[str, Any]:
    return _described({"type": "boolean", "default": default}, description)


def _strings(description: str, min_items: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": _STR, "description": description,
                              "maxItems": 500}
    if min_items:
        schema["minItems"] = min_items
    return schema


SLOTS = ("target_feature", "trigger_condition", "observed_issue", "desired_action")

# Nullable values as `anyOf` branches of one type each: type arrays are legal JSON
# Schema but less portable across model providers (the MCP Inspector warns).
# One schema per slot map (propertyNames + additionalProperties), not four copies:
# every tool definition is sent with every model request.
_SLOT_NAMES = {"enum": list(SLOTS)}
_SLOT_VALUE = {
    "anyOf": [
        {
            "type": "object",
            "properties": {"value": _STR, "quote": _str("Copied verbatim from the request.")},
            "required": ["value", "quote"],
            "additionalProperties": False,
        },
        {"type": "null"},
    ],
}

_EVIDENCE = {
    "type": "object",
    "description": "An index-tool call of this session: {tool, params, result_summary}.",
    "properties": {"tool": _STR, "params": {"type": "object"}, "result_summary": _STR},
    "required": ["tool"],
}


def _slot_map(description: str, value: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "object", "description": description, "propertyNames": _SLOT_NAMES,
            "additionalProperties": value}

_TOOLS: tuple[ToolSpec, ...] = (
    # ---- sessions ---------------------------------------------------------------------
    ToolSpec(
        "start_session",
        SESSION_PREFIX + "start_session",
        "Call first, with the user's request verbatim. Code edits are blocked until the "
        "session is READY. Returns session_id (remembered here), phase EXPLORATION, the slot "
        "extraction prompt, and a hint if a similar request was learned.",
        {
            "intent": {"type": "string",
                       "enum": ["IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION"],
                       "description": "QUESTION is READY at once."},
            "query": _str("The request, verbatim.", minLength=1),
        },
        ("intent", "query"),
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "set_query_frame",
        SESSION_PREFIX + "set_query_frame",
        "Submit the request's slots as start_session's prompt asks. A quote not in the "
        "request is rejected (validation_errors). Returns missing slots, risk, requirements "
        "and the tools to use next.",
        {"slots": _slot_map("Slot name -> {value, quote} or null.", _SLOT_VALUE)},
        ("slots",),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "get_session_status",
        SESSION_PREFIX + "get_session_status",
        "Phase, risk, frame, missing requirements, counted tools, explored files, blocked "
        "writes, allowed tools and the next step. Use when unsure.",
        {},
        (),
        SessionArg.SESSION,
    ),
    ToolSpec(
        "submit_understanding",
        SESSION_PREFIX + "submit_understanding",
        "Submit what exploration found (accumulates). Symbols must be in the index (names "
        "find_definitions returns, e.g. Class::method); entry points also in symbols; files "
        "must exist. Checks the requirements against the calls you really made: READY, or "
        "SEMANTIC with missing_requirements.",
        {
            "symbols_identified": _strings("Symbols involved."),
            "entry_points": _strings("Routes, controllers, commands or public methods."),
            "existing_patterns": _strings("Similar code or conventions, a few words each."),
            "files_analyzed": _strings("Workspace-relative files you read."),
            "resolved_frame": _slot_map("Slots exploration resolved: slot -> value.",
                                        {"anyOf": [_STR, {"type": "null"}]}),
            "slot_evidence": _slot_map("Slot -> the call that showed it.", _EVIDENCE),
        },
        (),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "validate_symbol_relevance",
        SESSION_PREFIX + "validate_symbol_relevance",
        "Judge symbols against the target feature by embedding similarity: high FACT, grey "
        "risk HIGH, low rejected with guidance. When submit_understanding asks; in READY it "
        "only warns.",
        {
            "target_feature": _str("As in the query frame.", minLength=1),
            "symbols": _strings("Symbols to judge.", min_items=1),
            "code_evidence": {
                "description": "Code tying them to the feature: one text or {symbol: text}.",
                "anyOf": [
                    {"type": "string", "minLength": 1},
                    {"type": "object", "additionalProperties": _STR},
                ],
            },
        },
        ("target_feature", "symbols", "code_evidence"),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "submit_semantic",
        SESSION_PREFIX + "submit_semantic",
        "Hypotheses (from semantic_search) for what is missing; a missing slot is kind "
        "'slot' with subject = slot name and value. They enter as HYPOTHESIS; next phase "
        "VERIFICATION.",
        {
            "hypotheses": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string",
                                 "enum": ["symbol", "entry_point", "file", "pattern", "slot"]},
                        "subject": _STR,
                        "value": _STR,
                        "evidence": _str("What the search showed."),
                    },
                    "required": ["kind", "subject", "evidence"],
                    "additionalProperties": False,
                },
            },
            "semantic_reason": {
                "type": "string",
                "enum": ["no_definition_found", "no_reference_found",
                         "no_similar_implementation", "context_fragmented",
                         "architecture_unknown"],
                "description": "Must fit what is missing (the refusal lists what fits).",
            },
        },
        ("hypotheses", "semantic_reason"),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "submit_verification",
        SESSION_PREFIX + "submit_verification",
        "Confirm or reject each hypothesis after checking it with the exploration tools; a "
        "confirmed symbol must be in the index. READY once none is open.",
        {
            "results": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": _str("h1, h2 …"),
                        "confirmed": {"type": "boolean"},
                        "evidence": _EVIDENCE,
                        "note": _STR,
                    },
                    "required": ["id", "confirmed"],
                    "additionalProperties": False,
                },
            },
        },
        ("results",),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "check_write_target",
        SESSION_PREFIX + "check_write_target",
        "May this file be written now (the Edit/Write hook asks the same)? In READY, files "
        "the session explored (submitted, returned by calls, or read); a new file needs "
        "allow_new_files and an explored directory; docs always pass.",
        {
            "file_path": _str("Workspace-relative or absolute.", minLength=1),
            "allow_new_files": _bool("The file is to be created.", False),
        },
        ("file_path",),
        SessionArg.LATEST,
        read_only=False,
    ),
    ToolSpec(
        "add_explored_files",
        SESSION_PREFIX + "add_explored_files",
        "Add files the session has seen, a directory with explored code in it, or a new "
        "file next to explored code (also in a new directory), so writes there pass. "
        "Unseen files are refused: read them first.",
        {"paths": _strings("Workspace-relative paths.", min_items=1)},
        ("paths",),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "revert_to_exploration",
        SESSION_PREFIX + "revert_to_exploration",
        "Back to EXPLORATION (the only way out of READY). keep_results=false starts the "
        "evidence over.",
        {"keep_results": _bool("Keep what was found.", True)},
        (),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "record_outcome",
        SESSION_PREFIX + "record_outcome",
        "After the work: success, failure or partial. Success teaches the approved "
        "request->symbol pairs to later sessions.",
        {
            "outcome": {"type": "string", "enum": ["success", "failure", "partial"]},
            "analysis": _str("What worked or was missing."),
        },
        ("outcome",),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "end_session",
        SESSION_PREFIX + "end_session",
        "End the session when the task is done or abandoned.",
        {},
        (),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "get_session_analysis",
        SESSION_PREFIX + "get_session_analysis",
        "The session's decision log and outcomes.",
        {},
        (),
        SessionArg.SESSION,
    ),
    ToolSpec(
        "get_improvement_insights",
        SESSION_PREFIX + "get_improvement_insights",
        "Failure patterns across sessions.",
        {"limit": _int("Recent outcomes to analyse.", 1, 10_000, 100)},
    ),
    # ---- index tools ------------------------------------------------------------------
    ToolSpec(
        "query",
        "codeIntel/query",
        "Hybrid search, the best first step for a natural-language request: ranked files and "
        "symbols with evidence (keywords, embeddings, definitions, references).",
        {
            "text": _str("A sentence, or a whole pasted issue (≤100,000 chars).",
                         minLength=1),
            "top": _int("Results.", 1, 100, 10),
            "fusion": {"type": "string", "enum": ["rrf", "weighted"], "default": "rrf"},
            "include_prose": _bool("Rank docs, changelogs, lock, vendored, style, config, migration and seed files like code.", False),
        },
        ("text",),
        SessionArg.GATED,
        narrow_hint="lower top",
    ),
    ToolSpec(
        "search_text",
        "codeIntel/searchText",
        "Regex search with ripgrep (honours .gitignore): path, line, context. For strings, "
        "messages, config keys.",
        {
            "pattern": _str("Ripgrep regex.", minLength=1),
            "path": _str("Under this file or directory."),
            "glob": _str("e.g. '*.php'."),
            "ignore_case": _bool("", False),
            "fixed_strings": _bool("Literal pattern.", False),
            "context": _int("Lines around each match.", 0, 20, 0),
            "max_results": _int("", 1, 1000, 100),
        },
        ("pattern",),
        SessionArg.GATED,
        narrow_hint="narrow with path or glob, a more specific pattern, less context or a "
        "lower max_results",
    ),
    ToolSpec(
        "find_definitions",
        "codeIntel/findDefinitions",
        "Where a symbol is defined (kind, qualified name, signature, location). Name: short "
        "(AuthService), qualified (App\\Services\\AuthService, pkg.mod.Class.method) or "
        "Class::method / Class.method in any language.",
        {
            "name": _str("", minLength=1),
            "exact": _bool("false = case-insensitive substring.", True),
            "language": _str("e.g. python, php."),
            "limit": _int("", 1, 500, 50),
        },
        ("name",),
        SessionArg.GATED,
        narrow_hint="use exact=true, a qualified name, a language or a lower limit",
    ),
    ToolSpec(
        "find_references",
        "codeIntel/findReferences",
        "Where a symbol is used, with each enclosing symbol, resolved through imports, "
        "aliases, self/this and types; undecided ones come apart in `possible`. For callers "
        "and impact.",
        {
            "name": _str("A qualified name (Class::method, pkg.mod.f) picks one of several.",
                         minLength=1),
            "include_declaration": _bool("", False),
            "limit": _int("", 1, 5000, 200),
        },
        ("name",),
        SessionArg.GATED,
        narrow_hint="lower limit or use a more specific name",
    ),
    ToolSpec(
        "get_symbols",
        "codeIntel/getSymbols",
        "Symbols under a file or directory, by kind or fuzzy query.",
        {
            "path": _str("Default: everything."),
            "kind": _str("class, method, function …"),
            "query": _str("Fuzzy name filter."),
            "limit": _int("", 1, 5000, 200),
        },
        (),
        SessionArg.GATED,
        narrow_hint="narrow with path, kind or query, or lower limit",
    ),
    ToolSpec(
        "analyze_structure",
        "codeIntel/analyzeStructure",
        "A file's outline: nested symbols with lines and signatures, imports, chunks.",
        {"path": _str("Workspace-relative file.", minLength=1)},
        ("path",),
        SessionArg.GATED,
        narrow_hint="use get_symbols with kind/query, or get_function_at_line for one symbol",
    ),
    ToolSpec(
        "get_function_at_line",
        "codeIntel/getFunctionAtLine",
        "The function, method or class around a line, with its source.",
        {
            "path": _str("Workspace-relative file.", minLength=1),
            "line": {"type": "integer", "minimum": 1},
        },
        ("path", "line"),
        SessionArg.GATED,
        narrow_hint="ask for a line inside a smaller (inner) function",
    ),
    ToolSpec(
        "semantic_search",
        "codeIntel/semanticSearch",
        "Vector search by meaning. 'map' = learned agreements (all phases); 'forest' = code "
        "chunks (SEMANTIC, READY); 'auto' = map, then forest where allowed. While the model "
        "loads: status 'initializing' with a retry delay.",
        {
            "query": _str("", minLength=1),
            "collection": {"type": "string", "enum": ["auto", "map", "forest"],
                           "default": "auto"},
            "n_results": _int("", 1, 100, 10),
        },
        ("query",),
        SessionArg.GATED,
        narrow_hint="lower n_results",
    ),
    ToolSpec(
        "sync_index",
        "codeIntel/syncIndex",
        "Re-index changed files now (the index also follows changes itself); reports "
        "progress.",
        {"force": _bool("Re-read every file.", False)},
        (),
        SessionArg.GATED,
        read_only=False,
    ),
)

TOOLS: dict[str, ToolSpec] = {t.name: t for t in _TOOLS}

# The tools SPEC §5.2 names; `end_session` is offered in addition (docs/protocol.md).
SPEC_TOOLS = (
    "start_session", "set_query_frame", "get_session_status", "query", "search_text",
    "find_definitions", "find_references", "get_symbols", "analyze_structure",
    "get_function_at_line", "semantic_search", "sync_index", "submit_understanding",
    "validate_symbol_relevance", "submit_semantic", "submit_verification",
    "check_write_target", "add_explored_files", "revert_to_exploration", "record_outcome",
    "get_session_analysis", "get_improvement_insights",
)
