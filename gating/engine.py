"""GatingEngine: one method per gating request, the rule modules applied in order.

The language server owns one engine per workspace and is a thin adapter over it:
MCP tools and `codeIntel/session/*` requests call these methods, and the server
calls `check_tool` before and `record_tool_call` after every index tool it runs, so
evidence is counted from its own log and never from the model's claims.

Every method validates its input and raises `GatingError(code, message)` saying what
is wrong and what to do; every answer is a JSON-ready dict. Sessions are loaded from
and saved to the `SessionStore` on every request, so a new engine on the same store
file continues where the last one stopped.
"""

from __future__ import annotations

import functools
import posixpath
import secrets
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import attrs

from . import inputs, phases
from .codec import to_json
from .config import GatingConfig
from .errors import GatingError
from .interfaces import (
    Clock,
    Embedder,
    PairSink,
    SimilarityThresholds,
    SymbolIndex,
    SystemClock,
)
from .learning import map_hint, pairs_to_learn, purge_cutoff, vanished_pairs
from .logs import PLAN, improvement_insights, session_analysis
from .model import (
    BlockedWrite,
    DecisionRecord,
    FindingKind,
    LearnedPair,
    Outcome,
    OutcomeRecord,
    Phase,
    QueryFrame,
    Session,
    SessionStatus,
    Tier,
    ToolCall,
    Understanding,
)
from .query_frame import (
    SLOT_SCHEMA,
    extraction_prompt,
    investigation_guidance,
    parse_slots,
    validate_frame,
    with_request_slots,
)
from .relevance import (
    cached_matches,
    embedding_suggestions,
    judge,
    mapped_with,
    symbol_similarity,
    verdict_json,
)
from .requirements import (
    consistency_problems,
    counted_calls,
    requirements_for,
    unknown_symbols,
    verify_slot_evidence,
)
from .risk import route
from .semantic import check_reason, parse_hypotheses, parse_results, verify, with_hypotheses
from .session import (
    describe,
    evaluate_session,
    explored,
    frame_json,
    next_step,
    rejected_in_use,
    required_phases,
    settle,
    with_resolved_slots,
)
from .store import SessionStore
from .writes import (
    ExemptFiles,
    decide_write,
    explored_under,
    is_protected,
    judge_addition,
    resolve_target,
)

F = TypeVar("F", bound=Callable[..., Any])


