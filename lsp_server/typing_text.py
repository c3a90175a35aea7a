"""Reading types as the code writes them, from a stored signature or a docblock: the
class names a written type can hold, a function's declared return type, a parameter's
declared type, a field's declared or constructed type, the bases a class declaration
names, the item type of a container (`List[Span]`, `Redis[]`, `list<Foo>`). Pure text
functions, no index access; `typing_eval` evaluates what they return."""

from __future__ import annotations

import functools
import re

NULLISH = {"None", "null", "undefined", "NULL", "void"}


_SPLIT = re.compile(r"[|,&]")


def type_names(text: str, language: str) -> list[str]:
    """Class names a written type can hold: `Optional[Foo]`, `Foo | None`, `?Foo`,
    `'Foo'`, `Foo<T>`, `Foo[]` (nothing: an array), `Promise<Foo>` -> `Promise`."""
    t = text.strip().strip("'\"").lstrip(":").strip()
    if not t:
        return []
    m = re.fullmatch(r"(?:typing\.)?(?:Optional|Type|type|ClassVar|Final|Annotated)\[(.*)\]", t)
    if m:
        inner = m.group(1)
        return type_names(inner.split(",")[0] if t.startswith(("Annotated", "typing.Annotated")) else inner, language)
    inner = _ts_wrapped(t)
    if inner is not None:  # TS wrappers that keep (some of) the members of what they wrap
        return type_names(split_top_level(inner, ",")[0], language)
    m = re.fullmatch(r"(?:typing\.)?Union\[(.*)\]", t)
    if m:
        t = m.group(1).replace(",", "|")
    parts = []
    depth = 0
    cur = ""
    for ch in t:
        if ch in "[<(":
            depth += 1
        elif ch in "]>)":
            depth -= 1
        if depth == 0 and ch in "|&":
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        p = p.strip().lstrip("?").strip().strip("'\"")
        if not p or p in NULLISH or p.endswith("[]"):
            continue
        if len(parts) > 1 and _ts_wrapped(p) is not None:  # `Required<Omit<A, 'x'>> & {…}`
            out.extend(type_names(p, language))
            continue
        p = re.split(r"[<\[(]", p, maxsplit=1)[0].strip()
        if re.fullmatch(r"[\\\w.$#]+", p):
            out.append(p)
    return out


_TS_WRAPPER = re.compile(
    r"(?:Required|Partial|Readonly|NonNullable|Promise|Awaited|PromiseLike|Omit|Pick|Except|"
    r"Simplify|SetRequired|SetOptional|Writable|ReadonlyDeep|PartialDeep)<"
)


def _ts_wrapped(text: str) -> str | None:
    """`Required<X>` -> `X` when the wrapper's brackets span the whole text (not
    `Required<A> & Pick<B>`)."""
    m = _TS_WRAPPER.match(text)
    if m is None:
        return None
    close = _closing_bracket(text, m.end() - 1)
    return text[m.end() : close] if close == len(text) - 1 else None


def _closing_bracket(text: str, at: int) -> int | None:
    """Where the bracket opened at `at` closes (`[]`, `<>`, `()`, `{}`; an arrow's `=>`
    closes nothing); None when the text ends first."""
    depth = 0
    for i in range(at, len(text)):
        ch = text[i]
        if ch in "[<({":
            depth += 1
        elif ch in "]>)}" and not (ch == ">" and text[i - 1 : i] == "="):
            depth -= 1
            if depth == 0:
                return i
    return None


def return_type(signature: str, language: str) -> str | None:
    if signature.startswith("@method"):  # a PHP docblock method: `@method static Foo now()`
        m = re.match(r"@method\s+(?:static\s+)?([^\s(]+)\s+\w+\s*\(", signature)
        return m.group(1) if m else None
    if language == "python":
        m = re.search(r"->\s*(.+?)\s*:?\s*$", _without_comment(signature))
        return m.group(1) if m else None
    m = re.search(r"\)\s*:\s*([^{=]+?)\s*(?:=>|\{|;)?\s*$", signature)
    return m.group(1) if m else None


