"""Text search with ripgrep (`rg --json`), which honours the workspace's ignore files.

The `rg` binary comes from the pinned `ripgrep` wheel installed next to our Python, so
it is found even when the virtual environment is not activated.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .discovery import is_within
from .paths import UnusablePath, resolve_path


class SearchError(ValueError):
    """Bad search input (invalid regex, path outside the workspace, …)."""


@dataclass(frozen=True)
class TextMatch:
    path: str
    line: int  # 1-based, as ripgrep and humans count
    column: int  # 1-based, in characters
    content: str
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


@dataclass
class TextSearchResult:
    matches: list[TextMatch]
    total: int
    truncated: bool


def ripgrep_binary() -> str:
    beside = Path(sys.executable).parent / "rg"
    if beside.exists():
        return str(beside)
    found = shutil.which("rg")
    if found is None:
        raise SearchError("ripgrep (rg) is not installed; reinstall code-intel (`pip install -e .`)")
    return found


def search_text(
    root: Path,
    pattern: str,
    path: str | None = None,
    glob: str | None = None,
    file_type: str | None = None,
    context: int = 0,
    ignore_case: bool = False,
    fixed_strings: bool = False,
    max_results: int = 200,
    timeout: float = 30.0,
) -> TextSearchResult:
    if not pattern:
        raise SearchError("pattern is empty; give a regular expression or a literal string")
    if not 0 <= context <= 20:
        raise SearchError(f"context must be between 0 and 20 lines, got {context}")
    if max_results < 1:
        raise SearchError(f"max_results must be at least 1, got {max_results}")
    root = root.resolve()
    target = "."
    if path:
        try:
            resolved = resolve_path(path, root)
            exists = resolved.exists()
        except (UnusablePath, OSError) as exc:
            raise SearchError(str(exc)) from None
        if not is_within(root, resolved):
            raise SearchError(f"path {path!r} is outside the workspace {root}")
        if not exists:
            raise SearchError(f"path {path!r} does not exist in the workspace")
        target = str(resolved.relative_to(root)) or "."
    cmd = [ripgrep_binary(), "--json", "--no-messages", "--glob", "!.code-intel/"]
    if context:
        cmd += ["--context", str(context)]
    if ignore_case:
        cmd.append("--ignore-case")
    if fixed_strings:
        cmd.append("--fixed-strings")
    if glob:
        cmd += ["--glob", glob]
    if file_type:
        cmd += ["--type", file_type]
    cmd += ["--regexp", pattern, "--", target]
    try:
        proc = subprocess.run(
            cmd, cwd=root, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise SearchError(f"search took longer than {timeout:.0f}s; narrow it with a path or glob") from None
    if proc.returncode == 2 and not proc.stdout:
        err = proc.stderr.decode("utf-8", "replace").strip()
        if "unrecognized file type" in err:
            raise SearchError(f"unknown file type {file_type!r} (see `rg --type-list`)")
        raise SearchError(f"invalid pattern {pattern!r}: {err.splitlines()[-1] if err else 'rg failed'}")
    return _parse(proc.stdout, max_results, context)


def _text(obj: dict) -> str:
    if "text" in obj:
        return obj["text"]
    return base64.b64decode(obj.get("bytes", "")).decode("utf-8", "replace")


def _parse(output: bytes, max_results: int, context: int) -> TextSearchResult:
    matches: list[TextMatch] = []
    total = 0
    pending_before: list[str] = []
    last: TextMatch | None = None
    for raw in output.splitlines():
        event = json.loads(raw)
        kind = event["type"]
        data = event.get("data", {})
        if kind == "begin":
            pending_before, last = [], None
        elif kind == "context":
            line = _text(data["lines"]).rstrip("\n")
            if last is not None and last.line < data["line_number"] <= last.line + context:
                last.after.append(line)
            else:
                pending_before.append(line)
        elif kind == "match":
            total += 1
            if len(matches) >= max_results:
                continue
            line_text = _text(data["lines"]).rstrip("\n")
            sub = data["submatches"][0] if data["submatches"] else {"start": 0}
            column = len(line_text.encode()[: sub["start"]].decode("utf-8", "replace")) + 1
            path = _text(data["path"]).removeprefix("./")
            last = TextMatch(path, data["line_number"], column, line_text, pending_before, [])
            matches.append(last)
            pending_before = []
    return TextSearchResult(matches, total, total > len(matches))
