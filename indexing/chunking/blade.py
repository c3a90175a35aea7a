"""Laravel Blade templates: the HTML strategy plus what connects a view to PHP.

A view is named the way Laravel names it, from its path under `resources/views`
(`resources/views/auth/login.blade.php` -> `auth.login`). The view is a `module`
symbol, or a `component` symbol for views under `components/` (those are what an
`<x-…>` tag renders). It is also one `view` chunk: the whole file with the landmark
and block chunks folded to their first line, carrying the view's metadata, so "which
view extends layouts.app and shows the cart counter" has one chunk to match.

Blade directives are text to the HTML grammar, so they are scanned with a small
tokenizer (balanced parentheses, quotes, `{{-- --}}` comments skipped):
- `@section('x') … @endsection|@stop|@show`, `@push/@prepend('x') … @end…`,
  `@slot`, `@fragment` are `section` symbols and chunks; `@section('title', 'x')` is a
  one-line section; `@yield('x')` and `@stack('x')` (what layouts offer) are `section`
  symbols too, so `defs content` lands on both ends;
- `@component('view') … @endcomponent` is a `component` chunk;
- `@extends`, `@include*`, `@each` fill `extends` / `includes` / `views`.

Before the markup is parsed, echoes (`{{ }}`, `{!! !!}`), comments, `@php` blocks and
directive arguments are blanked (same length, newlines kept): `<article {{ $attributes
->merge([...]) }}>` would otherwise derail the HTML parse, and positions stay exact.

What Blade uses from PHP goes into every chunk's metadata for the span it covers:
`components` (`x-user-card` -> `App\\View\\Components\\UserCard`, `x-forms.input` ->
`App\\View\\Components\\Forms\\Input`; `<x-slot>` and `<x-dynamic-component>` are not
components), `livewire` (`@livewire('cart-counter')` and `<livewire:cart-counter />`
-> `App\\Livewire\\CartCounter`, Livewire 3's namespace), `routes` (`route('login')`),
`includes`, `extends`, `forms` (action, method incl. `@method` spoofing, `@csrf`,
fields, `@error` keys), and `related_symbols` (the PHP classes, as the PHP strategy
lists them). Component and Livewire usages are also references to the class's short
name, so `refs UserCard` finds the Blade files that render it.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import tree_sitter

from ..languages import parser_for
from ..model import FileAnalysis, Position, Range, Reference, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings
from .html import Def, Element, HtmlStrategy, Region, Scopes

COMPONENT_NAMESPACE = "App\\View\\Components"
LIVEWIRE_NAMESPACE = "App\\Livewire"
VIEWS_ROOT = "resources/views/"
# Block directives: opening name -> (symbol type of the chunk, closing names).
_BLOCKS: dict[str, tuple[str, frozenset[str]]] = {
    "section": ("section", frozenset({"endsection", "stop", "show", "append", "overwrite"})),
    "push": ("push", frozenset({"endpush"})),
    "pushonce": ("push", frozenset({"endpushonce"})),
    "prepend": ("push", frozenset({"endprepend"})),
    "slot": ("slot", frozenset({"endslot"})),
    "fragment": ("fragment", frozenset({"endfragment"})),
    "component": ("component", frozenset({"endcomponent"})),
}
_PLACEHOLDERS = frozenset({"yield", "stack"})
_INCLUDES = {"include": 0, "includeif": 0, "includewhen": 1, "includeunless": 1, "each": 0}
_NOT_COMPONENTS = frozenset({"x-slot", "x-dynamic-component"})
# blade-icons sets (blade-heroicons, blade-simple-icons, blade-fontawesome, the app's own
# `icon` set from config/blade-icons.php, ...): `<x-heroicon-o-x>` renders an SVG.
_ICON_SET_PREFIXES = (
    "heroicon-",
    "icon-",
    "si-",
    "fas-",
    "far-",
    "fab-",
    "bi-",
    "lucide-",
    "tabler-",
    "phosphor-",
    "gmdi-",
    "mdi-",
    "carbon-",
    "feathericon-",
    "ri-",
    "filament-",
)

_COMMENT = re.compile(rb"\{\{--.*?--\}\}", re.DOTALL)
_ECHO = re.compile(rb"\{!!.*?!!\}|\{\{.*?\}\}", re.DOTALL)
_RAW_BLOCK = re.compile(rb"@(php|verbatim)\b(?!\s*\().*?@end\1\b", re.DOTALL)
_DIRECTIVE = re.compile(rb"(?<![\w@])@(\w+)")
_COMPONENT_TAG = re.compile(rb"<(x-[\w.:-]+|livewire:[\w.:-]+)")
_ROUTE_CALL = re.compile(rb"\b(?:route|to_route)\(\s*(['\"])([^'\"]+)\1")
_STRING = re.compile(r"""^\s*(['"])(.*?)\1\s*$""", re.DOTALL)
_NOT_NEWLINE = re.compile(rb"[^\n]")
_VIEW_NAME = re.compile(r"^[\w-]+(?:::[\w-]+)?(?:\.[\w-]+)*$")


@dataclass(frozen=True)
class Directive:
    """`@name(args)` with byte offsets; `args` are the raw top-level arguments."""

    name: str
    start: int
    end: int
    args: tuple[str, ...]
    args_start: int


@dataclass
class _BladeFile:
    """What one `analyze` call learned before the HTML machinery runs. Kept per
    thread: one strategy instance serves every indexing thread."""

    directives: list[Directive] = field(default_factory=list)
    usages: list[Usage] = field(default_factory=list)
    masked: bytes = b""
    # Blade facts per form, by start line: every region around a form lists it.
    forms: dict[int, dict[str, Any]] = field(default_factory=dict)
    _form_elements: dict[int, Element] | None = None

    def form_elements(self, elements: list[Element]) -> dict[int, Element]:
        if self._form_elements is None:
            self._form_elements = {e.first_line: e for e in reversed(elements) if e.tag == "form"}
        return self._form_elements


_local = threading.local()


@dataclass(frozen=True)
class Usage:
    """A component / Livewire / route usage at a byte offset."""

    kind: str  # "component" | "livewire" | "route"
    name: str  # tag or name as written
    target: str | None  # PHP class (components, Livewire) or route name
    start: int
    end: int


def studly(name: str) -> str:
    """Laravel's `Str::studly`: `user-card` -> `UserCard`."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[-_\s]+", name) if p)


def is_external_component(tag: str) -> bool:
    """A package's component: `x-pkg::name`, or an SVG icon of a blade-icons set
    (`x-heroicon-o-chevron-right`), which is neither a class nor a view of the app."""
    name = tag.removeprefix("x-")
    return ":" in name or name.startswith(_ICON_SET_PREFIXES)


def component_view(tag: str) -> str | None:
    """`x-threads.thread` -> `components.threads.thread`: the Blade file an anonymous
    component renders (and the conventional view of a class component)."""
    if is_external_component(tag):
        return None
    return "components." + tag.removeprefix("x-")


def component_class(tag: str) -> str | None:
    """`x-user-card` -> `App\\View\\Components\\UserCard`, `x-forms.input` ->
    `App\\View\\Components\\Forms\\Input`; package components (`x-pkg::name`, icon
    sets) have no class we can name."""
    name = tag.removeprefix("x-")
    if not name or is_external_component(tag):
        return None
    return COMPONENT_NAMESPACE + "\\" + "\\".join(studly(p) for p in name.split("."))


def livewire_class(name: str) -> str | None:
    """`cart-counter` -> `App\\Livewire\\CartCounter`, `admin.users-table` ->
    `App\\Livewire\\Admin\\UsersTable`, `CartCounter::class` -> as written."""
    name = name.strip()
    if name.endswith("::class"):
        cls = name[: -len("::class")].lstrip("\\")
        return cls if "\\" in cls else f"{LIVEWIRE_NAMESPACE}\\{cls}"
    if not name or "::" in name:
        return None
    return LIVEWIRE_NAMESPACE + "\\" + "\\".join(studly(p) for p in name.split("."))


def view_name(path: str) -> str:
    """`resources/views/auth/login.blade.php` -> `auth.login` (the name `view()` takes)."""
    rel = path
    index = rel.find(VIEWS_ROOT)
    if index == 0 or (index > 0 and rel[index - 1] == "/"):
        rel = rel[index + len(VIEWS_ROOT) :]
    else:
        rel = PurePosixPath(rel).name
    rel = rel.removesuffix(".blade.php")
    return rel.replace("/", ".")


def string_argument(arg: str | None) -> str | None:
    if arg is None:
        return None
    m = _STRING.match(arg)
    return m.group(2) if m else None


def blank(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """Spaces over the given byte spans, newlines kept."""
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = _NOT_NEWLINE.sub(b" ", data[start:end])
    return bytes(out)


def _balanced(data: bytes, open_index: int) -> int:
    """Index just past the `)` matching the `(` at `open_index` (quotes respected),
    or -1 when the parenthesis is never closed."""
    depth = 0
    i = open_index
    quote = 0
    n = len(data)
    while i < n:
        ch = data[i]
        if quote:
            if ch == 0x5C:  # backslash
                i += 2
                continue
            if ch == quote:
                quote = 0
        elif ch in (0x27, 0x22):
            quote = ch
        elif ch in (0x28, 0x5B):
            depth += 1
        elif ch in (0x29, 0x5D):
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == 0x0A and depth == 1 and data[i + 1 : i + 2] == b"@":
            return -1  # a new directive line: the argument list was never closed
        i += 1
    return -1


def _split_arguments(text: str) -> tuple[str, ...]:
    """Top-level comma-separated arguments of a directive."""
    args: list[str] = []
    depth = 0
    quote = ""
    current: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            current.append(ch)
            if ch == "\\" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch in "([{":
            depth += 1
            current.append(ch)
        elif ch in ")]}":
            depth -= 1
            current.append(ch)
        elif ch == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    if "".join(current).strip():
        args.append("".join(current).strip())
    return tuple(args)


def scan_directives(data: bytes) -> tuple[list[Directive], list[tuple[int, int]]]:
    """All `@directives` outside comments and `@php`/`@verbatim` blocks, plus the
    spans to blank before the HTML parse (comments, echoes, raw blocks, arguments)."""
    hidden = [(m.start(), m.end()) for m in _COMMENT.finditer(data)]
    hidden += [(m.start(), m.end()) for m in _RAW_BLOCK.finditer(blank(data, hidden))]
    scan = blank(data, hidden)
    echoes = [(m.start(), m.end()) for m in _ECHO.finditer(scan)]
    directives: list[Directive] = []
    spans = list(hidden) + echoes
    for m in _DIRECTIVE.finditer(scan):
        name = m.group(1).decode()
        i = m.end()
        while i < len(scan) and scan[i] in b" \t":
            i += 1
        args: tuple[str, ...] = ()
        end = m.end()
        if i < len(scan) and scan[i] == 0x28:
            close = _balanced(scan, i)
            if close != -1:
                args = _split_arguments(data[i + 1 : close - 1].decode("utf-8", errors="replace"))
                spans.append((i, close))
                end = close
        directives.append(Directive(name, m.start(), end, args, i + 1))
    return directives, spans


def _between(items: list, lo: int, hi: int) -> list:
    """Directives or usages (ordered by `start`) starting in [lo, hi)."""
    first = bisect_left(items, lo, key=lambda x: x.start)
    return items[first : bisect_left(items, hi, lo=first, key=lambda x: x.start)]


class BladeStrategy(HtmlStrategy):
    language = "blade"
    grammar_name = "html"

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        directives, spans = scan_directives(doc.data)
        _local.file = _BladeFile(directives, [], blank(doc.data, spans))
        _local.file.usages = self._find_usages(doc)
        try:
            return super().analyze(doc, settings)
        finally:
            _local.file = None

    @property
    def _directives(self) -> list[Directive]:
        return _local.file.directives

    @property
    def _usages(self) -> list[Usage]:
        return _local.file.usages

    # ---- parsing -----------------------------------------------------------------------

    def parse(self, doc: SourceDocument) -> tree_sitter.Tree:
        """Parse the masked copy (echoes and directive arguments blanked)."""
        return parser_for(self.grammar_name).parse(_local.file.masked)

    def _find_usages(self, doc: SourceDocument) -> list[Usage]:
        """Component tags, Livewire tags and directives, and `route()` calls."""
        text = blank(doc.data, [(m.start(), m.end()) for m in _COMMENT.finditer(doc.data)])
        out: list[Usage] = []
        for m in _COMPONENT_TAG.finditer(text):
            tag = m.group(1).decode()
            start, end = m.start(1), m.end(1)
            if tag.startswith("livewire:"):
                name = tag[len("livewire:") :]
                out.append(Usage("livewire", name, livewire_class(name), start, end))
            elif tag not in _NOT_COMPONENTS and not tag.startswith("x-slot"):
                out.append(Usage("component", tag, component_class(tag), start, end))
        for d in self._directives:
            if d.name == "livewire" and d.args:
                name = string_argument(d.args[0]) or d.args[0]
                out.append(Usage("livewire", name, livewire_class(name), d.args_start, d.end - 1))
        for m in _ROUTE_CALL.finditer(text):
            name = m.group(2).decode()
            out.append(Usage("route", name, name, m.start(2), m.end(2)))
        out.sort(key=lambda u: u.start)
        return out

    # ---- definitions and regions ----------------------------------------------------------

    def extend(self, doc: SourceDocument, defs: list[Def], regions: list[Region]) -> None:
        view = view_name(doc.path)
        last = max(len(doc.lines) - 1, 0)
        is_component = view.startswith("components.")
        whole = Range(Position(0, 0), doc.byte_range(len(doc.data), len(doc.data)).end)
        defs.append(
            Def(
                0,
                len(doc.data) + 1,
                view,
                SymbolKind.COMPONENT if is_component else SymbolKind.MODULE,
                whole,
                Range(Position(0, 0), Position(0, 0)),
                signature=f"<x-{view[len('components.') :]}>"
                if is_component
                else f"view('{view}')",
                qualified=view,
                is_scope=True,
            )
        )
        regions.append(Region(0, len(doc.data) + 1, 0, last, view, "view", {}, always_chunk=True))
        for start, end, kind, name, opening in self._blocks():
            d = doc.byte_range(start, end)
            if kind != "component":
                defs.append(
                    Def(
                        start,
                        end,
                        name,
                        SymbolKind.SECTION,
                        d,
                        doc.byte_range(opening.start, opening.end),
                        signature=self._directive_text(doc, opening),
                        qualified=f"{view}::{name}",
                        is_scope=True,
                    )
                )
            regions.append(
                Region(
                    start, end, d.start.line, d.end.line, name, kind, {"directive": opening.name}
                )
            )
        defs.extend(self._one_line_sections(doc, view))

    def _blocks(self) -> list[tuple[int, int, str, str, Directive]]:
        """Matched `@section … @endsection`-style pairs: (start, end, type, name, opening)."""
        out = []
        stack: list[Directive] = []
        for d in self._directives:
            name = d.name.lower()
            if name in _BLOCKS and not (name == "section" and len(d.args) > 1):
                stack.append(d)
                continue
            for i in range(len(stack) - 1, -1, -1):
                if name in _BLOCKS[stack[i].name.lower()][1]:
                    opening = stack.pop(i)
                    kind = _BLOCKS[opening.name.lower()][0]
                    label = string_argument(opening.args[0]) if opening.args else None
                    out.append((opening.start, d.end, kind, label or kind, opening))
                    break
        return sorted(out, key=lambda t: t[0])

    def _one_line_sections(self, doc: SourceDocument, view: str) -> list[Def]:
        """`@section('title', 'x')`, `@yield('content')`, `@stack('scripts')`."""
        out = []
        for d in self._directives:
            name = d.name.lower()
            inline = name == "section" and len(d.args) > 1
            if not (inline or name in _PLACEHOLDERS) or not d.args:
                continue
            label = string_argument(d.args[0])
            if not label:
                continue
            r = doc.byte_range(d.start, d.end)
            out.append(
                Def(
                    d.start,
                    d.end,
                    label,
                    SymbolKind.SECTION,
                    r,
                    r,
                    signature=self._directive_text(doc, d),
                    qualified=f"{view}::{label}",
                )
            )
        return out

    def _directive_text(self, doc: SourceDocument, d: Directive) -> str:
        return " ".join(doc.data[d.start : d.end].decode("utf-8", errors="replace").split())[:200]

    # ---- references and metadata --------------------------------------------------------------

    def references(self, doc: SourceDocument, analysis: FileAnalysis, scopes: Scopes) -> None:
        """A component or Livewire usage references its class by short name, a
        `route()` call the route by name."""
        for u in self._usages:
            view = component_view(u.name) if u.kind == "component" else None
            if view is not None:
                # The anonymous component's Blade file, by its view name.
                r = doc.byte_range(u.start, u.end)
                analysis.references.append(Reference.at(view, r, scopes.at(u.start)))
            if u.kind == "route":
                # `route('threads.show')` refers to the route symbol of that name.
                r = doc.byte_range(u.start, u.end)
                analysis.references.append(Reference.at(u.name, r, scopes.at(u.start)))
                continue
            if not u.target:
                continue
            short = u.target.rsplit("\\", 1)[-1]
            r = doc.byte_range(u.start, u.end)
            analysis.references.append(Reference.at(short, r, scopes.at(u.start)))

        for d in self._directives:
            name = d.name.lower()
            index = 0 if name in ("extends", "component") else _INCLUDES.get(name)
            if index is None or len(d.args) <= index:
                continue
            view = string_argument(d.args[index])
            if view is None or not _VIEW_NAME.match(view):
                continue  # `"notifications.{$type}"` names no one view
            at = doc.data.find(view.encode(), d.args_start, d.end)
            if at >= 0:
                # `@extends('layouts.app')` / `@include('x')`: the view they render.
                r = doc.byte_range(at, at + len(view.encode()))
                analysis.references.append(Reference.at(view, r, scopes.at(at)))

    def region_metadata(
        self, doc: SourceDocument, region: Region, elements: list[Element]
    ) -> dict[str, Any]:
        meta = super().region_metadata(doc, region, elements)
        lo, hi = region.start_byte, region.end_byte
        inside = _between(self._usages, lo, hi)
        components = {u.name: u.target for u in inside if u.kind == "component" and u.target}
        external = [u.name for u in inside if u.kind == "component" and not u.target]
        if external:
            meta["external_components"] = list(dict.fromkeys(external))
        livewire = {u.name: u.target for u in inside if u.kind == "livewire"}
        routes = list(dict.fromkeys(u.name for u in inside if u.kind == "route"))
        if components:
            meta["components"] = components
        if livewire:
            meta["livewire"] = livewire
        if routes:
            meta["routes"] = routes
        directives = _between(self._directives, lo, hi)
        includes = self._includes(directives)
        if includes:
            meta["includes"] = includes
        extends = self._extends()
        if extends:
            meta["extends"] = extends
        views = ([extends] if extends else []) + includes
        views += ["components." + u.name[2:] for u in inside if u.kind == "component" and u.target]
        views += [
            string_argument(d.args[0]) or ""
            for d in directives
            if d.name.lower() == "component" and d.args
        ]
        if any(views):
            meta["views"] = list(dict.fromkeys(v for v in views if v))
        if "forms" in meta:
            cache = _local.file.forms
            meta["forms"] = [
                cache[f["line"]]
                if f["line"] in cache
                else cache.setdefault(f["line"], self._blade_form(f, elements))
                for f in meta["forms"]
            ]
        meta["view"] = view_name(doc.path)
        related = [u.target for u in inside if u.kind != "route" and u.target]
        if related:
            meta["related_symbols"] = list(dict.fromkeys(related))
        return meta

    def _includes(self, directives: list[Directive]) -> list[str]:
        out: list[str] = []
        for d in directives:
            name = d.name.lower()
            if name == "includefirst" and d.args:
                out.extend(re.findall(r"""['"]([^'"]+)['"]""", d.args[0]))
            elif name in _INCLUDES and len(d.args) > _INCLUDES[name]:
                value = string_argument(d.args[_INCLUDES[name]])
                if value:
                    out.append(value)
        return list(dict.fromkeys(out))

    def _extends(self) -> str | None:
        for d in self._directives:
            if d.name.lower() == "extends" and d.args:
                return string_argument(d.args[0])
        return None

    def _blade_form(self, form: dict[str, Any], elements: list[Element]) -> dict[str, Any]:
        """The HTML facts plus Blade's: the route the action posts to, `@method`
        spoofing, `@csrf`, and the fields `@error` reports on."""
        el = _local.file.form_elements(elements).get(form["line"])
        if el is None:
            return form
        form = dict(form)
        inside = _between(self._directives, el.start_byte, el.end_byte)
        spoofed = next((d for d in inside if d.name.lower() == "method" and d.args), None)
        if spoofed is not None:
            form["method"] = (string_argument(spoofed.args[0]) or form["method"]).upper()
        form["csrf"] = any(d.name.lower() == "csrf" for d in inside)
        errors = [
            string_argument(d.args[0]) for d in inside if d.name.lower() == "error" and d.args
        ]
        if errors:
            form["errors"] = list(dict.fromkeys(e for e in errors if e))
        action = form.get("action") or ""
        route = _ROUTE_CALL.search(action.encode())
        if route:
            form["route"] = route.group(2).decode()
        return form

    def finish(self, doc: SourceDocument, analysis: FileAnalysis, settings: ChunkSettings) -> None:
        """The `view` chunk covers every line, so no windows are needed."""
        analysis.chunks.sort(key=lambda c: (c.start_line, -c.end_line))


__all__ = [
    "BladeStrategy",
    "component_class",
    "component_view",
    "is_external_component",
    "livewire_class",
    "view_name",
]
