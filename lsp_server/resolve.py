"""Pure choices behind navigation: the identifier under the cursor, which of several
same-named definitions a reference means, and fuzzy matching for workspace symbols."""

from __future__ import annotations

import posixpath
import re

from code_intel.indexing.chunking.blade import COMPONENT_NAMESPACE, LIVEWIRE_NAMESPACE
from code_intel.indexing.file_kinds import is_test_path
from code_intel.indexing.languages import GRAMMARS
from code_intel.indexing.store import StoredSymbol

_IDENT = re.compile(r"\$?[A-Za-z_\u00C0-\uFFFF][\w\u00C0-\uFFFF-]*")


def candidates_for_file(path: str, defs: list[StoredSymbol]) -> list[StoredSymbol]:
    """The same-named definitions an occurrence in `path` can mean, before any ranking.

    Blade names a PHP class only through `<x-…>` and Livewire tags, whose classes live
    under the component and Livewire namespaces: `<x-threads.thread>` is never the model
    `App\\Models\\Thread`, even when no component class of that name exists."""
    if not path.endswith(".blade.php"):
        return defs
    return [
        d for d in defs
        if d.language != "php"
        or d.symbol.qualified_name.startswith((COMPONENT_NAMESPACE + "\\", LIVEWIRE_NAMESPACE + "\\"))
    ]


def word_at(line: str, character: int, language: str | None = None) -> str | None:
    """The identifier touching `character` (the cursor may sit just after it).

    Hyphens belong to words only in markup (`<x-user-card>`), so a trailing `-` run
    is trimmed unless the whole token is a tag-ish name. A leading `$` is PHP's
    variable sigil (dropped) but part of a JS/TS name (`$ZodEmoji`, kept).
    """
    for m in _IDENT.finditer(line):
        if m.start() <= character <= m.end():
            word = m.group()
            if "-" in word and not line[max(m.start() - 1, 0) : m.start()] in ("<", ":", "/"):
                # `a-b` in code is a subtraction: keep the part under the cursor.
                offset = character - m.start()
                parts = word.split("-")
                pos = 0
                for part in parts:
                    if pos <= offset <= pos + len(part):
                        return part or None
                    pos += len(part) + 1
            if language is not None and FAMILY.get(language, language) != "php":
                return word or None
            return word.lstrip("$") or None
    return None


def _norm(qualified: str) -> str:
    return qualified.replace("\\", ".").replace("::", ".").strip(".")


# Languages whose files refer to each other's definitions.
FAMILY = {
    **{language: "php" for language, grammar in GRAMMARS.items() if grammar == "php"},
    "blade": "php",
    "javascript": "js", "jsx": "js", "typescript": "js", "tsx": "js", "vue": "js",
    "tailwind_config": "js", "css": "css", "scss": "css", "html": "js",
}


def rank_definitions(
    candidates: list[StoredSymbol],
    from_path: str | None,
    imports: dict[str, str],
    name: str,
    from_language: str | None = None,
) -> list[StoredSymbol]:
    """Order same-named definitions by how likely the reference means each.

    An import naming the target (`use App\\Services\\AuthService`, `from shop.auth
    import login`) decides outright, also when the project sits below the workspace
    root (`backend/shop/...` defines `backend.shop.auth.User`). Otherwise definitions
    in the reference's language family win, then the same file, then the same
    directory, then the rest in path order.
    """
    target = imports.get(name)
    if target:
        wanted = _norm(target)
        matched = [
            c for c in candidates
            if (q := _norm(c.symbol.qualified_name)) == wanted or q.endswith("." + wanted)
        ]
        if matched:
            return matched
    if from_language:
        family = FAMILY.get(from_language, from_language)
        same = [c for c in candidates if FAMILY.get(c.language, c.language) == family]
        candidates = same or candidates
    here = posixpath.dirname(from_path) if from_path else None
    package = _package(from_path) if from_path else None
    from_test = bool(from_path) and is_test_path(from_path)  # type: ignore[arg-type]

    def key(c: StoredSymbol) -> tuple[int, int, str, int]:
        if c.path == from_path:
            tier = 0
        elif here is not None and posixpath.dirname(c.path) == here:
            tier = 1
        elif package is not None and _package(c.path) == package:
            tier = 2
        else:
            tier = 3
        # Definitions in tests crowd out the real one unless the reference is a test.
        test_last = int(not from_test and is_test_path(c.path))
        return (test_last, tier, c.path, c.symbol.range.start.line)

    return sorted(candidates, key=key)


def _package(path: str) -> str:
    """The top two directories: `src/shop/auth/x.py` and `src/shop/y.py` share `src/shop`."""
    return "/".join(path.split("/")[:-1][:2])


def fuzzy_score(query: str, name: str) -> int | None:
    """Higher is better; None when `query` is not a subsequence of `name`.

    Case-insensitive; exact, prefix, substring and word-boundary matches beat a bare
    subsequence, and shorter names win ties, the order editors' pickers use.
    """
    if not query:
        return 0
    q, n = query.lower(), name.lower()
    if q == n:
        return 1000 - len(name)
    if n.startswith(q):
        return 800 - len(name)
    if q in n:
        return 600 - len(name)
    pos = 0
    boundary_hits = 0
    for ch in q:
        found = n.find(ch, pos)
        if found == -1:
            return None
        if found == 0 or not name[found - 1].isalnum() or name[found].isupper():
            boundary_hits += 1
        pos = found + 1
    return 200 + 10 * boundary_hits - len(name)


def subsequence_like(query: str) -> str:
    """A SQL LIKE pattern that admits every name `fuzzy_score` can match."""
    escaped = [c.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for c in query]
    return "%" + "%".join(escaped) + "%"
