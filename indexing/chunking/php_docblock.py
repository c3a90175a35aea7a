"""Class names written in PHP docblock tags (`@param \\Illuminate\\Http\\Request $r`,
`@return Collection<int, User>`, `@var`, `@throws`, `@mixin`, `@method static Foo bar()`,
`@property`, `@extends`): PHP tooling reads them as types, so they are references of
those classes (intelephense lists them), and a definition request on one goes to the
class. Pure functions over a comment's bytes; the strategy and the navigator place them.
"""

from __future__ import annotations

import re

_TAG = re.compile(
    rb"@(?:phpstan-|psalm-)?(param|return|var|throws|mixin|property(?:-read|-write)?|method|see|"
    rb"extends|implements|use|template-extends|template-implements|"
    rb"template(?:-covariant|-contravariant)?[ \t]+\w+[ \t]+of|type[ \t]+\w+(?:[ \t]*=)?)(?![\w-])[ \t]*"
)
_NAME = re.compile(rb"\\?[A-Za-z_][A-Za-z0-9_]*(?:\\[A-Za-z_][A-Za-z0-9_]*)*")
_OPEN, _CLOSE = b"<({[", b">)}]"


_SPAN_STOP = re.compile(rb"[\n\r \t<({[>)}\]]")  # the only bytes that decide a span
_BLANKS = re.compile(rb"[ \t]*")


_NEXT_TAG = re.compile(rb"\n[ \t]*\*?[ \t]*@|\*/")


def _closes_later(text: bytes, at: int, depth: int) -> bool:
    """Whether brackets open at `at` (a line break inside `array{`) close before the
    next tag or the comment's end: a shape written one key per line (PHP-Parser's
    `@param array{ … } $subNodes`) goes on; an unclosed one ends at its line."""
    stop = _NEXT_TAG.search(text, at)
    for c in text[at : stop.start() if stop else len(text)]:
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                return True
    return False


def _type_span(text: bytes, start: int) -> int:
    """End of the type expression starting at `start`: the first blank at depth 0.
    Jumps from one deciding byte to the next (a regex search) instead of stepping
    through every byte in Python."""
    depth = 0
    i = start
    search = _SPAN_STOP.search
    while (m := search(text, i)) is not None:
        i = m.start()
        c = text[i : i + 1]
        if c in (b"\n", b"\r"):
            if depth == 0 or not _closes_later(text, i, depth):
                return i
            i += 1
            continue
        if c in (b" ", b"\t"):
            if depth == 0:
                # `A | B` and `array<int, B>` keep going; a blank before the name ends it
                after = _BLANKS.match(text, i).end()  # type: ignore[union-attr]
                if text[after : after + 1] not in (b"|", b"&") and text[i - 1 : i] not in (b"|", b"&", b",", b":"):
                    return i
        elif c in _OPEN:
            depth += 1
        else:
            depth = max(depth - 1, 0)
        i += 1
    return len(text)


def docblock_type_names_py(text: bytes) -> list[tuple[int, int, str]]:
    """(start, end, written) of every class name in the comment's type tags, as byte
    offsets into `text`. Only names that look like classes: capitalised or qualified
    (`\\Foo`, `A\\B`); PHPDoc's pseudo-types (`int`, `non-empty-string`, `class-string`)
    and shape keys (`array{key: X}`) are not. The definition: `docblock_type_names` is
    its compiled copy (native/docblock.c) where the extension is built."""
    if b"@" not in text:
        return []
    out: list[tuple[int, int, str]] = []
    for tag in _TAG.finditer(text):
        start = tag.end()
        kind = tag.group(1)
        if kind == b"method" and text[start : start + 7] == b"static ":
            start += 7
        end = _type_span(text, start)
        if kind == b"method":  # the parameters' types too: `broker(\UnitEnum|string $name)`
            close = text.find(b")", end)
            line_end = text.find(b"\n", end)
            if close != -1 and (line_end == -1 or close < line_end):
                end = close
        for m in _NAME.finditer(text, start, end):
            s, e = m.span()
            before = text[s - 1 : s] if s > 0 else b""
            after = text[e : e + 1]
            if before in (b"$", b"-", b":", b".") or after in (b"-", b":") or text[e : e + 2] == b"?:":
                continue
            word = m.group()
            if not (word.startswith(b"\\") or b"\\" in word or word[:1].isupper()):
                continue
            if kind == b"method" and after == b"(":
                continue  # the method's own name
            out.append((s, e, word.decode("ascii")))
    return out


try:
    from .._refscan import docblock_type_names  # type: ignore[import-not-found]
except ImportError:  # not built (optional extension): the Python scan, same output
    docblock_type_names = docblock_type_names_py


_MAGIC = re.compile(
    rb"@(method|property(?:-read|-write)?)[ \t]+(?:static[ \t]+)?(?:(?P<type>[^\s$(]+(?:<[^>]*>)?)[ \t]+)?"
    rb"(?:\$(?P<prop>[A-Za-z_]\w*)|(?P<meth>[A-Za-z_]\w*)[ \t]*\()"
)


def magic_members(text: bytes) -> list[tuple[str, str, int, int, str]]:
    """(kind, name, start, end, the tag's line) of `@method` / `@property` tags in a class
    docblock: the members a class offers through `__call` / `__get` (Laravel facades,
    Eloquent attributes), which PHP tools navigate to. Offsets are into `text`."""
    if b"@method" not in text and b"@property" not in text:
        return []
    out = []
    for m in _MAGIC.finditer(text):
        group = "prop" if m.group("prop") else "meth"
        s, e = m.span(group)
        if group == "prop":
            s -= 1  # the `$`
        line_start = text.rfind(b"\n", 0, m.start()) + 1
        line_end = text.find(b"\n", m.end())
        line = text[line_start : line_end if line_end != -1 else len(text)].decode("utf-8", "replace")
        out.append(("method" if group == "meth" else "property", m.group(group).decode(), s, e,
                    line.strip().lstrip("*").strip()))
    return out
