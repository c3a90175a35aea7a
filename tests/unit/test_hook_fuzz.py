"""Generated hook payloads thrown at the real hook entry point (issue 17, item 6): never
a traceback, always an answer Claude Code understands — exit 0 with nothing (allow) or
with decision JSON (deny), or exit 1 with one line (not a hook payload)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from code_intel.mcp_bridge import hook
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TOOLS = st.sampled_from(["Edit", "Write", "MultiEdit", "NotebookEdit", "Read", "Bash", "", "x"])
PATHS = st.one_of(
    st.text(max_size=300),
    st.builds(lambda parts: "/".join(parts), st.lists(st.sampled_from(
        ["..", ".", "a", "README.md", "docs", ".code-intel", "x.py", "\x00", "é", ""]),
        max_size=12)),
    st.integers(), st.none(), st.lists(st.text(max_size=5), max_size=3),
)
JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


@st.composite
def payloads(draw, root: Path) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=200))  # not JSON at all
    body: dict = {"session_id": draw(st.text(max_size=10)), "hook_event_name": "PreToolUse",
                  "tool_name": draw(TOOLS)}
    key = draw(st.sampled_from(["file_path", "notebook_path", "path"]))
    body["tool_input"] = draw(st.one_of(st.fixed_dictionaries({key: PATHS}), JSONISH))
    body["cwd"] = draw(st.one_of(st.just(str(root)), st.text(max_size=30), st.integers()))
    if draw(st.booleans()):
        body["extra"] = draw(JSONISH)
    return json.dumps(body)


def run(raw: str, cwd: Path, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    code = hook.main(io.StringIO(raw), out, err)
    return code, out.getvalue(), err.getvalue()


def test_generated_payloads_always_get_a_valid_decision(tmp_path: Path, monkeypatch):
    root = tmp_path / "ws"
    (root / ".code-intel").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "app/x.py").write_text("x = 1\n")

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data) -> None:
        raw = data.draw(payloads(root))
        code, out, err = run(raw, root, monkeypatch)
        assert "Traceback" not in out + err
        assert code in (0, 1)
        if code == 1:
            assert out == "" and err.strip() and len(err.strip().splitlines()) == 1
        elif out:
            decision = json.loads(out)["hookSpecificOutput"]
            assert decision["permissionDecision"] == "deny"
            assert decision["permissionDecisionReason"].startswith("code-intel blocked")
        else:
            assert err == ""

    check()
