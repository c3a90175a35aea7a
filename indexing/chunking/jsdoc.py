"""Names in JSDoc links (`{@link Task}`, `{@linkcode Maybe.map}`, `{@linkplain Result the
result}`). tsserver resolves them and lists them among a symbol's references, so the
index records the linked name as a reference and a definition request on it resolves
the name like code. Only the first segment is a name we can resolve on its own; a URL
(`{@link https://…}`) is not a name.
"""

from __future__ import annotations

import re

import tree_sitter

from ..model import Reference
from ..source import SourceDocument

# the linked name, followed by what may end it (a space, `}`, a member, `|` text, a call)
_LINK = re.compile(rb"\{@link(?:code|plain)?\s+([A-Za-z_$][\w$]*)(?=[\s}.#|(])")


def link_names(text: bytes) -> list[tuple[int, int, str]]:
    """(start byte, end byte, name) of each linked name in `text`."""
    return [(m.start(1), m.end(1), m.group(1).decode()) for m in _LINK.finditer(text)]


def jsdoc_references(doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
    """The linked names of the file's comments, placed in the file (found in the bytes
    first: most files link nothing)."""
    if b"{@link" not in doc.data:
        return []
    out: list[Reference] = []
    for start, end, name in link_names(doc.data):
        node = root.descendant_for_byte_range(start, end)
        if node is None or node.type != "comment":
            continue
        r = doc.byte_range(start, end)
        out.append(Reference(name, r.start.line, r.start.character, r.end.line, r.end.character, None))
    return out
