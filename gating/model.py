"""The gating engine's records: closed sets as enums, values as frozen attrs classes.

`Session` is the one mutable record: the engine loads it, applies the rule modules'
results and saves it in one step. Timestamps are Unix seconds (float) from the
engine's `Clock`, so expiry can be tested with a fake clock.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import attrs


class Phase(StrEnum):
    """SPEC §4.1: a session moves EXPLORATION → (SEMANTIC → VERIFICATION) → READY."""

    EXPLORATION = "EXPLORATION"
    SEMANTIC = "SEMANTIC"
    VERIFICATION = "VERIFICATION"
    READY = "READY"


class SessionStatus(StrEnum):
    ACTIVE = "active"
    ENDED = "ended"
    EXPIRED = "expired"


class Intent(StrEnum):
    """SPEC §4.1 (seed 002): the v3.7 draft's ADD/DELETE/EXPLORE are superseded."""

    IMPLEMENT = "IMPLEMENT"
    MODIFY = "MODIFY"
    INVESTIGATE = "INVESTIGATE"
    QUESTION = "QUESTION"


class Risk(StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


class Slot(StrEnum):
    """The four QueryFrame slots (SPEC §4.2)."""

    TARGET_FEATURE = "target_feature"
    TRIGGER_CONDITION = "trigger_condition"
    OBSERVED_ISSUE = "observed_issue"
    DESIRED_ACTION = "desired_action"


class Source(StrEnum):
    """Where a slot value, symbol or finding stands (SPEC §4.2, §4.6)."""

    FACT = "FACT"
    HYPOTHESIS = "HYPOTHESIS"
    REJECTED = "REJECTED"


class Tier(StrEnum):
    """The three relevance tiers of SPEC §4.5."""

    FACT = "FACT"
    GREY = "GREY"
    REJECTED = "REJECTED"


class Outcome(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"


class FindingKind(StrEnum):
    """What a SEMANTIC hypothesis is about."""

    SYMBOL = "symbol"
    ENTRY_POINT = "entry_point"
    FILE = "file"
    PATTERN = "pattern"
    SLOT = "slot"


class Requirement(StrEnum):
    """The names `missing_requirements` uses; the count ones match the submission keys."""

    SYMBOLS = "symbols_identified"
    ENTRY_POINTS = "entry_points"
    FILES = "files_analyzed"
    PATTERNS = "existing_patterns"
    TOOLS = "tools"
    SLOT_EVIDENCE = "slot_evidence"
    TARGET_FEATURE = "target_feature"
    NL_SYMBOL_MAPPING = "nl_symbol_mapping"
    HYPOTHESES = "hypotheses"


# ---- values ---------------------------------------------------------------------------


@attrs.frozen
class SlotEvidence:
    """A slot tied to a tool call that really happened (seed 001, `slot_evidence`)."""

    tool: str
    params: dict[str, Any]
    result_summary: str
    timestamp: float
    call_seq: int


@attrs.frozen
class MappedSymbol:
    """An NL→code link: `confidence` is the similarity to `target_feature`."""

    name: str
    source: Source
    confidence: float
    evidence: str = ""


@attrs.frozen
class QueryFrame:
    """The request decomposed into slots (SPEC §4.2).

    `quotes` holds the slots taken from the request itself (value + quote); those
    decide the risk. `resolved` holds slots found later by exploration, each backed by
    `slot_evidence`. `slot_source` says FACT or HYPOTHESIS per filled slot.
    """

    raw_query: str
    target_feature: str | None = None
    trigger_condition: str | None = None
    observed_issue: str | None = None
    desired_action: str | None = None
    quotes: dict[str, str] = attrs.field(factory=dict)
    resolved: dict[str, str] = attrs.field(factory=dict)
    mapped_symbols: tuple[MappedSymbol, ...] = ()
    slot_source: dict[str, Source] = attrs.field(factory=dict)
    slot_evidence: dict[str, SlotEvidence] = attrs.field(factory=dict)

    def value(self, slot: Slot) -> str | None:
        """The request's value, else the one exploration resolved."""
        return getattr(self, slot.value) or self.resolved.get(slot.value)

    def request_slots(self) -> frozenset[Slot]:
        """Slots the request itself filled (with a verified quote)."""
        return frozenset(s for s in Slot if getattr(self, s.value))

    def missing_slots(self) -> tuple[Slot, ...]:
        return tuple(s for s in Slot if not self.value(s))


@attrs.frozen
class RoutingPlan:
    """What the router decided (SPEC §4.3): tools per missing slot, and the risk."""

    tools: tuple[str, ...]
    priority_slots: tuple[Slot, ...]
    missing_slots: tuple[Slot, ...]
    risk: Risk


@attrs.frozen
class ToolCall:
    """One entry of the server's own call log; only `counts` entries are evidence."""

    seq: int
    session_id: str
    tool: str
    args: dict[str, Any]
    phase: Phase
    timestamp: float
    result_files: tuple[str, ...] = ()
    result_symbols: tuple[str, ...] = ()
    ok: bool = True
    allowed: bool = True

    @property
    def counts(self) -> bool:
        return self.ok and self.allowed


@attrs.frozen
class Understanding:
    """What `submit_understanding` accepted (SPEC §4.4), paths workspace-relative."""

    symbols: tuple[str, ...] = ()
    entry_points: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def merged(self, other: Understanding) -> Understanding:
        def union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(dict.fromkeys((*a, *b)))

        return Understanding(
            union(self.symbols, other.symbols),
            union(self.entry_points, other.entry_points),
            union(self.patterns, other.patterns),
            union(self.files, other.files),
        )


@attrs.frozen
class MissingRequirement:
    kind: Requirement
    message: str
    have: int | None = None
    need: int | None = None
    subject: str | None = None


@attrs.frozen
class Finding:
    """A SEMANTIC hypothesis and what VERIFICATION made of it (SPEC §4.6)."""

    id: str
    kind: FindingKind
    subject: str
    value: str | None
    status: Source
    evidence: str
    verification: str = ""


@attrs.frozen
class RelevanceVerdict:
    """One symbol judged against an NL term (SPEC §4.5)."""

    symbol: str
    nl_term: str
    similarity: float
    tier: Tier
    code_evidence: str = ""
    warning: str | None = None
    reinvestigation_guidance: dict[str, Any] | None = None

    @property
    def approved(self) -> bool:
        return self.tier is not Tier.REJECTED


@attrs.frozen
class WriteDecision:
    """The answer of `check_write_target` (SPEC §4.8)."""

    allowed: bool
    file_path: str
    reason_code: str
    reason: str
    session_id: str
    phase: Phase
    relative_path: str | None = None
    recovery_options: tuple[dict[str, Any], ...] = ()


@attrs.frozen
class Refusal:
    """A tool refused by the phase matrix (SPEC §4.7)."""

    tool: str
    phase: Phase
    allowed_phases: tuple[Phase, ...]
    next_step: str
    message: str


@attrs.frozen
class DecisionRecord:
    """DecisionLog entry: every gate decision with its reason (append-only)."""

    seq: int
    session_id: str
    timestamp: float
    kind: str
    reason: str
    detail: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class OutcomeRecord:
    """OutcomeLog entry (seed 002, 改善サイクル)."""

    seq: int
    session_id: str
    timestamp: float
    outcome: Outcome
    phase: Phase
    intent: Intent
    risk: Risk
    semantic_used: bool
    analysis: str = ""
    tools_planned: tuple[str, ...] = ()


@attrs.frozen
class LearnedPair:
    """An NL term ↔ symbol pair approved in a successful session (SPEC §4.9)."""

    nl_term: str
    symbol: str
    similarity: float
    code_evidence: str
    session_id: str
    learned_at: float
    query: str = ""


@attrs.frozen
class BlockedWrite:
    session_id: str
    path: str
    reason: str
    timestamp: float


@attrs.define
class Session:
    """A session's whole state; persisted as one row by `SessionStore`."""

    id: str
    intent: Intent
    query: str
    phase: Phase
    created_at: float
    updated_at: float
    frame: QueryFrame
    plan: RoutingPlan
    status: SessionStatus = SessionStatus.ACTIVE
    base_risk: Risk = Risk.LOW
    risk_forced_high: bool = False
    frame_submitted: bool = False
    understanding: Understanding | None = None
    missing: tuple[MissingRequirement, ...] = ()
    findings: tuple[Finding, ...] = ()
    relevance: dict[str, RelevanceVerdict] = attrs.field(factory=dict)
    explored_extra: tuple[str, ...] = ()
    log_start_seq: int = 0
    semantic_used: bool = False
    # The agent conversation that started the session (Claude Code's session_id): its
    # hook's write checks are judged by this session and no other (two conversations in
    # one workspace are gated independently).
    agent_session: str | None = None
    # Files the agent read with its own tools (Read/Grep/Glob, seen by the PostToolUse
    # hook): they count as explored like the files code-intel's tools returned.
    seen_files: tuple[str, ...] = ()

    @property
    def risk(self) -> Risk:
        """A grey-zone relevance result forces HIGH (SPEC §4.3, §4.5)."""
        return Risk.HIGH if self.risk_forced_high else self.base_risk

    def open_hypotheses(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status is Source.HYPOTHESIS)

    def rejected_findings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status is Source.REJECTED)
