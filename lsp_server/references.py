"""References that mean the same symbol.

Every same-named occurrence is resolved the way a definition request at its position
would be; those that resolve to one of the target definitions are references, those
that resolve elsewhere (another class's `close`, a builtin `set`) are dropped, and
those the syntax cannot decide (an untyped receiver) are kept apart as `possible`
with the reason, so a caller can still look at them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from code_intel.indexing.model import SymbolKind
from code_intel.indexing.store import StoredReference, StoredSymbol

from .resolve import candidates_for_file

if TYPE_CHECKING:
    from .live_index import LiveIndex

UNTYPED_RECEIVER = "the receiver's type is not known"
SEVERAL_DEFINITIONS = "the name has several definitions and nothing here picks one"
NO_RESOLVER = "this language is matched by name only"
_CALLABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
# words that stand for a class: its references are spelled with the class's name (an
# import alias is not one of these: its uses are what the peers list for it)
_CLASS_KEYWORDS = frozenset({"self", "static", "parent"})


@dataclass
class ReferenceAnswer:
    name: str | None
    targets: list[StoredSymbol]
    resolved: list[StoredReference] = field(default_factory=list)
    possible: list[tuple[StoredReference, str]] = field(default_factory=list)


def _key(s: StoredSymbol) -> tuple[str, int, int]:
    r = s.symbol.selection_range
    return (s.path, r.start.line, r.start.character)


# An editor's `textDocument/references` lists every reference: ioredis' `RedisKey` type
# has 2,502 and tsserver lists them all (a cut at 1,000 lost 60 % of them silently).
EDITOR_LIMIT = 5000


def references_at(
    live: LiveIndex, rel: str, line: int, character: int, limit: int = EDITOR_LIMIT
) -> ReferenceAnswer:
    """References of what the identifier at a position resolves to; a local's stay in
    its file."""
    answer = live.navigator.resolve(rel, line, character)
    if answer is not None and answer.reason == "local":
        name, targets = answer.name, answer.definitions
        candidates = [c for c in live.file_references(rel) if c.reference.name == name]
    else:
        name, targets = live.resolve(rel, line, character)
        if not name:
            return ReferenceAnswer(None, [])
        if any(t.symbol.name == name for t in targets):
            # TS `c.text()` answers the property and its type's call signature (named
            # after the interface): the references are the property's
            targets = [t for t in targets if t.symbol.name == name or name.lower() in _CLASS_KEYWORDS]
        targets = _with_runtime_twins(live, _with_overloads(live, targets))
        with live.navigator.batch():
            targets = live.navigator.method_family(targets)
        if targets and name.lower() in _CLASS_KEYWORDS and name not in {t.symbol.name for t in targets}:
            # asked from `self::`/`static::`/`parent::`: the class's own name is what
            # its references spell
            name = targets[0].symbol.name
        candidates = live.references(name, limit * 4)
        for target in {t.symbol.name for t in targets}:
            candidates += aliased(live, target)
    return classify(live, name, targets, candidates, limit)


def _with_overloads(live: LiveIndex, targets: list[StoredSymbol]) -> list[StoredSymbol]:
    """A TS overload stands for all the overloads of its method or function: they are
    one symbol, and a call is resolved to the one overload it fits."""
    out = list(targets)
    seen = {_key(t) for t in targets}
    for t in targets:
        if t.language not in ("typescript", "tsx") or t.symbol.kind not in _CALLABLE:
            continue
        for d in live.definitions(t.symbol.name, limit=2000):
            if (
                d.path == t.path and d.symbol.container == t.symbol.container
                and d.symbol.kind in _CALLABLE and _key(d) not in seen
            ):
                seen.add(_key(d))
                out.append(d)
    return out


def _with_runtime_twins(live: LiveIndex, targets: list[StoredSymbol]) -> list[StoredSymbol]:
    """Python: `if TYPE_CHECKING: Query = Annotated[…]` / `else: Query =
    ParamShortcut(…)` are one name of the module; a use resolves to the checker's
    definition, and the run-time one is among its references (pyright lists it)."""
    out = list(targets)
    seen = {_key(t) for t in targets}
    for t in targets:
        if t.language != "python" or live.navigator.runtime_only(t):
            continue
        for d in live.definitions(t.symbol.name, limit=2000):
            if (
                d.path == t.path and d.symbol.container == t.symbol.container and _key(d) not in seen
                and live.navigator.runtime_only(d)
            ):
                seen.add(_key(d))
                out.append(d)
    return out


def references_named(live: LiveIndex, name: str, limit: int = 1000) -> ReferenceAnswer:
    """References of a name typed by a user or an agent; a qualified name
    (`pkg.mod.Class.method`, `Class::method`, `App\\Models\\Shop\\Category`) picks its
    definitions, a short name means all definitions of that name."""
    targets = live.definitions(name, limit=2000)
    candidates = live.references(name, limit * 4)
    if not targets:
        return ReferenceAnswer(name, [], candidates[:limit])
    return classify(live, name, targets, candidates + aliased(live, name), limit)


def aliased(live: LiveIndex, name: str) -> list[StoredReference]:
    """Occurrences of the names files import the symbol under (`use X as Y` -> `Y`)."""
    by_alias: dict[str, set[str]] = {}
    for path, alias in live.store.aliases_of(name):
        by_alias.setdefault(alias, set()).add(path)
    out: list[StoredReference] = []
    for alias, paths in by_alias.items():
        open_ = {p for p in paths if p in live.overlays}
        out.extend(live.store.references_named_in(alias, paths - open_))
        for path in open_:
            out.extend(r for r in live.file_references(path) if r.reference.name == alias)
    return out


def classify(
    live: LiveIndex,
    name: str,
    targets: list[StoredSymbol],
    candidates: list[StoredReference],
    limit: int,
) -> ReferenceAnswer:
    wanted = {_key(t) for t in targets}
    out = ReferenceAnswer(name, targets)
    nav = live.navigator
    by_name: dict[str, list[StoredSymbol]] = {}
    with nav.batch():
        for ref in candidates:
            if len(out.resolved) >= limit:
                break
            r = ref.reference
            if (ref.path, r.start_line, r.start_character) in wanted:
                continue  # the binding itself (a local's first assignment)
            quick = nav.quick_import(ref.path, r.start_line, r.start_character, r.name)
            if quick is not None:
                if any(_key(d) in wanted for d in quick):
                    out.resolved.append(ref)
                continue
            answer = nav.resolve(ref.path, r.start_line, r.start_character)
            if answer is not None and answer.decided:
                if any(_key(d) in wanted for d in answer.definitions):
                    out.resolved.append(ref)
                continue
            if answer is None:
                defs = candidates_for_file(ref.path, by_name.setdefault(r.name, live.definitions(r.name, limit=50)))
                if len(defs) == 1 and _key(defs[0]) in wanted:
                    out.resolved.append(ref)
                elif any(_key(d) in wanted for d in defs):
                    out.possible.append((ref, NO_RESOLVER))
                continue
            site = nav.site(ref.path, r.start_line, r.start_character)
            if site is not None and site.receiver is not None:
                out.possible.append((ref, UNTYPED_RECEIVER))
                continue
            defs = by_name.setdefault(r.name, live.definitions(r.name, limit=50))
            if len(defs) == 1 and _key(defs[0]) in wanted:
                out.resolved.append(ref)
            elif any(_key(d) in wanted for d in defs):
                out.possible.append((ref, SEVERAL_DEFINITIONS))
    out.resolved.sort(key=lambda r: (r.path, r.reference.start_line, r.reference.start_character))
    return out