def _without_comment(line: str) -> str:
    """A Python line without its trailing comment (`-> list[X]:  # pragma: no cover`,
    `name: str  # the user's name`), a `#` inside a string literal kept."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i].rstrip()
    return line


_CONTAINERS = re.compile(
    r"(?:typing\.|collections\.abc\.|t\.)?(List|list|Sequence|MutableSequence|Iterable|Iterator|"
    r"Collection|Set|set|FrozenSet|frozenset|AbstractSet|Deque|deque|Generator|AsyncIterator|"
    r"AsyncIterable|AsyncGenerator|Tuple|tuple|Dict|dict|Mapping|MutableMapping|DefaultDict|"
    r"defaultdict|OrderedDict)\[(.*)\]"
)


def element_text(text: str, iterating: bool) -> str | None:
    """The item type of a written container type: `List[Span]` -> `Span`,
    `Optional[Dict[str, Layout]]` -> `Layout` (a subscript) or `str` (a loop),
    `Tuple[X, ...]` -> `X`; None when the text is no such container."""
    t = text.strip().strip("'\"")
    ts = _ts_element(t, iterating)
    if ts is not None:
        return ts or None
    m = re.fullmatch(r"(?:typing\.)?Optional\[(.*)\]", t)
    if m:
        t = m.group(1).strip()
    parts = [p.strip() for p in re.split(r"\|(?![^\[]*\])", t)]
    parts = [p for p in parts if p not in ("None", "")]
    if len(parts) != 1:
        return None
    m = _CONTAINERS.fullmatch(parts[0])
    if m is None:
        return None
    kind, args = m.group(1), [a.strip() for a in split_top_level(m.group(2), ",")]
    if kind in ("Dict", "dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict"):
        return args[0] if iterating else (args[1] if len(args) > 1 else None)
    if kind in ("Tuple", "tuple") and not (len(args) == 2 and args[1] == "..."):
        return None if len(set(args)) != 1 else args[0]
    return args[0] or None


_MAPPINGS = frozenset({"Dict", "dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict"})
# Python container methods whose result the container's own type arguments say
PY_VIEWS = frozenset({"items", "values", "keys", "get", "pop", "setdefault", "copy"})


def view_text(text: str, method: str) -> str | None:
    """What a builtin container's method returns, written from the container's type:
    `dict[str, ParamMeta]` `.items()` -> `list[tuple[str, ParamMeta]]`, `.values()` ->
    `list[ParamMeta]`, `.get(k)` -> `ParamMeta`; `List[X]` `.pop()` -> `X`; `enumerate(…)`
    of a `List[X]` -> `list[tuple[int, X]]`. None when the
    text is no such container (a workspace class's own `items()` decides then)."""
    if method == "enumerate":
        item = element_text(text, True)
        return f"list[tuple[int, {item}]]" if item else None
    t = text.strip().strip("'\"")
    m = re.fullmatch(r"(?:typing\.)?Optional\[(.*)\]", t)
    if m:
        t = m.group(1).strip()
    parts = [p.strip() for p in re.split(r"\|(?![^\[]*\])", t)]
    parts = [p for p in parts if p not in ("None", "")]
    m = _CONTAINERS.fullmatch(parts[0]) if len(parts) == 1 else None
    if m is None:
        return None
    kind, args = m.group(1), [a.strip() for a in split_top_level(m.group(2), ",")]
    if method == "copy":
        return parts[0]
    if kind in _MAPPINGS:
        if len(args) != 2:
            return None
        key, value = args
        return {
            "items": f"list[tuple[{key}, {value}]]", "values": f"list[{value}]", "keys": f"list[{key}]",
        }.get(method, value)
    if method == "pop" and kind in ("List", "list", "MutableSequence", "Set", "set", "Deque", "deque"):
        return args[0] or None
    return None


def doc_type(doc: str | None, tag: str) -> str | None:
    """A docblock tag's type with its generic arguments (`@var array<int, Foo>`)."""
    if not doc or "@" + tag not in doc:
        return None
    m = re.search(r"@" + tag + r"\s+((?:[^\s<]|<[^>]*>)+)", doc)
    return m.group(1) if m else None


_PHP_ITERABLE = re.compile(
    r"\\?(?:list|array|iterable|non-empty-array|non-empty-list|Iterator|Traversable|Generator|"
    r"IteratorAggregate|ArrayIterator|[\w\\]*Collection)<(.*)>"
)


_INDEX_SIGNATURE = re.compile(r"\{\s*\[\s*\w+\s*:\s*(?:string|number)\s*\]\s*:\s*(.+?)\s*;?\s*\}", re.DOTALL)


def _ts_element(t: str, iterating: bool) -> str | None:
    """TS: `Redis[]`, `(A | B)[]`, `Array<X>`, `ReadonlyArray<X>`, `Set<X>` (a loop),
    `Record<K, V>` (a subscript) -> the item type; "" for no item type known; None when
    the text is not written that way."""
    parts = [p.strip() for p in split_union(t) if p.strip() not in NULLISH]
    if len(parts) != 1:
        return None
    one = parts[0]
    signature = _INDEX_SIGNATURE.fullmatch(one)
    if signature is not None:
        # `{ [propertyName: string]: ValidationMetadata[] }`: a subscript gives the value
        return "" if iterating else signature.group(1).strip()
    if one.endswith("[]"):
        inner = one[:-2].strip()
        return inner[1:-1].strip() if inner.startswith("(") and inner.endswith(")") else inner
    m = re.fullmatch(r"(Array|ReadonlyArray|Set|ReadonlySet|Iterable|IterableIterator|Record|Map|ReadonlyMap|WeakMap)<(.*)>", one, re.DOTALL)
    if m is None:
        php = _PHP_ITERABLE.fullmatch(one)  # PHP docblocks: `list<Foo>`, `array<int, Foo>`
        return [a.strip() for a in split_top_level(php.group(1), ",")][-1] if php else None
    args = [a.strip() for a in split_top_level(m.group(2), ",")]
    if m.group(1) in ("Record", "Map", "ReadonlyMap", "WeakMap"):
        # a subscript (`Record`) or `map.get(k)`: the value; a loop over a Map gives
        # `[key, value]` pairs, not one item type
        return "" if iterating or len(args) < 2 else args[1]
    if m.group(1) in ("Set", "ReadonlySet") and not iterating:
        return ""
    return args[0]


def item_text(text: str, how: str) -> str | None:
    """`iter`/`index`: an element of a container type; `item:N`: member N of a tuple."""
    if not how.startswith("item:"):
        return element_text(text, how == "iter")
    m = re.fullmatch(r"(?:typing\.)?(?:Tuple|tuple)\[(.*)\]", text.strip())
    if m is None:
        return None
    args = [a.strip() for a in split_top_level(m.group(1), ",")]
    index = int(how[5:])
    return args[index] if index < len(args) and "..." not in args else None


def parameter_type(signature: str, index: int, language: str) -> str | None:
    """The declared type of parameter `index` in a TS/JS signature (`f<T>(a: A, b?: B = x)`,
    `constructor(readonly o: O)`); None when it has none, is a rest parameter, or the
    stored signature was cut before it."""
    if language not in ("typescript", "tsx"):
        return None
    params = parameter_list(signature)
    if params is None or index >= len(params):
        return None
    param = params[index].strip()
    if param.startswith("...") or re.match(r"this\s*:", param):
        return None
    return declared_type(param)


def declared_type(param: str) -> str | None:
    """`name?: Type = default` -> `Type`."""
    depth = 0
    colon = None
    for i, ch in enumerate(param):
        if ch in "[<({":
            depth += 1
        elif ch in "]>)}" and not (ch == ">" and param[i - 1 : i] == "="):
            depth -= 1
        elif depth == 0 and ch == ":" and colon is None:
            colon = i
        elif depth == 0 and ch == "=" and param[i + 1 : i + 2] != ">" and colon is not None:
            return param[colon + 1 : i].strip() or None
    if colon is None:
        return None
    return param[colon + 1 :].strip() or None


NOT_STRING = frozenset({
    "number", "boolean", "bigint", "symbol", "null", "undefined", "void", "never", "true",
    "false", "Function",
})


def split_union(text: str) -> list[str]:
    """`A | 'x' | (() => void)` -> its members at the top level, parentheses peeled."""
    out = []
    for part in (p.strip() for p in split_top_level(text, "|")):
        while part.startswith("(") and part.endswith(")") and parameter_list(part) == [part[1:-1]]:
            part = part[1:-1].strip()  # `(A | B)`; not a function's `(a) => b`
        if part:
            out.append(part)
    return out


def spread_tuples(params: list[str]) -> list[str] | None:
    """Parameters with a rest parameter typed as a tuple replaced by the tuple's
    elements (`...args: [a: A, ...b: B[]]` -> `a: A`, `...b: B[]`); None when an
    unlabelled tuple leaves the elements unclear."""
    out: list[str] = []
    for p in params:
        m = re.match(r"\.\.\.[\w$]+\s*:\s*\[(.*)\]\s*$", p, re.DOTALL)
        if m is None:
            out.append(p)
            continue
        inner = parameter_list("(" + m.group(1) + ")")
        if inner is None:
            return None
        out.extend(e.strip() for e in inner)
    return out


def optional_parameter(param: str) -> bool:
    """`a?: T`, `a: T = x`, `a = x` (a default outside brackets, not an arrow's `=>`)."""
    name = re.match(r"(?:(?:public|private|protected|readonly|override)\s+)*[\w$]+\s*(\?)?", param)
    if name and name.group(1):
        return True
    depth = 0
    for i, ch in enumerate(param):
        if ch in "[<({":
            depth += 1
        elif ch in "]>)}" and not (ch == ">" and param[i - 1 : i] == "="):
            depth -= 1
        elif ch == "=" and depth == 0 and param[i + 1 : i + 2] != ">":
            return True
    return False


def type_parameters(signature: str) -> dict[str, str | None]:
    """TS: the type parameters a signature declares before its parameter list
    (`f<T extends string, U = V>(…)`, a call signature's `<T>(…)`) with their
    constraints: {"T": "string", "U": None}."""
    paren = signature.find("(")
    angle = signature.find("<")
    if angle < 0 or 0 <= paren < angle:
        return {}
    close = _closing_bracket(signature, angle)
    if close is None:
        return {}
    out: dict[str, str | None] = {}
    for part in split_top_level(signature[angle + 1 : close], ","):
        m = re.match(r"\s*(?:const\s+)?([A-Za-z_$][\w$]*)(?:\s+extends\s+(.+?))?\s*(?:=.*)?$", part, re.DOTALL)
        if m:
            out[m.group(1)] = m.group(2).strip() if m.group(2) else None
    return out


def parameter_list(signature: str) -> list[str] | None:
    """The top-level parameters of the first parameter list (after any `<…>` type
    parameters), split on commas outside brackets; None when unbalanced (cut short).
    Cached: overload checks read the same signatures (hono's 23 call signatures of
    `HandlerInterface`) for every call."""
    found = _parameter_list(signature)
    return list(found) if found is not None else None


@functools.lru_cache(maxsize=4096)
def _parameter_list(signature: str) -> tuple[str, ...] | None:
    depth_angle = 0
    start = None
    for i, ch in enumerate(signature):
        if ch == "<":
            depth_angle += 1
        elif ch == ">" and signature[i - 1 : i] != "=":
            depth_angle -= 1
        elif ch == "(" and depth_angle == 0:
            start = i
            break
    if start is None:
        return None
    parts: list[str] = []
    depth = 0
    cur = ""
    for i in range(start + 1, len(signature)):
        ch = signature[i]
        if ch in "[<({":
            depth += 1
        elif ch in "]>)}" and not (ch == ">" and signature[i - 1] == "="):
            if ch == ")" and depth == 0:
                parts.append(cur)
                return tuple(p for p in parts if p.strip())
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return None


def value_type(signature: str, name: str, language: str) -> str | None:
    """A field's declared type, or the class a field/variable is constructed from."""
    sig = signature.strip()
    if language == "php":
        m = re.search(r"([\\\w?|]+)\s+\$" + re.escape(name) + r"\b", sig)
        if m and m.group(1) not in ("public", "private", "protected", "readonly", "static", "var", "const"):
            return m.group(1)
        m = re.search(r"=\s*new\s+([\\\w]+)", sig)
        return m.group(1) if m else None
    if language == "python":
        sig = _without_comment(sig)
    # `name?: T`, `name!: T` (definitely assigned: `get!: HandlerInterface<E>`)
    m = re.search(re.escape(name) + r"[?!]?\s*:\s*([^=;]+?)\s*(?:=|;|$)", sig)
    if m and not m.group(1).startswith(("(", "{")):
        return m.group(1)
    m = re.search(r"=\s*(?:new\s+|await\s+)?([A-Za-z_$][\w.$]*)\s*(<[^()=;]*>)?\s*\(", sig)
    if m and (m.group(1)[:1].isupper() or "new " in sig) and _call_ends_value(sig, m.end() - 1):
        # `new Map<string, Session>()`: the type arguments too (a Map's `get` gives a Session)
        return m.group(1) + (m.group(2) or "" if language in ("typescript", "tsx") else "")
    if language in ("typescript", "tsx"):
        # `export const Task = TaskImpl as TaskConstructor;`: the asserted type
        m = _AS_CAST.search(sig)
        if m and m.group(1) != "const":
            return m.group(1)
    return None


# `= value as Type;` ending a declaration (the value's type is what is asserted)
_AS_CAST = re.compile(r"=[^=].*?\bas\s+([A-Za-z_$][\w$.]*(?:<.*>)?)\s*;?\s*$", re.DOTALL)


def _call_ends_value(sig: str, open_paren: int) -> bool:
    """Whether the call opened at `open_paren` gives the value (`= new Foo(x)`, `=
    URL(u) if p else URL(u, p)`), not the start of a chain (`= new Cluster().nodes()`);
    a signature cut inside it counts."""
    depth = 0
    for i in range(open_paren, len(sig)):
        if sig[i] in "([{":
            depth += 1
        elif sig[i] in ")]}":
            depth -= 1
            if depth == 0:
                return not sig[i + 1 :].lstrip().startswith((".", "[", "?."))
    return True


def base_names(signature: str, language: str, parent_only: bool = False) -> list[str]:
    if language == "python":
        m = re.search(r"class\s+\w+\s*(?:\[[^\]]*\])?\s*\((.*)\)", signature)
        if not m:
            return []
        names = []
        for part in split_top_level(m.group(1), ","):
            part = part.strip()
            if not part or "=" in part or part.startswith("*"):
                continue
            names.append(re.split(r"\[", part, maxsplit=1)[0].strip())
        return names
    names = []
    # `class Redis<T extends Mode = "x"> extends Commander<…>`: the type parameters'
    # `extends` constrain them; the class's own clause comes after them
    signature = _without_type_parameters(signature)
    for kw in ("extends",) if parent_only else ("extends", "implements"):
        m = re.search(kw + r"\s+(.+?)(?:\s+(?:extends|implements)\s|\s*\{|$)", signature)
        if m:
            names.extend(re.split(r"[<(]", p.strip(), maxsplit=1)[0].strip() for p in split_top_level(m.group(1), ","))
    return [n for n in names if n]


def python_generic_bases(signature: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """A Python class's own type parameters and its bases with their type arguments:
    `class DataclassFactory(BaseFactory[T], Generic[T])` -> (["T"], [("BaseFactory",
    ["T"]), ("Generic", ["T"])]). The parameters are `Generic[...]`'s (or PEP 695's
    `class C[T]`), else the bare names among the bases' arguments, in order."""
    m = re.search(r"class\s+\w+\s*(\[[^\]]*\])?\s*\((.*)\)", signature)
    if not m:
        return [], []
    bases: list[tuple[str, list[str]]] = []
    for part in split_top_level(m.group(2), ","):
        part = part.strip()
        if not part or "=" in part or part.startswith("*"):
            continue
        head, _, rest = part.partition("[")
        args = [a.strip() for a in split_top_level(rest[:-1], ",")] if rest.endswith("]") else []
        bases.append((head.strip(), args))
    if m.group(1):
        params = [p.strip().split(":")[0].strip() for p in split_top_level(m.group(1)[1:-1], ",")]
    else:
        generic = next((args for name, args in bases if name.rsplit(".", 1)[-1] in ("Generic", "Protocol") and args), None)
        params = generic or [a for _, args in bases for a in args if re.fullmatch(r"[A-Z]\w*", a)]
    return list(dict.fromkeys(params)), bases


_DECLARED_NAME = re.compile(r"\b(?:class|interface|trait|struct)\s+[\w$]+\s*<")


def _without_type_parameters(signature: str) -> str:
    """The declaration without the `<…>` type parameter list after its name."""
    m = _DECLARED_NAME.search(signature)
    if m is None:
        return signature
    close = _closing_bracket(signature, m.end() - 1)
    return signature[: m.end() - 1] + (signature[close + 1 :] if close is not None else "")


def split_top_level(text: str, sep: str) -> list[str]:
    """`text` cut at each `sep` outside brackets (`[]`, `<>`, `()`, `{}`); an arrow's
    `=>` closes nothing."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[<({":
            depth += 1
        elif ch in "]>)}" and not (ch == ">" and text[i - 1 : i] == "="):
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
