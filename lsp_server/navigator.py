"""Scope- and type-aware definition lookup for one position, on top of LiveIndex.

`typing_site` reads the syntax at the position, `typing_eval` evaluates it against
the index; this module supplies the index access (overlays first), the parsed trees
(an open buffer's own tree, or a small cache of parsed files on disk) and the module
files imports point at.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from code_intel.indexing.analyze import parse
from code_intel.indexing.chunking.javascript import module_name as js_module_name
from code_intel.indexing.chunking.javascript import resolve_specifier
from code_intel.indexing.chunking.python import module_name as py_module_name
from code_intel.indexing.model import Position, Range, Symbol, SymbolKind
from code_intel.indexing.source import SourceDocument
from code_intel.indexing.store import StoredSymbol

from .documents import utf16_to_byte
from .ts_literals import literal_key
from .typing_eval import EXTERNAL, Evaluator, absolute_module
from .typing_site import Site, TypeExpr, handler_for, has_reader, site_at

if TYPE_CHECKING:
    from .live_index import LiveIndex

# Parsed files kept between requests, bounded by count and by source size: a tree costs
# about 40 bytes of memory per source byte (128 of laravel/framework's largest files:
# 7.3 MB of source, +309 MB), while a resolve that walks many small files (hono's tests,
# a few KB each) re-parsed them when only 32 were kept.
_TREE_CACHE = 256
_TREE_CACHE_BYTES = 3_000_000
_FAMILY_LANGUAGES = frozenset({"php", "typescript", "tsx"})
_TS_MEMBER_KINDS = frozenset({SymbolKind.METHOD, SymbolKind.PROPERTY, SymbolKind.FIELD})
_PY_STAR_IMPORT = re.compile(r"^from\s+(\.*[\w.]*)\s+import\s+\*")
_LOCAL_EXPORT = re.compile(r"^export\s+(?:type\s+)?\{([^}]*)\}(?!\s*from)", re.MULTILINE)
JS_FAMILY = frozenset({"javascript", "jsx", "typescript", "tsx"})


@dataclass(frozen=True, slots=True)
class Answer:
    """A resolution: `decided` when syntax and types chose (possibly nothing: the
    target is outside the workspace), else the caller ranks by name."""

    name: str
    definitions: list[StoredSymbol]
    decided: bool
    reason: str = ""
    member: bool = False  # a member access (`x.a`): only members can answer it
    call: bool | None = None  # PHP: a method call (True) or a property access (False)


class Navigator:
    """Shared by requests that run on worker threads at once (references, workspace
    symbols): each thread has its own batch memo, and the tree cache is locked."""

    def __init__(self, live: LiveIndex) -> None:
        self.live = live
        self._trees: OrderedDict[str, tuple[object, SourceDocument]] = OrderedDict()
        self._trees_lock = threading.Lock()
        self._local = threading.local()

    @property
    def _memo(self) -> dict[tuple[str, str], Any] | None:
        return getattr(self._local, "memo", None)

    @_memo.setter
    def _memo(self, value: dict[tuple[str, str], Any] | None) -> None:
        self._local.memo = value

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Many resolutions in a row (a references request): index lookups are shared
        between them, and more parsed files are kept."""
        outer = self._memo
        self._memo = {} if outer is None else outer
        try:
            yield
        finally:
            self._memo = outer

    def _memoized(self, kind: str, key: str, compute: Callable[[], Any]) -> Any:
        memo = self._memo
        if memo is None:
            return compute()
        k = (kind, key)
        if k not in memo:
            memo[k] = compute()
        return memo[k]

    # ---- trees ----------------------------------------------------------------------

    def document(self, rel: str) -> SourceDocument | None:
        """The file's text and tree: the open buffer's, or the disk's (cached)."""
        live = self.live
        doc = live.overlays.get(rel)
        if doc is not None:
            doc.analysis(live.settings)
            tree = doc._tree
            if tree is None:
                return None
            # the buffer's line table is current (kept on every edit): no recount
            return SourceDocument(rel, doc.language, doc.data, tree, _line_starts=doc._line_starts)
        state = live.store.file_state(rel)
        if state is None or not state.language:
            return None
        key = (state.fingerprint, state.size, state.mtime_ns)
        with self._trees_lock:
            hit = self._trees.get(rel)
            if hit is not None and hit[0] == key:
                self._trees.move_to_end(rel)
                return hit[1]
        try:
            data = (live.root / rel).read_bytes()
        except OSError:
            return None
        tree = parse(state.language, data)
        if tree is None:
            return None
        src = SourceDocument(rel, state.language, data, tree)
        with self._trees_lock:
            self._trees[rel] = (key, src)
            self._trees.move_to_end(rel)
            size = sum(len(d.data) for _, d in self._trees.values())
            while len(self._trees) > 1 and (len(self._trees) > _TREE_CACHE or size > _TREE_CACHE_BYTES):
                size -= len(self._trees.popitem(last=False)[1][1].data)
        return src

    def site(self, rel: str, line: int, character: int) -> Site | None:
        doc = self.document(rel)
        if doc is None or line >= len(doc.line_starts):
            return None
        start = doc.line_starts[line]
        end = doc.line_starts[line + 1] - 1 if line + 1 < len(doc.line_starts) else len(doc.data)
        return site_at(doc, line, utf16_to_byte(doc.data[start:end], character))

    # ---- resolution ---------------------------------------------------------------

    def resolve(self, rel: str, line: int, character: int) -> Answer | None:
        """None when the language has no syntax-aware resolver (the caller then uses
        the name alone)."""
        declared = self.declared_at(rel, line, character)  # from the index: no parse
        if declared is not None and has_reader(self.live._language_of(rel) or ""):
            return Answer(declared.symbol.name, [declared], True, "declaration")
        site = self.site(rel, line, character)
        if site is None:
            return None
        language = self.live._language_of(rel) or ""
        if site.shorthand:
            return self._shorthand(rel, language, site)
        if site.local is not None:
            return Answer(site.name, [_local_symbol(rel, language, site)], True, "local")
        ev = Evaluator(self, _rank, rel, language, site)
        result = ev.resolve()
        if result is None and site.receiver is None:
            result = ev.global_name(site.name) if self._decidable(ev, site.name) else None
        if result is None and site.receiver is not None and language in JS_FAMILY:
            result = self._literal_member(ev, site)
        if result is EXTERNAL:
            return Answer(site.name, [], True, "external")
        if result:
            result = ev.narrow(result)  # type: ignore[arg-type]
            return Answer(site.name, result, True, "member" if site.receiver else "name")
        return Answer(site.name, [], False, "undecided", member=site.receiver is not None, call=site.call)

    def _literal_member(self, ev: Evaluator, site: Site) -> list[StoredSymbol] | None:
        """`routesV1.user.root` where `routesV1` is a `const` holding an object literal,
        declared in this file or imported: the key in that literal."""
        chain: list[str] = []
        receiver = site.receiver
        while receiver is not None and receiver.op == "member" and len(chain) < 8:
            chain.append(receiver.arg)
            receiver = receiver.base
        if receiver is None or receiver.op != "global":
            return None
        found = ev.global_name(receiver.arg)
        if not isinstance(found, list) or len(found) != 1 or found[0].symbol.kind not in (SymbolKind.VARIABLE, SymbolKind.CONSTANT):
            return None
        var = found[0]
        doc = self.document(var.path)
        key = literal_key(doc, var.symbol.selection_range.start, chain[::-1], site.name) if doc is not None else None
        if key is None:
            return None
        qualified = ".".join([var.symbol.qualified_name, *chain[::-1], site.name])
        return [StoredSymbol(var.path, var.language, Symbol(site.name, SymbolKind.PROPERTY, key, key, qualified))]

    def _shorthand(self, rel: str, language: str, site: Site) -> Answer:
        """`{host}`: the value read (a local or a file-level name), then the property of
        the literal's contextual type. Decided when the value is; a local keeps its
        references in its file unless the property is known too."""
        value_site = replace(site, receiver=None, shorthand=False)
        if site.local is not None:
            value: list[StoredSymbol] | None = [_local_symbol(rel, language, site)]
        else:
            ev = Evaluator(self, _rank, rel, language, value_site)
            got = ev.global_name(site.name) if self._decidable(ev, site.name) else None
            value = [] if got is EXTERNAL else got  # type: ignore[assignment]
        member = Evaluator(self, _rank, rel, language, site).resolve()
        members = member if isinstance(member, list) else []
        if value is None:
            return Answer(site.name, members, bool(members), "member" if members else "undecided")
        reason = "local" if site.local is not None and not members else "name"
        return Answer(site.name, value + members, True, reason)

    def method_family(self, targets: list[StoredSymbol]) -> list[StoredSymbol]:
        """PHP and TS: a method stands with the methods it overrides or implements and
        those that override or implement them (intelephense and tsserver list calls
        through `HandlerInterface::close()` among the references of
        `RotatingFileHandler::close()`, and every implementation's declaration)."""
        out = list(targets)
        seen = {_key(t) for t in targets}
        for t in targets:
            # TS: a property too (`Job.id` implements `MinimalJob.id`; tsserver lists both)
            kinds = _TS_MEMBER_KINDS if t.language in ("typescript", "tsx") else {SymbolKind.METHOD}
            if t.language not in _FAMILY_LANGUAGES or t.symbol.kind not in kinds:
                continue
            if t.symbol.name in ("__construct", "constructor"):
                continue  # a constructor overrides nothing callers see
            ev = Evaluator(self, _rank, t.path, t.language, Site(t.symbol.name, t.symbol.selection_range))
            owner = ev.owner_class(t)
            if owner is None:
                continue
            same = [
                d for d in self.definitions(t.symbol.name)
                if d.language == t.language and d.symbol.kind in kinds
            ]
            lineage = self._ancestors(ev, owner)
            roots = {d.symbol.container for d in same if d.symbol.container in lineage}
            for d in same:
                if _key(d) in seen or self._hidden_from(ev, d, t):
                    continue
                if t.symbol.kind is not SymbolKind.METHOD:
                    # a property: what it implements above it through extends/implements,
                    # not its siblings, nor a type a mapped alias (`Required<Omit<O>>`) copies
                    if d.symbol.container in self._declared_ancestors(ev, owner) or (
                        t.language in JS_FAMILY and self._implements(ev, d, owner)
                    ):
                        seen.add(_key(d))
                        out.append(d)
                    continue
                o = ev.owner_class(d)
                if o is not None and self._ancestors(ev, o) & roots:
                    seen.add(_key(d))
                    out.append(d)
        return out

    def _implements(self, ev: Evaluator, d: StoredSymbol, owner: StoredSymbol) -> bool:
        """TS: `d` is a property of a class or interface that declares `owner` above it
        (`class Samurai implements Warrior`: tsserver lists `Samurai.primaryWeapon` and
        its uses among the references of `Warrior.primaryWeapon`)."""
        o = ev.owner_class(d)
        return o is not None and o.symbol.qualified_name != owner.symbol.qualified_name and (
            owner.symbol.qualified_name in self._declared_ancestors(ev, o)
        )

    def _hidden_from(self, ev: Evaluator, d: StoredSymbol, t: StoredSymbol) -> bool:
        """JS/TS: `d` is a member of a same-named class declared in a block `t` is not in
        (the next test's own `interface Intl`): another symbol, whatever its name."""
        if d.path != t.path or t.language not in JS_FAMILY:
            return False
        decl = ev.owner_class(d)
        at = t.symbol.selection_range.start
        return decl is not None and not all(
            (b.start.line, b.start.character) <= (at.line, at.character) <= (b.end.line, b.end.character)
            for b in self.block_scopes(decl)
        )

    def _declared_ancestors(self, ev: Evaluator, cls: StoredSymbol) -> frozenset[str]:
        """Like `_ancestors`, through classes and interfaces only (a type alias's members
        are new symbols to tsserver)."""
        return self._ancestors(ev, cls, (SymbolKind.CLASS, SymbolKind.INTERFACE))

    def _ancestors(
        self, ev: Evaluator, cls: StoredSymbol, kinds: tuple[SymbolKind, ...] | None = None
    ) -> frozenset[str]:
        """Qualified names of a class and everything above it (parents, interfaces,
        traits; merged declarations); with `kinds`, only through symbols of those kinds."""
        def walk() -> frozenset[str]:
            names: set[str] = set()
            level = [cls]
            for _ in range(12):
                nxt = []
                for c in level:
                    if c.symbol.qualified_name in names or (kinds is not None and c.symbol.kind not in kinds):
                        continue
                    names.add(c.symbol.qualified_name)
                    nxt.extend(ev.bases(c)[0])
                if not nxt:
                    break
                level = nxt
            return frozenset(names)
        memo = "ancestors" if kinds is None else "declared-ancestors"
        return self._memoized(memo, f"{cls.path}\0{cls.symbol.selection_range.start.line}", walk)

    def quick_import(self, rel: str, line: int, character: int, name: str) -> list[StoredSymbol] | None:
        """A bare name the file imports decides without parsing the file: what the
        import names. None when the line shows anything else (a member access, an
        assignment or keyword argument, a language without imports by name); the
        caller then resolves from the tree. For references over many files."""
        language = self.live._language_of(rel) or ""
        if language != "python" and language not in JS_FAMILY:
            return None
        text = self._line(rel, line)
        if language == "python":
            module = _from_module_at(text, character, name)
            if module is not None:  # `from .sympify import …`: the module part names a file
                found = self.module_symbol(absolute_module(module, rel), language)
                return [found] if found is not None else []
        target = None
        if language == "python" and not re.search(r"\bas\s*$", text[:character]):
            target = _from_import_target(text, character, rel)
        target = target or self.imports_of(rel).get(name)
        if target is None or self._may_shadow(rel, name, language):
            return None
        before = text[:character].rstrip()
        after = text[character + len(name):].lstrip()
        if before.endswith((".", "->", "::", "def", "class")):
            return None
        if after.startswith("=") and not after.startswith("=="):
            return None
        if language == "python" and self.module_symbol(target, language) is not None:
            return None  # a module: let the full path answer
        wanted = target.replace("/", ".")
        found = [
            d for d in self.definitions(wanted.rsplit(".", 1)[-1])
            if (q := d.symbol.qualified_name.replace("\\", ".")) == wanted or q.endswith("." + wanted)
        ]
        return found or None

    def _may_shadow(self, rel: str, name: str, language: str) -> bool:
        """Whether the file may bind `name` locally too (a parameter, a local, a loop
        variable): then an occurrence is not decided by the import alone (`async (t,
        server, got) => got.extend()` is the parameter, not the imported `got`)."""
        def look() -> bool:
            n = re.escape(name)
            if language == "python":
                pattern = (  # a parameter (on the def's line), a local, a loop target, `as n`, lambda
                    rf"^\s*(?:async\s+)?def\s+\w+\s*\((?:.*,)?\s*\**{n}\s*(?:[,)=]|:(?!=))|"
                    rf"^[ \t]+{n}\s*(?::[^=\n]*)?=(?!=)|\bfor\s+[\w\s,()*]*\b{n}\b[\w\s,()*]*\bin\b|"
                    rf"^[ \t]+.*\bas\s+{n}\b|\blambda\b[^:\n]*\b{n}\b"
                )
            else:
                pattern = (  # a declaration (TS: types too), a parameter list before `=>` or a body, destructuring
                    rf"\b(?:const|let|var|function|class|type|interface)\s+{n}\b|\([^()]*\b{n}\b[^()]*\)\s*(?::[^=;]*?)?(?:=>|\{{)|"
                    rf"\{{[^}}]*\b{n}\b[^}}]*\}}\s*=[^=]|\b{n}\s*=>"
                )
            compiled = re.compile(pattern)
            lines = self._memoized("lines", rel, lambda: self._read_lines(rel))
            # only the lines holding the name (a few) meet the regex, one line at a time
            return any(compiled.search(line) for line in lines if name in line)
        return self._memoized("shadow", f"{rel}\0{name}", look)

    def _line(self, rel: str, line: int) -> str:
        lines = self._memoized("lines", rel, lambda: self._read_lines(rel))
        return lines[line] if line < len(lines) else ""

    def _read_lines(self, rel: str) -> list[str]:
        doc = self.live.overlays.get(rel)
        if doc is not None:
            return doc.text.splitlines()
        try:
            return (self.live.root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []

    def declared_at(self, rel: str, line: int, character: int) -> StoredSymbol | None:
        """The definition whose name the position is on: it means itself."""
        for s in self.file_symbols(rel):
            r = s.symbol.selection_range
            if r.start.line == line == r.end.line and r.start.character <= character <= r.end.character:
                return s
        return None

    def _decidable(self, ev: Evaluator, name: str) -> bool:
        """A plain name is decided by an import, a definition in the same file, or a
        builtin; anything else is left to ranking."""
        if name in self.imports_of(ev.rel):
            return True
        if ev.is_builtin(name):
            return True
        return any(s.path == ev.rel for s in ev.defs(name))

    # ---- Lookup (typing_eval's view of the index) -----------------------------------

    def definitions(self, name: str) -> list[StoredSymbol]:
        return self._memoized("defs", name, lambda: self.live.definitions(name, limit=2000))

    def file_symbols(self, rel: str) -> list[StoredSymbol]:
        return self._memoized("symbols", rel, lambda: self.live.file_symbols(rel))

    def imports_of(self, rel: str) -> dict[str, str]:
        return self._memoized("imports", rel, lambda: self.live.imports_of(rel))

    def module_symbol(self, target: str, language: str) -> StoredSymbol | None:
        """The file a module name denotes, as a MODULE symbol at its first line."""
        return self._memoized("module", f"{language}:{target}", lambda: self._module_symbol(target, language))

    def _module_symbol(self, target: str, language: str) -> StoredSymbol | None:
        base = target.replace(".", "/")
        if language == "python":
            # a stub beside the module (`attr/__init__.pyi`) is what type checkers read
            suffixes = [f"{base}.pyi", f"{base}/__init__.pyi", f"{base}.py", f"{base}/__init__.py"]
            namer = py_module_name
        elif language in JS_FAMILY:
            exts = ("ts", "tsx", "js", "jsx", "mjs", "d.ts")
            suffixes = [f"{base}.{e}" for e in exts] + [f"{base}/index.{e}" for e in exts]
            namer = js_module_name
        else:
            return None
        paths = self.live.store.paths_ending(suffixes)
        if language == "python":
            # shortest first as the store orders them, a stub just before its module
            paths = sorted(paths, key=lambda p: (len(p) - p.endswith(".pyi"), not p.endswith(".pyi")))
        for path in paths:
            q = namer(path)
            if q == target or q.endswith("." + target) or target.endswith("." + q):
                zero = Range(Position(0, 0), Position(0, 0))
                return StoredSymbol(path, language, Symbol(q.rsplit(".", 1)[-1], SymbolKind.MODULE, zero, zero, q))
        return None

    def assigned_type(self, member: StoredSymbol) -> str | None:
        """`self.stream = stream` in a method whose parameter is `stream: ByteStream`:
        the field's declared type is the parameter's annotation."""
        return self._memoized("assigned", f"{member.path}:{member.symbol.qualified_name}",
                              lambda: self._assigned_type(member))

    def assigned_expr(self, member: StoredSymbol) -> TypeExpr | None:
        """Python: what the syntax says of the value a field or a module-level name is
        assigned where it is defined (`cls.c1 = env.generate_revision(...)`, `app =
        typer.Typer()`), to be evaluated in its file."""
        return self._memoized("assigned_expr", f"{member.path}:{member.symbol.qualified_name}",
                              lambda: self._assigned_expr(member))

    def _assigned_expr(self, member: StoredSymbol) -> TypeExpr | None:
        doc = self.document(member.path)
        if doc is None or doc.tree is None or member.language != "python":
            return None
        handler = handler_for(doc)
        start = member.symbol.selection_range.start
        if handler is None or start.line >= len(doc.line_starts):
            return None
        offset = doc.line_starts[start.line] + start.character
        node = doc.tree.root_node.named_descendant_for_byte_range(offset, offset)
        assignment = node.parent if node is not None else None
        if assignment is not None and assignment.type != "assignment":
            assignment = assignment.parent  # `self.x = …`: the name sits in an attribute
        if assignment is None or assignment.type != "assignment":
            return None
        return handler.expr_type(assignment.child_by_field_name("right"), 0)

    def returned_exprs(self, fn: StoredSymbol) -> list[TypeExpr]:
        """Python: what the syntax says of each value a function's own `return`
        statements return (not those of functions nested in it); at most four."""
        return self._memoized("returned", f"{fn.path}:{fn.symbol.qualified_name}",
                              lambda: self._returned_exprs(fn))

    def _returned_exprs(self, fn: StoredSymbol) -> list[TypeExpr]:
        doc = self.document(fn.path)
        handler = handler_for(doc) if doc is not None and doc.tree is not None else None
        node = self._node_at(fn.path, fn.symbol.selection_range.start) if handler is not None else None
        func = node.parent if node is not None else None
        if func is None or func.type != "function_definition" or handler is None:
            return []
        out: list[TypeExpr] = []
        stack = [func.child_by_field_name("body")]
        while stack and len(out) < 4:
            n = stack.pop()
            if n is None or n.type in ("function_definition", "lambda", "class_definition"):
                continue
            if n.type == "return_statement":
                value = n.named_children[0] if n.named_child_count else None
                t = handler.expr_type(value, 0) if value is not None else None
                if t is not None:
                    out.append(t)
                continue
            stack.extend(reversed(n.named_children))
        return out

    def _assigned_type(self, member: StoredSymbol) -> str | None:
        doc = self.document(member.path)
        if doc is None or doc.tree is None:
            return None
        handler = handler_for(doc)
        if handler is None:
            return None
        start = member.symbol.selection_range.start
        if start.line >= len(doc.line_starts):
            return None
        offset = doc.line_starts[start.line] + start.character
        node = doc.tree.root_node.named_descendant_for_byte_range(offset, offset)
        assignment = node.parent.parent if node is not None and node.parent is not None else None
        if assignment is None or assignment.type != "assignment":
            return None
        t = handler.expr_type(assignment.child_by_field_name("right"), 0)
        return t.arg if t is not None and t.op == "named" else None

    def is_overload(self, fn: StoredSymbol) -> bool:
        """Python: the function is decorated `@overload` / `@typing.overload` (read from
        the decorator lines above its `def`)."""
        line = fn.symbol.range.start.line - 1
        while line >= 0:
            text = self._line(fn.path, line).strip()
            if not text.startswith("@"):
                return False
            if re.match(r"@(?:\w+\.)*overload\b", text):
                return True
            line -= 1
        return False

    def declared_return(self, fn: StoredSymbol) -> str | None:
        """A function's return annotation read from its file's tree."""
        return self._memoized("returns", f"{fn.path}:{fn.symbol.qualified_name}",
                              lambda: self._declared_return(fn))

    def _declared_return(self, fn: StoredSymbol) -> str | None:
        node = self._node_at(fn.path, fn.symbol.selection_range.start)
        while node is not None and node.child_by_field_name("return_type") is None:
            if node.type.endswith(("definition", "declaration", "signature")):
                break
            node = node.parent
        ret = node.child_by_field_name("return_type") if node is not None else None
        doc = self.document(fn.path)
        return doc.node_text(ret).lstrip(":").strip() if ret is not None and doc is not None else None

    def is_default_import(self, rel: str, name: str) -> bool:
        """`import name from '…'` / `import name, {…} from '…'` in the file."""
        pattern = re.compile(r"^\s*import\s+(?:type\s+)?" + re.escape(name) + r"\s*(?:,|from\b)")
        return any(pattern.match(line) for line in self._memoized("lines", rel, lambda: self._read_lines(rel)))

    def is_namespace_import(self, rel: str, name: str) -> bool:
        """JS/TS `import * as name from '…'` in the file (a module, not a name in it)."""
        pattern = re.compile(r"\bimport\s+(?:type\s+)?\*\s*as\s+" + re.escape(name) + r"\b")
        return any(pattern.search(line) for line in self._memoized("lines", rel, lambda: self._read_lines(rel)))

    def default_export_name(self, rel: str) -> str | None:
        """The name a module's `export default x;` (or `export default class X`) gives."""
        def find() -> str | None:
            for line in self._memoized("lines", rel, lambda: self._read_lines(rel)):
                m = _DEFAULT_EXPORT.match(line)
                if m:
                    return m.group(1)
            return None
        return self._memoized("default", rel, find)

    def star_exports(self, rel: str) -> list[str]:
        """Modules a JS/TS file re-exports whole (`export * from './core/errors.js'`), or
        a Python module imports whole at file level (`from .runtime.environment import *`),
        as module names."""
        def find() -> list[str]:
            out = []
            python = rel.endswith((".py", ".pyi"))
            for line in self._memoized("lines", rel, lambda: self._read_lines(rel)):
                m = (_PY_STAR_IMPORT if python else _STAR_EXPORT).match(line)
                if m:
                    if python:
                        out.append(absolute_module(m.group(1), rel))
                    else:  # `export * from '@libs/ddd/x'` under tsconfig `paths` too
                        out.append(self.live.ts_paths.module_of(m.group(1), rel) or resolve_specifier(m.group(1), rel))
            return out
        return self._memoized("stars", rel, find)

    def export_alias(self, rel: str, name: str) -> str | None:
        """`export { Hono as HonoBase }` (no `from`): the local name a JS/TS file exports
        under `name`."""
        def find() -> dict[str, str]:
            text = "\n".join(self._memoized("lines", rel, lambda: self._read_lines(rel)))
            out: dict[str, str] = {}
            for m in _LOCAL_EXPORT.finditer(text):
                for spec in m.group(1).split(","):
                    parts = spec.split()
                    if len(parts) == 3 and parts[1] == "as":
                        out[parts[2]] = parts[0]
            return out
        return self._memoized("export_aliases", rel, find).get(name)

    def alias_value(self, alias: StoredSymbol) -> str | None:
        """What a TS `type X = …` aliases, read from its file's tree (the stored
        signature is cut at the first line)."""
        return self._memoized("alias", f"{alias.path}:{alias.symbol.qualified_name}",
                              lambda: self._alias_value(alias))

    def _alias_value(self, alias: StoredSymbol) -> str | None:
        node = self._node_at(alias.path, alias.symbol.selection_range.start)
        while node is not None and node.type != "type_alias_declaration":
            node = node.parent
        value = node.child_by_field_name("value") if node is not None else None
        doc = self.document(alias.path)
        return doc.node_text(value) if value is not None and doc is not None else None

    def call_signatures(self, iface: StoredSymbol) -> list[StoredSymbol]:
        """TS: the call signatures of an interface or object type alias (`interface
        TextRespond { <T>(text: T): Response }`), read from its file's tree: the index
        keeps no symbol for them, tsserver answers them for a call through a value of
        that type."""
        return self._memoized("calls", f"{iface.path}:{iface.symbol.qualified_name}",
                              lambda: self._call_signatures(iface))

    def _call_signatures(self, iface: StoredSymbol) -> list[StoredSymbol]:
        node = self._node_at(iface.path, iface.symbol.selection_range.start)
        while node is not None and node.type not in ("interface_declaration", "type_alias_declaration"):
            node = node.parent
        doc = self.document(iface.path)
        if node is None or doc is None:
            return []
        body = node.child_by_field_name("body") or node.child_by_field_name("value")
        out = []
        for member in body.named_children if body is not None else []:
            if member.type == "call_signature":
                r = doc.node_range(member)
                out.append(StoredSymbol(iface.path, iface.language, Symbol(
                    iface.symbol.name, SymbolKind.METHOD, r, Range(r.start, r.start),
                    iface.symbol.qualified_name, iface.symbol.qualified_name, doc.node_text(member))))
        return out

    def block_scopes(self, s: StoredSymbol) -> tuple[Range, ...]:
        """JS/TS: the blocks a declaration sits in, innermost first. A class or interface
        declared in a block (InversifyJS declares `class Katana` in every `it(...)`
        callback) is seen only inside it, as the language scopes it."""
        return self._memoized("blocks", f"{s.path}\0{s.symbol.selection_range.start.line}\0"
                              f"{s.symbol.selection_range.start.character}", lambda: self._block_scopes(s))

    def _block_scopes(self, s: StoredSymbol) -> tuple[Range, ...]:
        node = self._node_at(s.path, s.symbol.selection_range.start)
        doc = self.document(s.path)
        if node is None or doc is None:
            return ()
        out = []
        node = node.parent
        while node is not None:
            if node.type in _JS_BLOCKS:
                out.append(doc.node_range(node))
            node = node.parent
        return tuple(out)

    def runtime_only(self, s: StoredSymbol) -> bool:
        """Python: a definition the type checker does not read, in the `else:` of
        `if TYPE_CHECKING:` or under `if not TYPE_CHECKING:` (django-ninja defines `Path`
        for the checker as an alias and for run time as a shortcut object)."""
        if s.language != "python":
            return False
        return self._memoized("runtime", f"{s.path}\0{s.symbol.selection_range.start.line}\0"
                              f"{s.symbol.selection_range.start.character}", lambda: self._runtime_only(s))

    def _runtime_only(self, s: StoredSymbol) -> bool:
        node = self._node_at(s.path, s.symbol.selection_range.start)
        doc = self.document(s.path)
        if node is None or doc is None or b"TYPE_CHECKING" not in doc.data:
            return False
        child, node = node, node.parent
        while node is not None:
            if node.type == "if_statement":
                cond = node.child_by_field_name("condition")
                written = doc.data[cond.start_byte : cond.end_byte].decode() if cond is not None else ""
                checking = re.fullmatch(r"(not\s+)?(?:typing\.)?TYPE_CHECKING", written.strip())
                if checking is not None:
                    in_else = child.type == "else_clause"
                    return in_else if checking.group(1) is None else child == node.child_by_field_name("consequence")
            child, node = node, node.parent
        return False

    def class_scopes_at(self, rel: str, pos: Position) -> frozenset[int]:
        """Python: lines of the classes whose body scope holds a position: the classes
        around it up to the first function body (a method's parameters and annotations
        are read in the class's scope, its body is not)."""
        node = self._node_at(rel, pos)
        out: set[int] = set()
        while node is not None:
            parent = node.parent
            if node.type == "block" and parent is not None and parent.type == "function_definition":
                break
            if node.type == "class_definition":
                name = node.child_by_field_name("name")
                if name is not None:
                    out.add(name.start_point[0])
            node = parent
        return frozenset(out)

    def _node_at(self, rel: str, pos: Position):  # type: ignore[no-untyped-def]
        doc = self.document(rel)
        if doc is None or doc.tree is None or pos.line >= len(doc.line_starts):
            return None
        offset = doc.line_starts[pos.line] + pos.character
        return doc.tree.root_node.named_descendant_for_byte_range(offset, offset)

    def class_traits(self, cls: StoredSymbol) -> list[str]:
        """PHP `use Trait;` lines in a class body, read from the class's tree."""
        doc = self.document(cls.path)
        if doc is None or doc.tree is None:
            return []
        line = cls.symbol.selection_range.start.line
        node = doc.tree.root_node.named_descendant_for_point_range(
            (line, 0), (line, len(doc.lines[line]) if line < len(doc.lines) else 0)
        )
        while node is not None and node.type not in ("class_declaration", "trait_declaration", "enum_declaration"):
            node = node.parent
        body = node.child_by_field_name("body") if node is not None else None
        if body is None:
            return []
        out = []
        for child in body.named_children:
            if child.type == "use_declaration":
                out.extend(
                    doc.node_text(n) for n in child.named_children if n.type in ("name", "qualified_name")
                )
        return out


# JS/TS nodes that scope a class, interface, type alias or `let`/`const` declared in them
_JS_BLOCKS = frozenset({"statement_block", "class_static_block", "switch_body"})
_STAR_EXPORT = re.compile(r"""^\s*export\s+(?:type\s+)?\*\s+from\s+['"]([^'"]+)['"]""")
_DEFAULT_EXPORT = re.compile(r"^export\s+default\s+(?:abstract\s+)?(?:class\s+|function\s*\*?\s*|async\s+function\s+)?([A-Za-z_$][\w$]*)")
_FROM_IMPORT = re.compile(r"\s*from\s+(\.*[\w.]*)\s+import\b")


def _from_module_at(text: str, character: int, name: str) -> str | None:
    """The module a `from X import` line names up to the identifier at `character`,
    when the identifier is part of X (`from .a.b import c` at `a` -> `.a`)."""
    m = _FROM_IMPORT.match(text)
    if m is None or not m.start(1) <= character < m.end(1):
        return None
    end = character + len(name)
    if text[character:end] != name or (end < m.end(1) and text[end] != "."):
        return None
    return text[m.start(1):end]


def _from_import_target(text: str, character: int, rel: str) -> str | None:
    """The module a name imported by `from X import a as b` lives in, when the position
    is after `import` (the alias map knows `b`, not `a`)."""
    m = _FROM_IMPORT.match(text)
    if m is None or character < m.end():
        return None
    word = re.match(r"\w+", text[character:])
    return f"{absolute_module(m.group(1), rel)}.{word.group()}" if word else None


def _key(s: StoredSymbol) -> tuple[str, int, int]:
    r = s.symbol.selection_range
    return (s.path, r.start.line, r.start.character)


def _local_symbol(rel: str, language: str, site: Site) -> StoredSymbol:
    r = site.local
    assert r is not None
    return StoredSymbol(rel, language, Symbol(site.name, SymbolKind.VARIABLE, r, r, site.name))


def _rank(candidates, path, imports, name, language):  # type: ignore[no-untyped-def]
    from .resolve import rank_definitions

    return rank_definitions(candidates, path, imports, name, language)
