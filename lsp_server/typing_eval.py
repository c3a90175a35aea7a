"""Evaluate what `typing_site` read from the syntax against the index.

A receiver's type expression becomes the workspace classes (or modules) it denotes;
a member is then looked up in that class and its bases (Python MRO order
approximated breadth-first; PHP parents, interfaces and traits; TS/Java `extends`
and `implements`). Declared types come from the definitions' signatures, which the
index already stores (`x: Foo`, `private ?Repo $repo`, `def f() -> Foo`,
`function make(): static`), so nothing new is recorded at index time for them.

Outcomes are three-valued: a list of definitions (decided), EXTERNAL (the name
belongs to a builtin, the standard library or vendor code: no workspace stranger),
or None (undecided: the caller falls back to ranking by name).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from code_intel.indexing.chunking.php import resolve_name
from code_intel.indexing.model import Position, Range, SymbolKind
from code_intel.indexing.store import StoredSymbol

from .ts_generics import (
    PASS_THROUGH,
    applied,
    branches,
    declared_parameters,
    exposed,
    heritage,
    mentions,
)
from .typing_site import Arg, ArgShape, Site, TypeExpr, doc_param_type
from .typing_text import (
    NOT_STRING,
    NULLISH,
    base_names,
    declared_type,
    doc_type,
    element_text,
    item_text,
    optional_parameter,
    parameter_list,
    parameter_type,
    python_generic_bases,
    return_type,
    split_top_level,
    split_union,
    spread_tuples,
    type_names,
    type_parameters,
    value_type,
    view_text,
)

CLASS_KINDS = frozenset({
    SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM,
    SymbolKind.STRUCT, SymbolKind.TYPE,
})
CALLABLE_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CONSTRUCTOR})
VALUE_KINDS = frozenset({
    SymbolKind.PROPERTY, SymbolKind.FIELD, SymbolKind.VARIABLE, SymbolKind.CONSTANT,
})


class _External:
    """Marker: the answer lies outside the workspace."""

    def __repr__(self) -> str:
        return "EXTERNAL"


EXTERNAL = _External()

PY_BUILTINS = frozenset(dir(builtins)) | {
    "str", "int", "float", "bool", "bytes", "list", "dict", "set", "tuple", "frozenset",
    "object", "type", "None", "Any", "Optional", "Union", "List", "Dict", "Set", "Tuple",
    "Callable", "Iterable", "Iterator", "Sequence", "Mapping",
}
JS_GLOBALS = frozenset({
    "Object", "Array", "String", "Number", "Boolean", "Symbol", "BigInt", "Promise", "Map",
    "Set", "WeakMap", "WeakSet", "JSON", "Math", "Date", "RegExp", "Error", "TypeError",
    "RangeError", "console", "window", "document", "globalThis", "process", "Reflect",
    "Proxy", "Intl", "Function", "undefined", "NaN", "Infinity", "parseInt", "parseFloat",
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "fetch", "Response",
    "Request", "Headers", "URL", "URLSearchParams", "Buffer", "require", "module", "exports",
    "string", "number", "boolean", "any", "unknown", "never", "void", "object", "Record",
    "Partial", "Required", "Readonly", "Pick", "Omit", "ReturnType", "Awaited", "Uint8Array",
    "ArrayBuffer", "TextEncoder", "TextDecoder", "AbortController", "AbortSignal", "Event",
    "EventTarget", "HTMLElement", "Element", "Node", "structuredClone", "queueMicrotask",
})
PHP_SCALARS = frozenset({
    "int", "float", "string", "bool", "array", "mixed", "void", "null", "callable", "iterable",
    "object", "never", "false", "true", "resource", "integer", "boolean", "double",
})



class Lookup(Protocol):
    def definitions(self, name: str) -> list[StoredSymbol]: ...
    def file_symbols(self, rel: str) -> list[StoredSymbol]: ...
    def imports_of(self, rel: str) -> dict[str, str]: ...
    def module_symbol(self, target: str, language: str) -> StoredSymbol | None: ...
    def class_traits(self, cls: StoredSymbol) -> list[str]: ...
    def assigned_type(self, member: StoredSymbol) -> str | None: ...
    def assigned_expr(self, member: StoredSymbol) -> TypeExpr | None: ...
    def returned_exprs(self, fn: StoredSymbol) -> list[TypeExpr]: ...
    def declared_return(self, fn: StoredSymbol) -> str | None: ...
    def is_overload(self, fn: StoredSymbol) -> bool: ...
    def alias_value(self, alias: StoredSymbol) -> str | None: ...
    def is_default_import(self, rel: str, name: str) -> bool: ...
    def is_namespace_import(self, rel: str, name: str) -> bool: ...
    def star_exports(self, rel: str) -> list[str]: ...
    def default_export_name(self, rel: str) -> str | None: ...
    def export_alias(self, rel: str, name: str) -> str | None: ...
    def call_signatures(self, iface: StoredSymbol) -> list[StoredSymbol]: ...
    def block_scopes(self, s: StoredSymbol) -> tuple[Range, ...]: ...
    def runtime_only(self, s: StoredSymbol) -> bool: ...
    def class_scopes_at(self, rel: str, pos: Position) -> frozenset[int]: ...


Ranker = Callable[[list[StoredSymbol], str, dict[str, str], str, str], list[StoredSymbol]]

Result = list[StoredSymbol] | _External | None

# Each call of a chain costs two levels (the call, then the member it calls); the type
# expression comes from finite syntax, so this only bounds long fluent chains
# (commonmark's `$environment->addInlineParser(…)->…->addRenderer(…)`, 20 calls; hono's
# route tables `app.get(…).get(…)…`, a dozen).
_MAX_EVAL_DEPTH = 48


@dataclass
class Evaluator:
    """One query's evaluation; caches definitions by name for its lifetime."""

    lookup: Lookup
    rank: Ranker
    rel: str
    language: str
    site: Site
    _defs: dict[str, list[StoredSymbol]] = field(default_factory=dict)
    # functions whose returns are being inferred (shared with the evaluators placed
    # elsewhere): a recursive function infers nothing from itself
    _inferring: set[str] = field(default_factory=set)
    _aliases: int = 0  # type aliases being expanded (an alias of an alias…)
    _soft_external: int = 0

    # ---- entry --------------------------------------------------------------------

    def resolve(self) -> Result:
        site = self.site
        if site.receiver is not None:
            found = self.member_of(site.receiver, site.name)
            if isinstance(found, list) and site.call is not None:
                # `$this->connection` is the property, `$this->connection()` the method;
                # when only one exists (Eloquent's `$post->author` relation) it answers
                found = [d for d in found if (d.symbol.kind in CALLABLE_KINDS) == site.call] or found
            return found
        if site.class_name is not None:
            return self.php_class(site.class_name, self.rel)
        if site.parameter:
            return EXTERNAL
        if site.module is not None:
            target = absolute_module(site.module, self.rel)
            module = self.lookup.module_symbol(target, self.language)
            if module is not None:
                return [module]
            return None if self.in_workspace(target) else EXTERNAL
        return None

    def narrow(self, found: list[StoredSymbol]) -> list[StoredSymbol]:
        """TS: `new Redis()` is the class, not an interface merged with it; a call of an
        overloaded method or function is the first overload its arguments fit (TS's own
        rule), judged by arity and string-literal parameters. Unchanged when unsure."""
        site = self.site
        if self.language not in ("typescript", "tsx"):
            return found
        if site.args is not None and len(found) == 1 and found[0].symbol.kind not in CLASS_KINDS:
            # `c.text('hi')` with `text: TextRespond`: the property, then the call
            # signature of its type the arguments fit (tsserver answers both)
            fits = [sig for sig in self.signatures_of(found[0]) if self.accepts(sig, site.args)]
            return found + fits[:1]
        if len(found) < 2:
            return found
        if site.new:
            return [d for d in found if d.symbol.kind is SymbolKind.CLASS] or found
        return found if site.args is None else self.first_fit(found, site.args)

    def first_fit(self, found: list[StoredSymbol], args: tuple[Arg, ...]) -> list[StoredSymbol]:
        """The first overload (in source order) of one function the arguments fit, TS's
        own rule; all of them when they are no overload set or none fits for sure."""
        if len(found) < 2 or any(d.symbol.kind not in CALLABLE_KINDS for d in found):
            return found
        if len({(d.path, d.symbol.container) for d in found}) != 1:
            return found
        for d in sorted(found, key=lambda d: d.symbol.selection_range.start.line):
            if self.accepts(d, args):
                return [d]
        return found

    def accepts(self, fn: StoredSymbol, args: tuple[Arg, ...]) -> bool:
        """Whether a call with these arguments fits this signature for sure (arity, and
        string literals against literal-typed parameters). A rest parameter typed as a
        tuple (`...args: [key: K, ...data: D[], nx: 'NX']`) counts element by element."""
        params = parameter_list(fn.symbol.signature or "")
        if params is None:
            return False
        items = spread_tuples([p.strip() for p in params if not re.match(r"this\s*:", p.strip())])
        if items is None:
            return False
        at = next((i for i, p in enumerate(items) if p.startswith("...")), None)
        lead = items if at is None else items[:at]
        trail = [] if at is None else items[at + 1 :]
        required = sum(not optional_parameter(p) for p in lead) + sum(not optional_parameter(p) for p in trail)
        if len(args) < required or (at is None and len(args) > len(lead)):
            return False
        positions = list(enumerate(lead[: len(args)]))
        if at is not None and trail:
            positions += [(len(args) - len(trail) + j, p) for j, p in enumerate(trail)]
        generics = type_parameters(fn.symbol.signature or "")
        for i, param in positions:
            arg = args[i] if 0 <= i < len(args) else None
            if arg is None:
                continue
            declared = declared_type(param) or (
                # an unlabeled tuple element (`...handlers: [H<E> & M1, H<E2>]`) is a type
                param if not re.match(r"[\w$]+\??\s*$", param) else "any"
            )
            if generics:
                # `text: T` with `<T extends string>`: the constraint, else anything
                declared = re.sub(
                    r"(?<![\w$.])(" + "|".join(map(re.escape, generics)) + r")(?![\w$])(?!\s*<)",
                    lambda m: generics[m.group(1)] or "any", declared,
                )
            if isinstance(arg, ArgShape):
                if not self.fits_shape(arg, declared, fn.path):
                    return False
            elif isinstance(arg, TypeExpr):
                if not self.fits_value(arg, declared, fn.path):
                    return False
            elif not self.fits_string(arg, declared, fn.path):
                return False
        return True

    def fits_value(self, arg: TypeExpr, text: str, path: str) -> bool:
        """Whether a value of the type `arg` may be passed where `text` is declared;
        False only when sure: every type the parameter names is a workspace type strictly
        below all of the argument's (an `Atom<V>` where `WritableAtom<V, A, R>`, which
        extends it, is wanted: its required members are missing)."""
        got = self.types_of(arg, 2)
        if not isinstance(got, list) or not got or any(g.symbol.kind not in CLASS_KINDS for g in got):
            return True
        mine = {g.symbol.qualified_name for g in got}
        for part in split_union(text):
            head = applied(part)
            name = head[0] if head is not None else part.strip()
            if not re.fullmatch(r"[A-Za-z_$][\w$.]*", name):
                return True
            found = self.global_name(name, path, classes_only=True)
            if not isinstance(found, list) or len(found) != 1 or found[0].symbol.kind not in CLASS_KINDS:
                return True
            above = self.ancestor_names(found[0])
            if found[0].symbol.qualified_name in mine or not mine <= above:
                return True
        return False

    def fits_shape(self, shape: ArgShape, text: str, path: str, depth: int = 0) -> bool:
        """Whether an object literal or a function may be passed where `text` is
        declared; False only when sure: a primitive or a literal type, an array or
        tuple, a function type for an object (`callback?: PacketCallback` with
        `type PacketCallback = (err?: Error) => void`), an object type for a function,
        a workspace class or interface for a function."""
        if depth > 3:
            return True
        if shape is ArgShape.VALUE:
            return not self.only_functions(text, path, depth)
        for part in split_union(text):
            if part in NULLISH or part in NOT_STRING - {"Function"} or part == "string":
                continue
            if part.endswith("]") and not part.endswith("[]") and not part.startswith("["):
                return True  # an indexed access type: unsure
            if re.fullmatch(r"'[^']*'|\"[^\"]*\"|-?\d[\w.]*", part) or part.endswith("]") or part.startswith("["):
                continue  # a literal type, an array, a tuple
            is_function = part.startswith("(") and "=>" in part or part.startswith("new ") or part == "Function"
            if part.startswith(("(", "new ", "{")) or part == "Function":
                if is_function == (shape is ArgShape.FUNCTION):
                    return True
                continue
            name = re.match(r"[A-Za-z_$][\w$.]*", part)
            if name is None or name.end() != len(part) and part[name.end()] != "<":
                return True  # keyof …, a conditional type: unsure
            found = self.global_name(name.group(), path, classes_only=True)
            decl = found[0] if isinstance(found, list) and len(found) == 1 else None
            if decl is None:
                return True
            if decl.symbol.kind is SymbolKind.TYPE:
                value_text = self.lookup.alias_value(decl)
                if not value_text or self.fits_shape(shape, value_text, decl.path, depth + 1):
                    return True
                continue
            if shape is ArgShape.OBJECT or decl.symbol.kind not in (SymbolKind.CLASS, SymbolKind.INTERFACE):
                return True
        return False

    def only_functions(self, text: str, path: str, depth: int) -> bool:
        """Whether every type a union names is a function type, written in place or
        through workspace aliases (`read: Read<Value>` with `type Read<V> = (get: Getter)
        => V`): then a number, `null` or an array cannot be passed."""
        if depth > 3:
            return False
        parts = split_union(text)
        for part in parts:
            if part.startswith("(") and "=>" in part or part.startswith("new ") or part == "Function":
                continue
            name = re.match(r"[A-Za-z_$][\w$.]*", part)
            if name is None or name.end() != len(part) and part[name.end()] != "<":
                return False
            found = self.global_name(name.group(), path, classes_only=True)
            alias = found[0] if isinstance(found, list) and len(found) == 1 else None
            value = self.lookup.alias_value(alias) if alias is not None and alias.symbol.kind is SymbolKind.TYPE else None
            if not value or not self.only_functions(value, alias.path, depth + 1):  # type: ignore[union-attr]
                return False
        return bool(parts)

    def fits_string(self, value: str, text: str, path: str, depth: int = 0) -> bool:
        """Whether the string literal `value` may be passed where `text` is declared;
        False only when sure (another literal, a number, a function or object type, a
        type alias of those: `type Callback<T> = (err, r: T) => void`)."""
        if depth > 3:
            return True
        for part in split_union(text):
            m = re.fullmatch(r"'([^']*)'|\"([^\"]*)\"", part)
            if m:
                if value == (m.group(1) if m.group(1) is not None else m.group(2)):
                    return True
                continue
            if part.endswith("]") and not part.endswith("[]") and not part.startswith("["):
                return True  # an indexed access type (`(typeof mimes)[keyof typeof mimes]`): unsure
            if part.startswith("(") and "=>" not in part:
                return True  # a parenthesized type: unsure
            if part in NOT_STRING or part.endswith("]") or part.startswith(("{", "(", "new ", "[")):
                continue  # a primitive other than string, an array/tuple, an object, a function
            name = re.match(r"[A-Za-z_$][\w$.]*", part)
            if name is None or name.end() != len(part) and part[name.end()] != "<":
                return True  # a template literal type, keyof …: unsure
            found = self.global_name(name.group(), path, classes_only=True)
            alias = found[0] if isinstance(found, list) and len(found) == 1 else None
            if alias is None or alias.symbol.kind is not SymbolKind.TYPE:
                if alias is not None and alias.symbol.kind is SymbolKind.CLASS:
                    continue  # a string is no instance of a workspace class
                return True
            value_text = self.lookup.alias_value(alias)
            if not value_text or self.fits_string(value, value_text, alias.path, depth + 1):
                return True
        return False

    def member_of(self, receiver: TypeExpr, name: str) -> Result:
        if receiver.op == "unknown":
            return None
        types = self.types_of(receiver)
        if types is EXTERNAL:
            return EXTERNAL
        if not types:
            return None
        found, open_ = self.find_member(types, name, self.site.call)  # type: ignore[arg-type]
        if found and receiver.op == "self" and self.language in ("typescript", "tsx") and len(found) > 1:
            # `this.rootPlugin` in `static get rootPlugin()` is the static member, in an
            # instance method the instance one
            static = receiver.arg == "static"
            found = [f for f in found if (f.symbol.signature or "").startswith("static ") == static] or found
        if found:
            return found
        return EXTERNAL if open_ else None

    # ---- definitions --------------------------------------------------------------

    def defs(self, name: str) -> list[StoredSymbol]:
        if name not in self._defs:
            self._defs[name] = self.lookup.definitions(name)
        return self._defs[name]

    def enclosing_class(self) -> StoredSymbol | None:
        site = self.site
        if site.enclosing_class is None:
            return None
        for s in self.lookup.file_symbols(self.rel):
            if (
                s.symbol.kind in CLASS_KINDS
                and s.symbol.name == site.enclosing_class
                and s.symbol.selection_range.start.line == site.class_line
            ):
                return s
        return None

    # ---- types --------------------------------------------------------------------

    def types_of(self, expr: TypeExpr | None, depth: int = 0) -> Result:
        """The classes or modules a value of this type expression is an instance of."""
        if expr is None or depth > _MAX_EVAL_DEPTH:
            return None
        op = expr.op
        if op == "self":
            cls = self.enclosing_class()
            return [cls] if cls else None
        if op == "super":
            cls = self.enclosing_class()
            if cls is None:
                return None
            # PHP's `parent::` is the class it extends, never an interface or a trait
            bases, open_ = self.bases(cls, parent_only=self.language == "php")
            return bases or (EXTERNAL if open_ else None)
        if op == "named":
            return self.named(expr.arg, self.rel, self.enclosing_class())
        if op == "global":
            ents = self.global_name(expr.arg)
            if ents is EXTERNAL or not ents:
                return ents
            return self.value_types(ents, depth)  # type: ignore[arg-type]
        if op == "member":
            owners = self.types_of(expr.base, depth + 1)
            if owners is EXTERNAL or not owners:
                return owners
            found, open_ = self.find_member(owners, expr.arg, False)  # type: ignore[arg-type]
            if not found:
                return EXTERNAL if open_ else None
            return self.value_types(found, depth, owners, expr.base)  # type: ignore[arg-type]
        if op == "either":
            # the latest binding first; what an outside function returned there is
            # unknown rather than outside, so the earlier binding gets its say
            self._soft_external += 1
            try:
                first = self.types_of(expr.base, depth + 1)
            finally:
                self._soft_external -= 1
            return first if first is not None else self.types_of(expr.alt, depth + 1)
        if op == "param":
            return self.parameter_types(expr, depth)
        if op == "callback":
            declared = self.declared_text(expr.base, depth + 1)
            found = self.function_parameter(declared[0], int(expr.arg), declared[1]) if declared else None
            return self.named(found[0], found[1], declared[2]) if found and declared else None
        if op == "guard":
            fns = self.global_name(expr.arg) if "." not in expr.arg else None
            for fn in fns if isinstance(fns, list) else []:
                m = _TYPE_GUARD.match((self.returns_of(fn) or "").strip()) if fn.symbol.kind in CALLABLE_KINDS else None
                if m is not None:
                    return self.named(m.group(1), fn.path, self.owner_class(fn))
            return self.types_of(expr.base, depth + 1)
        if op == "inherited":
            doc = self.inherited_param(expr)
            return self.named(*doc) if doc is not None else self.types_of(expr.base, depth + 1)
        if op == "defined":
            name, _, line = expr.arg.rpartition(":")
            return [
                s for s in self.lookup.file_symbols(self.rel)
                if s.symbol.name == name and s.symbol.selection_range.start.line == int(line)
            ] or None
        if op == "element":
            return self.element_types(expr, depth)
        if op == "view":
            declared = self.declared_text(expr, depth + 1)
            if declared is not None:
                return self.named(*declared)
            # no builtin container: a workspace class's own `items()` / `get()`
            return self.types_of(_as_call(expr), depth + 1)
        if op == "narrowed":
            return self.narrowed_types(expr, depth)
        if op == "excluding":
            declared = self.types_of(expr.base, depth + 1)
            if not isinstance(declared, list):
                return declared
            short = re.split(r"[\\.]", expr.arg)[-1]
            return [d for d in declared if d.symbol.name != short] or None
        if op == "context":
            # a literal checked against a union of several types (`string | URL |
            # OptionsInit`): tsserver links its keys to no declaration
            declared = self.declared_text(expr.base, depth + 1)
            if declared is not None and len([p for p in split_union(declared[0]) if p not in NULLISH]) > 1:
                return None
            return self.types_of(expr.base, depth + 1)
        if op == "returns" and self.language in _JS_LANGUAGES and _array_item_call(expr):
            # `events.shift()!` with `events: Progress[]`: an item (lib.d.ts is not indexed)
            item = self.element_types(TypeExpr("element", "index", expr.base.base), depth + 1)  # type: ignore[union-attr]
            if item is not None:
                return item
        if op == "returns":
            callees, receivers = self.callees_on(expr.base, depth + 1)
            if callees is EXTERNAL:
                # `str(x)` is an outside instance; what an outside function returns
                # (`next(flow)`, `flow.send(r)`) may be a workspace object when an
                # earlier binding says so, else it is taken as outside (`b64encode(x)`)
                return None if self._soft_external and not _constructs(expr.base) else EXTERNAL
            if not callees:
                return callees
            out: list[StoredSymbol] = []
            # `export const err = ResultImpl.err;`, `err: typeof ResultImpl.err`: what is
            # called is the function the value stands for
            callees = [a for c in callees for a in (self.aliased(c) or [c])]  # type: ignore[union-attr]
            if expr.args is not None and self.language in _JS_LANGUAGES:
                callees = self.first_fit(callees, expr.args)
            for c in callees:
                if c.symbol.kind in CLASS_KINDS:
                    out.append(c)
                elif c.symbol.kind in CALLABLE_KINDS:
                    declared = self.returns_of(c)
                    on = expr.base.base if expr.base is not None and expr.base.op == "member" else None
                    bound = self.bound_type(declared, c, receivers, depth, on) if declared and receivers else None
                    if isinstance(bound, list):
                        out.extend(bound)
                        continue
                    text = self.unbound_generics(declared, c)
                    # `MyFactory.build() -> T` with `MyFactory(DataclassFactory[VanillaDC])`
                    bound_to = self.type_argument(text, c, receivers) if text and c.language == "python" and receivers else None
                    if bound_to is not None:
                        got = self.named(bound_to[0], bound_to[1], None)
                        if isinstance(got, list):
                            out.extend(got)
                            continue
                    late = [r for r in receivers if r.symbol.kind in CLASS_KINDS]
                    if text and late and _late_bound(text, c.language):
                        # `@return static` on a base method called on a subclass: the subclass
                        out.extend(late)
                        continue
                    got = self.named(text, c.path, self.owner_class(c)) if text else self.inferred_return(c, depth)
                    if isinstance(got, list):
                        out.extend(got)
                    elif got is EXTERNAL and not out and text:
                        return EXTERNAL
                else:
                    # `app.use(mw)` with `use: MiddlewareHandlerInterface<E>`: what its
                    # call signatures return
                    for sig in self.signatures_of(c)[:1]:
                        text = return_type(sig.symbol.signature or "", sig.language)
                        got = self.named(text, sig.path, self.owner_class(c)) if text else None
                        if isinstance(got, list):
                            out.extend(got)
            return _unique(out) or None
        return None

    def narrowed_types(self, expr: TypeExpr, depth: int) -> Result:
        """PHP `$x instanceof C` before the use: C when it is the declared type or below
        it; a class or interface unrelated to the declared type adds to it (`$this
        instanceof RedirectableUrlMatcherInterface` in a UrlMatcher keeps `$this->context`)."""
        checked = self.named(expr.arg, self.rel, self.enclosing_class())
        declared = self.types_of(expr.base, depth + 1) if expr.base is not None else None
        if not isinstance(checked, list) or not checked or not isinstance(declared, list) or not declared:
            return checked if checked else declared
        wanted = {d.symbol.qualified_name for d in declared}
        if any(wanted & self.ancestor_names(c) for c in checked):
            return checked
        return _unique(checked + declared)

    def ancestor_names(self, cls: StoredSymbol) -> set[str]:
        """Qualified names of a class and of everything above it."""
        names: set[str] = set()
        level = [cls]
        for _ in range(12):
            nxt: list[StoredSymbol] = []
            for c in level:
                if c.symbol.qualified_name not in names:
                    names.add(c.symbol.qualified_name)
                    nxt.extend(self.bases(c)[0])
            if not nxt:
                break
            level = nxt
        return names

    def element_types(self, expr: TypeExpr, depth: int) -> Result:
        """An item of a container: from the container's declared type (`List[Span]`,
        `Dict[str, Layout]`, `Optional[Sequence[X]]`), else from a workspace class's
        `__getitem__` (a subscript) or `__iter__` (a loop)."""
        declared = self.declared_text(expr.base, depth + 1)
        if declared is not None:
            text, path, owner = declared
            awaited = re.fullmatch(r"\s*Promise<(.*)>\s*", text, re.DOTALL) if self.language in ("typescript", "tsx") else None
            # `(await queue.addBulk(jobs))[0]` with `addBulk(): Promise<Job[]>`
            inner = item_text(awaited.group(1) if awaited else text, expr.arg)
            if inner is not None:
                return self.named(inner, path, owner)
            if self.language == "php" and text.lstrip("?") in ("array", "iterable", "mixed"):
                return None  # a PHP array of unknown items: undecided, not outside
            if type_names(text, self.language) and all(n in _PY_TYPES or n in PY_BUILTINS for n in type_names(text, self.language)):
                return EXTERNAL  # a bare `list` / `dict`: its items are unknown here
        owners = self.types_of(expr.base, depth + 1)
        if not isinstance(owners, list) or not owners:
            return owners
        if self.language == "php":
            return self.php_items(owners, expr.arg) if expr.arg == "iter" else None  # type: ignore[arg-type]
        dunder = "__getitem__" if expr.arg == "index" else "__iter__"
        found, _ = self.find_member(owners, dunder)
        out: list[Result] = []
        for fn in found:
            text = self.returns_of(fn)
            if not text:
                continue
            if dunder == "__iter__":
                text = element_text(text, True) or ""
            out.append(self.named(text, fn.path, self.owner_class(fn)) if text else None)
        return _combine(out)

    def php_items(self, owners: list[StoredSymbol], how: str) -> Result:
        """PHP `foreach` over an object: an `IteratorAggregate`'s items are what its
        `getIterator()` documents (`@return \\ArrayIterator<string, Route>`), an
        `Iterator`'s what its `current()` returns."""
        out: list[Result] = []
        for method in ("getIterator", "current"):
            found, _ = self.find_member(owners, method, True)
            for fn in found:
                text = doc_type(fn.symbol.doc, "return") or self.returns_of(fn)
                inner = item_text(text, how) if text and method == "getIterator" else text
                out.append(self.named(inner, fn.path, self.owner_class(fn)) if inner else None)
            if found:
                break
        return _combine(out)

    def declared_text(self, expr: TypeExpr | None, depth: int) -> tuple[str, str, StoredSymbol | None] | None:
        """The type of a value as written where it is declared (with its type arguments,
        which `types_of` drops): (text, file it is written in, class around it)."""
        if expr is None or depth > _MAX_EVAL_DEPTH:
            return None
        if expr.op in ("named", "narrowed"):
            return expr.arg, self.rel, self.enclosing_class()
        if expr.op == "inherited":
            return self.inherited_param(expr) or self.declared_text(expr.base, depth + 1)
        if expr.op == "member":
            owners = self.types_of(expr.base, depth + 1)
            if not isinstance(owners, list) or not owners:
                return None
            found, _ = self.find_member(owners, expr.arg)
            for e in found:
                if e.symbol.kind in CALLABLE_KINDS:
                    text = self.returns_of(e)
                else:
                    text = value_type(e.symbol.signature or "", e.symbol.name, e.language)
                    if not text and e.language == "python":
                        text = self.lookup.assigned_type(e)
                    if e.language == "php" and (not text or text.lstrip("?") in ("array", "iterable")):
                        # `/** @var HandlerInterface[] */ protected array $handlers;`
                        text = doc_type(e.symbol.doc, "var") or text
                if text:
                    return text, e.path, self.owner_class(e)
            return None
        if expr.op == "param":
            callees = self.callees(expr.base, depth + 1)
            callees = callees if isinstance(callees, list) else []
            if expr.args is not None and len(callees) > 1:
                # overloads: the first its arguments fit, before the others
                callees = sorted(callees, key=lambda c: (not self.accepts(c, expr.args or ()), c.symbol.selection_range.start.line))
            for c in callees:
                fn = c
                if c.symbol.kind in CLASS_KINDS:
                    ctors, _ = self.find_member([c], "constructor")
                    fn = ctors[0] if ctors else c
                keyed = self.keyed_listener(fn, int(expr.arg), expr.args) if expr.args else None
                if keyed is not None:
                    return keyed
                sigs = self.signatures_of(fn)
                if expr.args is not None and len(sigs) > 1:
                    # `on('downloadProgress', (e) => …)`: the signature the arguments fit
                    sigs = sorted(sigs, key=lambda sig: not self.accepts(sig, expr.args or ()))
                for sig in sigs:
                    text = _argument_type(sig.symbol.signature or "", int(expr.arg))
                    if text:
                        return text, sig.path, self.owner_class(fn)
                text = parameter_type(fn.symbol.signature or "", int(expr.arg), fn.language)
                if text:
                    return text, fn.path, self.owner_class(fn)
            return None
        if expr.op == "view":
            outer = self.declared_text(expr.base, depth + 1)
            text = view_text(outer[0], expr.arg) if outer is not None else None
            if text is not None and outer is not None:
                return text, outer[1], outer[2]
            return self.declared_text(_as_call(expr), depth + 1)
        if expr.op == "element":
            outer = self.declared_text(expr.base, depth + 1)
            inner = item_text(outer[0], expr.arg) if outer is not None else None
            return (inner, outer[1], outer[2]) if inner and outer is not None else None
        if expr.op == "returns":
            callees = self.callees(expr.base, depth + 1)
            if not isinstance(callees, list):
                return None
            for c in callees:
                if c.symbol.kind in CALLABLE_KINDS:
                    text = self.returns_of(c)
                    if c.language == "php" and (not text or text.lstrip("?") in ("array", "iterable")):
                        # `@return Command[]` on a method declared `: array`
                        text = doc_type(c.symbol.doc, "return") or text
                    if text:
                        return text, c.path, self.owner_class(c)
        return None

    def type_argument(self, text: str, member: StoredSymbol, receivers: list[StoredSymbol]) -> tuple[str, str] | None:
        """Python: a method's return type that is a type parameter of its class (`-> T`
        in `class BaseFactory(Generic[T])`), as the receiver's class binds it through its
        bases (`class MyFactory(DataclassFactory[VanillaDC])`): the argument's text and
        the file it is written in."""
        owner = self.owner_class(member)
        name = text.strip()
        if owner is None or not re.fullmatch(r"[A-Za-z_]\w*", name):
            return None
        params, _ = python_generic_bases(owner.symbol.signature or "")
        if name not in params:
            return None
        for start in receivers[:2]:
            if start.symbol.kind not in CLASS_KINDS:
                continue
            # walk up: each level's bases bind the next class's parameters
            level: list[tuple[StoredSymbol, dict[str, tuple[str, str]]]] = [(start, {})]
            for _ in range(6):
                nxt: list[tuple[StoredSymbol, dict[str, tuple[str, str]]]] = []
                for cls, bound in level:
                    if cls.symbol.qualified_name == owner.symbol.qualified_name and cls.path == owner.path:
                        got = bound.get(name)
                        return got if got and got[0] not in params else None
                    _, bases = python_generic_bases(cls.symbol.signature or "")
                    for base_name, args in bases:
                        found = self.named(base_name, cls.path, cls)
                        for base in found if isinstance(found, list) else []:
                            base_params, _ = python_generic_bases(base.symbol.signature or "")
                            mapping = {p: bound.get(a, (a, cls.path)) for p, a in zip(base_params, args)}
                            nxt.append((base, mapping))
                level = nxt[:8]
                if not level:
                    break
        return None

    def unbound_generics(self, text: str | None, member: StoredSymbol) -> str | None:
        """TS: a type parameter of the member or of its class, in a type the member
        declares, stands for its constraint (`getJob(): Promise<JobBase | undefined>` in
        `class QueueGetters<JobBase extends Job = Job>` gives a Job); the type arguments
        a use supplies are not tracked."""
        if not text or member.language not in ("typescript", "tsx"):
            return text
        generics = type_parameters(member.symbol.signature or "")
        owner = self.owner_class(member)
        if owner is not None:
            generics = {**type_parameters(owner.symbol.signature or ""), **generics}
        # only a constraint naming a class or interface of the code, not `string`/`object`
        bound = {k: v for k, v in generics.items() if v and v[:1].isupper() and v.split("<")[0] not in JS_GLOBALS}
        if not bound:
            return text
        return re.sub(
            r"(?<![\w$.])(" + "|".join(map(re.escape, bound)) + r")(?![\w$])(?!\s*<)",
            lambda m: bound[m.group(1)], text,
        )

    def aliased(self, value: StoredSymbol) -> list[StoredSymbol]:
        """TS/JS: the functions a value is another name for: `const err = ResultImpl.err`
        (a standalone version of a static method), a property typed `typeof
        ResultImpl.err`; [] for anything else."""
        if value.language not in _JS_LANGUAGES or value.symbol.kind not in VALUE_KINDS:
            return []
        sig = value.symbol.signature or ""
        m = _ALIAS_VALUE.search(sig)
        path = m.group(1) if m else None
        if path is None:
            declared = value_type(sig, value.symbol.name, value.language) or ""
            t = re.fullmatch(r"typeof\s+([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)", declared.strip())
            path = t.group(1) if t else None
        if not path or path == value.symbol.name or self._aliases > 3:
            return []
        self._aliases += 1
        try:
            found = self.elsewhere(value).global_name(path)
        finally:
            self._aliases -= 1
        return [f for f in found if f.symbol.kind in CALLABLE_KINDS] if isinstance(found, list) else []

    def bound_type(
        self, text: str, member: StoredSymbol, receivers: list[StoredSymbol], depth: int, base: TypeExpr | None = None
    ) -> Result:
        """TS: a member's declared type that names a type parameter of its class, read on
        a receiver whose class binds it through `extends Base<Args>` (`this.props` typed
        `T` in `ValueObject<T>`, read in `class Address extends ValueObject<AddressProps>`)
        or whose declared type writes the arguments (`page: Paginated<UserEntity>`, the
        receiver expression `base`): the argument, resolved where it is written, with the
        rest of the type. None when no binding applies (the caller reads the type as usual)."""
        if member.language not in ("typescript", "tsx") or depth > _MAX_EVAL_DEPTH:
            return None
        owner = self.owner_class(member)
        if owner is None:
            return None
        for r in receivers:
            if r.symbol.kind not in CLASS_KINDS:
                continue
            bindings = {} if _same_decl(r, owner) else self.inherited_bindings(r, owner, 0)
            if bindings is None:
                continue
            own = declared_parameters(r.symbol.signature or "")
            open_params = [p for p in declared_parameters(owner.symbol.signature or "") if p not in bindings]
            if base is not None and own and (
                any(mentions(text, p) for p in open_params) or any(v[0] in own for v in bindings.values())
            ):
                bindings = self.written_bindings(base, r, own, bindings, depth)
            used = [p for p in bindings if mentions(text, p)]
            if not used:
                continue
            # a type literal written as the argument (`RequestResultSafeDestructure<{user:
            # User}>`): the index keeps its keys as members of the declaration writing it
            results: list[Result] = [
                [bindings[p][2]] if bindings[p][0].startswith("{") and bindings[p][2] is not None
                else self.named(bindings[p][0], bindings[p][1], bindings[p][2])
                for p in used
            ]
            rest = text
            for p in used:  # what the member's own file says of the rest (`ValueObjectProps<…>`)
                rest = re.sub(r"(?<![\w$.])" + re.escape(p) + r"(?![\w$])", "unknown", rest)
            if type_names(rest, member.language):
                results.append(self.named(rest, member.path, owner))
            found = _combine([x for x in results if isinstance(x, list)])
            if found:
                return found
        return None

    def written_bindings(
        self, base: TypeExpr, cls: StoredSymbol, params: list[str],
        bindings: dict[str, tuple[str, str, StoredSymbol | None]], depth: int,
    ) -> dict[str, tuple[str, str, StoredSymbol | None]]:
        """`bindings` completed by the type arguments the receiver's declared type writes
        for `cls` (`Paginated<UserEntity>` binds Paginated's `T`), where they are written."""
        written = self.declared_text(base, depth + 1)
        got = applied(written[0]) if written is not None else None
        if written is None or got is None or got[0].rsplit(".", 1)[-1] != cls.symbol.name:
            return bindings
        explicit = {p: (got[1][i], written[1], written[2]) for i, p in enumerate(params) if i < len(got[1])}
        if not bindings:
            return explicit
        return {k: explicit.get(v[0], v) for k, v in bindings.items()}

    def inherited_bindings(self, cls: StoredSymbol, owner: StoredSymbol, depth: int) -> dict[str, tuple[str, str, StoredSymbol | None]] | None:
        """TS: what `owner`'s type parameters stand for in `cls`, which extends it (maybe
        through other classes) with type arguments: name -> (argument as written, the
        file it is written in, the class there). None when `owner` is not reached."""
        if depth > 6:
            return None
        for base, args in heritage(cls.symbol.signature or "") + self.alias_heritage(cls):
            found = self.named(base, cls.path, cls)
            for b in found if isinstance(found, list) else []:
                if _same_decl(b, cls):
                    continue
                here = {p: (args[i], cls.path, cls) for i, p in enumerate(declared_parameters(b.symbol.signature or "")) if i < len(args)}
                if _same_decl(b, owner):
                    return here
                deeper = self.inherited_bindings(b, owner, depth + 1)
                if deeper is not None:
                    # `class AggregateRoot<P> extends Entity<P>`: Entity's parameter is
                    # whatever P is bound to below
                    return {k: here.get(v[0], v) for k, v in deeper.items()}
        return None

    def alias_heritage(self, alias: StoredSymbol) -> list[tuple[str, list[str]]]:
        """TS: `type AuthResponse = RequestResultSafeDestructure<{user: User}>` binds the
        applied alias' parameters as `extends` would (each applied part of a union or
        intersection)."""
        if alias.symbol.kind is not SymbolKind.TYPE or alias.language not in ("typescript", "tsx"):
            return []
        value = self.lookup.alias_value(alias) or ""
        parts = [p for u in split_union(value) for p in split_top_level(u, "&")]
        return [got for got in map(applied, parts) if got is not None]

    def keyed_listener(self, fn: StoredSymbol, index: int, args: tuple[Arg, ...]) -> tuple[str, str, StoredSymbol | None] | None:
        """TS event emitters typed by a listener map: `on<U extends keyof WorkerListener>(
        event: U, listener: WorkerListener[U])` called as `on('failed', (job) => …)`
        checks the listener against the map's member `failed`: its declared type."""
        sig = fn.symbol.signature or ""
        declared = parameter_type(sig, index, fn.language) or ""
        m = re.fullmatch(r"(.+)\[\s*([A-Za-z_$][\w$]*)\s*\]", declared.strip(), re.DOTALL)
        if m is None or m.group(2) not in type_parameters(sig):
            return None
        params = parameter_list(sig) or []
        key = next((
            args[k] for k, p in enumerate(params)
            if k < len(args) and isinstance(args[k], str) and declared_type(p.strip()) == m.group(2)
        ), None)
        owners = self.named(m.group(1), fn.path, self.owner_class(fn)) if isinstance(key, str) else None
        if not isinstance(owners, list) or not owners:
            return None
        found, _ = self.find_member(owners, key)  # type: ignore[arg-type]
        for e in found:
            text = e.symbol.signature or ""
            if e.symbol.kind not in CALLABLE_KINDS:  # `failed: (job: Job, err: Error) => void`
                text = declared_type(text) or ""
            if text:
                return text, e.path, self.owner_class(e)
        return None

    def signatures_of(self, value: StoredSymbol) -> list[StoredSymbol]:
        """TS: the call signatures of a property's or variable's declared type, when
        that is a workspace interface or type literal (`get!: HandlerInterface<E>`)."""
        if value.language not in ("typescript", "tsx") or value.symbol.kind in CLASS_KINDS:
            return []  # a method declared with a type (`text: TextRespond = (…) =>`) counts
        text = value_type(value.symbol.signature or "", value.symbol.name, value.language)
        names = type_names(text, value.language) if text else []
        if len(names) != 1:
            return []
        decl = self.global_name(names[0], value.path, classes_only=True)
        if not isinstance(decl, list) or len(decl) != 1 or decl[0].symbol.kind not in (SymbolKind.INTERFACE, SymbolKind.TYPE):
            return []
        return self.lookup.call_signatures(decl[0])

    def function_parameter(self, text: str, index: int, path: str, depth: int = 0) -> tuple[str, str] | None:
        """The declared type of parameter `index` of the function type `text` written in
        `path` (`Processor<T> | string`, `type Processor<T> = (job: Job<T>) => …`), with
        the file it is written in; None when no member of the union is a function type
        that declares it."""
        if depth > 3:
            return None
        for part in split_union(text):
            while part.startswith("(") and part.endswith(")") and "=>" not in part[1:-1].split(")")[-1]:
                part = part[1:-1].strip()  # `((job: Job) => void)`
            if part.startswith("(") and "=>" in part:
                found = parameter_type(part, index, "typescript")
                if found:
                    return found, path
                continue
            name = re.match(r"[A-Za-z_$][\w$.]*", part)
            if name is None or part in NULLISH or part in NOT_STRING:
                continue
            decl = self.global_name(name.group(), path, classes_only=True)
            alias = decl[0] if isinstance(decl, list) and len(decl) == 1 else None
            if alias is not None and alias.symbol.kind in (SymbolKind.INTERFACE, SymbolKind.TYPE):
                # `interface GetCookie { (c: Context, key: string): string }`
                for sig in self.lookup.call_signatures(alias):
                    found = parameter_type(sig.symbol.signature or "", index, "typescript")
                    if found:
                        return found, sig.path
            value = self.lookup.alias_value(alias) if alias is not None and alias.symbol.kind is SymbolKind.TYPE else None
            found = self.function_parameter(value, index, alias.path, depth + 1) if value and alias else None
            if found:
                return found
        return None

    def inherited_param(self, expr: TypeExpr) -> tuple[str, str, StoredSymbol | None] | None:
        """PHP: `@param Token[] $tokens` on the method of a parent class or interface that
        this one overrides (PHP-Parser documents `emulate(string $code, array $tokens)`
        once, on the abstract TokenEmulator): (type text, its file, its class)."""
        method, _, var = expr.arg.partition(" ")
        cls = self.enclosing_class()
        bases = self.bases(cls)[0] if cls is not None else []
        found = self.find_member(bases, method)[0] if bases else []
        for m in found:
            text = doc_param_type(m.symbol.doc or "", var)
            if text:
                return text, m.path, self.owner_class(m)
        return None

    def parameter_types(self, expr: TypeExpr, depth: int) -> Result:
        """`f(a, {…})`: the declared type of parameter `expr.arg` of each callee (a class
        is called through its constructor)."""
        callees = self.callees(expr.base, depth + 1)
        if not isinstance(callees, list):
            return callees
        results: list[Result] = []
        for c in callees:
            fn = c
            if c.symbol.kind in CLASS_KINDS:
                ctors, _ = self.find_member([c], "constructor" if c.language != "python" else "__init__")
                if not ctors:
                    continue
                fn = ctors[0]
            if fn.symbol.kind not in CALLABLE_KINDS:
                continue
            text = parameter_type(fn.symbol.signature or "", int(expr.arg), fn.language)
            if text:
                results.append(self.named(text, fn.path, self.owner_class(fn)))
        return _combine(results)

    def callees(self, expr: TypeExpr | None, depth: int) -> Result:
        """What is called: for `Foo()` the class Foo, for `a.make()` the method."""
        return self.callees_on(expr, depth)[0]

    def callees_on(self, expr: TypeExpr | None, depth: int) -> tuple[Result, list[StoredSymbol]]:
        """The callees, and for a method call the classes it is called on (what a
        `static` / `$this` / `Self` return type stands for)."""
        if expr is None:
            return None, []
        if expr.op == "global":
            return self.global_name(expr.arg), []
        if expr.op == "member":
            owners = self.types_of(expr.base, depth + 1)
            if owners is EXTERNAL or not owners:
                return owners, []
            found, open_ = self.find_member(owners, expr.arg, True)  # type: ignore[arg-type]
            return found or (EXTERNAL if open_ else None), owners  # type: ignore[return-value]
        if expr.op in ("named", "self", "defined"):
            return self.types_of(expr, depth), []
        return None, []

    def value_types(
        self, ents: list[StoredSymbol], depth: int, owners: list[StoredSymbol] | None = None,
        base: TypeExpr | None = None,
    ) -> Result:
        """Classes/modules stand for themselves; a field, property or variable for its
        declared (or assigned) type; a method for nothing (it is not called here)."""
        results: list[Result] = []
        for e in ents:
            kind = e.symbol.kind
            if kind in CLASS_KINDS or kind in (SymbolKind.MODULE, SymbolKind.NAMESPACE):
                results.append([e])
            elif kind in CALLABLE_KINDS and e.language != "php":
                # read, not called: a Python @property or a TS getter
                text = self.returns_of(e)
                bound = self.bound_type(text, e, owners, depth, base) if text and owners else None
                if bound is not None:
                    results.append(bound)
                    continue
                results.append(self.named(text, e.path, self.owner_class(e)) if text else None)
            elif kind in VALUE_KINDS:
                if e.language in ("typescript", "tsx") and _typed_in_place(e):
                    # `options?: { skipBrowserRedirect?: boolean }`: the index keeps the
                    # literal's keys as members of the property itself
                    results.append([e])
                    continue
                declared = value_type(e.symbol.signature or "", e.symbol.name, e.language)
                bound = self.bound_type(declared, e, owners, depth, base) if declared and owners else None
                if bound is not None:
                    results.append(bound)
                    continue
                text = self.unbound_generics(declared, e)
                if not text and e.language == "python":
                    text = self.lookup.assigned_type(e)
                if not text:
                    text = _doc_tag(e.symbol.doc, "var")
                if text:
                    results.append(self.named(text, e.path, self.owner_class(e)))
                elif depth < 4 and e.language == "python" and e.symbol.kind in (SymbolKind.FIELD, SymbolKind.VARIABLE):
                    # a module-level `app = typer.Typer()` as much as a field's value
                    results.append(self.assigned_value(e, depth))
                elif depth < 4 and e.language != "php":
                    results.append(self.called_value(e, depth))
        return _combine(results)

    def inferred_return(self, fn: StoredSymbol, depth: int) -> Result:
        """Python: what a function without a return annotation returns, from its
        `return` statements evaluated in its own file (alembic's `staging_env()` ends
        `sc = ScriptDirectory.from_config(cfg); return sc`; pyright infers the same)."""
        if fn.language != "python" or depth > 12:
            return None
        key = f"{fn.path}:{fn.symbol.qualified_name}"
        exprs = self.lookup.returned_exprs(fn) if key not in self._inferring else []
        if not exprs:
            return None
        sub = self.elsewhere(fn)
        self._inferring.add(key)
        try:
            return _combine([sub.types_of(x, depth + 2) for x in exprs])
        finally:
            self._inferring.discard(key)

    def elsewhere(self, member: StoredSymbol) -> Evaluator:
        """An evaluator placed at a definition in its own file and class (for what its
        syntax says there: an assigned value, a returned one)."""
        owner = self.owner_class(member)
        if owner is not None and owner.symbol.kind not in CLASS_KINDS:
            owner = None
        site = Site(
            member.symbol.name, member.symbol.selection_range,
            enclosing_class=owner.symbol.name if owner is not None else None,
            class_line=owner.symbol.selection_range.start.line if owner is not None else None,
        )
        return Evaluator(self.lookup, self.rank, member.path, member.language, site, _inferring=self._inferring)

    def assigned_value(self, e: StoredSymbol, depth: int) -> Result:
        """Python: a field typed by the value assigned where it is defined
        (`cls.c1 = env.generate_revision(...)` in alembic's `setup_class`), evaluated in
        the field's file and class."""
        expr = self.lookup.assigned_expr(e)
        if expr is None or expr.op == "named":
            return None
        return self.elsewhere(e).types_of(expr, depth + 2)

    def called_value(self, e: StoredSymbol, depth: int) -> Result:
        """`const got = create(defaults)`: what the called function declares it returns."""
        m = _CALLED.search(e.symbol.signature or "")
        if m is None or m.group(1) == e.symbol.name:
            return None
        callees = self.global_name(m.group(1), e.path)
        if not isinstance(callees, list):
            return None
        out: list[Result] = []
        for c in callees:
            if c.symbol.kind in CALLABLE_KINDS:
                text = self.returns_of(c)
                out.append(self.named(text, c.path, self.owner_class(c)) if text else None)
        return _combine(out)

    def returns_of(self, fn: StoredSymbol) -> str | None:
        """The declared return type: from the stored signature, or from the file's tree
        when the signature was cut short (long parameter lists)."""
        return (
            return_type(fn.symbol.signature or "", fn.language)
            or self.lookup.declared_return(fn)
            or _doc_tag(fn.symbol.doc, "return")
        )

    def owner_class(self, member: StoredSymbol) -> StoredSymbol | None:
        container = member.symbol.container
        if not container:
            return None
        named = [
            s for s in self.lookup.file_symbols(member.path)
            if s.symbol.qualified_name == container and s.symbol.kind in CLASS_KINDS
        ]
        # the declaration around the member when the file declares that name twice
        return next((s for s in named if _within_declaration(s, member)), named[0] if named else None)

    # ---- names ----------------------------------------------------------------------

    def named(self, text: str, path: str, self_cls: StoredSymbol | None) -> Result:
        """A type as written in `path` -> workspace classes, EXTERNAL, or None."""
        names = type_names(text, self.language)
        if not names and self.language in _JS_LANGUAGES and _literal_types(text):
            return None  # `{ data: {…} } | {…}` written in place: no class, not outside either
        if not names:
            return EXTERNAL if text.strip() else None
        results: list[Result] = []
        for n in names:
            if n.lower() in ("self", "static", "$this") and self.language == "php" or n in ("Self", "this"):
                results.append([self_cls] if self_cls is not None else None)
            elif self.language == "php":
                results.append(self.php_class(n, path))
            else:
                found = self.global_name(n, path, classes_only=True)
                if found is None and self.language == "python":
                    found = self.type_alias(n, path, self_cls)
                results.append(found)
        if self.language in ("typescript", "tsx") and "<" in text:
            results.extend(self.alias_arguments(text, path, self_cls))
        return _combine(results)

    def alias_arguments(self, text: str, path: str, self_cls: StoredSymbol | None) -> list[Result]:
        """TS: `DomainEventProps<UserCreatedEvent>` with `type DomainEventProps<T> =
        Omit<T, 'id'> & {…}`: the alias exposes its argument's members, so the argument's
        types count too (resolved where the text is written)."""
        out: list[Result] = []
        if self._aliases > 3:
            return out
        for part in (p for u in split_union(text) for p in split_top_level(u, "&")):
            got = applied(part)
            decl = self.global_name(got[0], path, classes_only=True) if got is not None and "." not in got[0] else None
            for alias in decl if isinstance(decl, list) else []:
                if alias.symbol.kind is not SymbolKind.TYPE or alias.language not in ("typescript", "tsx"):
                    continue
                params = declared_parameters(alias.symbol.signature or "")
                value = self.lookup.alias_value(alias) if params else None
                for p in exposed(value or "", params):
                    i = params.index(p)
                    if got is not None and i < len(got[1]):
                        self._aliases += 1
                        try:
                            out.append(self.named(got[1][i], path, self_cls))
                        finally:
                            self._aliases -= 1
        return out

    def type_alias(self, name: str, path: str, self_cls: StoredSymbol | None) -> Result:
        """Python: a name declared as a type alias (`HTTPProtocol: TypeAlias =
        "type[HttpToolsProtocol | H11Protocol]"`, `Handler = Union[A, B]`): the types it
        stands for."""
        if self._aliases > 3:
            return None
        found = self.global_name(name, path)
        for alias in found if isinstance(found, list) else []:
            m = _PY_ALIAS.match(alias.symbol.signature or "")
            if alias.symbol.kind is SymbolKind.VARIABLE and m is not None:
                self._aliases += 1
                try:
                    value = (m.group(1) or m.group(2)).strip().strip("'\"")
                    return self.named(value, alias.path, self_cls)
                finally:
                    self._aliases -= 1
        return None

    def php_class(self, written: str, path: str) -> Result:
        """PHP: a class name resolves by namespace and `use` alone."""
        namespace = self.php_namespace(path)
        fqcn = resolve_name(written, namespace, self.lookup.imports_of(path))
        if written.lower() in ("self", "static"):
            cls = self.enclosing_class()
            return [cls] if cls else None
        if written.lower() == "parent":
            return self.types_of(TypeExpr("super"))
        short = fqcn.rsplit("\\", 1)[-1]
        # a class may bear a scalar's name (PHP-Parser's `Cast\Double`, `Scalar\Float_`
        # aside): what `use` or the namespace names comes first
        found = [s for s in self.defs(short) if s.symbol.qualified_name == fqcn]
        if found:
            return found
        if written.lower() in PHP_SCALARS:
            return EXTERNAL
        if "\\" not in written.lstrip("\\") and namespace and not written.startswith("\\"):
            # functions and constants fall back to the global namespace
            glob = [s for s in self.defs(short) if s.symbol.qualified_name == short]
            if glob:
                return glob
        return EXTERNAL

    def php_namespace(self, path: str) -> str | None:
        for s in self.lookup.file_symbols(path):
            if s.symbol.kind in CLASS_KINDS or s.symbol.kind is SymbolKind.FUNCTION:
                c = s.symbol.container
                return c if c and "::" not in c else None
        return None

    def global_name(self, name: str, path: str | None = None, classes_only: bool = False) -> Result:
        """A file-level name in `path`: an import, a definition, a builtin."""
        path = path or self.rel
        imports = self.lookup.imports_of(path)
        first, _, rest = name.partition(".")
        if self.language == "php":
            return self.php_class(name, path)
        if rest:
            # `mod.Class` / `ns.Type`: a member of what the first segment denotes
            owners = self.global_name(first, path)
            if owners is EXTERNAL or not owners:
                return owners
            last = rest.rsplit(".", 1)[-1]
            found, open_ = self.find_member(owners, last)  # type: ignore[arg-type]
            return found or (EXTERNAL if open_ else None)
        target = imports.get(name)
        if target is not None:
            module = self.lookup.module_symbol(target, self.language)
            if module is not None and not self.named_import(target, module, name, path):
                # `import Maybe from 'true-myth/maybe'` (a package specifier the tsconfig
                # maps to a file): what its `export default Maybe;` names, not the file
                exported = self.default_export(f"{target}.{name}", name, path) if (
                    module.symbol.qualified_name == target and self.language in _JS_LANGUAGES
                ) else None
                return exported or [module]
        # `import make_user as build`: the definition carries the imported name
        candidates = self.defs(target.replace("/", ".").rsplit(".", 1)[-1] if target else name)
        if classes_only:
            candidates = [c for c in candidates if c.symbol.kind in CLASS_KINDS]
        else:
            # file-level names only: members and locals are not reachable bare
            candidates = [c for c in candidates if _is_top_level(c)]
        if target is not None:
            wanted = target.replace("/", ".")
            matched = [c for c in candidates if _ends_with(c.symbol.qualified_name, wanted)]
            if matched:
                # `from './context'` is context.Context, not also jsx.context.Context
                exact = [c for c in matched if _ends_with(c.symbol.qualified_name, wanted, exact=True)]
                return self.declared_first(exact or matched)
            exported = (
                self.default_export(target, name, path) or self.reexported(target, 0)
                or self.package_reexport(target, 0)
            )
            if exported:
                return self.checker_view(exported)
            return None if self.in_workspace(target) else EXTERNAL
        same_file = [c for c in candidates if c.path == path]
        if same_file and path == self.rel and self.language == "python":
            same_file = self.visible_here(same_file)
        elif same_file and path == self.rel and self.language in _JS_LANGUAGES:
            same_file = self.visible_in_blocks(same_file)
        if same_file:
            return self.declared_first(same_file)
        if self.is_builtin(name):
            return EXTERNAL
        if not candidates:
            return None
        ranked = self.rank(candidates, path, imports, name, self.language)
        return ranked[:1] if len(ranked) > 1 else ranked

    def declared_first(self, found: list[StoredSymbol]) -> list[StoredSymbol]:
        """Python: a class or function and a later rebinding of its name
        (`Factory = _add_hash(Factory)`) are one thing, and the `class`/`def` is its
        definition (pyright answers so)."""
        if self.language != "python" or len(found) < 2:
            return found
        found = self.checker_view(found)
        declared = [f for f in found if f.symbol.kind in CLASS_KINDS or f.symbol.kind in CALLABLE_KINDS]
        return _implementations(declared or found, self.lookup)

    def checker_view(self, found: list[StoredSymbol]) -> list[StoredSymbol]:
        """Python: of `if TYPE_CHECKING: Path = Annotated[…]` and `else: Path =
        ParamShortcut(…)`, the checker's definition (pyright answers only that one)."""
        if self.language != "python" or len(found) < 2:
            return found
        return [f for f in found if not self.lookup.runtime_only(f)] or found

    def visible_here(self, found: list[StoredSymbol]) -> list[StoredSymbol]:
        """Python: of a file's same-named definitions, those the position can see. A class
        or helper defined inside a function (every attrs test defines its own `C`) is
        seen only inside that function, and the innermost one shadows the rest."""
        line = self.site.range.start.line
        symbols = self.lookup.file_symbols(self.rel)
        functions = {s.symbol.qualified_name: s for s in symbols if s.symbol.kind in CALLABLE_KINDS}
        classes = {s.symbol.qualified_name: s for s in symbols if s.symbol.kind in CLASS_KINDS}
        scopes: frozenset[int] | None = None
        depth: dict[int, int] = {}  # candidate index -> how deep its enclosing function sits
        for i, c in enumerate(found):
            fn = functions.get(c.symbol.container or "")
            cls = classes.get(c.symbol.container or "")
            if cls is not None:
                # a nested class is seen in its class's body and the methods' signatures
                # (`def paginate(self, p: Input)`), not in method bodies nor elsewhere
                if scopes is None:
                    scopes = self.lookup.class_scopes_at(self.rel, self.site.range.start)
                if cls.symbol.selection_range.start.line in scopes:
                    depth[i] = cls.symbol.qualified_name.count(".") + 1
            elif fn is None:
                depth[i] = 0  # module level
            elif fn.symbol.range.start.line <= line <= fn.symbol.range.end.line:
                depth[i] = fn.symbol.qualified_name.count(".") + 1
        if not depth:
            return []
        deepest = max(depth.values())
        return [found[i] for i, d in depth.items() if d == deepest]

    def visible_in_blocks(self, found: list[StoredSymbol]) -> list[StoredSymbol]:
        """JS/TS: of a file's same-named declarations, those in blocks that hold the
        position; the innermost shadows the rest (each InversifyJS test declares its own
        `class Ninja` inside its `it(...)` callback)."""
        at = self.site.range.start
        depth: dict[int, int] = {}
        for i, c in enumerate(found):
            blocks = self.lookup.block_scopes(c)
            if all(_holds(b, at) for b in blocks):
                depth[i] = len(blocks)
        if not depth:
            return []
        deepest = max(depth.values())
        return [found[i] for i, d in depth.items() if d == deepest]

    def named_import(self, target: str, module: StoredSymbol, name: str, path: str) -> bool:
        """JS/TS `import { Redis } from "../lib"` names what lib/index.ts exports, not a
        file lib/Redis.ts that a loose module match would find, nor the file
        src/parser/parse.ts for `import {parse} from '../src/parser'`; a namespace import
        (`import * as cmds from "./a/b"`) names its module exactly."""
        if self.language not in ("javascript", "typescript", "tsx", "jsx"):
            return False
        parent = target.rpartition(".")[0]
        if not parent:
            return False
        if module.symbol.qualified_name == target and (
            self.lookup.is_namespace_import(path, name) or self.lookup.is_default_import(path, name)
        ):
            return False  # the file itself, by name (cheap text checks before the index query)
        return self.lookup.module_symbol(parent, self.language) is not None

    def default_export(self, target: str, name: str, path: str) -> Result:
        """`import baseGot from '../source/index.js'` (JS/TS): what that module's
        `export default got;` names, resolved in the module."""
        if self.language not in ("javascript", "typescript", "tsx", "jsx"):
            return None
        module_name = target.rsplit(".", 1)[0]
        if not self.lookup.is_default_import(path, name):
            return None
        module = self.lookup.module_symbol(module_name, self.language)
        exported = self.lookup.default_export_name(module.path) if module is not None else None
        if not exported or module is None or module.path == path:
            return None
        found = self.global_name(exported, module.path)
        return found if isinstance(found, list) and found else None

    def reexported(self, target: str, depth: int) -> list[StoredSymbol] | None:
        """`import {TimeoutError} from './index.js'` where index.ts re-exports it
        (`export {X} from …`, `export * from './core/errors.js'`): the definition behind."""
        if depth > 3 or self.language not in ("javascript", "typescript", "tsx", "jsx"):
            return None
        module_name, _, name = target.rpartition(".")
        module = self.lookup.module_symbol(module_name, self.language) if module_name else None
        if module is None or not name:
            return None
        named = self.lookup.imports_of(module.path).get(name)
        local = self.lookup.export_alias(module.path, name) if named is None else None
        if local is not None:  # `export { Hono as HonoBase }`
            found = [c for c in self.defs(local) if _is_top_level(c) and c.path == module.path]
            if found:
                return found
        candidates = [c for c in self.defs(name) if _is_top_level(c)]
        if named is not None and not named.endswith("." + name):
            # `export * as Args from './args'`: the name is that module
            namespace = self.lookup.module_symbol(named, self.language)
            if namespace is not None:
                return [namespace]
        if named is not None:
            found = [c for c in candidates if _ends_with(c.symbol.qualified_name, named)]
            return found or self.reexported(named, depth + 1)
        for star in self.lookup.star_exports(module.path):
            found = [c for c in candidates if _ends_with(c.symbol.qualified_name, f"{star}.{name}")]
            found = found or self.reexported(f"{star}.{name}", depth + 1) or []
            if found:
                return found
        return None

    def package_reexport(self, target: str, depth: int) -> list[StoredSymbol] | None:
        """Python `from uvicorn import Config` where uvicorn/__init__.py imports it
        (`from uvicorn.config import Config`, `... import Server as Server`): the
        definition behind, through chains of packages."""
        if depth > 3 or self.language != "python":
            return None
        module_name, _, name = target.rpartition(".")
        module = self.lookup.module_symbol(module_name, self.language) if module_name else None
        if module is None or not module.path:
            return None
        inner = self.lookup.imports_of(module.path).get(name)
        if inner is None:  # `from .runtime.environment import *` (alembic/environment.py)
            for star in self.lookup.star_exports(module.path):
                found = [
                    c for c in self.defs(name)
                    if _is_top_level(c) and _ends_with(c.symbol.qualified_name, f"{star}.{name}")
                ] or self.package_reexport(f"{star}.{name}", depth + 1)
                if found:
                    return found
            return None
        if inner == target:
            return None
        sub = self.lookup.module_symbol(inner, self.language)
        if sub is not None:
            return [sub]
        found = [
            c for c in self.defs(inner.rsplit(".", 1)[-1])
            if _is_top_level(c) and _ends_with(c.symbol.qualified_name, inner)
        ]
        return found or self.package_reexport(inner, depth + 1)

    def in_workspace(self, target: str) -> bool:
        """Whether an import target names workspace code: its module (or the module
        holding the imported name, or for Python its top package) is an indexed file."""
        mod = self.lookup.module_symbol
        parent = target.rsplit(".", 1)[0]
        if mod(target, self.language) or mod(parent, self.language):
            return True
        return self.language == "python" and mod(target.split(".")[0], self.language) is not None

    def is_builtin(self, name: str) -> bool:
        if self.language == "python":
            return name in PY_BUILTINS
        if self.language in ("javascript", "typescript", "tsx", "jsx", "vue"):
            return name in JS_GLOBALS
        return False

    # ---- members ----------------------------------------------------------------------

    def find_member(
        self, owners: list[StoredSymbol], name: str, call: bool | None = None
    ) -> tuple[list[StoredSymbol], bool]:
        """Members called `name` of the owners, nearest class of the hierarchy first.
        The flag says the hierarchy reaches outside the workspace (a vendor base), where
        an unfound member may well live. PHP keeps properties and methods apart: with
        `call` known, `$this->collection` is a property (a trait's) before the class's own
        `collection()` method; a hierarchy with only the other kind (Eloquent's
        `$post->author` relation method) still answers."""
        if call is not None and self.language == "php":
            found, open_ = self._find_member(owners, name, call)
            if found:
                return found, open_
        return self._find_member(owners, name, None)

    def _find_member(
        self, owners: list[StoredSymbol], name: str, call: bool | None
    ) -> tuple[list[StoredSymbol], bool]:
        for owner in owners:
            if owner.symbol.kind is SymbolKind.MODULE and owner.language not in ("typescript", "tsx", "javascript"):
                if owner.path.endswith(".pyi"):
                    # a package's stub says what its names are (`from attr import
                    # exceptions as exceptions` in attrs/__init__.pyi)
                    target = self.lookup.imports_of(owner.path).get(name)
                    sub = self.lookup.module_symbol(target, owner.language) if target else None
                    if sub is not None:
                        return [sub], False
                # `pkg.sub` is the submodule file before anything named `sub` inside (a JS/TS
                # namespace's members are its exports: `Parser.parse` is index.ts' function)
                sub = self.lookup.module_symbol(f"{owner.symbol.qualified_name}.{name}", owner.language)
                if sub is not None:
                    return [sub], False
        candidates = self.defs(name)
        if call is not None:
            candidates = [c for c in candidates if (c.symbol.kind in CALLABLE_KINDS) == call]
        if not candidates:
            return [], False
        by_container: dict[str, list[StoredSymbol]] = {}
        for c in candidates:
            if c.symbol.container:
                by_container.setdefault(c.symbol.container, []).append(c)
        level = list(owners)
        # by declaration, not by name: TS merges `class Redis` with `interface Redis
        # extends Commander…` declared apart, and each brings its own bases
        seen: set[tuple[str, int, str]] = set()
        open_ = False
        for _ in range(12):
            hits: list[StoredSymbol] = []
            declared: list[StoredSymbol] = []  # only an interface of this level has it
            nxt: list[StoredSymbol] = []
            for owner in level:
                q = owner.symbol.qualified_name
                key = (owner.path, owner.symbol.selection_range.start.line, q)
                if key in seen:
                    continue
                seen.add(key)
                # a PHP class that `use`s a trait and implements an interface runs the
                # trait's method: the body beats the interface's declaration
                members = by_container.get(q, [])
                own = [m for m in members if _within_declaration(owner, m)]
                (declared if owner.symbol.kind is SymbolKind.INTERFACE else hits).extend(own or members)
                if owner.symbol.kind in (SymbolKind.MODULE, SymbolKind.NAMESPACE):
                    if not hits:
                        hits.extend(self.module_export(owner, name, by_container))
                    continue
                bases, external = self.bases(owner)
                open_ = open_ or external
                nxt.extend(bases)
            hits = hits or declared
            if hits:
                if self.language == "python":
                    hits = _implementations(hits, self.lookup)
                return _unique(hits), open_
            if not nxt:
                break
            level = nxt
        return [], open_

    def module_export(
        self, module: StoredSymbol, name: str, by_container: dict[str, list[StoredSymbol]]
    ) -> list[StoredSymbol]:
        """A name a module (package) offers without defining it: what its file imports
        under that name (`from ._client import Client`), else a file-level definition in
        one of its submodules (`from ._api import *`)."""
        q = module.symbol.qualified_name
        target = self.lookup.imports_of(module.path).get(name) if module.path else None
        if target is not None:
            sub = self.lookup.module_symbol(target, module.language)
            if sub is not None:
                return [sub]
            found = [c for c in self.defs(name) if _ends_with(c.symbol.qualified_name, target)]
            if found:
                return found
        found = [
            c for qn, cs in by_container.items() if qn.startswith(q + ".") for c in cs
            if _is_top_level(c)
        ]
        if not found and module.language in ("typescript", "tsx", "javascript"):
            # `mqtt.IClientOptions` where mqtt.ts has `export * from './lib/client'`
            found = self.reexported(f"{q}.{name}", 0) or []
        return found

    def bases(self, cls: StoredSymbol, parent_only: bool = False) -> tuple[list[StoredSymbol], bool]:
        names = base_names(cls.symbol.signature or "", cls.language, parent_only)
        if cls.language == "php" and not parent_only:
            names += self.lookup.class_traits(cls)
        if cls.language in ("typescript", "tsx") and any(n in PASS_THROUGH for n in names):
            # `interface Pending<T, E> extends Omit<TaskImpl<T, E>, 'value'>`: the members
            # are TaskImpl's (less a few), so TaskImpl is the base
            names = [n for n in names if n not in PASS_THROUGH] + [
                n for head, args in heritage(cls.symbol.signature or "") if head in PASS_THROUGH and args
                for n in type_names(args[0], cls.language)[:1]
            ]
        if cls.symbol.kind is SymbolKind.TYPE and cls.language != "php":
            # `type Internal = Required<Omit<Options, 'x'>> & {…}`: the aliased types'
            # members are the alias's (its own `{…}` members are indexed under it)
            value = self.lookup.alias_value(cls)
            if value:
                # a conditional type's members are its results' (`T extends X ? A : B`)
                parts = branches(value) if cls.language in ("typescript", "tsx") else [value]
                names += [n for part in parts for n in type_names(part, cls.language) if n != cls.symbol.name]
        out: list[StoredSymbol] = []
        open_ = False
        for n in names:
            # a .tsx test reaches .ts declarations: one language family, one name space
            same = self.language == cls.language or {self.language, cls.language} <= _JS_LANGUAGES
            got = self.named(n, cls.path, cls) if same else None
            if isinstance(got, list):
                out.extend(g for g in got if g.symbol.qualified_name != cls.symbol.qualified_name)
            else:
                open_ = True
        return out, open_


