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
        return f"{self.summary}\n\n{phase_line(self.name)}"

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
    """"Phases: …" from the permission matrix; tools outside it run in every phase."""
    phases = TOOL_PHASES.get(tool)
    if phases is None or phases == frozenset(Phase):
        return "Phases: allowed in every phase."
    names = ", ".join(p.value for p in Phase if p in phases)
    return f"Phases: allowed only in {names}; elsewhere the call is refused with the next step."


SESSION_ID_SCHEMA: dict[SessionArg, dict[str, Any]] = {
    SessionArg.GATED: {
        "type": "string",
        "description": "Session whose phase gates this call and whose evidence it counts as. "
        "Defaults to the session start_session created in this conversation; without any "
        "session the call is not counted as exploration evidence.",
    },
    SessionArg.SESSION: {
        "type": "string",
        "description": "The session (sess_…). Defaults to the session start_session created "
        "in this conversation.",
    },
    SessionArg.LATEST: {
        "type": "string",
        "description": "The session (sess_…). Defaults to the session start_session created "
        "in this conversation, else the most recently active session.",
    },
}

_STR = {"type": "string"}


def _str(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _int(description: str, low: int, high: int | None, default: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "description": description, "minimum": low,
                              "default": default}
    if high is not None:
        schema["maximum"] = high
    return schema


def _bool(description: str, default: bool) -> dict[str, Any]:
    return {"type": "boolean", "description": description, "default": default}


def _strings(description: str, min_items: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1},
                              "description": description, "maxItems": 500}
    if min_items:
        schema["minItems"] = min_items
    return schema


SLOTS = ("target_feature", "trigger_condition", "observed_issue", "desired_action")

# Nullable values as `anyOf` branches of one type each: type arrays are legal JSON
# Schema but less portable across model providers (the MCP Inspector warns).
_SLOT_VALUE = {
    "description": "{value, quote}, or null when the request does not state this slot.",
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "value": _str("The slot's value, normalised."),
                "quote": _str("The words of the request that state it, copied verbatim."),
            },
            "required": ["value", "quote"],
            "additionalProperties": False,
        },
        {"type": "null"},
    ],
}

_EVIDENCE = {
    "type": "object",
    "description": "A call you ran in this session: {tool, params, result_summary}; only "
    "index-tool calls in the session's own log count.",
    "properties": {
        "tool": _str("The index tool you called, e.g. find_definitions."),
        "params": {"type": "object", "description": "The arguments you called it with."},
        "result_summary": _str("What it showed."),
    },
    "required": ["tool"],
}

