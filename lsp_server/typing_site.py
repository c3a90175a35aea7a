"""What the identifier under the cursor is, read from the file's syntax tree.

Pure logic over one tree (no index access): it says whether the identifier is a
member of some receiver (`x.a`, `$this->m()`, `Foo::create()`), a name bound in an
enclosing function (a local, a parameter, a type parameter), or a plain name, and it
describes the receiver's type as the code declares it, as a small expression
(`TypeExpr`) that `typing_eval` evaluates against the index. Only cheap, local facts
are read here: parameters and their annotations, assignments in the enclosing
functions, `self`/`this`/`$this`/`static`/`parent`/`super`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum

import tree_sitter
from code_intel.indexing.chunking.jsdoc import link_names
from code_intel.indexing.chunking.php_docblock import docblock_type_names
from code_intel.indexing.chunking.python_strings import type_string_at
from code_intel.indexing.languages import GRAMMARS, query
from code_intel.indexing.model import Range
from code_intel.indexing.source import SourceDocument, nearest_ancestor

from .typing_text import PY_VIEWS

# How far a chain of assignments (`a = b; b = c.d()`) is followed: only following a
# binding counts, not the nesting of one expression (`await httpx.AsyncClient().get()`).
_MAX_DEPTH = 6


class ArgShape(Enum):
    """A call argument whose value is not a string literal but whose kind the syntax
    shows: an object literal, or a function (arrow, function expression). Enough to
    tell overloads apart (`publish(t, m, {qos: 1})` is not `publish(t, m, callback)`)."""

    OBJECT = "object"
    FUNCTION = "function"
    # a literal that is neither: a number, `true`, `null`, an array (`atom(0)` is not
    # the overload taking a read function)
    VALUE = "value"




@dataclass(frozen=True, slots=True)
class TypeExpr:
    """A receiver's type as the code states it, evaluated later against the index.

    op: `self` (enclosing class), `super` (its bases), `named` (a type as written,
    `arg`), `global` (whatever the file-level name `arg` denotes), `member` (the member
    `arg` of `base`: a field's declared type, a method's return type), `returns`
    (calling `base`: a class gives an instance, a function its declared return type),
    `param` (the declared type of parameter number `arg` of what `base` calls: a
    function, a method, a class's constructor),
    `element` (an item of `base`, a container: `arg` is `iter` for a loop, `index`
    for a subscript), `context` (the type `base` an object literal is checked against),
    `defined` (Python: the class or function a function body defines, `arg` is
    `name:line` of its name), `guard` (Python: narrowed by `if f(x):` where `f`
    returns `TypeGuard[T]` / `TypeIs[T]`, `arg` names `f`; else `base`), `inherited`
    (PHP: parameter `$v` of method `m`, `arg` `m $v`, as the method it overrides
    documents it; else `base`, its declared type), `view` (Python: what the builtin
    container method `arg` of `base` returns, `d.items()`), `narrowed` (PHP: checked by
    `instanceof arg`, declared `base`), `excluding` (`base` but not `arg`: inside
    `if (!$x instanceof arg) {…}`, in the `else:` of `if isinstance(x, arg):`).
    """

    op: str
    arg: str = ""
    base: TypeExpr | None = None
    # `either`: `base`, or when that says nothing, `alt` (an earlier binding of the name)
    alt: TypeExpr | None = None
    # `param` (TS): the call's arguments, to pick the overload and to read a listener
    # keyed by an event name (`on<U extends keyof L>(event: U, listener: L[U])`)
    args: tuple[Arg, ...] | None = None


# one argument of a call: a string literal's value, a shape, the type of a local bound to
# a call (`useAtom(derivedAtom)` with `const derivedAtom = atom(read)`), or None (anything else)
Arg = str | ArgShape | TypeExpr | None


@dataclass(frozen=True, slots=True)
class Site:
    """The identifier at a position and what the syntax says about it."""

    name: str
    range: Range
    receiver: TypeExpr | None = None  # set for member accesses
    local: Range | None = None  # where an enclosing function binds the name
    enclosing_class: str | None = None  # name of the class around the position
    class_line: int | None = None  # line of that class's name (0-based)
    # PHP: the class name as written where only a class can stand (`new X`, `X::m`,
    # `use A\\B`, a type); resolved by PHP's rules, never by the short name alone.
    class_name: str | None = None
    # Python: the module an import statement names up to this identifier, as written
    # (`._exceptions`, `a.b`); the index maps it to the module's file.
    module: str | None = None
    # a keyword argument's name: the callee's parameter (parameters are not indexed)
    parameter: bool = False
    # PHP keeps methods and properties apart: `$x->m()` is a method, `$x->m` a property
    # (None: the syntax does not say)
    call: bool | None = None
    # TS/JS shorthand property `{host}`: the key is also a read of the value `host`
    # (tsserver answers both: the value's definition, then the property's)
    shorthand: bool = False
    # TS/JS: the identifier is what a call calls: its arguments, each a string
    # literal's value or None (any other expression), to pick among overloads
    args: tuple[Arg, ...] | None = None
    # TS/JS: the class a `new` expression constructs (not a merged interface)
    new: bool = False


def site_at(doc: SourceDocument, line: int, byte_col: int) -> Site | None:
    """The site at (line, byte column), or None when no identifier is there."""
    if doc.tree is None or line >= len(doc.line_starts):
        return None
    offset = doc.line_starts[line] + byte_col
    handler = _handler_class(doc.language)
    if handler is None:
        return None
    node = _identifier_at(doc, offset, handler.identifiers)
    if node is None:
        return handler(doc).string_site(offset)
    return handler(doc).site(node)


def _identifier_at(doc: SourceDocument, offset: int, kinds: frozenset[str]) -> tree_sitter.Node | None:
    root = doc.tree.root_node  # type: ignore[union-attr]
    for at in (offset, offset - 1):
        if at < 0:
            continue
        node = root.named_descendant_for_byte_range(at, at)
        if node is not None and node.type in kinds and node.start_byte <= offset <= node.end_byte:
            return node
    return None


def _is_import_binding(node: tree_sitter.Node) -> bool:
    cur = node.parent
    for _ in range(3):
        if cur is None:
            return False
        if cur.type in ("import_statement", "import_from_statement"):
            return True
        cur = cur.parent
    return False


class _Language:
    identifiers: frozenset[str] = frozenset()
    class_types: frozenset[str] = frozenset()
    function_types: frozenset[str] = frozenset()

    def __init__(self, doc: SourceDocument) -> None:
        self.doc = doc

    def text(self, node: tree_sitter.Node | None) -> str:
        return self.doc.node_text(node) if node is not None else ""

    def site(self, node: tree_sitter.Node) -> Site:
        cls = nearest_ancestor(node, self.class_types)
        cls_name = cls.child_by_field_name("name") if cls is not None else None
        receiver = self.receiver_of(node)
        local = None
        if receiver is None:
            bound = self.binding(node, self.text(node))
            # a function-level import binds the imported thing: resolved like a file import
            if bound is not None and not _is_import_binding(bound):
                local = self.doc.node_range(bound)
        return Site(
            name=self.name_of(node),
            range=self.doc.node_range(node),
            receiver=receiver,
            local=local,
            enclosing_class=self.text(cls_name) or None,
            class_line=cls_name.start_point[0] if cls_name is not None else None,
        )

    def name_of(self, node: tree_sitter.Node) -> str:
        return self.text(node)

    def receiver_of(self, node: tree_sitter.Node) -> TypeExpr | None:
        raise NotImplementedError

    def string_site(self, offset: int) -> Site | None:
        """A string literal that names a code symbol (PHP's `[Foo::class, 'method']`);
        other strings are text, not sites."""
        return None

    def binding(self, node: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
        """The node that binds `name` in a function enclosing `node` (innermost first),
        or None when the name is not local: file-level names are in the index."""
        raise NotImplementedError

    # What binds a name inside a function body: `@t` a target (patterns allowed), `@d` a
    # nested definition's name, `@i` an import statement.
    binding_query: str = ""

    def names_bound(self, capture: str, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        raise NotImplementedError

    def same_name(self, ident: tree_sitter.Node, name: str) -> bool:
        return self.text(ident) == name

    def branch_at(self, at: int, obj: tree_sitter.Node) -> str | None:
        """Where `obj` lies relative to the `if` whose condition holds byte `at`: `then`
        (its body), `else` (an `else`/`elif` branch), or None (elsewhere: after it)."""
        node = self.doc.tree.root_node.descendant_for_byte_range(at, at)  # type: ignore[union-attr]
        stmt = nearest_ancestor(node, frozenset({"if_statement"})) if node is not None else None
        cond = stmt.child_by_field_name("condition") if stmt is not None else None
        if stmt is None or cond is None or not cond.start_byte <= at < cond.end_byte:
            return None
        body = stmt.child_by_field_name("consequence") or stmt.child_by_field_name("body")
        if body is not None and body.start_byte <= obj.start_byte < body.end_byte:
            return "then"
        for alt in stmt.children_by_field_name("alternative"):
            if alt.start_byte <= obj.start_byte < alt.end_byte:
                return "else"
        return None

    def bound_in_body(self, scope: tree_sitter.Node, name: str, before: int) -> tree_sitter.Node | None:
        """The binding of `name` directly in `scope`'s body (not in nested functions).
        The query runs in C; only binding sites reach Python, not every node of a
        long function."""
        body = scope.child_by_field_name("body")
        if body is None:
            return None
        grammar = GRAMMARS[self.doc.language]
        assert grammar is not None
        captures = tree_sitter.QueryCursor(query(grammar, self.binding_query)).captures(body)
        best: tree_sitter.Node | None = None
        for capture, nodes in captures.items():
            for n in nodes:
                matches = [i for i in self.names_bound(capture, n) if self.same_name(i, name)]
                if not matches:
                    continue
                # only now the (costly: tree-sitter walks down from the root) parent check
                owner = n.parent if capture == "d" else n
                if owner is None or nearest_ancestor(owner, self.function_types) != scope:
                    continue
                for ident in matches:
                    best = _earlier(best, ident, before)
        return best


# ---- Python -------------------------------------------------------------------------


_PY_LITERALS = {
    "dictionary": "dict", "dictionary_comprehension": "dict", "list": "list",
    "list_comprehension": "list", "set": "set", "set_comprehension": "set", "string": "str",
    "concatenated_string": "str", "integer": "int", "float": "float", "tuple": "tuple",
    "true": "bool", "false": "bool",
}


def _python_module_ref(doc: SourceDocument, node: tree_sitter.Node) -> str | None:
    """`from ._exceptions import X` / `import a.b.c`: the module text up to `node`."""
    dotted = node.parent
    if dotted is None or dotted.type != "dotted_name":
        return None
    holder = dotted.parent
    prefix = ""
    if holder is not None and holder.type == "relative_import":
        prefix = "".join(doc.node_text(c) for c in holder.named_children if c.type == "import_prefix")
        holder = holder.parent
    elif holder is not None and holder.type == "aliased_import" and holder.child_by_field_name("name") == dotted:
        holder = holder.parent
        if holder is not None and holder.type == "import_from_statement":
            return None  # `from m import a as b`: a name, not a module
    if holder is None:
        return None
    is_module = (
        holder.type == "import_statement"
        or (holder.type == "import_from_statement" and holder.child_by_field_name("module_name") in (dotted, dotted.parent))
    )
    if not is_module:
        return None
    upto = doc.data[dotted.start_byte : node.end_byte].decode("utf-8", errors="replace")
    return prefix + upto


_PY_ASSIGNMENTS = frozenset({"assignment", "augmented_assignment"})
_PY_CONTAINER_LITERALS = frozenset({"list", "dict", "set", "tuple"})
_PY_COMPREHENSIONS = frozenset({"list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"})
# builtins that copy an iterable's items into a new container
_PY_COPIES = frozenset({"list", "tuple", "sorted", "reversed", "set", "frozenset", "iter", "enumerate", "next"})


class _Python(_Language):
    binding_query = """
    (assignment left: (_) @t)
    (augmented_assignment left: (_) @t)
    (for_statement left: (_) @t)
    (for_in_clause left: (_) @t)
    (as_pattern_target) @t
    (named_expression name: (identifier) @t)
    (function_definition name: (identifier) @d)
    (class_definition name: (identifier) @d)
    (import_statement) @i
    (import_from_statement) @i
    """
    identifiers = frozenset({"identifier"})
    class_types = frozenset({"class_definition"})
    function_types = frozenset({"function_definition", "lambda"})

    def site(self, node: tree_sitter.Node) -> Site:
        module = _python_module_ref(self.doc, node)
        if module is not None:
            return Site(self.text(node), self.doc.node_range(node), module=module)
        parent = node.parent
        if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
            # `f(headers=...)` names the callee's parameter, not any `headers` attribute
            return Site(self.text(node), self.doc.node_range(node), parameter=True)
        return super().site(node)

    def string_site(self, offset: int) -> Site | None:
        """`"Client"` in `__all__` or a type (`x: "Client"`, `Union["URL", str]`): the name."""
        found = type_string_at(self.doc.data, self.doc.tree.root_node, offset)  # type: ignore[union-attr]
        if found is None:
            return None
        start, end, name = found
        return Site(name, self.doc.byte_range(start, end))

    def receiver_of(self, node: tree_sitter.Node) -> TypeExpr | None:
        parent = node.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            obj = parent.child_by_field_name("object")
            return self.narrowed(obj) or self.expr_type(obj, 0) or TypeExpr("unknown")
        return None

    def narrowed(self, obj: tree_sitter.Node | None) -> TypeExpr | None:
        """`assert isinstance(x, T)` / `if isinstance(x, T):` earlier in the function
        makes `x` a T where it is used (the last such check before the use wins)."""
        if obj is None or obj.type not in ("identifier", "attribute"):
            return None
        scope = nearest_ancestor(obj, self.function_types)
        if scope is None:
            return None
        head = self.doc.data[scope.start_byte : obj.start_byte]
        written = re.escape(self.doc.data[obj.start_byte : obj.end_byte])
        found = None
        if b"isinstance" in head:
            for found in re.finditer(rb"isinstance\(\s*" + written + rb"\s*,\s*([\w.]+)\s*\)", head):
                pass
        # `if is_index_sig(obj):` with `def is_index_sig(sig) -> TypeGuard[_ix_sig]`
        guard = None
        for guard in re.finditer(rb"\b(?:if|elif|assert)\s+([A-Za-z_][\w.]*)\(\s*" + written + rb"\s*\)", head):
            pass
        if guard is not None and (found is None or guard.start() > found.start()):
            return TypeExpr("guard", guard.group(1).decode(), self.expr_type(obj, 0))
        if found is None:
            return None
        negated = re.search(rb"\bnot\s+\(?\s*$", head[: found.start()]) is not None
        if _excluded(negated, self.branch_at(scope.start_byte + found.start(), obj)):
            # `if isinstance(x, A): … else: x.m()`, `if not isinstance(x, A): x.m()`
            declared = self.expr_type(obj, 0)
            return TypeExpr("excluding", found.group(1).decode(), declared) if declared is not None else None
        return TypeExpr("named", found.group(1).decode())

    def expr_type(self, node: tree_sitter.Node | None, depth: int) -> TypeExpr | None:
        if node is None or depth > _MAX_DEPTH:
            return None
        t = node.type
        if t == "identifier":
            name = self.text(node)
            if name in ("self", "cls") and nearest_ancestor(node, self.class_types) is not None:
                return TypeExpr("self")
            bound = self.binding(node, name)
            if bound is None or _is_import_binding(bound):
                return TypeExpr("global", name)
            # `request = next(flow)` says nothing: an earlier `request = Request(...)`
            # does (a name mostly keeps its type). A call's result is known only once
            # evaluated, so earlier bindings stay as alternatives behind it.
            found = [self.binding_type(bound, depth)]
            for _ in range(3):
                if found[-1] is not None and found[-1].op != "returns":
                    break
                earlier = self.binding(node, name, bound.start_byte - 1)
                if earlier is None or earlier.start_byte >= bound.start_byte or _is_import_binding(earlier):
                    break
                bound = earlier
                found.append(self.binding_type(bound, depth))
            result: TypeExpr | None = None
            for t in reversed(found):
                if t is not None:
                    result = t if result is None else TypeExpr("either", base=t, alt=result)
            if result is None or (result.op == "named" and result.arg in _PY_CONTAINER_LITERALS):
                # `picked = []` / `[… for …]` under an earlier `picked: list[Revision]`
                return self.declared_before(node, name, bound) or result
            return result
        if t == "attribute":
            base = self.expr_type(node.child_by_field_name("object"), depth)
            attr = self.text(node.child_by_field_name("attribute"))
            return TypeExpr("member", attr, base) if base is not None else None
        if t == "call":
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type == "identifier" and self.text(fn) == "super":
                return TypeExpr("super")
            args = node.child_by_field_name("arguments")
            # `next(p for p in ps)`: the generator is the call's whole argument list
            positional = [args] if args is not None and args.type == "generator_expression" else (
                [a for a in args.named_children if a.type != "comment"] if args is not None else []
            )
            if fn is not None and self.text(fn) in ("cast", "typing.cast") and len(positional) == 2:
                # `cast("Constraints", field_meta.constraints)`: the type it names
                written = self.text(positional[0]).strip()
                if positional[0].type == "string":
                    written = written.strip("'\"")
                return TypeExpr("named", written) if written else None
            if (
                fn is not None and fn.type == "identifier" and self.text(fn) in _PY_COPIES
                and len(positional) == 1 and positional[0].type not in ("keyword_argument", "list_splat", "dictionary_splat")
                and self.binding(fn, self.text(fn)) is None
            ):
                # `list(params.values())`, `sorted(routes)`: the same items as what is copied;
                # `enumerate(routes)`: (index, item) pairs
                if self.text(fn) == "next":
                    # `next(p for p in command.params if …)`: what the generator yields
                    arg = positional[0]
                    if arg.type == "generator_expression":
                        return self.expr_type(arg.child_by_field_name("body"), depth + 1)
                    items = self.expr_type(arg, depth + 1)
                    return TypeExpr("element", "iter", items) if items is not None else None
                copied = self.expr_type(positional[0], depth)
                if self.text(fn) == "enumerate":
                    return TypeExpr("view", "enumerate", copied) if copied is not None else None
                return copied
            callee = self.expr_type(fn, depth)
            if callee is not None and callee.op == "member" and callee.arg in PY_VIEWS:
                # `params.items()`: from `params`' declared container type when it has one
                return TypeExpr("view", callee.arg, callee.base)
            return TypeExpr("returns", base=callee) if callee is not None else None
        if t in ("parenthesized_expression", "await", "conditional_expression") and node.named_child_count:
            # `await c.get()`: an async def's declared type is what await gives;
            # `A() if c else b`: the first branch
            return self.expr_type(node.named_children[0], depth)
        if t == "boolean_operator" and self.text(node.child_by_field_name("operator")) == "or":
            # `transport or HTTPTransport()`: the left side's type, else the right's
            left = self.expr_type(node.child_by_field_name("left"), depth)
            right = self.expr_type(node.child_by_field_name("right"), depth)
            if left is not None and right is not None:
                return TypeExpr("either", base=left, alt=right)
            return left or right
        if t == "subscript":
            if any(c.type == "slice" for c in node.children_by_field_name("subscript")):
                # `unassigned[:]`: a copy of the container
                return self.expr_type(node.child_by_field_name("value"), depth)
            # `self._spans[0]`, `layout["left"]`: an item of the container's type
            base = self.expr_type(node.child_by_field_name("value"), depth)
            return TypeExpr("element", "index", base) if base is not None else None
        literal = _PY_LITERALS.get(t)
        return TypeExpr("named", literal) if literal else None

    def binding_type(self, bound: tree_sitter.Node, depth: int) -> TypeExpr | None:
        """The type of a local from its annotation or the value assigned to it."""
        holder = bound.parent
        if holder is None:
            return None
        if holder.type in ("typed_parameter", "typed_default_parameter"):
            ann = holder.child_by_field_name("type")
            return TypeExpr("named", self.text(ann)) if ann is not None else None
        if holder.type in ("class_definition", "function_definition") and holder.child_by_field_name("name") == bound:
            # a test's own `class C:` (attrs defines one per test): that definition
            return TypeExpr("defined", f"{self.text(bound)}:{bound.start_point[0]}")
        if holder.type == "assignment" and holder.child_by_field_name("left") == bound:
            ann = holder.child_by_field_name("type")
            if ann is not None:
                return TypeExpr("named", self.text(ann))
            return self.expr_type(holder.child_by_field_name("right"), depth + 1)
        if holder.type in ("for_statement", "for_in_clause") and holder.child_by_field_name("left") == bound:
            # `for span in self._spans:` with `_spans: List[Span]`: an element
            base = self.expr_type(holder.child_by_field_name("right"), depth + 1)
            return TypeExpr("element", "iter", base) if base is not None else None
        loop = holder.parent
        if (
            holder.type in ("pattern_list", "tuple_pattern") and loop is not None
            and loop.type in ("for_statement", "for_in_clause") and loop.child_by_field_name("left") == holder
        ):
            # `for position, text, tag in _parse(markup):` -> item 2 of the element
            base = self.expr_type(loop.child_by_field_name("right"), depth + 1)
            index = holder.named_children.index(bound) if bound in holder.named_children else -1
            if base is None or index < 0:
                return None
            return TypeExpr("element", f"item:{index}", TypeExpr("element", "iter", base))
        if holder.type == "as_pattern_target" and holder.parent is not None:
            # `with Client() as client:` -> what the context manager is (the usual
            # `__enter__` returns self)
            pattern = holder.parent
            if pattern.type == "as_pattern" and pattern.named_child_count:
                return self.expr_type(pattern.named_children[0], depth + 1)
        return None

    def binding(self, node: tree_sitter.Node, name: str, before: int | None = None) -> tree_sitter.Node | None:
        """The binding in effect at `node` (or at byte `before` of its function)."""
        own = self.comprehension_binding(node, name) if before is None else None
        if own is not None:
            return own
        innermost = nearest_ancestor(node, self.function_types)
        scope = innermost
        while scope is not None:
            found = self._bound_in(scope, name, node.start_byte if before is None else before)
            if found is not None:
                stmt = nearest_ancestor(found, _PY_ASSIGNMENTS)
                left = stmt.child_by_field_name("left") if stmt is not None else None
                right = stmt.child_by_field_name("right") if stmt is not None else None
                if (
                    left is not None and right is not None
                    and left.start_byte <= found.start_byte < left.end_byte
                    and right.start_byte <= node.start_byte < right.end_byte
                ):
                    # `url = url.copy_with(...)`: the right side reads the binding before
                    # it. None before it in the function (a global, a builtin: only the
                    # statement itself was found, as a loop's later binding) binds nothing
                    # here; searched again before the statement, by a loop rather than a
                    # call, so a long chain of `x = x + …` cannot exhaust the stack.
                    if before is not None and found.start_byte > before:
                        return None
                    before = stmt.start_byte - 1  # type: ignore[union-attr]
                    scope = innermost
                    continue
                return found
            scope = nearest_ancestor(scope, self.function_types)
        return None

    def declared_before(self, node: tree_sitter.Node, name: str, bound: tree_sitter.Node) -> TypeExpr | None:
        """`roots: list[Revision]` declared once, then `roots = [… for …]` in each branch:
        the declaration types every later binding that says nothing itself."""
        for _ in range(12):
            earlier = self.binding(node, name, bound.start_byte - 1)
            if earlier is None or earlier.start_byte >= bound.start_byte or _is_import_binding(earlier):
                return None
            bound = earlier
            holder = bound.parent
            ann = holder.child_by_field_name("type") if holder is not None and holder.type == "assignment" else None
            if ann is not None and holder.child_by_field_name("left") == bound:  # type: ignore[union-attr]
                return TypeExpr("named", self.text(ann))
        return None

    def comprehension_binding(self, node: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
        """`tuple(rev.revision for rev in heads)`: a comprehension's `for` binds its
        variable for the whole comprehension, the expression written before it included
        (an earlier `for rev in …` loop of the function is another variable)."""
        cur = node.parent
        while cur is not None and cur.type not in self.function_types:
            if cur.type in _PY_COMPREHENSIONS:
                for clause in cur.named_children:
                    left = clause.child_by_field_name("left") if clause.type == "for_in_clause" else None
                    right = clause.child_by_field_name("right") if left is not None else None
                    if right is not None and right.start_byte <= node.start_byte < right.end_byte:
                        continue  # `for x in x.items` reads the outer `x`
                    for ident in _identifiers(left) if left is not None else []:
                        if self.text(ident) == name:
                            return ident
            cur = cur.parent
        return None

    def _bound_in(self, scope: tree_sitter.Node, name: str, before: int) -> tree_sitter.Node | None:
        param = None
        params = scope.child_by_field_name("parameters")
        if params is not None:
            for p in params.named_children:
                ident = p if p.type == "identifier" else (
                    p.child_by_field_name("name") or next(
                        (c for c in p.named_children if c.type == "identifier"), None
                    )
                )
                if ident is not None and ident.type == "identifier" and self.text(ident) == name:
                    param = ident
                    break
        body = self.bound_in_body(scope, name, before)
        # `url = httpx.URL(url)` rebinds the parameter for what follows
        if body is not None and (param is None or body.start_byte <= before):
            return body
        return param

    def names_bound(self, capture: str, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        if capture == "i":
            out = []
            for n in node.children_by_field_name("name"):
                ident = n.child_by_field_name("alias") if n.type == "aliased_import" else n
                if ident is not None:
                    out.append(ident.named_children[0] if ident.type == "dotted_name" else ident)
            return out
        return [node] if capture == "d" else _identifiers(node)


def _excluded(negated: bool, branch: str | None) -> bool:
    """A type check that says what the value is NOT where it is used: the `else` of a
    positive check, or the body of a negated one."""
    return branch == ("then" if negated else "else")


def _identifiers(target: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Names a binding target binds (`a`, `a, b`, `(a, [b, c])`), not `x.a` or `x[i]`."""
    if target.type in ("identifier", "name"):
        return [target]
    if target.type in ("pattern_list", "tuple_pattern", "list_pattern", "as_pattern_target",
                       "expression_list", "tuple", "list", "list_splat_pattern", "parenthesized_expression"):
        return [i for c in target.named_children for i in _identifiers(c)]
    return []


def _earlier(best: tree_sitter.Node | None, cand: tree_sitter.Node, before: int) -> tree_sitter.Node:
    """Prefer the last binding before the use; a binding after it (a loop) is a fallback."""
    if best is None:
        return cand
    b_before, c_before = best.start_byte <= before, cand.start_byte <= before
    if c_before and (not b_before or cand.start_byte > best.start_byte):
        return cand
    if not b_before and not c_before and cand.start_byte < best.start_byte:
        return cand
    return best


# ---- JavaScript / TypeScript ----------------------------------------------------------


class _Js(_Language):
    _js_binding_query = """
    (variable_declarator name: (_) @t)
    (for_in_statement left: (_) @t)
    (catch_clause parameter: (_) @t)
    (function_declaration name: (_) @d)
    (class_declaration name: (_) @d)
    """
    # TS only (the JavaScript grammar has no such nodes): types declared in a function
    _ts_binding_query = """
    (type_alias_declaration name: (_) @d)
    (interface_declaration name: (_) @d)
    """

    @property  # type: ignore[override]
    def binding_query(self) -> str:
        base = self._js_binding_query
        return base if GRAMMARS.get(self.doc.language) == "javascript" else base + self._ts_binding_query
    identifiers = frozenset({
        "identifier", "property_identifier", "private_property_identifier", "type_identifier",
        "shorthand_property_identifier", "shorthand_property_identifier_pattern",
    })
    class_types = frozenset({"class_declaration", "class", "abstract_class_declaration"})

    def string_site(self, offset: int) -> Site | None:
        """A name linked from a doc comment (`{@link Task}`) is that name, resolved like
        code where the comment stands (tsserver does)."""
        root = self.doc.tree.root_node  # type: ignore[union-attr]
        comment = root.descendant_for_byte_range(offset, offset)
        if comment is None or comment.type != "comment":
            return None
        at = offset - comment.start_byte
        for s, e, name in link_names(self.doc.data[comment.start_byte : comment.end_byte]):
            if s <= at <= e:
                return Site(name, self.doc.byte_range(comment.start_byte + s, comment.start_byte + e))
        return None

    def site(self, node: tree_sitter.Node) -> Site:
        key = self.destructured_key(node)
        if key is not None:
            # `const {url} = options`: the name reads the member `url` of `options`
            base = super().site(node)
            return replace(base, receiver=key, local=None)
        literal = _literal_of_key(node)
        if literal is not None:
            # `{host: 'a'}` passed where `ClientOptions` is expected: `ClientOptions.host`
            found = self.literal_context(literal, 0)
            context = TypeExpr("context", base=found) if found is not None else TypeExpr("unknown")
            base = super().site(node)
            if node.type == "shorthand_property_identifier":
                return replace(base, receiver=context, shorthand=True)
            return replace(base, receiver=context, local=None)
        base = super().site(node)
        inline = self.inline_member(node) or self.literal_member(node)
        if inline is not None:
            # `options.headerName` with `options: { headerName?: string }`: that line
            return replace(base, receiver=None, local=self.doc.node_range(inline))
        callee = node.parent if node.parent is not None and node.parent.type == "member_expression" else node
        holder = callee.parent
        if holder is not None and holder.type == "call_expression" and holder.child_by_field_name("function") == callee:
            return replace(base, args=self.call_args(holder))
        if holder is not None and holder.type == "new_expression" and holder.child_by_field_name("constructor") == callee:
            return replace(base, new=True)
        return base

    def inline_member(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The property a member access names when its object is a local or parameter
        annotated with an object type written in place (`options: { a?: T }`): the
        index keeps no symbol for it, the tree has it."""
        parent = node.parent
        if parent is None or parent.type != "member_expression" or parent.child_by_field_name("property") != node:
            return None
        obj = parent.child_by_field_name("object")
        if obj is None or obj.type != "identifier":
            return None
        bound = self.binding(obj, self.text(obj))
        holder = bound.parent if bound is not None else None
        ann = holder.child_by_field_name("type") if holder is not None else None
        shape = ann.named_children[0] if ann is not None and ann.named_child_count else None
        if shape is None or shape.type != "object_type":
            return None
        name = self.text(node)
        for member in shape.named_children:
            key = member.child_by_field_name("name")
            if member.type in ("property_signature", "method_signature") and key is not None and self.text(key) == name:
                return key
        return None

    def literal_member(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """`test.period` where `test` holds an object literal written in this file:
        `const o = {period: 1}`, or an item of `const tests = [{period: 200}, …]`
        (`tests.forEach((test) => …)`, `for (const test of tests)`): the key in the
        (first) literal, which is what tsserver answers; the index has no symbol."""
        parent = node.parent
        if parent is None or parent.type != "member_expression" or parent.child_by_field_name("property") != node:
            return None
        obj = parent.child_by_field_name("object")
        literal = self.literal_value(obj, 0) if obj is not None and obj.type == "identifier" else None
        if literal is None or literal.type != "object":
            return None
        name = self.text(node)
        for pair in literal.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else (pair if pair.type == "shorthand_property_identifier" else None)
            if key is not None and key.type in ("property_identifier", "shorthand_property_identifier") and self.text(key) == name:
                return key
        return None

    def literal_value(self, ident: tree_sitter.Node, depth: int) -> tree_sitter.Node | None:
        """The object or array literal a name holds, for a `const` declared with one, an
        item of such an array (a loop, an array method's callback), or None."""
        if depth > 3:
            return None
        name = self.text(ident)
        bound = self.binding(ident, name)
        if bound is None:
            program = _root(ident)
            bound = next((
                n for stmt in program.named_children
                for decl in [stmt.child_by_field_name("declaration") if stmt.type == "export_statement" else stmt]
                if decl is not None and decl.type == "lexical_declaration"
                for d in decl.named_children
                for n in [d.child_by_field_name("name")]
                if d.type == "variable_declarator" and n is not None and n.type == "identifier" and self.text(n) == name
            ), None)
        holder = bound.parent if bound is not None else None
        if holder is None:
            return None
        if holder.type == "variable_declarator" and holder.child_by_field_name("name") == bound:
            if holder.child_by_field_name("type") is not None:
                return None  # a declared type says more than the literal
            value = holder.child_by_field_name("value")
            return value if value is not None and value.type in ("object", "array") else None
        items = None
        if holder.type == "for_in_statement" and holder.child_by_field_name("left") == bound:
            items = holder.child_by_field_name("right")
        else:
            func = holder if holder.type == "arrow_function" else (holder.parent.parent if holder.type == "required_parameter" and holder.parent is not None else None)
            args = func.parent if func is not None else None
            call = args.parent if args is not None and args.type == "arguments" else None
            fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
            params = func.child_by_field_name("parameters") if func is not None else None
            first = (params.named_children[:1] or [None])[0] if params is not None else func.child_by_field_name("parameter") if func is not None else None
            if (
                fn is not None and fn.type == "member_expression" and first in (bound, holder)
                and self.text(fn.child_by_field_name("property")) in _ITEM_CALLBACKS
                and args is not None and args.named_children[:1] == [func]
            ):
                items = fn.child_by_field_name("object")
        if items is None or items.type != "identifier":
            return None
        array = self.literal_value(items, depth + 1)
        if array is None or array.type != "array":
            return None
        return next((c for c in array.named_children if c.type == "object"), None)

    def call_args(self, call: tree_sitter.Node) -> tuple[Arg, ...] | None:
        args = call.child_by_field_name("arguments")
        if args is None or args.type != "arguments":
            return None  # a tagged template
        out: list[Arg] = []
        for a in args.named_children:
            if a.type == "spread_element":
                return None  # arity unknown
            if a.type == "comment":
                continue
            if a.type in _ARG_SHAPES:
                out.append(_ARG_SHAPES[a.type])
                continue
            if a.type == "identifier":
                out.append(self.local_shape(a))
                continue
            frag = [c for c in a.named_children if c.type == "string_fragment"] if a.type == "string" else []
            out.append(self.text(frag[0]) if len(frag) == 1 else ("" if a.type == "string" else None))
        return tuple(out)

    def local_shape(self, ident: tree_sitter.Node) -> Arg:
        """A local passed by name: an object literal or a function when its declaration
        says so (`const opts: IClientOptions = {…}`, `function onDone() {…}`)."""
        bound = self.binding(ident, self.text(ident)) or self._file_const(_root(ident), self.text(ident))
        holder = bound.parent if bound is not None else None
        if holder is None:
            return None
        if holder.type in ("function_declaration", "generator_function_declaration"):
            return ArgShape.FUNCTION
        value = holder.child_by_field_name("value") if holder.type == "variable_declarator" else None
        if value is None or holder.child_by_field_name("name") != bound:
            return None
        if value.type in ("call_expression", "new_expression") and holder.child_by_field_name("type") is None:
            # what the call gives decides between overloads taking related types
            # (`Atom<V>` passed where one overload wants the narrower `WritableAtom`)
            got = self.expr_type(value, 2)
            if got is not None and got.op == "returns" and got.args is None and value.type == "call_expression":
                got = replace(got, args=self.call_args(value))  # its own overload decides
            return got
        return _ARG_SHAPES.get(value.type)

    def literal_context(self, obj: tree_sitter.Node, depth: int) -> TypeExpr | None:
        """The type an object literal is checked against where the code declares one: a
        typed variable, field or parameter default, the declared return type of the
        function returning it, `satisfies`/`as`, the parameter it is passed to, the
        member it is assigned to, or (nested) the type of the key holding it."""
        if depth > _MAX_DEPTH:
            return None
        parent = obj.parent
        while parent is not None and parent.type == "parenthesized_expression":
            obj, parent = parent, parent.parent
        if parent is None:
            return None
        t = parent.type
        if t in ("satisfies_expression", "as_expression"):
            if parent.named_child_count > 1 and parent.named_children[0] == obj:
                return TypeExpr("named", self.text(parent.named_children[1]))
            return None
        if t in ("variable_declarator", "public_field_definition", "required_parameter", "optional_parameter"):
            if parent.child_by_field_name("value") != obj:
                return None
            ann = parent.child_by_field_name("type")
            return TypeExpr("named", self.text(ann).lstrip(":").strip()) if ann is not None else None
        if t == "return_statement" or (t == "arrow_function" and parent.child_by_field_name("body") == obj):
            fn = parent if t == "arrow_function" else nearest_ancestor(parent, self.function_types)
            ret = fn.child_by_field_name("return_type") if fn is not None else None
            return TypeExpr("named", self.text(ret).lstrip(":").strip()) if ret is not None else None
        if t == "pair" and parent.child_by_field_name("value") == obj:
            outer = parent.parent
            key = parent.child_by_field_name("key")
            if outer is None or outer.type != "object" or key is None or key.type != "property_identifier":
                return None
            base = self.literal_context(outer, depth + 1)
            return TypeExpr("member", self.text(key), base) if base is not None else None
        if t == "assignment_expression" and parent.child_by_field_name("right") == obj:
            # `this.options = {…}`, or a typed variable or parameter assigned again
            # (got's `defaults = {options: …}` with `defaults: InstanceDefaults`)
            left = parent.child_by_field_name("left")
            return self.expr_type(left, depth + 1) if left is not None and left.type in ("member_expression", "identifier") else None
        if t == "arguments":
            call = parent.parent
            index = next((i for i, a in enumerate(parent.named_children) if a == obj), None)
            if call is None or index is None:
                return None
            callee = self.callee_type(call, depth)
            return TypeExpr("param", str(index), callee) if callee is not None else None
        return None

    def destructured_key(self, node: tree_sitter.Node) -> TypeExpr | None:
        """The member a destructuring pattern's key reads (`{url}` / `{url: u}` in a
        `const … = value`), as a receiver type expression."""
        parent = node.parent
        if node.type == "shorthand_property_identifier_pattern" and parent is not None and parent.type == "object_pattern":
            pattern = parent
        elif (
            node.type == "property_identifier" and parent is not None and parent.type == "pair_pattern"
            and parent.child_by_field_name("key") == node
        ):
            pattern = parent.parent
        else:
            return None
        decl = pattern.parent if pattern is not None else None
        if decl is None or decl.type != "variable_declarator" or decl.child_by_field_name("name") != pattern:
            return None
        return self.expr_type(decl.child_by_field_name("value"), 0) or TypeExpr("unknown")
    function_types = frozenset({
        "function_declaration", "function_expression", "arrow_function", "method_definition",
        "generator_function_declaration", "function", "generator_function",
    })

    def receiver_of(self, node: tree_sitter.Node) -> TypeExpr | None:
        parent = node.parent
        if parent is not None and parent.type == "member_expression" and parent.child_by_field_name("property") == node:
            return self.expr_type(parent.child_by_field_name("object"), 0) or TypeExpr("unknown")
        if parent is not None and parent.type == "nested_type_identifier" and node.type == "type_identifier":
            module = parent.child_by_field_name("module")
            if module is None:
                return None
            # `Command.Arg.Any`: the member `Any` of `Arg` of `Command` (nested namespaces)
            first, *rest = self.text(module).split(".")
            expr = TypeExpr("global", first)
            for part in rest:
                expr = TypeExpr("member", part.strip(), expr)
            return expr
        return None

    def expr_type(self, node: tree_sitter.Node | None, depth: int) -> TypeExpr | None:
        if node is None or depth > _MAX_DEPTH:
            return None
        t = node.type
        if t == "this":
            if nearest_ancestor(node, self.class_types) is None:
                return None
            # in a static method `this` is the class: its static members
            method = nearest_ancestor(node, frozenset({"method_definition"}))
            static = method is not None and any(c.type == "static" for c in method.children)
            return TypeExpr("self", "static" if static else "")
        if t == "super":
            return TypeExpr("super")
        if t == "identifier":
            name = self.text(node)
            bound = self.binding(node, name)
            if bound is None:
                program = node
                while program.parent is not None:
                    program = program.parent
                const = self._file_const(program, name)
                typed = self.binding_type(const, depth) if const is not None else None
                return typed or TypeExpr("global", name)
            return self.binding_type(bound, depth)
        if t == "member_expression":
            base = self.expr_type(node.child_by_field_name("object"), depth)
            prop = self.text(node.child_by_field_name("property"))
            return TypeExpr("member", prop, base) if base is not None else None
        if t == "call_expression":
            local = self.local_call_type(node.child_by_field_name("function"), depth)
            if local is not None:
                return local
            callee = self.expr_type(node.child_by_field_name("function"), depth)
            return TypeExpr("returns", base=callee) if callee is not None else None
        if t == "new_expression":
            ctor = node.child_by_field_name("constructor")
            return TypeExpr("named", self.text(ctor)) if ctor is not None else None
        if t in ("parenthesized_expression", "non_null_expression", "await_expression") and node.named_child_count:
            return self.expr_type(node.named_children[0], depth)
        if t in ("as_expression", "satisfies_expression") and node.named_child_count > 1:
            return TypeExpr("named", self.text(node.named_children[1]))
        if t == "subscript_expression":
            # `nodes[0]` with `nodes: Redis[]`: an item of the array's type
            base = self.expr_type(node.child_by_field_name("object"), depth)
            return TypeExpr("element", "index", base) if base is not None else None
        return None

    def local_call_type(self, fn: tree_sitter.Node | None, depth: int) -> TypeExpr | None:
        """Calling a function declared in an enclosing function (a test suite's
        `function connect(opts) { …; return instance }`): its declared return type, else
        the type of what it returns. The index keeps no symbol for it."""
        if fn is None or fn.type != "identifier" or depth > _MAX_DEPTH:
            return None
        bound = self.binding(fn, self.text(fn))
        holder = bound.parent if bound is not None else None
        if holder is None:
            return None
        if holder.type in ("function_declaration", "generator_function_declaration"):
            func = holder
        elif holder.type == "variable_declarator" and holder.child_by_field_name("name") == bound:
            func = holder.child_by_field_name("value")
            if func is None or func.type not in ("arrow_function", "function_expression", "function"):
                return None
        else:
            return None
        ret = func.child_by_field_name("return_type")
        if ret is not None:
            return TypeExpr("named", self.text(ret).lstrip(":").strip())
        body = func.child_by_field_name("body")
        if body is None:
            return None
        if body.type != "statement_block":
            return self.expr_type(body, depth + 1)
        for value in _returned_values(body, self.function_types):
            found = self.expr_type(value, depth + 1)
            if found is not None:
                return found
        return None

    def constrained(self, ann: tree_sitter.Node) -> str | None:
        """`app: T` with `<T extends Hono<any>>` on an enclosing function or class: the
        constraint, what the members of `app` are looked up in."""
        written = ann.named_children[0] if ann.named_child_count else None
        if written is None or written.type != "type_identifier":
            return None
        bound = self.binding(written, self.text(written))
        param = bound.parent if bound is not None else None
        constraint = param.child_by_field_name("constraint") if param is not None and param.type == "type_parameter" else None
        if constraint is None:
            return None
        return self.text(constraint).removeprefix("extends").strip() or None

    def callback_parameter(self, bound: tree_sitter.Node, depth: int) -> TypeExpr | None:
        """An untyped parameter of a function passed as an argument (`new Worker(name,
        async (job) => job.data)`, `items.forEach((item) => …)`): parameter `j` of the
        function type the callee declares for that argument."""
        holder = bound.parent
        if holder is None:
            return None
        if holder.type in ("arrow_function",) and holder.child_by_field_name("parameter") == bound:
            func, j = holder, 0
        elif holder.type in ("required_parameter", "optional_parameter") and holder.child_by_field_name("pattern") == bound:
            params = holder.parent
            func = params.parent if params is not None else None
            if func is None or func.type not in ("arrow_function", "function_expression", "function", "method_definition"):
                return None
            if func.type == "method_definition" and (func.parent is None or func.parent.type != "object"):
                return None  # a class method's parameters are declared, not contextual
            j = next((i for i, p in enumerate(params.named_children) if p == holder), -1)  # type: ignore[union-attr]
        else:
            return None
        if j < 0:
            return None
        holder = func.parent
        if holder is not None and (
            holder.type == "return_statement" or holder.type == "arrow_function" and holder.child_by_field_name("body") == func
        ):
            # `(options): MiddlewareHandler => { return async function (c, next) {…} }`
            outer = holder if holder.type == "arrow_function" else nearest_ancestor(holder, self.function_types)
            ret = outer.child_by_field_name("return_type") if outer is not None else None
            return TypeExpr("callback", str(j), TypeExpr("named", self.text(ret).lstrip(":").strip())) if ret is not None else None
        if holder is not None and holder.type in ("variable_declarator", "public_field_definition") and holder.child_by_field_name("value") == func:
            # `const handlePublish: PacketHandler = (client, packet) => …`
            ann = holder.child_by_field_name("type")
            declared = TypeExpr("named", self.text(ann).lstrip(":").strip()) if ann is not None else None
            return TypeExpr("callback", str(j), declared) if declared is not None else None
        member = _literal_member(func)
        if member is not None:
            # `validator: { validate: (value, args) => … }` in a literal checked against
            # a declared type: parameter j of that type's `validate`
            key, literal = member
            ctx = self.literal_context(literal, depth + 1)
            return TypeExpr("param", str(j), TypeExpr("member", self.text(key), ctx)) if ctx is not None else None
        args = func.parent
        call = args.parent if args is not None and args.type == "arguments" else None
        if call is None:
            return None
        i = next(k for k, a in enumerate(args.named_children) if a == func)  # type: ignore[union-attr]
        fn = call.child_by_field_name("function")
        method = (
            self.text(fn.child_by_field_name("property"))
            if call.type == "call_expression" and fn is not None and fn.type == "member_expression"
            and i == 0 and j == 0 else None
        )
        if method == "then":
            # `validator.validate(model).then(errors => …)`: what the promise resolves to
            # (the evaluator unwraps `Promise<…>` as it does for `await`)
            return self.expr_type(fn.child_by_field_name("object"), depth + 1)  # type: ignore[union-attr]
        if method in _ITEM_CALLBACKS:
            # `nodes.forEach((node) => …)`: an item of the array (lib.d.ts is not indexed)
            items = self.expr_type(fn.child_by_field_name("object"), depth + 1)  # type: ignore[union-attr]
            return TypeExpr("element", "iter", items) if items is not None else None
        callee = self.callee_type(call, depth)
        if callee is None:
            return None
        return TypeExpr("callback", str(j), TypeExpr("param", str(i), callee, args=self.call_args(call)))

    def callee_type(self, call: tree_sitter.Node, depth: int) -> TypeExpr | None:
        """What a call or `new` calls: the function expression's type, or the class."""
        if call.type == "call_expression":
            return self.expr_type(call.child_by_field_name("function"), depth + 1)
        if call.type == "new_expression":
            ctor = call.child_by_field_name("constructor")
            return TypeExpr("named", self.text(ctor)) if ctor is not None else None
        return None

    def assigned_later(self, bound: tree_sitter.Node, depth: int) -> TypeExpr | None:
        """`let client` declared bare, assigned in a hook or a test (`beforeEach(() => {
        client = connect() })`): the type of the first assignment to it in its scope."""
        scope = nearest_ancestor(bound, self.function_types) or _root(bound)
        name = self.text(bound)
        grammar = GRAMMARS[self.doc.language]
        assert grammar is not None
        cursor = tree_sitter.QueryCursor(query(grammar, "(assignment_expression left: (identifier) @l) @a"))
        for _, caps in cursor.matches(scope):
            left = caps["l"][0]
            if self.text(left) != name or left.start_byte < bound.end_byte:
                continue
            if self.binding(left, name) != bound:
                continue  # a shadowing local of the same name
            found = self.expr_type(caps["a"][0].child_by_field_name("right"), depth + 1)
            if found is not None:
                return found
        return None

    def binding_type(self, bound: tree_sitter.Node, depth: int) -> TypeExpr | None:
        holder = bound.parent
        if holder is None:
            return None
        if (
            holder.type == "array_pattern" and holder.parent is not None
            and holder.parent.type == "for_in_statement" and holder.parent.child_by_field_name("left") == holder
            and holder.named_child_count == 2 and holder.named_children[1] == bound
        ):
            # `for (const [index, event] of events.entries())`: the second is an item
            entries = holder.parent.child_by_field_name("right")
            fn = entries.child_by_field_name("function") if entries is not None and entries.type == "call_expression" else None
            if fn is not None and fn.type == "member_expression" and self.text(fn.child_by_field_name("property")) == "entries":
                base = self.expr_type(fn.child_by_field_name("object"), depth + 1)
                return TypeExpr("element", "iter", base) if base is not None else None
            return None
        if holder.type == "for_in_statement" and holder.child_by_field_name("left") == bound:
            # `for (const node of nodes)`: an element (`for … in` gives string keys)
            if holder.child_by_field_name("operator") is None or self.text(holder.child_by_field_name("operator")) != "of":
                return None
            base = self.expr_type(holder.child_by_field_name("right"), depth + 1)
            return TypeExpr("element", "iter", base) if base is not None else None
        ann = holder.child_by_field_name("type")
        if ann is not None and ann.type == "type_annotation":
            return TypeExpr("named", self.constrained(ann) or self.text(ann).lstrip(":").strip())
        callback = self.callback_parameter(bound, depth)
        if callback is not None:
            return callback
        if holder.type == "variable_declarator":
            value = holder.child_by_field_name("value")
            if value is None and holder.child_by_field_name("name") == bound:
                return self.assigned_later(bound, depth)
            return self.expr_type(value, depth + 1)
        if holder.type in ("object_pattern", "pair_pattern"):
            # `const {options} = request` / `const {options: o} = this`: that member;
            # nested, `const { data: { user } } = await client.getUser()`: a member's member
            keys: list[str] = []
            node: tree_sitter.Node | None = bound
            while holder is not None and holder.type in ("object_pattern", "pair_pattern"):
                key = node if holder.type == "object_pattern" else holder.child_by_field_name("key")
                pattern = holder if holder.type == "object_pattern" else holder.parent
                if key is None or pattern is None or pattern.type != "object_pattern":
                    return None
                keys.append(self.text(key))
                up = pattern.parent
                if up is not None and up.type == "pair_pattern" and up.child_by_field_name("value") == pattern:
                    node, holder = pattern, up
                    continue
                if up is None or up.type != "variable_declarator" or up.child_by_field_name("name") != pattern:
                    return None
                base = self.expr_type(up.child_by_field_name("value"), depth + 1)
                for k in reversed(keys):
                    base = TypeExpr("member", k, base) if base is not None else None
                return base
        return None

    def binding(self, node: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
        # Type parameters of an enclosing class, function or type alias.
        cur = node.parent
        while cur is not None:
            tps = cur.child_by_field_name("type_parameters")
            if tps is not None:
                for tp in tps.named_children:
                    nm = tp.child_by_field_name("name")
                    if nm is not None and self.text(nm) == name:
                        return nm
            if cur.type in self.function_types:
                found = self._bound_in(cur, name, node.start_byte)
                if found is not None:
                    return found
            cur = cur.parent
        return None

    def _file_const(self, program: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
        """`const nodes = new Cluster().nodes("master");` at file level: its value is in
        this tree (the index keeps only a shortened signature). Only a declarator whose
        value is a call, `new` or `await` counts: other file-level names stay the
        index's (imports, functions, classes)."""
        for stmt in program.named_children:
            decl = stmt.child_by_field_name("declaration") if stmt.type == "export_statement" else stmt
            if decl is None or decl.type not in ("lexical_declaration", "variable_declaration"):
                continue
            for d in decl.named_children:
                nm = d.child_by_field_name("name") if d.type == "variable_declarator" else None
                value = d.child_by_field_name("value") if nm is not None else None
                if nm is not None and nm.type == "identifier" and self.text(nm) == name:
                    ok = d.child_by_field_name("type") is not None or (
                        value is not None and value.type in ("call_expression", "new_expression", "await_expression")
                    )
                    return nm if ok else None
        return None

    def _bound_in(self, scope: tree_sitter.Node, name: str, before: int) -> tree_sitter.Node | None:
        params = scope.child_by_field_name("parameters") or scope.child_by_field_name("parameter")
        if params is not None:
            plist = [params] if params.type == "identifier" else params.named_children
            for p in plist:
                pat = p if p.type == "identifier" else (p.child_by_field_name("pattern") or p.child_by_field_name("left") or p)
                for ident in _js_pattern_names(pat):
                    if self.text(ident) == name:
                        return ident
        return self.bound_in_body(scope, name, before)

    def names_bound(self, capture: str, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        return [node] if capture == "d" else _js_pattern_names(node)


# Array methods whose callback's first parameter is an item of the array
_ITEM_CALLBACKS = frozenset({"forEach", "map", "filter", "find", "findLast", "some", "every", "flatMap", "findIndex"})

_ARG_SHAPES = {
    "object": ArgShape.OBJECT, "arrow_function": ArgShape.FUNCTION,
    "function_expression": ArgShape.FUNCTION, "function": ArgShape.FUNCTION,
    "number": ArgShape.VALUE, "true": ArgShape.VALUE, "false": ArgShape.VALUE,
    "null": ArgShape.VALUE, "array": ArgShape.VALUE, "template_string": ArgShape.VALUE,
}


def _root(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.parent is not None:
        node = node.parent
    return node


def _returned_values(body: tree_sitter.Node, function_types: frozenset[str]) -> list[tree_sitter.Node]:
    """The expressions `return` statements of this function body return (not those of
    functions nested in it), in source order."""
    out: list[tree_sitter.Node] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            out.extend(c for c in node.named_children if c.type != "comment")
            continue
        stack.extend(c for c in reversed(node.named_children) if c.type not in function_types)
    return out


def _literal_member(func: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """(key, object literal) when a function is the value of a literal's key
    (`{validate: (v, args) => …}`) or a method written in a literal (`{validate(v, args) {…}}`)."""
    if func.type == "method_definition":
        key, literal = func.child_by_field_name("name"), func.parent
    else:
        pair = func.parent
        if pair is None or pair.type != "pair" or pair.child_by_field_name("value") != func:
            return None
        key, literal = pair.child_by_field_name("key"), pair.parent
    if key is None or key.type != "property_identifier" or literal is None or literal.type != "object":
        return None
    return key, literal


def _literal_of_key(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The object literal whose key `node` is (`{host: 'a'}`, shorthand `{host}`, a
    method `{retry() {…}}`), or None."""
    parent = node.parent
    if parent is None:
        return None
    if node.type == "shorthand_property_identifier" and parent.type == "object":
        return parent
    if (
        node.type == "property_identifier"
        and parent.type in ("pair", "method_definition")
        and parent.child_by_field_name("key" if parent.type == "pair" else "name") == node
        and parent.parent is not None
        and parent.parent.type == "object"
    ):
        return parent.parent
    return None


def _js_pattern_names(pat: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    if pat is None:
        return []
    if pat.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [pat]
    if pat.type in ("object_pattern", "array_pattern", "rest_pattern", "assignment_pattern",
                    "object_assignment_pattern", "pair_pattern"):
        out = []
        for c in pat.named_children:
            if pat.type == "pair_pattern" and c == pat.child_by_field_name("key"):
                continue
            if pat.type in ("assignment_pattern", "object_assignment_pattern") and c == pat.child_by_field_name("right"):
                continue
            out.extend(_js_pattern_names(c))
        return out
    return []


# ---- PHP ------------------------------------------------------------------------------


_PHP_MEMBER_PARENTS = frozenset({
    "member_call_expression", "member_access_expression", "nullsafe_member_call_expression",
    "nullsafe_member_access_expression",
})
_PHP_SCOPED_PARENTS = frozenset({
    "scoped_call_expression", "class_constant_access_expression", "scoped_property_access_expression",
})


_PHP_CLASS_POSITIONS = frozenset({
    "named_type", "object_creation_expression", "base_clause", "class_interface_clause",
    "use_declaration", "instanceof_expression", "catch_clause", "type_list",
}) | _PHP_SCOPED_PARENTS


class _Php(_Language):
    binding_query = """
    (assignment_expression left: (variable_name) @t)
    (assignment_expression left: (list_literal (variable_name) @t))
    (foreach_statement) @f
    """
    identifiers = frozenset({"name"})
    class_types = frozenset({"class_declaration", "trait_declaration", "interface_declaration", "enum_declaration"})
    function_types = frozenset({"method_declaration", "function_definition", "anonymous_function", "arrow_function"})

    def site(self, node: tree_sitter.Node) -> Site:
        base = super().site(node)
        written = self.class_name_at(node)
        if written is None:
            if base.receiver is not None:
                holder = node.parent.parent if node.parent is not None and node.parent.type == "variable_name" else node.parent
                kind = holder.type if holder is not None else ""
                if kind in _PHP_CALLS:
                    return replace(base, call=True)
                if kind in _PHP_VALUES:
                    return replace(base, call=False)
            return base
        return Site(base.name, base.range, base.receiver, base.local, base.enclosing_class,
                    base.class_line, written)

    def string_site(self, offset: int) -> Site | None:
        """`[Foo::class, 'method']` (a route action, a callable): the string is the
        method `method` of the class `Foo`. In a docblock, a class name of a type tag
        (`@param \\App\\Foo $x`) is that class, resolved like code."""
        root = self.doc.tree.root_node  # type: ignore[union-attr]
        comment = root.named_descendant_for_byte_range(offset, offset)
        if comment is not None and comment.type == "comment":
            return self.docblock_site(comment, offset)
        node = _identifier_at(self.doc, offset, frozenset({"string_content"}))
        element = node.parent.parent if node is not None and node.parent is not None else None
        array = element.parent if element is not None else None
        if array is None or array.type != "array_creation_expression" or array.named_child_count != 2:
            return None
        first, second = array.named_children
        target = first.named_children[0] if first.named_child_count else None
        if second != element or target is None or target.type != "class_constant_access_expression":
            return None
        scope, constant = target.named_children[0], target.named_children[-1]
        if self.text(constant).lower() != "class":
            return None
        return Site(self.text(node), self.doc.node_range(node), self.scope_type(scope))

    def docblock_site(self, comment: tree_sitter.Node, offset: int) -> Site | None:
        text = self.doc.data[comment.start_byte : comment.end_byte]
        at = offset - comment.start_byte
        for s, e, written in docblock_type_names(text):
            if s <= at <= e:
                rng = self.doc.byte_range(comment.start_byte + s, comment.start_byte + e)
                cls = nearest_ancestor(comment, self.class_types)
                cls_name = cls.child_by_field_name("name") if cls is not None else None
                return Site(
                    written.rsplit("\\", 1)[-1], rng,
                    enclosing_class=self.text(cls_name) or None,
                    class_line=cls_name.start_point[0] if cls_name is not None else None,
                    class_name=written,
                )
        return None

    def class_name_at(self, node: tree_sitter.Node) -> str | None:
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "qualified_name":
            if parent.named_children[-1] != node:
                return None
            holder = parent.parent
            text = self.text(parent)
            if holder is not None and holder.type == "namespace_use_clause":
                return "\\" + text.lstrip("\\")
            if holder is not None and holder.type in ("function_call_expression",):
                return None
            return text
        if parent.type in _PHP_CLASS_POSITIONS:
            if parent.type in _PHP_SCOPED_PARENTS and parent.named_children[0] != node:
                return None
            return self.text(node)
        if (
            parent.type == "binary_expression"
            and parent.child_by_field_name("right") == node
            and (op := parent.child_by_field_name("operator")) is not None
            and op.type == "instanceof"
        ):  # `$x instanceof Response`: a class, by PHP's name rules
            return self.text(node)
        if parent.type == "namespace_use_clause" and parent.child_by_field_name("alias") != node:
            return "\\" + self.text(node)
        if parent.type == "function_call_expression" and parent.child_by_field_name("function") == node:
            # `tap(...)`: a function (the namespace's, else the global one), never a method
            return self.text(node)
        return None

    def receiver_of(self, node: tree_sitter.Node) -> TypeExpr | None:
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "variable_name":  # `$x` itself or `Foo::$prop`
            holder = parent.parent
            if holder is not None and holder.type == "scoped_property_access_expression" and holder.child_by_field_name("name") == parent:
                return self.scope_type(holder.child_by_field_name("scope"))
            return None
        if parent.type in _PHP_MEMBER_PARENTS and parent.child_by_field_name("name") == node:
            obj = parent.child_by_field_name("object")
            return self.narrowed(obj) or self.expr_type(obj, 0) or TypeExpr("unknown")
        if parent.type in _PHP_SCOPED_PARENTS:
            scope = parent.child_by_field_name("scope") or parent.named_children[0]
            if scope is not None and scope != node and (parent.child_by_field_name("name") == node or parent.named_children[-1] == node):
                return self.scope_type(scope)
        return None

    def narrowed(self, obj: tree_sitter.Node | None) -> TypeExpr | None:
        """`$x instanceof Foo ? $x->m() : …`, `if (! $x instanceof Foo) { return; }`:
        the last `instanceof` check of the receiver before the use, in its function."""
        if obj is None or obj.type not in ("variable_name", "member_access_expression", "subscript_expression"):
            return None
        scope = nearest_ancestor(obj, self.function_types)
        start = scope.start_byte if scope is not None else 0
        head = self.doc.data[start : obj.start_byte]
        if b"instanceof" not in head:
            return None
        written = re.escape(self.doc.data[obj.start_byte : obj.end_byte])
        found = None
        for found in re.finditer(written + rb"\s+instanceof\s+([\\\w]+)", head):
            pass
        if found is None:
            return None
        checked = found.group(1).decode()
        # what the receiver is without the check (never narrowed again: no recursion)
        declared = TypeExpr("self") if obj.type == "variable_name" and self.text(obj) == "$this" else (
            self.expr_type(obj, 1) if obj.type == "variable_name" else
            self.expr_type(obj, 0) if obj.type != "subscript_expression" else None
        )
        negated = re.search(rb"!\s*\(?\s*$", head[: found.start()]) is not None
        if _excluded(negated, self.branch_at(start + found.start(), obj)):
            # `if (!$m instanceof RequestMatcherInterface) { $m->match(…) }`: not that one
            return TypeExpr("excluding", checked, declared) if declared is not None else None
        # an unrelated class or interface adds to what the receiver is (an intersection)
        return TypeExpr("narrowed", checked, declared)

    def scope_type(self, scope: tree_sitter.Node | None) -> TypeExpr | None:
        if scope is None:
            return None
        if scope.type == "relative_scope":
            word = self.text(scope).lower()
            return TypeExpr("super") if word == "parent" else TypeExpr("self")
        if scope.type in ("name", "qualified_name"):
            return TypeExpr("named", self.text(scope))
        return self.expr_type(scope, 0)

    def expr_type(self, node: tree_sitter.Node | None, depth: int) -> TypeExpr | None:
        if node is None or depth > _MAX_DEPTH:
            return None
        t = node.type
        if t == "variable_name":
            name = self.text(node).lstrip("$")
            if name == "this":
                return TypeExpr("self")
            # `if (! $node instanceof Footnote) { continue; }` then `$node->a()->b()`
            narrowed = self.narrowed(node) if depth == 0 else None
            if narrowed is not None:
                return narrowed
            bound = self.binding(node, name)
            found = self.binding_type(bound, depth) if bound is not None else None
            for _ in range(3):
                # `$imported = [$imported];` says nothing of the items: the earlier
                # `/** @var RouteCollection[] $imported */` binding still does
                if found is not None or bound is None or bound.parent is None or bound.parent.type != "assignment_expression":
                    break
                earlier = self.binding(node, name, bound.start_byte - 1)
                if earlier is None or earlier.start_byte >= bound.start_byte:
                    break
                bound = earlier
                found = self.binding_type(bound, depth)
            return found
        if t in ("member_access_expression", "nullsafe_member_access_expression"):
            base = self.expr_type(node.child_by_field_name("object"), depth)
            name = self.text(node.child_by_field_name("name"))
            return TypeExpr("member", name, base) if base is not None else None
        if t in ("member_call_expression", "nullsafe_member_call_expression"):
            base = self.expr_type(node.child_by_field_name("object"), depth)
            name = self.text(node.child_by_field_name("name"))
            return TypeExpr("returns", base=TypeExpr("member", name, base)) if base is not None else None
        if t == "scoped_call_expression":
            base = self.scope_type(node.child_by_field_name("scope"))
            name = self.text(node.child_by_field_name("name"))
            return TypeExpr("returns", base=TypeExpr("member", name, base)) if base is not None else None
        if t == "object_creation_expression":
            cls = next((c for c in node.named_children if c.type in ("name", "qualified_name")), None)
            if cls is not None:
                return TypeExpr("named", self.text(cls))
            rel = next((c for c in node.named_children if c.type == "relative_scope"), None)
            return self.scope_type(rel)
        if t == "function_call_expression":
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type in ("name", "qualified_name"):
                return TypeExpr("returns", base=TypeExpr("global", self.text(fn)))
            return None
        if t in ("parenthesized_expression", "clone_expression") and node.named_child_count:
            # `clone $route` is another of what `$route` is
            return self.expr_type(node.named_children[0], depth)
        if t in ("binary_expression", "conditional_expression"):
            # `$a ?? new Foo()`, `$c ? new Foo() : null`, `$f ?: $this->default()`
            if t == "binary_expression":
                op = node.child_by_field_name("operator")
                if op is None or self.text(op) != "??":
                    return None
                values = [node.child_by_field_name("left"), node.child_by_field_name("right")]
            else:
                values = [node.child_by_field_name("body") or node.child_by_field_name("condition"),
                          node.child_by_field_name("alternative")]
            found = [x for x in (self.expr_type(v, depth + 1) for v in values if v is not None and v.type != "null") if x]
            if len(found) > 1:
                return TypeExpr("either", base=found[0], alt=found[1])
            return found[0] if found else None
        if t == "subscript_expression" and node.named_child_count:
            # `if (!($options['cookies'] instanceof CookieJar)) { throw …; }` before it
            narrowed = self.narrowed(node)
            if narrowed is not None:
                return narrowed
            # `$tokens[$i]` with `@param Token[] $tokens`: an item
            base = self.expr_type(node.named_children[0], depth)
            return TypeExpr("element", "index", base) if base is not None else None
        return None

    def binding_type(self, bound: tree_sitter.Node, depth: int) -> TypeExpr | None:
        holder = bound.parent
        if holder is None:
            return None
        if holder.type in ("simple_parameter", "property_promotion_parameter", "variadic_parameter"):
            ty = holder.child_by_field_name("type")
            # `array $handlers` with `@param HandlerInterface[] $handlers`, `Node $node`
            # with `@param ListBlock $node`: the docblock says more (intelephense reads it)
            doc = self.docblock_type(holder, bound)
            declared = TypeExpr("named", self.text(ty)) if ty is not None else None
            method = holder.parent.parent if holder.parent is not None else None
            name = method.child_by_field_name("name") if method is not None and method.type == "method_declaration" else None
            if doc is None and name is not None and (ty is None or self.text(ty).lstrip("?") in ("array", "iterable")):
                # documented only on the method it overrides or implements
                return TypeExpr("inherited", f"{self.text(name)} {self.text(bound)}", declared)
            return doc or declared
        if holder.type == "list_literal" and holder.parent is not None and holder.parent.type == "assignment_expression":
            # `/** @var FilesystemOperator $filesystem */ [$filesystem, $path] = …`
            return self.docblock_type(holder.parent, bound)
        if holder.type == "assignment_expression":
            doc_type = self.docblock_type(holder, bound)
            if doc_type is not None:
                return doc_type
            return self.expr_type(holder.child_by_field_name("right"), depth + 1)
        loop = holder.parent if holder.type == "pair" else holder
        if loop is not None and loop.type == "foreach_statement" and loop.named_child_count:
            if holder.type == "pair" and holder.named_children[-1] != bound:
                return None  # the key
            # `foreach ($this->handlers as $handler)` with `@var HandlerInterface[]`
            doc_type = self.docblock_type(loop, bound)
            if doc_type is not None:
                return doc_type
            base = self.expr_type(loop.named_children[0], depth + 1)
            return TypeExpr("element", "iter", base) if base is not None else None
        return None

    def docblock_type(self, near: tree_sitter.Node, bound: tree_sitter.Node) -> TypeExpr | None:
        """`/** @var Foo $x */` above the statement or `@param Foo $x` on the function."""
        var = self.text(bound)
        stmt = near
        # a loop's own docblock (`/** @var SetCookie $cookie */ foreach ($this as $cookie)`)
        stops = ("expression_statement", "foreach_statement", "method_declaration", "function_definition")
        while stmt.parent is not None and stmt.type not in stops:
            stmt = stmt.parent
        for anchor in (stmt, nearest_ancestor(near, self.function_types)):
            prev = anchor.prev_named_sibling if anchor is not None else None
            if prev is not None and prev.type == "comment":
                found = _doc_tag_type(self.text(prev), var)
                if found:
                    return TypeExpr("named", found)
        return None

    def binding(self, node: tree_sitter.Node, name: str, before: int | None = None) -> tree_sitter.Node | None:
        scope = nearest_ancestor(node, self.function_types)
        if scope is None:
            return None
        at = node.start_byte if before is None else before
        found = self.bound_in_body(scope, name, at)
        stmt = found.parent if found is not None else None
        right = stmt.child_by_field_name("right") if stmt is not None and stmt.type == "assignment_expression" else None
        reads_itself = right is not None and right.start_byte <= node.start_byte < right.end_byte
        if found is not None and found.start_byte <= at:
            # `$closer = $closer->getNext()`: the right side reads the binding before
            return self.binding(node, name, stmt.start_byte - 1) if reads_itself else found  # type: ignore[union-attr]
        params = scope.child_by_field_name("parameters")
        if params is not None:
            for p in params.named_children:
                v = p.child_by_field_name("name")
                if v is not None and self.text(v).lstrip("$") == name:
                    return v
        if found is None and scope.type == "anonymous_function" and self._captures(scope, name):
            # `function ($r) use ($cookieJar)`: the enclosing function's binding
            return self.binding(scope, name)
        return None if reads_itself else found  # a later binding (a loop's) is a fallback

    def _captures(self, closure: tree_sitter.Node, name: str) -> bool:
        """Whether a closure's `use (…)` clause names `$name`."""
        for c in closure.named_children:
            if c.type == "anonymous_function_use_clause":
                return any(
                    self.text(v).lstrip("&$ ") == name
                    for v in c.named_children
                )
        return False

    def names_bound(self, capture: str, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        if capture != "f":
            return [node]
        # `foreach (<expr> as $v)` / `as $k => $v`: what follows `as`
        after = False
        for c in node.children:
            if c.type == "as":
                after = True
            elif after and c.type == "variable_name":
                return [c]
            elif after and c.type == "pair":
                return [v for v in c.named_children if v.type == "variable_name"]
        return []

    def same_name(self, ident: tree_sitter.Node, name: str) -> bool:
        return self.text(ident).lstrip("$") == name


_PHP_CALLS = frozenset({"member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression"})
_PHP_VALUES = frozenset({
    "member_access_expression", "nullsafe_member_access_expression", "scoped_property_access_expression",
    "class_constant_access_expression",
})


def doc_param_type(comment: str, var: str) -> str | None:
    """The type a docblock's `@param` gives `$var` (None when it documents no type)."""
    m = re.search(r"@(?:phpstan-|psalm-)?param\s+([\\\w|?<>\[\], ]+?)\s+\$" + re.escape(var.lstrip("$")) + r"\b", comment)
    return m.group(1) if m else None


def _doc_tag_type(comment: str, var: str) -> str | None:
    m = re.search(r"@(?:var|param)\s+([\\\w|?<>\[\], ]+?)\s+\$?" + re.escape(var.lstrip("$")) + r"\b", comment)
    if m:
        return m.group(1)
    m = re.search(r"@var\s+([\\\w|?]+)\s*(?:\*/|$)", comment)
    return m.group(1) if m else None


# By grammar, so every language parsed with one (Laravel routes, migrations, Filament
# classes are PHP) gets its reader without being listed again here.
_HANDLERS: dict[str, type[_Language]] = {
    "python": _Python,
    "javascript": _Js,
    "typescript": _Js,
    "tsx": _Js,
    "php": _Php,
}


def _handler_class(language: str) -> type[_Language] | None:
    grammar = GRAMMARS.get(language)
    return _HANDLERS.get(grammar) if grammar is not None else None


def has_reader(language: str) -> bool:
    """Whether the language has a syntax reader (else navigation ranks by name)."""
    return _handler_class(language) is not None


def handler_for(doc: SourceDocument) -> _Language | None:
    """The language's syntax reader for `doc`, or None when it has none."""
    cls = _handler_class(doc.language)
    return cls(doc) if cls is not None else None