# `X: TypeAlias = "type[A | B]"`, `X = Union[A, B]` / `Optional[A]`: the aliased type
_PY_ALIAS = re.compile(
    r"^\w+\s*(?::\s*(?:typing\.|typing_extensions\.)?TypeAlias\s*=\s*(.+)"
    r"|=\s*((?:typing\.)?(?:Union|Optional)\[.+))$", re.DOTALL
)
_TYPE_GUARD = re.compile(r"^(?:typing\.|typing_extensions\.)?Type(?:Guard|Is)\[(.+)\]$", re.DOTALL)
# `const err = ResultImpl.err` (the value is another name, nothing is called)
_ALIAS_VALUE = re.compile(r"^(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*=\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*;?\s*$")
_CALLED = re.compile(r"=\s*(?:await\s+)?([A-Za-z_$][\w$]*)\s*\(")

_PY_TYPES = frozenset({
    "str", "int", "float", "bool", "bytes", "bytearray", "list", "dict", "set", "frozenset",
    "tuple", "object", "type", "complex", "range", "memoryview",
})


def _argument_type(signature: str, index: int) -> str | None:
    """TS: the type argument number `index` of a call is checked against, rest
    parameters included (`...handlers: [H<E2>, H<E3>]` element by element,
    `...handlers: MiddlewareHandler<E>[]` an item)."""
    params = parameter_list(signature)
    items = spread_tuples([p.strip() for p in params if not re.match(r"this\s*:", p.strip())]) if params else None
    if not items:
        return None
    for i, item in enumerate(items):
        if item.startswith("..."):
            declared = declared_type(item[3:]) or ""
            return item_text(declared, "index") if i <= index else None
        if i == index:
            return declared_type(item) or (item if not re.match(r"[\w$]+\??\s*$", item) else None)
    return None