_TOOLS: tuple[ToolSpec, ...] = (
    # ---- sessions ---------------------------------------------------------------------
    ToolSpec(
        "start_session",
        SESSION_PREFIX + "start_session",
        "Start a code-intel session before working on a request. Edits to code files are "
        "blocked until a session reaches READY. Returns the session_id (remembered by this "
        "server for later calls), phase EXPLORATION, the slot extraction prompt to follow "
        "next, and a hint when a similar request was learned before. Call it first, with "
        "the user's request verbatim.",
        {
            "intent": {
                "type": "string",
                "enum": ["IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION"],
                "description": "IMPLEMENT new behaviour, MODIFY/fix existing behaviour, "
                "INVESTIGATE how something works, or answer a QUESTION (READY at once).",
            },
            "query": _str("The user's request, verbatim (any language).", minLength=1),
        },
        ("intent", "query"),
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "set_query_frame",
        SESSION_PREFIX + "set_query_frame",
        "Submit the request's slots as the extraction prompt of start_session asks. Each "
        "slot is {value, quote} where quote is copied verbatim from the request, or null "
        "when the request does not say it. Slots whose quote is not in the request are "
        "rejected as hallucinations (validation_errors). Returns the missing slots, the "
        "risk, the exploration requirements and which tools to use next.",
        {
            "slots": {
                "type": "object",
                "description": "The four slots; each {value, quote} or null.",
                "properties": {s: _SLOT_VALUE for s in SLOTS},
                "additionalProperties": False,
            },
        },
        ("slots",),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "get_session_status",
        SESSION_PREFIX + "get_session_status",
        "Everything about a session: phase, risk, query frame, requirements and what is "
        "still missing, tools used (counted by the server), explored files, blocked writes, "
        "the tools allowed now and the next step. Use it whenever unsure what to do next.",
        {},
        (),
        SessionArg.SESSION,
    ),
    ToolSpec(
        "submit_understanding",
        SESSION_PREFIX + "submit_understanding",
        "Submit what exploration found. Symbols must exist in the index (use names "
        "find_definitions returns: ShortName, Class::method or a qualified name), entry "
        "points must be among the symbols, files must exist, patterns need files. The "
        "server checks the requirements (counts and the tools you actually called) and "
        "moves the session to READY, or to SEMANTIC with missing_requirements. Submissions "
        "accumulate: a later call adds to an earlier one.",
        {
            "symbols_identified": _strings("Symbols involved in the change."),
            "entry_points": _strings("Routes, controllers, commands or public methods the "
                                     "change goes through (each also in symbols_identified)."),
            "existing_patterns": _strings("Similar existing code or conventions to follow, "
                                          "in a few words each."),
            "files_analyzed": _strings("Workspace-relative files you read."),
            "resolved_frame": {
                "type": "object",
                "description": "Slots the request left open that exploration resolved: "
                "{slot: value}.",
                "properties": {s: {"anyOf": [{"type": "string"}, {"type": "null"}]}
                               for s in SLOTS},
                "additionalProperties": False,
            },
            "slot_evidence": {
                "type": "object",
                "description": "For each resolved slot, the tool call that shows it.",
                "properties": {s: _EVIDENCE for s in SLOTS},
                "additionalProperties": False,
            },
        },
        (),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "validate_symbol_relevance",
        SESSION_PREFIX + "validate_symbol_relevance",
        "Check that your symbols really are about the target feature: the server compares "
        "the feature with each symbol by embedding similarity. High → approved as FACT; "
        "grey zone → approved but risk becomes HIGH; low → rejected with guidance on how to "
        "re-investigate. Code evidence (the code that ties each symbol to the feature) is "
        "required. Call it when submit_understanding asks for it.",
        {
            "target_feature": _str("The feature, as in the query frame.", minLength=1),
            "symbols": _strings("Symbols to judge.", min_items=1),
            "code_evidence": {
                "description": "The code that ties the symbols to the feature: one text "
                "for all symbols, or {symbol: snippet} for each.",
                "anyOf": [
                    {"type": "string", "minLength": 1},
                    {"type": "object", "additionalProperties": {"type": "string"}},
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
        "In SEMANTIC: submit hypotheses for what exploration could not find (use "
        "semantic_search first), with the reason that matches what is missing. Findings "
        "enter as HYPOTHESIS and the session moves to VERIFICATION.",
        {
            "hypotheses": {
                "type": "array",
                "minItems": 1,
                "description": "What you believe, each with the evidence from semantic search.",
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string",
                                 "enum": ["symbol", "entry_point", "file", "pattern", "slot"]},
                        "subject": _str("The symbol, file, pattern, or slot name for kind slot."),
                        "value": _str("The slot's value (kind slot only)."),
                        "evidence": _str("What the semantic search showed."),
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
                "description": "Why exploration was not enough; must fit a missing "
                "requirement (symbols: no_definition_found|architecture_unknown; entry points: "
                "no_definition_found|no_reference_found; patterns: no_similar_implementation|"
                "architecture_unknown; files: context_fragmented|architecture_unknown).",
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
        "In VERIFICATION: confirm or reject each hypothesis after checking it with the "
        "exploration tools. A confirmed symbol must exist in the index to become FACT. READY "
        "needs no open hypothesis; a rejected one can no longer be used.",
        {
            "results": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": _str("The hypothesis id (h1, h2 …) from submit_semantic."),
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
        "Ask whether a file may be written now; call it before every edit. Allowed only in "
        "READY, for files the session explored (files_analyzed or returned by your tool "
        "calls); a new file needs allow_new_files and an explored directory; documentation "
        "(*.md, docs/) is always allowed. A refusal lists recovery options "
        "(add_explored_files, revert_to_exploration). The Edit/Write hook asks the same.",
        {
            "file_path": _str("The file to write (workspace-relative or absolute).",
                              minLength=1),
            "allow_new_files": _bool("The file does not exist yet and is to be created.", False),
        },
        ("file_path",),
        SessionArg.LATEST,
        read_only=False,
    ),
    ToolSpec(
        "add_explored_files",
        SESSION_PREFIX + "add_explored_files",
        "In READY: add files or directories you have explored to the session, so writes "
        "to them are allowed (the recovery when check_write_target refuses a file). Explore "
        "them first (analyze_structure, get_function_at_line, find_references).",
        {"paths": _strings("Workspace-relative files or directories.", min_items=1)},
        ("paths",),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "revert_to_exploration",
        SESSION_PREFIX + "revert_to_exploration",
        "Go back to EXPLORATION, e.g. when the change turns out to touch code you have not "
        "explored. keep_results=true keeps what was found; false starts the evidence over.",
        {"keep_results": _bool("Keep the understanding, verdicts and hypotheses.", True)},
        (),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "record_outcome",
        SESSION_PREFIX + "record_outcome",
        "After the work: record success, failure or partial, with a short analysis. On "
        "success the approved request→symbol pairs are learned and offered to the next "
        "similar session.",
        {
            "outcome": {"type": "string", "enum": ["success", "failure", "partial"]},
            "analysis": _str("What worked, what was missing, which symbols mattered."),
        },
        ("outcome",),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "end_session",
        SESSION_PREFIX + "end_session",
        "End a session when the work is done or abandoned: its write permissions and "
        "blocked-write warnings go away. (Not needed between requests of one task.)",
        {},
        (),
        SessionArg.SESSION,
        read_only=False,
        changes_state=True,
    ),
    ToolSpec(
        "get_session_analysis",
        SESSION_PREFIX + "get_session_analysis",
        "The decision log and outcomes of one session: why each phase change, refusal and "
        "write check happened.",
        {},
        (),
        SessionArg.SESSION,
    ),
    ToolSpec(
        "get_improvement_insights",
        SESSION_PREFIX + "get_improvement_insights",
        "Lessons across sessions: which tools and risk levels correlate with failures and "
        "the most common failure points.",
        {"limit": _int("How many recent outcomes to analyse.", 1, 10_000, 100)},
    ),
    # ---- index tools ------------------------------------------------------------------
    ToolSpec(
        "query",
        "codeIntel/query",
        "Hybrid search, the best first step for a natural-language request (English or "
        "Japanese): ranks the files and symbols it is about from keyword, embedding, "
        "definition and reference signals. Returns ranked files and symbols with evidence.",
        {
            "text": _str("What you are looking for: a sentence, or a whole pasted issue with its "
                         "traceback and code (up to 100,000 characters).", minLength=1),
            "top": _int("How many files and symbols to return.", 1, 100, 10),
            "fusion": {"type": "string", "enum": ["rrf", "weighted"], "default": "rrf",
                       "description": "How the signals are merged."},
            "include_prose": {"type": "boolean", "default": False,
                              "description": "Rank docs, changelogs, translations and lock files "
                                             "like code (they rank below it by default)."},
        },
        ("text",),
        SessionArg.GATED,
        narrow_hint="lower top",
    ),
    ToolSpec(
        "search_text",
        "codeIntel/searchText",
        "Regex search over the workspace's files with ripgrep (honours .gitignore): each "
        "match with its path, line and optional context. Use it for strings, messages, "
        "config keys, or symbols find_definitions cannot see.",
        {
            "pattern": _str("Regular expression (ripgrep syntax), or a literal with "
                            "fixed_strings.", minLength=1),
            "path": _str("Only under this workspace-relative file or directory."),
            "glob": _str("Only files matching this glob, e.g. '*.php' or 'app/**/*.ts'."),
            "ignore_case": _bool("Case-insensitive.", False),
            "fixed_strings": _bool("Treat pattern as a literal string.", False),
            "context": _int("Lines of context before and after each match.", 0, 20, 0),
            "max_results": _int("Stop after this many matches.", 1, 1000, 100),
        },
        ("pattern",),
        SessionArg.GATED,
        narrow_hint="narrow with path or glob, a more specific pattern, less context or a "
        "lower max_results",
    ),
    ToolSpec(
        "find_definitions",
        "codeIntel/findDefinitions",
        "Where a symbol is defined: classes, functions, methods, components … with kind, "
        "qualified name, signature and location. Accepts a short name (AuthService), a "
        "qualified name (App\\Services\\AuthService, pkg.mod.Class.method) or "
        "Class::method / Class.method in any language.",
        {
            "name": _str("Symbol name.", minLength=1),
            "exact": _bool("Exact name; false = case-insensitive substring.", True),
            "language": _str("Only this language (python, php, typescript …)."),
            "limit": _int("Maximum definitions.", 1, 500, 50),
        },
        ("name",),
        SessionArg.GATED,
        narrow_hint="use exact=true, a qualified name, a language or a lower limit",
    ),
    ToolSpec(
        "find_references",
        "codeIntel/findReferences",
        "Where a symbol is used, with the enclosing symbol of each: occurrences that "
        "resolve to its definitions (through imports, aliases, namespaces, self/this and "
        "declared types). Occurrences nothing decides (an untyped receiver) come apart in "
        "`possible`, each with the reason. Use it to find callers and the impact of a change.",
        {
            "name": _str("Symbol name; a qualified name (pkg.mod.Class.method, Class.method, "
                         "Class::method, App\\Models\\Shop\\Category) picks which of "
                         "several same-named symbols.", minLength=1),
            "include_declaration": _bool("Also list the definitions.", False),
            "limit": _int("Maximum references.", 1, 5000, 200),
        },
        ("name",),
        SessionArg.GATED,
        narrow_hint="lower limit or use a more specific name",
    ),
    ToolSpec(
        "get_symbols",
        "codeIntel/getSymbols",
        "A flat list of symbols under a file or directory, optionally of one kind or "
        "fuzzily matching a query. Use it to see what a directory contains.",
        {
            "path": _str("Workspace-relative file or directory (default: everything)."),
            "kind": _str("Only this kind (class, method, function, interface …)."),
            "query": _str("Fuzzy name filter."),
            "limit": _int("Maximum symbols.", 1, 5000, 200),
        },
        (),
        SessionArg.GATED,
        narrow_hint="narrow with path, kind or query, or lower limit",
    ),
    ToolSpec(
        "analyze_structure",
        "codeIntel/analyzeStructure",
        "The outline of one file: nested symbols with line ranges and signatures, its "
        "imports and its chunks. Reflects unsaved editor buffers. Use it to read a file's "
        "shape before reading code.",
        {"path": _str("Workspace-relative file.", minLength=1)},
        ("path",),
        SessionArg.GATED,
        narrow_hint="use get_symbols with kind/query, or get_function_at_line for one symbol",
    ),
    ToolSpec(
        "get_function_at_line",
        "codeIntel/getFunctionAtLine",
        "The function, method or class enclosing a line, with its full source text. Use "
        "it to read the code around a search hit or a reference.",
        {
            "path": _str("Workspace-relative file.", minLength=1),
            "line": {"type": "integer", "minimum": 1, "description": "1-based line."},
        },
        ("path", "line"),
        SessionArg.GATED,
        narrow_hint="ask for a line inside a smaller (inner) function",
    ),
    ToolSpec(
        "semantic_search",
        "codeIntel/semanticSearch",
        "Vector search by meaning. collection 'map' = learned agreements from earlier "
        "sessions (facts, allowed in every phase); 'forest' = code chunks (guesses, only in "
        "SEMANTIC and READY); 'auto' tries the map first and falls back to the forest where "
        "allowed. While the embedding model loads it answers status 'initializing' with a "
        "retry delay.",
        {
            "query": _str("What you are looking for, in English or Japanese.", minLength=1),
            "collection": {"type": "string", "enum": ["auto", "map", "forest"],
                           "default": "auto"},
            "n_results": _int("How many hits.", 1, 100, 10),
        },
        ("query",),
        SessionArg.GATED,
        narrow_hint="lower n_results",
    ),
    ToolSpec(
        "sync_index",
        "codeIntel/syncIndex",
        "Re-index changed files now (the index also follows file changes by itself). "
        "force=true re-reads every file. Reports added, modified, deleted and skipped "
        "files; sends progress while it runs.",
        {"force": _bool("Re-read and re-parse every file.", False)},
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
