"""CSS and SCSS: selectors (with SCSS nesting resolved), at-rule sections, keyframes,
variables and custom properties, mixins and functions; small rules grouped into
chunks; references; ctags parity; parse-error recovery."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking.base import ChunkSettings
from code_intel.indexing.chunking.css import GROUP_MAX_LINES, scss_for_parsing
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES, ctags_tags

APP = FIXTURES / "laravel_app"
WEB = FIXTURES / "web_assets"
APP_CSS = "resources/css/app.css"
MAIN_SCSS = "styles/main.scss"


def analyze_app():
    return analyze_source(APP_CSS, (APP / APP_CSS).read_bytes())


def analyze_scss():
    return analyze_source(MAIN_SCSS, (WEB / MAIN_SCSS).read_bytes())


def symbols_named(analysis, name: str):
    return [s for s in analysis.symbols if s.name == name]


def test_css_selectors_sections_and_variables():
    analysis = analyze_app()
    assert analysis.language == "css" and analysis.syntax_errors == 0
    header = symbols_named(analysis, ".site-header")
    assert [(s.range.start.line, s.range.end.line, s.container) for s in header] == [
        (19, 23, None),
        (35, 37, "@media (max-width: 640px)"),
    ]
    assert header[0].kind is SymbolKind.SELECTOR and header[0].signature == ".site-header {"
    # Each selector of a list is its own symbol, on its own line, sharing the rule range.
    nav, footer = symbols_named(analysis, "#main-nav a:hover") + symbols_named(
        analysis, ".site-footer a:hover"
    )
    assert (nav.selection_range.start.line, footer.selection_range.start.line) == (25, 26)
    assert nav.range == footer.range
    media = symbols_named(analysis, "@media (max-width: 640px)")[0]
    assert media.kind is SymbolKind.SECTION
    assert (media.range.start.line, media.range.end.line) == (34, 42)
    layer = symbols_named(analysis, "@layer components")[0]
    assert {s.name for s in analysis.symbols if s.container == layer.qualified_name} == {
        ".btn",
        ".btn-primary",
    }
    fade = symbols_named(analysis, "fade-in")[0]
    assert fade.kind is SymbolKind.SECTION and fade.qualified_name == "@keyframes fade-in"
    assert (fade.selection_range.start.line, fade.selection_range.start.character) == (44, 11)
    brand = symbols_named(analysis, "--brand")[0]
    assert brand.kind is SymbolKind.VARIABLE and brand.container == ":root"
    assert brand.qualified_name == "--brand" and brand.signature == "--brand: #2563eb"


def test_css_small_rules_are_grouped_big_blocks_stand_alone():
    analysis = analyze_app()
    chunks = [(c.symbol_type, c.start_line, c.end_line) for c in analysis.chunks]
    assert chunks == [
        ("rules", 0, 7),
        ("at_rule", 9, 17),
        ("rules", 19, 32),
        ("media", 34, 42),
        ("rules", 44, 49),
    ]
    rules = analysis.chunks[2]
    assert rules.metadata["selectors"] == [
        ".site-header",
        "#main-nav a:hover",
        ".site-footer a:hover",
        ".user-card__avatar",
        ".badge",
        ".badge-success",
    ]
    assert rules.content.startswith(".site-header {")
    assert analysis.chunks[0].metadata["variables"] == ["--brand", "--header-height"]
    assert analysis.chunks[3].symbol_name == "@media (max-width: 640px)"
    assert analysis.chunks[4].metadata["keyframes"] == ["fade-in"]
    covered = {line for c in analysis.chunks for line in range(c.start_line, c.end_line + 1)}
    assert covered == set(range(50)) - {8, 18, 33, 43}  # only blank lines between chunks


def test_many_one_line_rules_make_few_bounded_chunks():
    source = "".join(f".u-{i} {{ margin: {i}px; }}\n" for i in range(100)).encode()
    analysis = analyze_source("utilities.css", source, ChunkSettings(chunk_max_tokens=2000))
    assert len(analysis.symbols) == 100
    assert 3 <= len(analysis.chunks) <= 5
    assert all(c.end_line - c.start_line + 1 <= GROUP_MAX_LINES for c in analysis.chunks)
    covered = sorted(line for c in analysis.chunks for line in range(c.start_line, c.end_line + 1))
    assert covered == list(range(100))


def test_css_references():
    refs = {(r.name, r.start_line, r.start_character) for r in analyze_app().references}
    assert ("--header-height", 20, 16) in refs  # var(--header-height)
    assert ("--brand", 27, 15) in refs
    assert ("fade-in", 49, 20) in refs  # animation: fade-in
    assert ("bg-brand-600", 15, 15) in refs  # @apply
    assert not [r for r in refs if r[0] in ("var", "ease-out")]


def test_scss_variables_mixins_functions_and_nesting():
    analysis = analyze_scss()
    assert analysis.language == "scss" and analysis.syntax_errors == 0
    by_q = {s.qualified_name: s for s in analysis.symbols}
    brand = by_q["$brand"]
    assert brand.kind is SymbolKind.VARIABLE and brand.name == "brand"
    assert brand.range.start.line == 2 and brand.signature == "$brand: #2563eb"
    mixin = by_q["button-variant"]
    assert mixin.kind is SymbolKind.FUNCTION
    assert mixin.signature == "@mixin button-variant($bg, $fg: white)"
    assert (mixin.range.start.line, mixin.range.end.line) == (12, 19)
    assert by_q["rem"].signature == "@function rem($px)"
    assert by_q["%card-base"].kind is SymbolKind.SELECTOR
    card = by_q[".card"]
    assert (card.range.start.line, card.range.end.line) == (30, 50)
    # `&__title` is named by what it resolves to; plain nested selectors keep their name.
    title = by_q[".card__title"]
    assert title.name == ".card__title" and title.container == ".card"
    assert title.selection_range.start.line == 34
    assert by_q[".card:hover"].range.start.line == 39
    assert by_q[".card .btn"].name == ".btn"
    assert by_q["respond @media (min-width: $width)"].container == "respond"


def test_scss_chunks_and_references():
    analysis = analyze_scss()
    chunks = {(c.symbol_type, c.symbol_name): (c.start_line, c.end_line) for c in analysis.chunks}
    assert chunks[("mixin", "respond")] == (6, 10)
    assert chunks[("mixin", "button-variant")] == (12, 19)
    assert chunks[("function", "rem")] == (21, 23)
    assert chunks[("rule_set", ".card")] == (30, 50)
    card = next(c for c in analysis.chunks if c.symbol_name == ".card")
    assert card.metadata["selectors"] == [".card", ".card__title", ".card:hover", ".card .btn"]
    refs = {(r.name, r.start_line) for r in analysis.references}
    assert ("%card-base", 31) in refs  # @extend %card-base
    assert ("button-variant", 44) in refs  # @include
    assert ("brand", 44) in refs  # $brand, keyed without `$` like the symbol
    assert ("respond", 47) in refs and ("breakpoint-md", 47) in refs
    assert ("rem", 35) in refs  # user function call
    assert ("width", 7) in refs and ("width", 6) not in refs  # a use, not the parameter
    assert "rgba" not in {r.name for r in analysis.references}  # CSS functions


def test_scss_rewrites_keep_positions():
    source = (
        b'@use "sass:math" as m;\n$gap: 4px !default;\n.a {\n  @extend %base;\n  color: red;\n}\n'
    )
    rewritten = scss_for_parsing(source)
    assert len(rewritten) == len(source) and rewritten.count(b"\n") == source.count(b"\n")
    analysis = analyze_source("x.scss", source)
    assert analysis.syntax_errors == 0
    gap = next(s for s in analysis.symbols if s.name == "gap")
    assert gap.signature == "$gap: 4px !default"  # the file's text, not the rewrite
    assert ("%base", 3, 10) in {
        (r.name, r.start_line, r.start_character) for r in analysis.references
    }
    assert [s.name for s in analysis.symbols if s.kind is SymbolKind.SELECTOR] == [".a"]


def test_css_ctags_parity():
    tags = ctags_tags(APP, {"class", "id", "selector"})
    tags = [t for t in tags if t["path"] == APP_CSS]
    assert len(tags) >= 10
    ours = {(s.name, s.selection_range.start.line + 1) for s in analyze_app().symbols}
    missing = [t for t in tags if (t["name"], t["line"]) not in ours]
    assert not missing, missing


def test_scss_ctags_parity():
    tags = ctags_tags(WEB, {"class", "id", "placeholder", "function", "mixin", "variable"})
    tags = [t for t in tags if t["path"] == MAIN_SCSS]
    assert len(tags) >= 10
    ours = {(s.name, s.selection_range.start.line + 1) for s in analyze_scss().symbols}
    missing = [t for t in tags if (t["name"], t["line"]) not in ours]
    assert not missing, missing


def test_broken_css_still_indexes_the_rest():
    source = b""".ok { color: red; }
.broken { color: ;
  width: 10px
.after { color: blue; }
@media (max-width: 10px) { .inner { display: none; } }
$map: (sm: 640px, md: 768px);
"""
    analysis = analyze_source("broken.scss", source)
    assert analysis.syntax_errors > 0 and not analysis.notes
    names = {s.name for s in analysis.symbols}
    assert {".ok", ".broken", ".inner", "map"} <= names
    assert any(n.endswith(".after") for n in names)
    inner = next(s for s in analysis.symbols if s.name == ".inner")
    assert inner.range.start.line == 4 and inner.qualified_name == ".broken .inner"
    covered = {line for c in analysis.chunks for line in range(c.start_line, c.end_line + 1)}
    assert covered >= set(range(6))