def _constructs(callee: TypeExpr | None) -> bool:
    """Whether calling this outside name builds an instance of it (a class by the usual
    spelling: `Path(...)`, `str(...)`), rather than returning something unknown."""
    if callee is None or callee.op not in ("global", "member", "named"):
        return False
    name = callee.arg.rsplit(".", 1)[-1].rsplit("\\", 1)[-1]
    return name[:1].isupper() or name in _PY_TYPES


def _doc_tag(doc: str | None, tag: str) -> str | None:
    """`@var Foo` / `@return Foo|null` / `@return $this` from a docblock (PHP, JSDoc)."""
    if not doc or "@" + tag not in doc:
        return None
    m = re.search(r"@" + tag + r"\s+\{?((?:\$this\b)?[\\\w|?<>\[\]]*)", doc)
    return m.group(1) if m else None


def absolute_module(written: str, importer: str) -> str:
    """`._exceptions` in `httpx/_models.py` -> `httpx._exceptions` (Python)."""
    if not written.startswith("."):
        return written
    from code_intel.indexing.chunking.python import module_name

    dots = len(written) - len(written.lstrip("."))
    package = module_name(importer).split(".")
    if not importer.endswith("__init__.py"):
        package = package[:-1]
    anchor = package[: max(len(package) - (dots - 1), 0)]
    rest = written.lstrip(".")
    return ".".join([p for p in anchor if p] + ([rest] if rest else []))


