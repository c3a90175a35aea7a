"""tailwind.config.*: every key as a dotted-path `key` symbol, one chunk per theme
section, content globs and plugins resolved to packages, a summary chunk, the config
object found in its usual shapes; ctags parity on a CommonJS config."""

from __future__ import annotations

from pathlib import Path

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.languages import detect_language
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES, ctags_tags

APP = FIXTURES / "laravel_app"
CONFIG = "tailwind.config.js"
GLOBS = [
    "./vendor/laravel/framework/src/Illuminate/Pagination/resources/views/*.blade.php",
    "./storage/framework/views/*.php",
    "./resources/views/**/*.blade.php",
    "./app/Livewire/**/*.php",
]


def analyze(source: bytes | None = None, rel: str = CONFIG):
    return analyze_source(rel, source if source is not None else (APP / CONFIG).read_bytes())


def chunk(analysis, symbol_type: str, name: str):
    found = [c for c in analysis.chunks if c.symbol_type == symbol_type and c.symbol_name == name]
    assert len(found) == 1, [(c.symbol_type, c.symbol_name) for c in analysis.chunks]
    return found[0]


def test_detected_as_tailwind_config():
    for name in ("tailwind.config.js", "tailwind.config.ts", "web/tailwind.config.cjs"):
        assert detect_language(name) == "tailwind_config"


def test_keys_are_symbols_with_dotted_paths():
    analysis = analyze()
    assert analysis.language == "tailwind_config" and not analysis.notes
    symbols = {s.qualified_name: s for s in analysis.symbols}
    assert all(s.kind is SymbolKind.KEY for s in analysis.symbols)
    brand = symbols["theme.extend.colors.brand"]
    assert brand.name == "brand" and brand.container == "theme.extend.colors"
    assert (brand.range.start.line, brand.range.end.line) == (22, 28)
    shade = symbols["theme.extend.colors.brand.600"]
    assert (shade.selection_range.start.line, shade.selection_range.start.character) == (25, 20)
    assert shade.signature == "600: '#2563eb'"
    assert symbols["theme.extend.fontFamily.sans"].range.start.line == 32
    assert symbols["theme.container.center"].container == "theme.container"
    assert {"content", "darkMode", "theme", "plugins"} <= {
        s.name for s in analysis.symbols if s.container is None
    }


def test_one_chunk_per_theme_section_plus_content_plugins_summary():
    analysis = analyze()
    assert [(c.symbol_type, c.symbol_name, c.start_line, c.end_line) for c in analysis.chunks] == [
        ("tailwind_config", "tailwind.config.js", 0, 41),
        ("content_paths", "content", 6, 11),
        ("theme_section", "theme.container", 16, 19),
        ("theme_section", "theme.extend.colors", 21, 30),
        ("theme_section", "theme.extend.fontFamily", 31, 33),
        ("theme_section", "theme.extend.spacing", 34, 36),
        ("plugins", "plugins", 40, 40),
    ]
    colors = chunk(analysis, "theme_section", "theme.extend.colors")
    assert colors.metadata["extend"] is True and colors.metadata["section"] == "colors"
    assert colors.metadata["values"] == {
        "brand.50": "#eff6ff",
        "brand.100": "#dbeafe",
        "brand.600": "#2563eb",
        "brand.700": "#1d4ed8",
        "brand": "#2563eb",  # DEFAULT names the colour itself (`bg-brand`)
        "danger": "#dc2626",
    }
    assert colors.content.lstrip().startswith("colors: {")
    assert chunk(analysis, "content_paths", "content").metadata["content"] == GLOBS
    assert chunk(analysis, "plugins", "plugins").metadata["plugins"] == [
        "@tailwindcss/forms",
        "@tailwindcss/typography",
    ]


def test_summary_chunk_metadata_and_folded_content():
    summary = chunk(analyze(), "tailwind_config", "tailwind.config.js")
    meta = summary.metadata
    assert meta["content"] == GLOBS
    assert meta["plugins"] == ["@tailwindcss/forms", "@tailwindcss/typography"]
    assert meta["dark_mode"] == "class"
    assert meta["colors"]["brand.600"] == "#2563eb"
    assert meta["fonts"] == {"sans": ["Figtree", "...defaultTheme.fontFamily.sans"]}
    assert meta["spacing"] == {"header": "4rem"}
    assert meta["sections"] == [
        "theme.container",
        "theme.extend.colors",
        "theme.extend.fontFamily",
        "theme.extend.spacing",
    ]
    assert "import forms from '@tailwindcss/forms';" in summary.content
    assert "colors: {" in summary.content and "'#eff6ff'" not in summary.content


COMMONJS = b"""const defaultTheme = require('tailwindcss/defaultTheme');

module.exports = {
  content: { files: ['./src/**/*.{vue,ts}'] },
  theme: {
    screens: { sm: '640px', lg: '1024px' },
    extend: {
      colors: { primary: '#3B82F6' },
    },
  },
  plugins: [require('@tailwindcss/forms')({ strategy: 'class' }), require('@tailwindcss/typography')],
};
"""


def test_commonjs_config_with_require_plugins_and_content_files():
    analysis = analyze(COMMONJS)
    summary = chunk(analysis, "tailwind_config", "tailwind.config.js")
    assert summary.metadata["content"] == ["./src/**/*.{vue,ts}"]
    assert summary.metadata["plugins"] == ["@tailwindcss/forms", "@tailwindcss/typography"]
    assert summary.metadata["screens"] == {"sm": "640px", "lg": "1024px"}
    assert summary.metadata["colors"] == {"primary": "#3B82F6"}
    sections = [c.symbol_name for c in analysis.chunks if c.symbol_type == "theme_section"]
    assert sections == ["theme.screens", "theme.extend.colors"]


def test_typescript_shapes_of_the_config_object():
    satisfies = b"""import type { Config } from 'tailwindcss'

export default {
  content: ['./index.html'],
  theme: { extend: { colors: { ink: '#111' } } },
} satisfies Config
"""
    named = b"""import { defineConfig } from 'tailwindcss'
const config = defineConfig({
  content: ['./app/**/*.tsx'],
  theme: { extend: { fontFamily: { display: ['Inter'] } } },
})
export default config
"""
    a = analyze(satisfies, "tailwind.config.ts")
    assert "theme.extend.colors.ink" in {s.qualified_name for s in a.symbols}
    b = analyze(named, "tailwind.config.ts")
    summary = chunk(b, "tailwind_config", "tailwind.config.ts")
    assert summary.metadata["content"] == ["./app/**/*.tsx"]
    assert summary.metadata["fonts"] == {"display": ["Inter"]}


def test_no_config_object_degrades_to_windows():
    analysis = analyze(b"console.log('not a config')\n")
    assert analysis.notes and "no Tailwind config" in analysis.notes[0]
    assert [c.symbol_type for c in analysis.chunks] == ["lines"]


def test_ctags_parity_on_a_commonjs_config(tmp_path: Path):
    (tmp_path / CONFIG).write_bytes(COMMONJS)
    tags = ctags_tags(tmp_path, {"class", "property"})
    tags = [t for t in tags if t["name"] != "exports"]  # `module.exports` itself
    assert len(tags) >= 10
    ours = {(s.name, s.selection_range.start.line + 1) for s in analyze(COMMONJS).symbols}
    missing = [t for t in tags if (t["name"], t["line"]) not in ours]
    assert not missing, missing
