"""Python strings that name code: entries of `__all__` and forward references in type
expressions (`x: "Client"`, `Union["URL", str]`, `TypeVar("T", bound="Base")`,
`cast("Client", value)`).
Type checkers read them as uses of those names (pyright lists them as references), so
the index records them and a definition request on one resolves the name.

Cheap by construction: a byte regex finds candidate strings first (most files have
none), and only those are checked against the tree.
"""

from __future__ import annotations

import re

import tree_sitter

from . import refscan

# a quoted identifier-ish text: `"URL"`, `'pkg.Client'`, `"A | None"`. Possessive
# (`*+`): what a run takes, giving back could never match (a quote, `|` or a letter
# must follow), and not trying halves the scan of every quote in a tree.
_CANDIDATE = re.compile(rb"""(["'])([A-Za-z_][\w.]*+(?:\s*+\|\s*+[A-Za-z_][\w.]*+)*+)\1""")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_NOT_TYPES = frozenset({"None"})


#: The ancestors that decide whether a string stands where a type does (see `_decides`).
DECIDING = ("type", "keyword_argument", "subscript", "assignment", "call",
             "function_definition", "class_definition", "block", "module")
MAX_UP = 8  # ancestors looked at above the string


def _in_type_context(node: tree_sitter.Node) -> bool:
    """Whether a string node stands where a type (or an `__all__` entry) does."""
    cur = node.parent
    for _ in range(MAX_UP):
        if cur is None:
            return False
        if cur.type in DECIDING:
            return _decides(cur, node.start_byte)
        cur = cur.parent
    return False


def _decides(cur: tree_sitter.Node, string_start: int) -> bool:
    """What the nearest deciding ancestor says about the string below it (starting at
    `string_start`). The definitions walk decides the same in C (native/defscan.c's
    `qn_decides`): a change here goes there too."""
    t = cur.type
    if t == "type":
        return True
    if t == "keyword_argument":
        name = cur.child_by_field_name("name")
        return name is not None and name.text == b"bound"
    if t == "subscript":
        value = cur.child_by_field_name("value")
        text = value.text or b"" if value is not None else b""
        last = text.rsplit(b".", 1)[-1]
        return last[:1].isupper()  # `Union[...]`, `typing.Optional[...]`, not `d["k"]`
    if t == "assignment":
        left = cur.child_by_field_name("left")
        return left is not None and left.text == b"__all__"
    if t == "call":  # `cast("Client", value)`: the type is the first argument
        callee = cur.child_by_field_name("function")
        args = cur.child_by_field_name("arguments")
        first = args.named_child(0) if args is not None and args.named_child_count else None
        return (
            callee is not None
            and (callee.text or b"").rsplit(b".", 1)[-1] == b"cast"
            and first is not None
            and first.start_byte == string_start
        )
    return False  # function_definition, class_definition, block, module


def _names(data: bytes, node: tree_sitter.Node) -> list[tuple[int, int, str]]:
    return _names_in(data, node.start_byte, node.end_byte)


def _names_in(data: bytes, lo: int, hi: int) -> list[tuple[int, int, str]]:
    m = _CANDIDATE.fullmatch(data, lo, hi)
    if m is None:
        return []
    start = m.start(2)
    out = []
    for n in _NAME.finditer(m.group(2).decode("utf-8", errors="replace")):
        if n.group() in _NOT_TYPES:
            continue
        last = n.group().rsplit(".", 1)[-1]
        s = start + n.end() - len(last)
        out.append((s, s + len(last), last))
    return out


def type_strings(data: bytes, root: tree_sitter.Node) -> list[tuple[int, int, str]]:
    """(start byte, end byte, name) of each name written in such a string; a dotted name
    counts as its last segment's occurrence (`"pkg.Client"` -> `Client`)."""
    candidates = list(_CANDIDATE.finditer(data))
    if not candidates:
        return []
    out: list[tuple[int, int, str]] = []
    found = _enclosing_strings(root, candidates)
    if found is not None:
        for m, hit in zip(candidates, found, strict=True):
            if hit is None or hit[0] != m.start() or hit[3] is None or not _decides(hit[3], hit[0]):
                continue
            out.extend(_names_in(data, hit[0], hit[1]))
        return out
    for m in candidates:
        node = root.named_descendant_for_byte_range(*m.span(2))
        while node is not None and node.type != "string":
            node = node.parent
        if node is None or node.start_byte != m.start() or not _in_type_context(node):
            continue
        out.extend(_names(data, node))
    return out


def recorded_type_strings(data: bytes, recorded: list[tuple[int, int, int, bool]]) -> list[tuple[int, int, str]]:
    """`type_strings` from the quoted names the definitions walk recorded (each string
    node that is one `_CANDIDATE` match where `finditer` finds one, and whether its
    deciding ancestor makes it a type: native/defscan.c's `qn_decides`, `_decides` in
    C), instead of the regex over the file and a descent per match."""
    out: list[tuple[int, int, str]] = []
    for start, end, _, decided in recorded:
        if decided:
            out.extend(_names_in(data, start, end))
    return out


def _enclosing_strings(
    root: tree_sitter.Node, candidates: list[re.Match[bytes]]
) -> list[refscan.Enclosing] | None:
    """Per candidate, the string node over its text and the ancestor that decides it,
    from the compiled helper; None where it cannot run (the loop above then asks the
    binding, a `Node.parent` descent per level)."""
    return refscan.enclosing(root, [m.span(2) for m in candidates], ("string",), DECIDING, MAX_UP)


def type_string_at(data: bytes, root: tree_sitter.Node, offset: int) -> tuple[int, int, str] | None:
    """The name of such a string under `offset`, or None."""
    node = root.named_descendant_for_byte_range(offset, offset)
    while node is not None and node.type != "string":
        if node.type not in ("string_content", "string_start", "string_end"):
            return None
        node = node.parent
    if node is None or not _in_type_context(node):
        return None
    return next(((s, e, n) for s, e, n in _names(data, node) if s <= offset <= e), None)
