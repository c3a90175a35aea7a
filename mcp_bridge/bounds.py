"""Keep every reply within what an agent can take in (Claude Code stops at 25,000
tokens per tool result; a reply that large also crowds out everything else).

Two steps, both pure:

* `compact` drops what only editors need from index results — the LSP `uri` and the
  0-based `range` / `selection_range` next to the 1-based `line` — keeping the end
  line, which is what an agent reads ranges for;
* `fit` cuts the largest list (or long text) until the JSON is within the budget and
  says what was cut, so the reply can tell the agent how to ask for the rest.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_STRUCTURED_CHARS = 24_000  # serialized structured content
MAX_TEXT_CHARS = 14_000  # the readable text block; both together stay under 40,000
MIN_STRING_CUT = 400  # texts shorter than this are never shortened

_EDITOR_KEYS = ("uri", "range", "selection_range")

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Cut:
    """One list or text that was shortened: where, and how much is shown."""

    path: Path
    shown: int
    total: int
    unit: str  # "items" or "characters"

    @property
    def where(self) -> str:
        return path_text(self.path)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.where, "shown": self.shown, "total": self.total, "unit": self.unit}


def path_text(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(root)"


def size(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str))


# ---- compact ---------------------------------------------------------------------------


def compact(data: Any) -> Any:
    """A copy without the editor-only location fields; `end_line` is kept."""
    if isinstance(data, list):
        return [compact(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "line" in data and any(k in data for k in _EDITOR_KEYS):
        out = {k: compact(v) for k, v in data.items() if k not in _EDITOR_KEYS}
        end = _end_line(data.get("range"))
        if end is not None and "end_line" not in out:
            out["end_line"] = end
        return out
    return {k: compact(v) for k, v in data.items()}


def _end_line(rng: Any) -> int | None:
    try:
        return int(rng["end"]["line"]) + 1
    except (TypeError, KeyError, ValueError):
        return None


# ---- fit -------------------------------------------------------------------------------


def fit(data: Any, max_chars: int = MAX_STRUCTURED_CHARS) -> tuple[Any, list[Cut]]:
    """`data` cut down to at most `max_chars` of JSON, and the cuts made.

    Repeatedly shortens the largest list (lists of two or more items first, so a
    single class keeps its methods rather than vanishing) or the longest text, as
    little as needed (binary search on what to keep)."""
    data = json.loads(json.dumps(data, default=str))  # a private copy to cut
    cuts: list[Cut] = []
    for _ in range(200):
        if size(data) <= max_chars:
            break
        target = _largest(data)
        if target is None:
            break
        path, value = target
        cuts.append(_shorten(data, path, value, max_chars))
    return data, [c for c in _merge(cuts) if _exists(data, c.path)]


def _candidates(data: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(data, list):
        if data:
            yield path, data
        for i, v in enumerate(data):
            yield from _candidates(v, (*path, i))
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from _candidates(v, (*path, k))
    elif isinstance(data, str) and len(data) > MIN_STRING_CUT:
        yield path, data


def _largest(data: Any) -> tuple[Path, Any] | None:
    best: tuple[int, int, Path, Any] | None = None
    for path, value in _candidates(data):
        many = 1 if not isinstance(value, list) or len(value) >= 2 else 0
        key = (many, size(value))
        if best is None or key > best[:2]:
            best = (*key, path, value)
    return None if best is None else (best[2], best[3])


def _set(data: Any, path: Path, value: Any) -> None:
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _shorten(data: Any, path: Path, value: Any, max_chars: int) -> Cut:
    if isinstance(value, list):
        total = len(value)
        keep = _search(lambda k: _set(data, path, value[:k]) or size(data) <= max_chars,
                       total - 1)
        _set(data, path, value[:keep])
        return Cut(path, keep, total, "items")
    total = len(value)
    marker = "\n… [cut]"
    keep = _search(
        lambda k: _set(data, path, value[:k] + marker) or size(data) <= max_chars,
        max(0, total - len(marker) - 1),
    )
    _set(data, path, value[:keep] + marker)
    return Cut(path, keep, total, "characters")


def _search(fits: Any, high: int) -> int:
    """The largest k in [0, high] with fits(k), or 0 (fits is monotone)."""
    low, best = 0, 0
    while low <= high:
        mid = (low + high) // 2
        if fits(mid):
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return best


def _exists(data: Any, path: Path) -> bool:
    """A cut inside an item that a later cut removed is not worth reporting."""
    node = data
    for part in path:
        try:
            node = node[part]
        except (IndexError, KeyError, TypeError):
            return False
    return True


def _merge(cuts: list[Cut]) -> list[Cut]:
    """A list cut twice is reported once, with its original length."""
    by_path: dict[Path, Cut] = {}
    for cut in cuts:
        first = by_path.get(cut.path)
        by_path[cut.path] = cut if first is None else Cut(
            cut.path, cut.shown, first.total, cut.unit
        )
    return list(by_path.values())


# ---- text -------------------------------------------------------------------------------


def cap_text(text: str, max_chars: int = MAX_TEXT_CHARS, hint: str = "") -> str:
    """Whole lines up to `max_chars`, then one line saying how much was left out."""
    if len(text) <= max_chars:
        return text
    lines = text.splitlines()
    kept: list[str] = []
    used = 0
    budget = max_chars - 300
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    if not kept:  # one enormous line
        kept = [text[:budget]]
    left = len(lines) - len(kept)
    more = f" ({hint})" if hint else ""
    return "\n".join(kept) + f"\n… {max(left, 1)} more line(s) not shown{more}"