def _as_call(view: TypeExpr) -> TypeExpr:
    """`d.items()` read as an ordinary method call (when `d` is no builtin container)."""
    return TypeExpr("returns", base=TypeExpr("member", view.arg, view.base))


def _implementations(found: list[StoredSymbol], lookup: Lookup) -> list[StoredSymbol]:
    """Python: `@overload` stubs give way to the implementation they describe (the
    one definition of that name in the same scope that is no overload); overloads
    without one (a `.pyi` stub) all stay."""
    if len(found) < 2 or not any(f.symbol.kind in CALLABLE_KINDS for f in found):
        return found
    stubs = {id(f) for f in found if f.symbol.kind in CALLABLE_KINDS and lookup.is_overload(f)}
    if not stubs:
        return found
    runs = {(f.path, f.symbol.container) for f in found if id(f) not in stubs}
    return [f for f in found if id(f) not in stubs or (f.path, f.symbol.container) not in runs]


def _late_bound(text: str, language: str) -> bool:
    """A return type that is the class the method is called on (PHP `static`, `$this`,
    Python `Self`), possibly nullable."""
    parts = {p.strip().lstrip("?") for p in text.split("|")} - {"null", "None"}
    if language == "php":
        return bool(parts) and parts <= {"static", "$this"}
    return parts in ({"Self"}, {"typing.Self"}, {"typing_extensions.Self"})