def _locked(method: F) -> F:
    @functools.wraps(method)
    def wrapper(self: GatingEngine, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


class GatingEngine:
    def __init__(
        self,
        store: SessionStore,
        index: SymbolIndex,
        embedder: Embedder,
        config: GatingConfig,
        *,
        clock: Clock | None = None,
        sinks: Sequence[PairSink] = (),
        sync_status: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.config = config
        self.clock = clock or SystemClock()
        self.sinks = tuple(sinks)
        self.sync_status = sync_status
        self.exempt = ExemptFiles(config.write_exempt_patterns)
        self.root = config.workspace_root
        self._lock = threading.RLock()

    @property
    def thresholds(self) -> SimilarityThresholds:
        """The configured override, else the embedder's own calibration, read on each
        use (a lazily loading backend may only know its final values once loaded)."""
        return self.config.thresholds or SimilarityThresholds.of(
            getattr(self.embedder, "thresholds", None)
        )

    # ==== requests ===================================================================

    @_locked
    def start_session(
        self, intent: Any, query: Any, agent_session: Any = None
    ) -> dict[str, Any]:
        """SPEC §4.1: a new session in EXPLORATION with the slot extraction prompt,
        the map short-circuit hint and the index's sync status. `agent_session` is the
        agent conversation that starts it (Claude Code's session_id, which the MCP
        bridge reads from CLAUDE_CODE_SESSION_ID): that conversation's write hook is
        judged by this session."""
        parsed_intent = inputs.intent(intent)
        text = inputs.text("query", query)
        agent = None if agent_session is None else inputs.text("agent_session", agent_session, 200)
        now = self.clock.now()
        self._purge_learned(now)
        plan = route(parsed_intent, (), self.config.max_plan_tools)
        session = Session(
            id=f"sess_{secrets.token_hex(8)}",
            intent=parsed_intent,
            query=text,
            phase=Phase.EXPLORATION,
            created_at=now,
            updated_at=now,
            frame=QueryFrame(raw_query=text),
            plan=plan,
            base_risk=plan.risk,
            agent_session=agent,
        )
        self.store.save_session(session)
        self._log_plan(session, "session started")
        try:
            hint = map_hint(text, self.store.learned_pairs(), self._similarity, self.thresholds)
        except GatingError as exc:  # the model is loading: the hint can wait
            hint = {"found": False, **exc.to_dict()}
        return {
            "session_id": session.id,
            "phase": session.phase.value,
            "intent": session.intent.value,
            "risk": session.risk.value,
            "extraction_prompt": extraction_prompt(text),
            "slot_schema": SLOT_SCHEMA,
            "shortcircuit_hint": hint,
            "sync_status": dict(self.sync_status()) if self.sync_status else {"state": "unknown"},
            "plan": to_json(plan),
            "next_step": "extract the slots as the prompt says and call set_query_frame",
        }

    @_locked
    def get_session_status(self, session_id: Any) -> dict[str, Any]:
        return self._status(self._session(session_id, allow_ended=True))

    @_locked
    def set_query_frame(self, session_id: Any, slots: Any) -> dict[str, Any]:
        """SPEC §4.2: accept slots whose quote is in the request and whose value is
        consistent with the quote; list the rest in `validation_errors`."""
        session = self._session(session_id)
        self._require_phase(session, "set_query_frame")
        parsed = parse_slots(slots)
        result = validate_frame(parsed, session.query, self._similarity, self.thresholds)
        session.frame = with_request_slots(session.frame, result)
        session.frame_submitted = True
        session.plan = route(
            session.intent, session.frame.request_slots(), self.config.max_plan_tools
        )
        session.base_risk = session.plan.risk
        errors = [to_json(r) for r in result.rejected]
        self._save(session)
        self._decide(
            session,
            "set_query_frame",
            f"{len(result.accepted)} slot(s) accepted, {len(errors)} rejected as hallucinations",
            accepted=sorted(s.value for s in result.accepted),
            validation_errors=errors,
            refused=bool(errors),
        )
        self._log_plan(session, "query frame set")
        missing = session.frame.missing_slots()
        return {
            "success": not errors,
            "accepted": {
                s.value: {"value": v, "quote": q} for s, (v, q) in result.accepted.items()
            },
            "validation_errors": errors,
            "missing_slots": [s.value for s in missing],
            "investigation_guidance": investigation_guidance(
                session.plan.priority_slots or missing
            ),
            "risk": session.risk.value,
            "plan": to_json(session.plan),
            "requirements": to_json(requirements_for(session.intent, session.risk)),
            "query_frame": frame_json(session.frame),
            "next_step": (
                "fix the rejected slots (quote the request verbatim) or leave them null, then "
                if errors else ""
            ) + "explore with the planned tools and call submit_understanding",
        }

    @_locked
    def check_tool(self, session_id: Any, tool: Any, args: Any = None) -> dict[str, Any]:
        """SPEC §4.7: may `tool` run now? The server asks before running it."""
        session = self._session(session_id)
        name = inputs.tool_name(tool)
        call_args = inputs.mapping("args", args)
        refusal = phases.check_tool_allowed(session.phase, name, call_args)
        if refusal is not None:
            self._decide(session, "tool_refused", refusal.message, tool=name, refused=True)
            return {"allowed": False, **to_json(refusal)}
        answer: dict[str, Any] = {"allowed": True, "tool": name, "phase": session.phase.value}
        if name == phases.SEMANTIC_SEARCH:
            answer["collections"] = list(phases.semantic_collections(session.phase))
        return answer

    @_locked
    def record_tool_call(
        self,
        session_id: Any,
        tool: Any,
        args: Any = None,
        *,
        result_files: Any = None,
        result_symbols: Any = None,
        ok: Any = True,
    ) -> dict[str, Any]:
        """Append a call the server really ran to the session's call log (SPEC §4.4).

        `result_files` (the files the call returned) become explored files (§4.8),
        `result_symbols` feed `embedding_suggestions`. A call the phase did not allow,
        or one that failed, is logged but never counts as evidence.
        """
        session = self._session(session_id)
        name = inputs.tool_name(tool)
        call_args = dict(inputs.mapping("args", args))
        files = inputs.str_list("result_files", result_files)
        symbols = inputs.str_list("result_symbols", result_symbols)
        allowed = phases.check_tool_allowed(session.phase, name, call_args) is None
        rels = [t.rel for t in (resolve_target(self.root, f) for f in files) if t.rel]
        call = self.store.append_tool_call(
            ToolCall(
                seq=0,
                session_id=session.id,
                tool=name,
                args=call_args,
                phase=session.phase,
                timestamp=self.clock.now(),
                result_files=tuple(dict.fromkeys(r for r in rels if not is_protected(r))),
                result_symbols=tuple(dict.fromkeys(symbols)),
                ok=inputs.flag("ok", ok),
                allowed=allowed,
            )
        )
        if name == "query":
            self._log_plan(session, "query tool run", query_text=str(call_args.get("text", "")))
        self._save(session)
        return {"seq": call.seq, "counted": call.counts, "phase": session.phase.value}

    @_locked
    def submit_understanding(
        self,
        session_id: Any,
        symbols_identified: Any = None,
        entry_points: Any = None,
        existing_patterns: Any = None,
        files_analyzed: Any = None,
        resolved_frame: Any = None,
        slot_evidence: Any = None,
    ) -> dict[str, Any]:
        """SPEC §4.4: consistency checks, index checks, the requirement table and the
        NL→symbol mapping; READY when everything holds, SEMANTIC otherwise."""
        session = self._session(session_id)
        self._require_phase(session, "submit_understanding")
        symbols = inputs.str_list("symbols_identified", symbols_identified)
        entries = inputs.str_list("entry_points", entry_points)
        patterns = inputs.str_list("existing_patterns", existing_patterns)
        files = inputs.str_list("files_analyzed", files_analyzed)
        resolved = inputs.slot_map("resolved_frame", resolved_frame, str)
        claims = inputs.slot_map("slot_evidence", slot_evidence, Mapping)

        kept = session.understanding or Understanding()
        rels, path_problems = self._workspace_files(files)
        problems = consistency_problems(symbols, entries, patterns, files, kept.symbols)
        if problems or path_problems:
            raise GatingError(
                "inconsistent_submission",
                "the submission is inconsistent: " + "; ".join([*problems, *path_problems]),
                problems=[*problems, *path_problems],
            )
        self._refuse_rejected(session, [*symbols, *entries], rels, patterns)
        unknown = unknown_symbols(dict.fromkeys([*symbols, *entries]), self.index)
        if unknown:
            raise GatingError(
                "unknown_symbols",
                f"not defined in the index: {unknown}. Submit only symbols find_definitions "
                "finds; if the code you need cannot be found, submit what you have and "
                "continue in SEMANTIC",
                unknown_symbols=unknown,
            )

        evidence, refused = verify_slot_evidence(claims, self._counted_calls(session))
        session.frame, errors = with_resolved_slots(session.frame, resolved, evidence)
        errors = [*refused, *errors]
        session.understanding = kept.merged(
            Understanding(tuple(symbols), tuple(entries), tuple(patterns), tuple(rels))
        )
        confidences = self._evaluate(session)
        self._save(session)
        self._decide(
            session,
            "submit_understanding",
            f"{session.phase.value}: " + ("requirements met" if not session.missing else
                                          "; ".join(m.message for m in session.missing)),
            missing=[to_json(m) for m in session.missing],
            refused=session.phase is not Phase.READY,
        )
        return {
            "phase": session.phase.value,
            "evaluated_confidence": "high" if session.phase is Phase.READY else "low",
            "risk": session.risk.value,
            "requirements": to_json(requirements_for(session.intent, session.risk)),
            "missing_requirements": [to_json(m) for m in session.missing],
            "symbol_confidences": confidences,
            "validation_errors": errors,
            "query_frame": frame_json(session.frame),
            "next_step": next_step(session),
        }

    @_locked
    def validate_symbol_relevance(
        self, session_id: Any, target_feature: Any, symbols: Any, code_evidence: Any = None
    ) -> dict[str, Any]:
        """SPEC §4.5: three tiers on the embedding similarity; grey forces HIGH."""
        session = self._session(session_id)
        self._require_phase(session, "validate_symbol_relevance")
        feature = inputs.text("target_feature", target_feature, 500)
        names = list(dict.fromkeys(inputs.str_list("symbols", symbols, non_empty=True)))
        evidence = inputs.code_evidence(code_evidence, names)
        self._refuse_rejected(session, names, (), ())
        unknown = unknown_symbols(names, self.index)
        if unknown:
            raise GatingError(
                "unknown_symbols",
                f"not defined in the index: {unknown}; judge only symbols that exist",
                unknown_symbols=unknown,
            )
        verdicts = [
            judge(feature, s, symbol_similarity(self._similarity, feature, s), self.thresholds,
                  evidence[s])
            for s in names
        ]
        session.relevance.update({v.symbol: v for v in verdicts})
        rejected = {v.symbol for v in verdicts if not v.approved}
        session.frame = attrs.evolve(
            session.frame,
            mapped_symbols=mapped_with(session.frame.mapped_symbols, verdicts, rejected),
        )
        grey = [v.symbol for v in verdicts if v.tier is Tier.GREY]
        answer: dict[str, Any] = {}
        if session.phase is Phase.READY:
            # Nothing called in READY demotes the session unless the agent asks
            # (revert_to_exploration): a weak verdict is reported, not enforced.
            weak = [*grey, *sorted(rejected)]
            if weak:
                answer["warning"] = (
                    f"{weak} fit the feature only weakly; the session stays READY at risk "
                    f"{session.risk.value}. If you doubt them, call "
                    "revert_to_exploration(keep_results=true) and explore again")
        elif grey and not session.risk_forced_high:
            session.risk_forced_high = True
            self._decide(session, "risk_forced_high", f"grey-zone relevance for {grey}",
                         symbols=grey)
        self._save(session)
        self._decide(
            session,
            "validate_symbol_relevance",
            ", ".join(f"{v.symbol}: {v.tier.value} ({v.similarity:.2f})" for v in verdicts),
            verdicts=[to_json(v) for v in verdicts],
            refused=bool(rejected),
        )
        seen = [s for c in self._counted_calls(session) for s in c.result_symbols]
        pairs = self.store.learned_pairs()
        return {
            "results": [verdict_json(v) for v in verdicts],
            "approved": [v.symbol for v in verdicts if v.approved],
            "rejected": sorted(rejected),
            "risk": session.risk.value,
            "risk_forced_high": session.risk_forced_high,
            "phase": session.phase.value,
            "thresholds": to_json(self.thresholds),
            "cached_matches": cached_matches(feature, names, pairs, self._similarity,
                                             self.thresholds),
            "embedding_suggestions": embedding_suggestions(
                feature, [*names, *seen], names, self._similarity, self.thresholds
            ),
            **answer,
            "next_step": next_step(session),
        }

    @_locked
    def submit_semantic(
        self, session_id: Any, hypotheses: Any, semantic_reason: Any
    ) -> dict[str, Any]:
        """SPEC §4.6: the reason must fit what is missing; findings are HYPOTHESIS."""
        session = self._session(session_id)
        self._require_phase(session, "submit_semantic")
        reason = check_reason(semantic_reason, session.missing)
        found = parse_hypotheses(hypotheses, len(session.findings) + 1, session.rejected_findings())
        fixed = []
        for f in found:
            if f.kind is FindingKind.FILE:
                target = resolve_target(self.root, f.subject)
                if target.rel is None:
                    raise GatingError(
                        "outside_workspace",
                        f"hypothesis file {f.subject!r}: {target.outside_reason}",
                    )
                f = attrs.evolve(f, subject=target.rel)
            fixed.append(f)
        session.findings = (*session.findings, *fixed)
        session.frame = with_hypotheses(session.frame, fixed)
        session.semantic_used = True
        session.phase = Phase.VERIFICATION
        self._save(session)
        self._decide(
            session,
            "submit_semantic",
            f"{len(fixed)} hypothesis(es) for {reason.value}",
            semantic_reason=reason.value,
            hypotheses=[to_json(f) for f in fixed],
        )
        return {
            "phase": session.phase.value,
            "semantic_reason": reason.value,
            "hypotheses": [to_json(f) for f in fixed],
            "next_step": next_step(session),
        }

    @_locked
    def submit_verification(self, session_id: Any, results: Any) -> dict[str, Any]:
        """SPEC §4.6: confirm (only what the index/workspace/call log supports becomes
        FACT) or reject each hypothesis; READY only when none is left open."""
        session = self._session(session_id)
        self._require_phase(session, "submit_verification")
        parsed = parse_results(results)
        outcome = verify(
            session.findings,
            parsed,
            self.index,
            self._file_exists,
            self._counted_calls(session),
            session.understanding or Understanding(),
            session.frame,
        )
        session.findings = outcome.findings
        session.understanding = outcome.understanding
        session.frame = outcome.frame
        confidences = self._evaluate(session)
        self._save(session)
        self._decide(
            session,
            "submit_verification",
            f"{len(outcome.promoted)} confirmed, {len(outcome.rejected)} rejected; "
            f"{session.phase.value}",
            promoted=[f.id for f in outcome.promoted],
            rejected=[f.id for f in outcome.rejected],
            errors=list(outcome.errors),
            refused=session.phase is not Phase.READY,
        )
        return {
            "phase": session.phase.value,
            "promoted": [to_json(f) for f in outcome.promoted],
            "rejected_hypotheses": [to_json(f) for f in session.rejected_findings()],
            "open_hypotheses": [to_json(f) for f in session.open_hypotheses()],
            "errors": list(outcome.errors),
            "missing_requirements": [to_json(m) for m in session.missing],
            "symbol_confidences": confidences,
            "risk": session.risk.value,
            "next_step": next_step(session),
        }

    @_locked
    def check_write_target(
        self, session_id: Any, file_path: Any, allow_new_files: Any = False,
        agent_session: Any = None,
    ) -> dict[str, Any]:
        """SPEC §4.8: may this file be written now? Refusals are kept per session so
        the language server can publish them as diagnostics. Without `session_id` (the
        Claude Code hook knows none) the most recently active session of the agent
        conversation `agent_session` decides (Claude Code's session_id from the hook
        payload), or, when no conversation is named, the most recently active one."""
        path = inputs.text("file_path", file_path, 4096)
        agent = None if agent_session is None else inputs.text("agent_session", agent_session, 200)
        if session_id is None:
            target = resolve_target(self.root, path)
            if target.rel is not None and target.rel in self.exempt:
                return {"allowed": True, "file_path": path, "relative_path": target.rel,
                        "reason_code": "documentation", "session_id": None, "phase": None,
                        "reason": f"{target.rel} matches write_exempt_patterns: "
                        "documentation needs no exploration",
                        "recovery_options": []}
        session = self._session(session_id) if session_id is not None else self._latest(agent)
        allow_new = inputs.flag("allow_new_files", allow_new_files)
        files, dirs = self._explored(session)
        rejected_files = {
            f.subject for f in session.rejected_findings() if f.kind is FindingKind.FILE
        }
        target = resolve_target(self.root, path)
        code = [f for f in files if f not in self.exempt]
        decision = decide_write(
            session_id=session.id,
            phase=session.phase,
            target=target,
            explored_files=files,
            explored_directories=dirs,
            allow_new_files=allow_new,
            exempt=self.exempt,
            rejected_files=rejected_files,
            new_file_addable=target.rel is not None and not target.exists
            and explored_under(self._nearest_dir(target.rel), code),
            nearest_dir=self._nearest_dir(target.rel) if target.rel else None,
        )
        key = decision.relative_path or path
        if decision.allowed:
            self.store.clear_blocked_write(session.id, key)
        else:
            self.store.put_blocked_write(
                BlockedWrite(session.id, key, decision.reason, self.clock.now())
            )
        self._decide(
            session,
            "write_check",
            decision.reason,
            file_path=path,
            allowed=decision.allowed,
            reason_code=decision.reason_code,
            refused=not decision.allowed,
        )
        self._save(session)
        answer = to_json(decision)
        if not decision.allowed and decision.reason_code == "phase":
            answer["next_step"] = next_step(session)
        return answer

    @_locked
    def add_explored_files(self, session_id: Any, paths: Any) -> dict[str, Any]:
        """SPEC §4.8 recovery: stay READY and add files or directories you explored."""
        session = self._session(session_id)
        self._require_phase(session, "add_explored_files")
        given = inputs.str_list("paths", paths, non_empty=True)
        files, _ = self._explored(session)
        code = [f for f in files if f not in self.exempt]
        added, problems = [], []
        for p in given:
            target = resolve_target(self.root, p)
            entry, problem = judge_addition(target, files, code, self._nearest_dir(target.rel))
            if entry is not None:
                added.append(entry)
            else:
                problems.append(str(problem))
        if problems:
            raise GatingError(
                "invalid_paths",
                "cannot add: " + "; ".join(problems) + ". add_explored_files only adds what "
                "this session has seen, or new files next to code it explored",
                problems=problems,
                next_step="read the files (analyze_structure, get_function_at_line, "
                "get_symbols or your own Read), then call check_write_target",
            )
        session.explored_extra = tuple(dict.fromkeys((*session.explored_extra, *added)))
        self._save(session)
        self._decide(session, "add_explored_files", f"added {added}", paths=added)
        files, dirs = self._explored(session)
        return {
            "phase": session.phase.value,
            "added": added,
            "explored_files": sorted(files),
            "explored_directories": sorted(d or "." for d in dirs),
            "blocked_writes": [to_json(b) for b in self.store.blocked_writes(session.id)],
            "next_step": "call check_write_target again for the files you want to edit",
        }

    @_locked
    def record_agent_reads(self, agent_session: Any, tool: Any, paths: Any) -> dict[str, Any]:
        """Files the agent read with its own tools (Claude Code's Read/Grep/Glob, seen
        by the PostToolUse hook) count as explored in the session that conversation
        started, like files code-intel's tools returned. No session → nothing to do."""
        agent = inputs.text("agent_session", agent_session, 200)
        name = inputs.text("tool", tool, 100)
        given = inputs.str_list("paths", paths)
        session = self._owned_by(agent)
        if session is None:
            return {"session_id": None, "recorded": []}
        rels = [t.rel for t in (resolve_target(self.root, p) for p in given)
                if t.rel is not None and t.exists and not t.is_dir and not is_protected(t.rel)]
        new = [r for r in dict.fromkeys(rels) if r not in session.seen_files]
        if new:
            session.seen_files = (*session.seen_files, *new)
            self._save(session)
            self._decide(session, "agent_read", f"{name}: {len(new)} file(s) read", tool=name,
                         paths=new)
        return {"session_id": session.id, "recorded": new}

    @_locked
    def revert_to_exploration(self, session_id: Any, keep_results: Any = True) -> dict[str, Any]:
        """SPEC §4.8 recovery: back to EXPLORATION, keeping the findings or not.

        `keep_results=false` discards the submitted understanding, relevance verdicts,
        hypotheses, resolved slots, added files and the files the agent read, and calls made so far stop counting
        as evidence. Rejected hypotheses and the request's own slots always stay.
        """
        session = self._session(session_id)
        self._require_phase(session, "revert_to_exploration")
        keep = inputs.flag("keep_results", keep_results)
        before = session.phase
        if not keep:
            frame = session.frame
            session.frame = attrs.evolve(
                frame,
                resolved={},
                mapped_symbols=(),
                slot_evidence={},
                slot_source={s: src for s, src in frame.slot_source.items() if s in frame.quotes},
            )
            session.understanding = None
            session.findings = session.rejected_findings()
            session.relevance = {}
            session.explored_extra = ()
            session.seen_files = ()
            session.log_start_seq = self.store.last_call_seq()
        session.phase = Phase.EXPLORATION
        self._save(session)
        self._decide(
            session,
            "revert_to_exploration",
            f"{before.value} → EXPLORATION, keep_results={keep}",
            keep_results=keep,
        )
        return self._status(session)

    @_locked
    def record_outcome(
        self, session_id: Any, outcome: Any, analysis: Any = None
    ) -> dict[str, Any]:
        """SPEC §4.9: append to the OutcomeLog; on success learn the approved pairs."""
        session = self._session(session_id, allow_ended=True)
        result = inputs.outcome(outcome)
        note = "" if analysis is None else inputs.text("analysis", analysis)
        now = self.clock.now()
        record = self.store.append_outcome(
            OutcomeRecord(
                seq=0,
                session_id=session.id,
                timestamp=now,
                outcome=result,
                phase=session.phase,
                intent=session.intent,
                risk=session.risk,
                semantic_used=session.semantic_used,
                analysis=note,
                tools_planned=session.plan.tools,
            )
        )
        learned: list[LearnedPair] = []
        if result is Outcome.SUCCESS:
            learned = pairs_to_learn(session, now)
            if learned:
                self.store.add_learned_pairs(learned)
                self._publish(learned, [])
        self._decide(
            session,
            "record_outcome",
            f"{result.value}; {len(learned)} pair(s) learned",
            outcome=result.value,
            learned=[f"{p.nl_term} → {p.symbol}" for p in learned],
        )
        return {
            "recorded": to_json(record),
            "learned_pairs": [to_json(p) for p in learned],
            "note": "" if learned or result is not Outcome.SUCCESS else (
                "nothing learned: only pairs approved by validate_symbol_relevance are kept"
            ),
        }

    @_locked
    def end_session(self, session_id: Any) -> dict[str, Any]:
        session = self._session(session_id, allow_ended=True)
        session.status = SessionStatus.ENDED
        cleared = self.store.clear_blocked_writes(session.id)
        self._save(session)
        self._decide(session, "end_session", "ended by request")
        return {
            "session_id": session.id,
            "status": session.status.value,
            "cleared_blocked_writes": [b.path for b in cleared],
        }

    @_locked
    def get_session_analysis(self, session_id: Any) -> dict[str, Any]:
        session = self._session(session_id, allow_ended=True, allow_expired=True)
        return session_analysis(
            session.id, self.store.decisions(session.id), self.store.outcomes(session.id)
        )

    @_locked
    def get_improvement_insights(self, limit: Any = 100) -> dict[str, Any]:
        n = inputs.count("limit", limit, 1, 10_000)
        planned = {d.session_id for d in self.store.decisions() if d.kind == PLAN}
        return improvement_insights(self.store.outcomes(), planned, n)

    # ---- housekeeping the server calls ------------------------------------------------

    @_locked
    def blocked_writes(self, session_id: Any = None) -> list[dict[str, Any]]:
        """Refused writes still standing (for diagnostics), of one session or all."""
        if session_id is not None:
            self._session(session_id, allow_ended=True, allow_expired=True)
        return [to_json(b) for b in self.store.blocked_writes(session_id)]

    @_locked
    def list_sessions(self, include_inactive: bool = False) -> list[dict[str, Any]]:
        """Most recently active first (the hook takes the first)."""
        self.expire_sessions()
        status = None if include_inactive else SessionStatus.ACTIVE
        return [
            {"session_id": s.id, "intent": s.intent.value, "phase": s.phase.value,
             "risk": s.risk.value, "status": s.status.value, "query": s.query,
             "updated_at": s.updated_at}
            for s in self.store.list_sessions(status)
        ]

    @_locked
    def expire_sessions(self) -> list[str]:
        """Mark sessions inactive for longer than `session_ttl_hours` as expired."""
        return [
            s.id for s in self.store.list_sessions(SessionStatus.ACTIVE) if self._expire_if_stale(s)
        ]

    @_locked
    def prune_learned_pairs(self) -> dict[str, Any]:
        """After a sync: purge old pairs and drop those whose symbol vanished."""
        purged = self._purge_learned(self.clock.now())
        vanished = vanished_pairs(self.store.learned_pairs(), self.index)
        if vanished:
            self.store.delete_learned_pairs(vanished)
            self._publish([], vanished)
        return {
            "purged": [to_json(p) for p in purged],
            "dropped": [to_json(p) for p in vanished],
        }

    # ==== internals ==================================================================

    def _similarity(self, a: str, b: str) -> float:
        """The embedder's similarity; a model still loading becomes "initializing".

        Any exception carrying `retry_after_seconds` means "loading" (ours, or the
        `EmbedderNotReady` of `indexing.embeddings`), so the engine needs no import of
        a backend package.
        """
        try:
            return float(self.embedder.similarity(a, b))
        except Exception as exc:
            retry = getattr(exc, "retry_after_seconds", None)
            if retry is None:
                raise
            raise GatingError(
                "initializing",
                f"the embedding model is loading; retry in {retry:g} seconds",
                status="initializing",
                retry_after_seconds=retry,
            ) from None

    def _session(
        self, session_id: Any, *, allow_ended: bool = False, allow_expired: bool = False
    ) -> Session:
        sid = inputs.text("session_id", session_id, 200)
        session = self.store.load_session(sid)
        if session is None:
            lost = "".join(f" ({m})" for m in self.store.messages)  # a damaged sessions.db
            raise GatingError(
                "unknown_session", f"no session {sid!r}; call start_session first{lost}"
            )
        if self._expire_if_stale(session) and not allow_expired:
            raise GatingError(
                "session_expired",
                f"session {sid} expired after {self.config.session_ttl_hours:g} hours without "
                "activity; start a new session",
            )
        if session.status is SessionStatus.EXPIRED and not allow_expired:
            raise GatingError("session_expired", f"session {sid} has expired; start a new one")
        if session.status is SessionStatus.ENDED and not allow_ended:
            raise GatingError("session_ended", f"session {sid} has ended; start a new one")
        return session

    def _latest(self, agent_session: str | None = None) -> Session:
        """The most recently active session; for a named agent conversation, the one it
        started (`_owned_by`), so another conversation's session never decides for it."""
        session = self._owned_by(agent_session)
        if session is not None:
            return session
        raise GatingError(
            "no_session",
            "no active code-intel session"
            + (" in this Claude Code conversation (another conversation's session does not "
               "count)" if agent_session else "")
            + ": call start_session (the /code workflow), explore the code, and reach READY "
            "before editing code files",
        )

    def _owned_by(self, agent_session: str | None) -> Session | None:
        """The most recently active session of agent conversation `agent_session`; when
        it started none, the most recent one no conversation owns (started from an
        editor, or by a client that does not name its conversation). Without a name,
        the most recently active session of all."""
        self.expire_sessions()
        active = self.store.list_sessions(SessionStatus.ACTIVE)
        if agent_session is None:
            return active[0] if active else None
        return next((s for s in active if s.agent_session == agent_session),
                    next((s for s in active if s.agent_session is None), None))

    def _expire_if_stale(self, session: Session) -> bool:
        if session.status is not SessionStatus.ACTIVE:
            return False
        if self.clock.now() - session.updated_at <= self.config.session_ttl_hours * 3600:
            return False
        session.status = SessionStatus.EXPIRED
        self.store.save_session(session)
        self.store.clear_blocked_writes(session.id)
        self._decide(session, "expired", "no activity within session_ttl_hours")
        return True

    def _save(self, session: Session) -> None:
        session.updated_at = self.clock.now()
        self.store.save_session(session)

    def _decide(self, session: Session, kind: str, reason: str, **detail: Any) -> None:
        self.store.append_decision(
            DecisionRecord(0, session.id, self.clock.now(), kind, reason, detail)
        )

    def _log_plan(self, session: Session, why: str, **extra: Any) -> None:
        """The DecisionLog entry of seed 002 for a plan (SPEC §4.3, §4.9)."""
        plan = session.plan
        self._decide(
            session,
            PLAN,
            why,
            query=session.query,
            intent=session.intent.value,
            risk_level=session.risk.value,
            missing_slots=[s.value for s in plan.missing_slots],
            priority_slots=[s.value for s in plan.priority_slots],
            tools_planned=list(plan.tools),
            required_phases=required_phases(session.intent),
            **extra,
        )

    def _require_phase(self, session: Session, tool: str) -> None:
        refusal = phases.check_tool_allowed(session.phase, tool)
        if refusal is None:
            return
        self._decide(session, "tool_refused", refusal.message, tool=tool, refused=True)
        raise GatingError(
            "wrong_phase",
            refusal.message,
            phase=refusal.phase.value,
            allowed_phases=[p.value for p in refusal.allowed_phases],
            next_step=refusal.next_step,
        )

    def _counted_calls(self, session: Session) -> list[ToolCall]:
        return counted_calls(self.store.tool_calls(session.id), session.log_start_seq)

    def _file_exists(self, rel: str) -> bool:
        return self.index.file_exists(rel) or (self.root / rel).is_file()

    def _nearest_dir(self, rel: str | None) -> str:
        """The nearest existing directory above `rel` ('' = the workspace root)."""
        parent = posixpath.dirname(rel or "")
        while parent and not (self.root / parent).is_dir():
            parent = posixpath.dirname(parent)
        return parent

    def _workspace_files(self, files: Iterable[str]) -> tuple[list[str], list[str]]:
        rels, problems = [], []
        for f in files:
            t = resolve_target(self.root, f)
            if t.rel is None:
                problems.append(f"files_analyzed {f!r}: {t.outside_reason}")
            elif not self._file_exists(t.rel):
                problems.append(f"files_analyzed {f!r} does not exist in the workspace")
            else:
                rels.append(t.rel)
        return rels, problems

    def _refuse_rejected(
        self, session: Session, symbols: Iterable[str], files: Iterable[str],
        patterns: Iterable[str],
    ) -> None:
        """SPEC §4.6: implementing on a rejected hypothesis is refused."""
        used = rejected_in_use(session, symbols, files, patterns)
        if used:
            raise GatingError(
                "rejected_hypothesis",
                f"{used} were rejected in VERIFICATION and cannot be used; remove them",
                rejected=used,
            )

    def _explored(self, session: Session) -> tuple[set[str], frozenset[str]]:
        return explored(session, self._counted_calls(session), self.exempt.__contains__)

    def _evaluate(self, session: Session) -> list[dict[str, Any]]:
        """Evaluate the session, apply the result (mapped symbols, a forced HIGH, the
        phase through the READY gate) and return the symbol confidences."""
        ev = evaluate_session(
            session, self._counted_calls(session), self._similarity, self.thresholds
        )
        if ev.verdicts:
            session.frame = attrs.evolve(
                session.frame, mapped_symbols=mapped_with(session.frame.mapped_symbols,
                                                          ev.verdicts)
            )
        if ev.force_high and not session.risk_forced_high:
            session.risk_forced_high = True
            self._decide(session, "risk_forced_high",
                         "the best symbol for the target feature is only in the grey zone")
        session.phase, session.missing = settle(session, ev.missing)
        return ev.confidences()

    def _purge_learned(self, now: float) -> list[LearnedPair]:
        cutoff = purge_cutoff(now, self.config.learned_pair_days)
        old = [p for p in self.store.learned_pairs() if p.learned_at < cutoff]
        if old:
            self.store.delete_learned_pairs(old)
            self._publish([], old)
        return old

    def _publish(self, added: Sequence[LearnedPair], removed: Sequence[LearnedPair]) -> None:
        if not self.sinks:
            return
        current = self.store.learned_pairs()
        for sink in self.sinks:
            sink.pairs_changed(current, added, removed)

    def _status(self, session: Session) -> dict[str, Any]:
        calls = self.store.tool_calls(session.id)
        counted = counted_calls(calls, session.log_start_seq)
        return describe(session, calls, counted, self.store.blocked_writes(session.id),
                        self.exempt.__contains__)
