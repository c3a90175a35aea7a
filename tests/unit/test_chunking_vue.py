"""Vue SFCs: the component symbol, the script analysed in place (positions of the .vue
file), props and emits, template components and script names as references, styles via
the CSS strategy, the built-in fallback when no script strategy is registered, and
error recovery."""

from __future__ import annotations

import pytest
from code_intel.indexing import chunking
from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking.base import LineWindowStrategy
from code_intel.indexing.chunking.vue import component_name, module_name
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES

WEB = FIXTURES / "web_assets"
PROFILE = "components/UserProfile.vue"
MODULE = "components.UserProfile"


def analyze(rel: str = PROFILE, source: bytes | None = None):
    return analyze_source(rel, source if source is not None else (WEB / rel).read_bytes())


def by_qname(analysis):
    return {s.qualified_name: s for s in analysis.symbols}


def test_component_names():
    assert component_name(PROFILE) == "UserProfile"
    assert component_name("src/components/user-card.vue") == "UserCard"
    assert component_name("src/pages/orders/index.vue") == "Orders"
    assert module_name("src/components/UserProfile.vue") == MODULE
    assert module_name("pages/orders/index.vue") == "pages.orders"


def test_component_and_script_symbols_at_file_positions():
    analysis = analyze()
    assert analysis.language == "vue" and analysis.syntax_errors == 0
    symbols = by_qname(analysis)
    component = symbols[MODULE]
    assert component.kind is SymbolKind.COMPONENT and component.name == "UserProfile"
    assert (component.range.start.line, component.range.end.line) == (0, 42)
    save = symbols[f"{MODULE}.save"]
    assert save.kind is SymbolKind.FUNCTION and save.container == MODULE
    assert (save.range.start.line, save.range.end.line) == (25, 27)
    assert (save.selection_range.start.line, save.selection_range.start.character) == (25, 9)
    full_name = symbols[f"{MODULE}.fullName"]
    assert full_name.range.start.line == 23 and full_name.selection_range.start.character == 6
    props = [s for s in analysis.symbols if s.kind is SymbolKind.PROPERTY]
    assert [(s.name, s.range.start.line) for s in props] == [("user", 15), ("editable", 16)]
    # The style block's selectors are symbols too.
    name = symbols[".user-profile__name"]
    assert name.kind is SymbolKind.SELECTOR and name.selection_range.start.line == 37


def test_script_chunk_metadata_props_emits():
    analysis = analyze()
    [script] = [c for c in analysis.chunks if c.symbol_type == "script"]
    assert (script.start_line, script.end_line) == (9, 28)
    assert script.symbol_name == "script setup"
    meta = script.metadata
    assert meta["lang"] == "typescript" and meta["setup"] is True
    assert meta["props"] == ["user", "editable"]
    assert meta["emits"] == ["save"]
    assert meta["component"] == "UserProfile"
    assert "computed" in meta["imports"]
    assert "const props = defineProps<{" in script.content
    save = next(c for c in analysis.chunks if c.symbol_name == "save")
    assert (save.start_line, save.end_line) == (25, 27) and save.language == "vue"
    assert save.content.splitlines()[1].strip() == "emit('save', props.user)"
    # The function body is in its own chunk, not repeated in the script chunk.
    assert "emit('save', props.user)" not in script.content


def test_template_chunk_and_references():
    analysis = analyze()
    [template] = [c for c in analysis.chunks if c.symbol_type == "template"]
    assert (template.start_line, template.end_line) == (0, 7)
    assert template.metadata["components"] == ["UserAvatar"]
    assert set(template.metadata["uses"]) == {"user", "editable", "save", "fullName"}
    refs = {(r.name, r.start_line, r.start_character) for r in analysis.references}
    assert ("UserAvatar", 2, 5) in refs  # <UserAvatar> in the template
    assert ("UserAvatar", 11, 7) in refs  # its import in the script
    assert ("save", 5, 50) in refs  # @click="save"
    assert ("fullName", 3, 38) in refs  # {{ fullName }}
    # Strings are not code: 'user-profile--editable' does not reference `editable`.
    assert ("editable", 1, 57) not in refs and ("editable", 1, 68) in refs


def test_style_chunks_come_from_the_scss_strategy():
    analysis = analyze()
    styles = [c for c in analysis.chunks if c.metadata.get("embedded") == "scss"]
    assert [(c.symbol_name, c.start_line, c.end_line) for c in styles] == [
        ("$accent: #2563eb", 31, 31),
        (".user-profile", 33, 40),
    ]
    assert by_qname(analysis)["$accent"].kind is SymbolKind.VARIABLE


def test_options_api_and_runtime_declarations():
    source = b"""<template>
  <user-card :user="current" @close="onClose" />
</template>

<script>
export default {
  name: 'OrderPanel',
  props: { orderId: Number, editable: { type: Boolean, default: false } },
  emits: ['close', 'saved'],
  methods: {
    onClose() { this.$emit('close') },
  },
}
</script>
"""
    analysis = analyze("src/components/OrderPanel.vue", source)
    [script] = [c for c in analysis.chunks if c.symbol_type == "script"]
    assert script.metadata["lang"] == "javascript" and script.metadata["setup"] is False
    assert script.metadata["props"] == ["orderId", "editable"]
    assert script.metadata["emits"] == ["close", "saved"]
    refs = {(r.name, r.start_line) for r in analysis.references}
    assert ("UserCard", 1) in refs  # kebab-case tag -> component name
    runtime = b"""<script setup>
const props = defineProps(['title', 'count'])
const emit = defineEmits({ submit: null })
</script>
"""
    meta = next(
        c for c in analyze("Form.vue", runtime).chunks if c.symbol_type == "script"
    ).metadata
    assert meta["props"] == ["title", "count"] and meta["emits"] == ["submit"]


def test_fallback_when_no_script_strategy_is_registered(monkeypatch: pytest.MonkeyPatch):
    real = chunking.strategy_for

    def without_scripts(language: str):
        if language in ("javascript", "typescript", "jsx", "tsx"):
            return LineWindowStrategy(language)
        return real(language)

    monkeypatch.setattr(chunking, "strategy_for", without_scripts)
    analysis = analyze()
    symbols = by_qname(analysis)
    save = symbols[f"{MODULE}.save"]
    assert save.kind is SymbolKind.FUNCTION
    assert (save.selection_range.start.line, save.selection_range.start.character) == (25, 9)
    assert symbols[f"{MODULE}.fullName"].range.start.line == 23
    assert [s.name for s in analysis.symbols if s.kind is SymbolKind.PROPERTY] == [
        "user",
        "editable",
    ]
    assert any(c.symbol_name == "save" and c.start_line == 25 for c in analysis.chunks)


def test_broken_template_still_indexes_script_and_style():
    source = b"""<template>
  <div class="x">
    <span>unclosed
</template>

<script setup lang="ts">
function open(id: number): void {
  console.log(id)
}
</script>

<style>
.x { color: red;
.y { color: blue; }
</style>
"""
    analysis = analyze("Broken.vue", source)
    assert not analysis.notes
    names = {s.name for s in analysis.symbols}
    assert {"Broken", "open", ".x"} <= names and any(n.endswith(".y") for n in names)
    assert analysis.syntax_errors > 0
    open_fn = next(s for s in analysis.symbols if s.name == "open")
    assert (open_fn.range.start.line, open_fn.range.end.line) == (6, 8)
    assert [c.symbol_type for c in analysis.chunks][:2] == ["template", "script"]