def _combine(results: list[Result]) -> Result:
    """Several partial answers as one: the workspace classes found, else EXTERNAL when
    any part was external, else undecided."""
    found = [s for r in results if isinstance(r, list) for s in r]
    if found:
        return _unique(found)
    return EXTERNAL if any(r is EXTERNAL for r in results) else None


def _unique(items: list[StoredSymbol]) -> list[StoredSymbol]:
    seen: set[tuple[str, int, str]] = set()
    out = []
    for s in items:
        key = (s.path, s.symbol.selection_range.start.line, s.symbol.qualified_name)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


_JS_LANGUAGES = frozenset({"typescript", "tsx", "javascript", "jsx"})


# array methods that answer one of the array's items
# calls that give an item of their receiver: an array's (`shift`, `at`, …) or a Map's
# value (`get`); a receiver that is no container falls through to its declared method
_ARRAY_ITEM_METHODS = frozenset({"shift", "pop", "at", "find", "findLast", "get"})


def _literal_types(text: str) -> bool:
    """TS: a type written as (a union of) object type literals with named keys (an
    index signature `{ [k: string]: string }` names none: its keys are nobody's)."""
    parts = [p for p in split_union(text.strip().lstrip("|").strip()) if p not in NULLISH]
    return bool(parts) and all(
        p.startswith("{") and p.endswith("}") and not p[1:].lstrip().startswith("[") for p in parts
    )


