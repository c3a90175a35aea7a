"""The readable text block of each tool reply: a compact summary an agent can act on
("3 definitions of X:" then one `path:line kind qualified_name` per line).

Pure functions of the (already bounded) answer and the call's arguments. The
structured content carries every field; the text carries what the agent needs to
decide its next call, so a client that shows only text loses nothing essential.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

Renderer = Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]


def one_line(value: Any, limit: int = 400) -> str:
    """A value on one line: strings as they are, the rest as compact JSON."""
    text = value if isinstance(value, str) else json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), default=str
    )
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _loc(item: Mapping[str, Any], line_key: str = "line") -> str:
    path = item.get("path", "?")
    line = item.get(line_key)
    return f"{path}:{line}" if line is not None else str(path)


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("ch", "sh", "s", "x")) else f"{n} {word}s"


def _more(data: Mapping[str, Any], what: str) -> list[str]:
    return [(f"(the server stopped at its limit: more {what} exist; raise the limit or narrow the "
            "query)")] if data.get("truncated") and "truncation" not in data else []


_QUALIFIERS = ("::", "\\", "->", ".")


def _no_definition(name: Any) -> str:
    """What to try next: for a qualified name, its last segment alone."""
    text = str(name)
    if any(q in text.strip(".\\") for q in _QUALIFIERS):
        short = text.replace("::", ".").replace("\\", ".").replace("->", ".").rsplit(".", 1)[-1]
        return (f"No definition of {text!r} in the index. Try {short!r} with exact=false, "
                "search_text or query.")
    return (f"No definition of {text!r} in the index. Try exact=false, a shorter name, "
            "search_text or query.")


_MORE_OF = {"find_definitions": "definitions", "find_references": "references",
            "get_symbols": "symbols"}


def hints(tool: str, data: Any, args: Mapping[str, Any]) -> list[str]:
    """The advice the text rendering gives beyond the data itself, for the structured
    result: Claude Code shows the model only `structuredContent` when there is one
    (checked with 2.1.330), so advice that lives only in the text is never read."""
    if not isinstance(data, Mapping):
        return []
    out: list[str] = []
    if tool == "find_definitions" and not data.get("definitions"):
        out.append(_no_definition(data.get("name", args.get("name"))))
    if tool in _MORE_OF:
        out += [line.strip("()") for line in _more(data, _MORE_OF[tool])]
    return out


# ---- index tools -------------------------------------------------------------------------


def _definitions(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    defs = data.get("definitions") or []
    name = data.get("name", args.get("name"))
    if not defs:
        return [_no_definition(name)]
    lines = [f"{_plural(len(defs), 'definition')} of {name}:"]
    for d in defs:
        sig = f"  {one_line(d['signature'], 160)}" if d.get("signature") else ""
        lines.append(f"{_loc(d)} {d.get('kind', '?')} {d.get('qualified_name') or d.get('name')}{sig}")
    return lines + _more(data, "definitions")


def _references(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    refs = data.get("references") or []
    possible = data.get("possible") or []
    name = data.get("name", args.get("name"))
    if not refs:
        lines = [f"No references to {name!r} outside its definitions."]
    else:
        files = data.get("files", len({r.get("path") for r in refs}))
        lines = [f"{_plural(len(refs), 'reference')} to {name} in {_plural(files, 'file')}:"]
    for r in refs:
        where = f"  in {r['container']}" if r.get("container") else ""
        decl = "  (definition)" if r.get("is_declaration") else ""
        lines.append(f"{_loc(r)}{where}{decl}")
    lines += _more(data, "references")
    if possible:
        # same name, but nothing decides whether it is this symbol
        lines.append(f"{_plural(len(possible), 'possible reference')} (undecided):")
        lines += [f"{_loc(r)}  ({r.get('reason', 'undecided')})" for r in possible]
    return lines


def _search_text(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    matches = data.get("matches") or []
    total = data.get("total", len(matches))
    pattern = args.get("pattern", "")
    if not matches:
        return [f"No match for {pattern!r}."]
    head = f"{_plural(total, 'match')} for {pattern!r}"
    if total > len(matches):
        head += f" ({len(matches)} shown)"
    lines = [head + ":"]
    for m in matches:
        path, line = m.get("path", "?"), int(m.get("line") or 0)
        before = m.get("before") or []
        for i, text in enumerate(before):
            lines.append(f"{path}-{line - len(before) + i}- {one_line(text, 300)}")
        lines.append(f"{path}:{line}: {one_line(m.get('content', ''), 300)}")
        for i, text in enumerate(m.get("after") or []):
            lines.append(f"{path}-{line + 1 + i}- {one_line(text, 300)}")
    return lines


def _symbols(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    syms = data.get("symbols") or []
    if not syms:
        return ["No symbols match."]
    lines = [f"{_plural(len(syms), 'symbol')}:"]
    lines += [f"{_loc(s)} {s.get('kind', '?')} {s.get('qualified_name') or s.get('name')}"
              for s in syms]
    return lines + _more(data, "symbols")


def _outline(nodes: Iterable[Mapping[str, Any]], depth: int = 0) -> Iterable[str]:
    for n in nodes:
        sig = f"  {one_line(n['signature'], 120)}" if n.get("signature") else ""
        yield (f"{'  ' * depth}{n.get('kind', '?')} {n.get('name')} "
               f":{n.get('line')}-{n.get('end_line')}{sig}")
        yield from _outline(n.get("children") or [], depth + 1)


def _structure(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    symbols = data.get("symbols") or []
    imports = data.get("imports") or {}
    unsaved = ", from the editor's unsaved buffer" if data.get("unsaved") else ""
    lines = [(f"{data.get('path')} ({data.get('language')}{unsaved}): "
             f"{_plural(len(symbols), 'top-level symbol')}, {_plural(len(imports), 'import')}, "
             f"{_plural(len(data.get('chunks') or []), 'chunk')}")]
    lines += list(_outline(symbols))
    if imports:
        lines.append("imports: " + "; ".join(f"{k} → {v}" for k, v in imports.items()))
    return lines


def _function_at_line(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    sym = data.get("symbol")
    where = f"{data.get('path')}:{data.get('line')}"
    if not sym:
        return [f"{where} is not inside a function, method or class."]
    lines = [(f"{where} is in {sym.get('kind')} {sym.get('qualified_name') or sym.get('name')} "
             f"(lines {sym.get('line')}-{sym.get('end_line', '?')}):")]
    if data.get("content"):
        lines.append(str(data["content"]))
    return lines


def _hit(h: Mapping[str, Any]) -> str:
    score = h.get("score")
    head = f"{score:.3f} " if isinstance(score, (int, float)) else ""
    if "path" in h:
        span = f"{h.get('start_line')}-{h.get('end_line')}" if h.get("start_line") else ""
        name = h.get("qualified_name") or h.get("symbol") or ""
        return f"{head}{h['path']}:{span} {h.get('kind', '')} {name}".rstrip()
    return head + one_line({k: v for k, v in h.items() if k != "score"}, 300)


def _semantic(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    results = data.get("results") or []
    short = " (map short-circuit: a learned agreement matched)" if data.get("short_circuit") else ""
    lines = [f"{_plural(len(results), 'hit')} from {data.get('source', '?')}{short}:"]
    lines += [_hit(h) for h in results]
    hints = data.get("map_hints") or []
    if hints:
        lines.append(f"map hints ({len(hints)}):")
        lines += [_hit(h) for h in hints[:5]]
    return lines


def _query(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    files, syms = data.get("files") or [], data.get("symbols") or []
    lines = [(f"query {args.get('text', '')!r} ({data.get('status', 'ok')}): "
             f"{_plural(len(files), 'file')}, {_plural(len(syms), 'symbol')}")]
    if files:
        lines.append("files:")
        for f in files:
            names = ", ".join(str(s) for s in (f.get("symbols") or [])[:5])
            lines.append(f"  #{f.get('rank')} {f.get('path')} {f.get('score', 0):.4f}"
                         + (f"  [{names}]" if names else ""))
    if syms:
        lines.append("symbols:")
        for s in syms:
            lines.append(f"  #{s.get('rank')} {s.get('qualified_name') or s.get('symbol')} "
                         f"{s.get('kind', '')} {s.get('path')}:{s.get('start_line')} "
                         f"{s.get('score', 0):.4f}")
    lines += [f"note: {one_line(n)}" for n in data.get("notes") or []]
    return lines


def _sync(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    added, modified, deleted = (data.get(k) or [] for k in ("added", "modified", "deleted"))
    skipped = data.get("skipped") or {}
    lines = [(f"Index synced in {data.get('elapsed_seconds', 0)}s: {len(added)} added, "
             f"{len(modified)} modified, {len(deleted)} deleted, {data.get('unchanged', 0)} "
             f"unchanged, {len(skipped)} skipped.")]
    for label, items in (("added", added), ("modified", modified), ("deleted", deleted)):
        if items:
            lines.append(f"{label}: " + ", ".join(items[:50]) + (" …" if len(items) > 50 else ""))
    lines += [f"skipped {p}: {why}" for p, why in list(skipped.items())[:20]]
    return lines


# ---- session tools -------------------------------------------------------------------------

_SESSION_SKIP = {"slot_schema", "next_step", "session_id", "phase", "risk", "intent",
                 "extraction_prompt", "truncated", "truncation"}


def _session_head(data: Mapping[str, Any]) -> list[str]:
    parts = [f"{k} {data[k]}" for k in ("phase", "risk", "intent") if data.get(k)]
    sid = data.get("session_id")
    if sid:
        return [f"Session {sid}: " + ", ".join(parts) if parts else f"Session {sid}"]
    return [", ".join(parts)] if parts else []


def _detail_lines(data: Mapping[str, Any], skip: set[str]) -> list[str]:
    """The remaining fields, one per line (lists of objects one item per line)."""
    lines: list[str] = []
    for key, value in data.items():
        if key in skip or value in (None, "", [], {}):
            continue
        if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            lines.append(f"{key}:")
            lines += [f"  - {_item(v)}" for v in value]
        else:
            lines.append(f"{key}: {one_line(value, 1500)}")
    return lines


def _item(value: Mapping[str, Any]) -> str:
    if isinstance(value.get("message"), str):  # the sentence first, the details after it
        rest = {k: v for k, v in value.items() if k != "message" and v not in (None, "", [], {})}
        return one_line(value["message"], 600) + (f"  {one_line(rest, 300)}" if rest else "")
    if "tool" in value and "description" in value:
        return f"{value['tool']}({one_line(value.get('params', {}), 200)}): {value['description']}"
    return one_line(value, 600)


def _next(data: Mapping[str, Any]) -> list[str]:
    return [f"Next: {data['next_step']}"] if data.get("next_step") else []


def _session_generic(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    return _session_head(data) + _detail_lines(data, _SESSION_SKIP) + _next(data)


def _start_session(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    lines = [(f"Session {data.get('session_id')} started: intent {data.get('intent')}, phase "
             f"{data.get('phase')}, risk {data.get('risk')}. The code-intel tools use this "
             "session by default.")]
    if data.get("extraction_prompt"):
        lines += ["", str(data["extraction_prompt"]), ""]
    hint = data.get("shortcircuit_hint") or {}
    if hint.get("found"):
        lines.append(f"Learned before (map hint): {one_line(hint, 1500)}")
    sync = data.get("sync_status") or {}
    if sync:
        lines.append(f"index: {one_line(sync, 300)}")
    skip = _SESSION_SKIP | {"shortcircuit_hint", "sync_status"}
    return lines + _detail_lines(data, skip) + _next(data)


def _write_target(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    path = data.get("relative_path") or data.get("file_path") or args.get("file_path")
    if data.get("allowed"):
        lines = [f"ALLOWED: {path} may be written. {data.get('reason', '')}".rstrip()]
    else:
        lines = [f"REFUSED: {path} may not be written now: {data.get('reason', '')}"]
        options = data.get("recovery_options") or []
        if options:
            lines.append("To proceed:")
            lines += [f"  - {_item(o)}" for o in options]
    skip = _SESSION_SKIP | {"allowed", "reason", "recovery_options", "file_path",
                            "relative_path"}
    return lines + _detail_lines(data, skip) + _next(data)


def _status(data: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    lines = _session_head(data)
    if data.get("status") and data.get("status") != "active":
        lines.append(f"status: {data['status']}")
    if data.get("query"):
        lines.append(f"request: {one_line(data['query'], 600)}")
    skip = _SESSION_SKIP | {"status", "query"}
    return lines + _detail_lines(data, skip) + _next(data)


RENDERERS: dict[str, Renderer] = {
    "find_definitions": _definitions,
    "find_references": _references,
    "search_text": _search_text,
    "get_symbols": _symbols,
    "analyze_structure": _structure,
    "get_function_at_line": _function_at_line,
    "semantic_search": _semantic,
    "query": _query,
    "sync_index": _sync,
    "start_session": _start_session,
    "check_write_target": _write_target,
    "get_session_status": _status,
}


def render(tool: str, data: Any, args: Mapping[str, Any] | None = None) -> str:
    """The text block for a successful answer of `tool`."""
    args = args or {}
    if not isinstance(data, Mapping):
        return one_line(data, 10_000)
    renderer = RENDERERS.get(tool, _session_generic)
    try:
        lines = renderer(data, args)
    except (TypeError, ValueError, KeyError, AttributeError):  # an answer of a new shape
        lines = _detail_lines(data, set())
    return "\n".join(lines)


def render_truncation(cuts: Sequence[Mapping[str, Any]], hint: str) -> str:
    shown = "; ".join(f"{c['path']}: {c['shown']} of {c['total']} {c['unit']}" for c in cuts)
    return f"[truncated to fit the reply: {shown}. To see the rest, {hint}.]"
