"""Reading the DecisionLog and OutcomeLog (SPEC §4.9, seed 002 "改善サイクル").

The logs themselves are append-only tables of `SessionStore`; these functions only
read them: one session's decisions joined with its outcomes, and the correlations
across sessions that show where the design fails (tools planned in failed sessions,
risk level against outcome, the phase in which sessions fail).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from .codec import to_json
from .model import DecisionRecord, Outcome, OutcomeRecord

PLAN = "plan"


def session_analysis(
    session_id: str, decisions: Sequence[DecisionRecord], outcomes: Sequence[OutcomeRecord]
) -> dict[str, Any]:
    plans = [d for d in decisions if d.kind == PLAN]
    refusals = [d for d in decisions if d.detail.get("refused")]
    final = outcomes[-1] if outcomes else None
    failed = final is not None and final.outcome is not Outcome.SUCCESS
    return {
        "session_id": session_id,
        "decision": to_json(plans[-1]) if plans else None,
        "decisions": [to_json(d) for d in decisions],
        "outcomes": [to_json(o) for o in outcomes],
        "analysis": {
            "had_decision": bool(plans),
            "had_outcome": final is not None,
            "final_outcome": final.outcome.value if final else None,
            "tools_planned": list(plans[-1].detail.get("tools_planned", [])) if plans else [],
            "risk_level": final.risk.value if final else None,
            "semantic_used": final.semantic_used if final else None,
            "failure_point": final.phase.value if failed and final else None,
            "refusals": dict(Counter(d.kind for d in refusals)),
            "last_refusal": to_json(refusals[-1]) if refusals else None,
        },
    }


def improvement_insights(
    outcomes: Sequence[OutcomeRecord], sessions_with_plans: set[str], limit: int
) -> dict[str, Any]:
    """Correlations over the latest `limit` sessions that recorded an outcome."""
    final: dict[str, OutcomeRecord] = {}
    for o in sorted(outcomes, key=lambda o: o.seq):
        final[o.session_id] = o
    latest = sorted(final.values(), key=lambda o: o.seq, reverse=True)[:limit]

    tools: dict[str, Counter[str]] = defaultdict(Counter)
    risks: dict[str, Counter[str]] = defaultdict(Counter)
    failure_points: Counter[str] = Counter()
    for o in latest:
        failed = o.outcome is not Outcome.SUCCESS
        for tool in o.tools_planned:
            tools[tool]["sessions"] += 1
            tools[tool]["failures"] += failed
        risks[o.risk.value]["sessions"] += 1
        risks[o.risk.value][o.outcome.value] += 1
        if failed:
            failure_points[o.phase.value] += 1

    def rate(c: Counter[str], bad: int) -> float:
        return round(bad / c["sessions"], 3) if c["sessions"] else 0.0

    return {
        "total_sessions_with_outcomes": len(latest),
        "sessions_with_decisions": sum(o.session_id in sessions_with_plans for o in latest),
        "tool_failure_correlation": {
            t: {"sessions": c["sessions"], "failures": c["failures"],
                "failure_rate": rate(c, c["failures"])}
            for t, c in sorted(tools.items())
        },
        "risk_level_correlation": {
            r: {"sessions": c["sessions"], **{o.value: c[o.value] for o in Outcome},
                "failure_rate": rate(c, c["sessions"] - c[Outcome.SUCCESS.value])}
            for r, c in sorted(risks.items())
        },
        "common_failure_points": dict(failure_points.most_common()),
    }