def _typed_in_place(member: StoredSymbol) -> bool:
    """TS: a property whose declared type is a type literal written there (`options?: {
    redirectTo?: string }`, maybe `| undefined`), not an index signature or mapped type."""
    sig = member.symbol.signature or ""
    m = re.search(r"(?<![\w$])" + re.escape(member.symbol.name) + r"[?!]?\s*:\s*\{", sig)
    if m is None or sig[m.end():].lstrip().startswith("["):
        return False
    declared = sig[m.end() - 1:].split("=", 1)[0] if "=>" not in sig else sig[m.end() - 1:]
    return len([p for p in split_union(declared.strip().rstrip(";,")) if p not in NULLISH]) == 1


def _array_item_call(expr: TypeExpr) -> bool:
    base = expr.base
    return base is not None and base.op == "member" and base.arg in _ARRAY_ITEM_METHODS and base.base is not None


def _same_decl(a: StoredSymbol, b: StoredSymbol) -> bool:
    return a.path == b.path and a.symbol.qualified_name == b.symbol.qualified_name and a.symbol.selection_range == b.symbol.selection_range


def _holds(r: Range, at: Position) -> bool:
    return (r.start.line, r.start.character) <= (at.line, at.character) <= (r.end.line, r.end.character)


def _within_declaration(owner: StoredSymbol, member: StoredSymbol) -> bool:
    """A member stored under the owner's name belongs to this declaration of it: another
    file's (a merged TS declaration) or inside this one's range, not another same-named
    class of the file (a test's own `class Ninja`, declared again in the next test)."""
    if owner.symbol.kind not in CLASS_KINDS:
        return True  # a module's members are its file's (its symbol has no range)
    return member.path != owner.path or _holds(owner.symbol.range, member.symbol.selection_range.start)


def _is_top_level(s: StoredSymbol) -> bool:
    """Defined at file level: its container is no class or function of the file."""
    c = s.symbol.container
    if not c:
        return True
    if s.language == "php":
        return "::" not in s.symbol.qualified_name
    return s.symbol.kind not in (SymbolKind.METHOD, SymbolKind.CONSTRUCTOR, SymbolKind.FIELD, SymbolKind.PROPERTY)


def _ends_with(qualified: str, wanted: str, exact: bool = False) -> bool:
    q = qualified.replace("\\", ".").replace("::", ".").replace("/", ".")
    w = wanted.replace("\\", ".").replace("::", ".").replace("/", ".").strip(".")
    return q == w or not exact and q.endswith("." + w)
