"""HTML and Blade strategies: landmarks, ids and headings as symbols, chunks folded by
landmark, embedded `<script>`/`<style>` at their real positions, and what a Blade view
uses from PHP (components -> classes, Livewire, routes, includes) in chunk metadata and
references; ctags parity and error recovery."""

from __future__ import annotations

from pathlib import Path

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking.blade import component_class, livewire_class, view_name
from code_intel.indexing.config import Config
from code_intel.indexing.model import SymbolKind
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace

from tests.conftest import FIXTURES, ctags_tags

WEB = FIXTURES / "web_assets"
APP = FIXTURES / "laravel_app"
LOGIN = "resources/views/auth/login.blade.php"
LAYOUT = "resources/views/layouts/app.blade.php"
PRODUCTS = "resources/views/products/index.blade.php"
CARD = "resources/views/components/user-card.blade.php"
USER_CARD = "App\\View\\Components\\UserCard"
CART_COUNTER = "App\\Livewire\\CartCounter"


def analyze(root: Path, rel: str):
    return analyze_source(rel, (root / rel).read_bytes())


def by_qname(analysis):
    return {s.qualified_name: s for s in analysis.symbols}


def chunk(analysis, symbol_type: str, name: str):
    found = [c for c in analysis.chunks if c.symbol_type == symbol_type and c.symbol_name == name]
    assert len(found) == 1, [(c.symbol_type, c.symbol_name) for c in analysis.chunks]
    return found[0]


# ---- HTML -------------------------------------------------------------------------------


def test_html_landmarks_ids_and_headings():
    analysis = analyze(WEB, "index.html")
    assert analysis.language == "html" and analysis.syntax_errors == 0
    symbols = by_qname(analysis)
    form = symbols["main > form#signup"]
    assert form.kind is SymbolKind.ELEMENT and form.name == "form#signup"
    assert (form.range.start.line, form.range.end.line) == (37, 41)
    assert (form.selection_range.start.line, form.selection_range.start.character) == (37, 5)
    assert form.container == "main"
    assert form.signature == '<form id="signup" action="/subscribe" method="post">'
    hero = symbols["main > section.hero"]
    assert hero.kind is SymbolKind.ELEMENT and hero.name == "section.hero"
    assert symbols["header.site-header > nav#top-nav"].container == "header.site-header"
    # Ids are keys named by the bare id: what ctags reports and `href="#signup"` targets.
    [signup] = [s for s in analysis.symbols if s.kind is SymbolKind.KEY and s.name == "signup"]
    assert signup.qualified_name == "#signup"
    assert signup.container == "main > form#signup"
    assert (signup.selection_range.start.line, signup.selection_range.start.character) == (37, 14)
    assert symbols["#bottom"].kind is SymbolKind.KEY  # <a name="bottom">
    # A void element with an id is a key, not a landmark.
    assert "main > form#signup > input#email" not in symbols
    assert symbols["#email"].range.start.line == 39
    heading = symbols["main > section.hero > Acme Store"]
    assert heading.kind is SymbolKind.SECTION and heading.range.start.line == 21


def test_html_chunks_fold_nested_landmarks():
    analysis = analyze(WEB, "index.html")
    main = chunk(analysis, "element", "main")
    assert (main.start_line, main.end_line) == (19, 42)
    assert '<section class="hero">' in main.content
    assert "<h1>Acme  Store</h1>" not in main.content  # folded into its own chunk
    assert main.metadata["headings"] == ["Acme Store", "Features", "Fast delivery", "Easy returns"]
    hero = chunk(analysis, "element", "section.hero")
    assert hero.content.splitlines()[1].strip() == "<h1>Acme  Store</h1>"
    form = chunk(analysis, "element", "form#signup")
    assert form.metadata["forms"] == [
        {
            "name": "form#signup",
            "line": 37,
            "method": "POST",
            "action": "/subscribe",
            "fields": ["email"],
        }
    ]
    features = [c for c in analysis.chunks if c.symbol_name == "article.feature"]
    assert [(c.start_line, c.end_line) for c in features] == [(27, 30), (31, 34)]
    # The <head> outside every landmark is still searchable.
    head = [c for c in analysis.chunks if c.symbol_type == "block"]
    assert head and head[0].start_line == 0 and "<title>Acme Store</title>" in head[0].content


def test_html_embedded_style_and_script_keep_file_positions():
    analysis = analyze(WEB, "index.html")
    symbols = by_qname(analysis)
    hero = symbols[".hero"]
    assert hero.kind is SymbolKind.SELECTOR
    assert (hero.selection_range.start.line, hero.selection_range.start.character) == (7, 4)
    css = [c for c in analysis.chunks if c.metadata.get("embedded") == "css"]
    assert [(c.start_line, c.end_line, c.language) for c in css] == [(7, 8, "html")]
    track = next(s for s in analysis.symbols if s.name == "trackSignup")
    assert track.kind is SymbolKind.FUNCTION
    assert (track.selection_range.start.line, track.selection_range.start.character) == (50, 13)
    script_text = "\n".join(c.content for c in analysis.chunks if c.start_line >= 49)
    assert "window.dataLayer.push" in script_text
    assert "addEventListener('submit', trackSignup)" in script_text


def test_html_references_to_ids_and_classes():
    refs = analyze(WEB, "index.html").references
    found = {(r.name, r.start_line, r.start_character) for r in refs}
    assert ("signup", 15, 16) in found  # href="#signup"
    assert ("email", 38, 18) in found  # <label for="email">
    assert ("hero", 20, 20) in found  # class="hero" -> `.hero`
    hero = next(r for r in refs if r.name == "hero")
    assert hero.container == "main > section.hero"


def test_html_ctags_parity():
    tags = ctags_tags(WEB, {"id", "anchor", "heading1", "heading2", "heading3"})
    tags = [t for t in tags if t["path"] == "index.html"]
    assert len(tags) >= 9
    analysis = analyze(WEB, "index.html")
    ours = {(s.name, s.selection_range.start.line + 1) for s in analysis.symbols}
    ours |= {(s.name, s.range.start.line + 1) for s in analysis.symbols}
    missing = [t for t in tags if (t["name"], t["line"]) not in ours]
    assert not missing, missing


def test_html_unclosed_tags_still_index_the_rest():
    source = (
        b"<main>\n"
        b'  <section id="intro">\n'
        b"    <p>never closed\n"
        b'    <div class="x">\n'
        b"  </section>\n"
        b'  <form id="contact" method="post">\n'
        b'    <input name="email">\n'
        b"    </span>\n"
        b"  </form>\n"
        b"  <footer>bye</footer>\n"
        b'  <aside id="late">\n'
        b"    <p>the file ends here\n"
    )
    analysis = analyze_source("broken.html", source)
    assert not analysis.notes and analysis.syntax_errors > 0
    names = {s.name for s in analysis.symbols}
    assert {"section#intro", "intro", "form#contact", "contact", "footer", "late"} <= names
    form = chunk(analysis, "element", "form#contact")
    assert (form.start_line, form.end_line) == (5, 8)
    covered = {line for c in analysis.chunks for line in range(c.start_line, c.end_line + 1)}
    assert {0, 1, 5, 9, 10} <= covered


# ---- Blade --------------------------------------------------------------------------------


def test_view_names_component_and_livewire_classes():
    assert view_name(LOGIN) == "auth.login"
    assert view_name("web/resources/views/layouts/app.blade.php") == "layouts.app"
    assert view_name("modules/blog/welcome.blade.php") == "welcome"
    assert component_class("x-user-card") == USER_CARD
    assert component_class("x-forms.input") == "App\\View\\Components\\Forms\\Input"
    assert component_class("x-forms.text-input") == "App\\View\\Components\\Forms\\TextInput"
    assert component_class("x-mail::button") is None
    assert component_class("x-heroicon-o-chevron-right") is None
    assert livewire_class("cart-counter") == CART_COUNTER
    assert livewire_class("admin.users-table") == "App\\Livewire\\Admin\\UsersTable"
    assert livewire_class("CartCounter::class") == CART_COUNTER


def test_blade_view_sections_and_elements():
    analysis = analyze(APP, LOGIN)
    assert analysis.language == "blade" and analysis.syntax_errors == 0
    symbols = by_qname(analysis)
    view = symbols["auth.login"]
    assert view.kind is SymbolKind.MODULE and view.range.start.line == 0
    content = symbols["auth.login::content"]
    assert content.kind is SymbolKind.SECTION and content.name == "content"
    assert (content.range.start.line, content.range.end.line) == (4, 42)
    assert content.container == "auth.login"
    assert content.signature == "@section('content')"
    title = symbols["auth.login::title"]
    assert (title.range.start.line, title.range.end.line) == (2, 2)
    assert title.signature == "@section('title', __('Log in'))"
    assert symbols["auth.login::scripts"].signature == "@push('scripts')"
    form = symbols["auth.login::content > section.auth-card > form#login-form"]
    assert form.kind is SymbolKind.ELEMENT and form.range.start.line == 13
    # Headings made of Blade echoes name nothing stable.
    assert not [s for s in analysis.symbols if "{{" in s.name]
    card = by_qname(analyze(APP, CARD))["components.user-card"]
    assert card.kind is SymbolKind.COMPONENT and card.signature == "<x-user-card>"
    layout = by_qname(analyze(APP, LAYOUT))
    assert layout["layouts.app::content"].signature == "@yield('content')"
    assert layout["layouts.app::content"].range.start.line == 34
    assert layout["layouts.app::scripts"].signature == "@stack('scripts')"


def test_blade_view_chunk_metadata_links_php():
    analysis = analyze(APP, LOGIN)
    view = chunk(analysis, "view", "auth.login")
    assert (view.start_line, view.end_line) == (0, 48)
    assert view.content.splitlines()[0] == "@extends('layouts.app')"
    meta = view.metadata
    assert meta["view"] == "auth.login"
    assert meta["extends"] == "layouts.app"
    assert meta["components"] == {"x-user-card": USER_CARD}
    assert meta["livewire"] == {"cart-counter": CART_COUNTER}
    assert meta["routes"] == ["login"]
    assert meta["related_symbols"] == [USER_CARD, CART_COUNTER]
    assert meta["views"] == ["layouts.app", "components.user-card"]
    assert meta["forms"] == [
        {
            "name": "form#login-form",
            "line": 13,
            "method": "POST",
            "action": "{{ route('login') }}",
            "fields": ["email", "password", "remember"],
            "csrf": True,
            "errors": ["email", "password"],
            "route": "login",
        }
    ]
    section = chunk(analysis, "section", "content")
    assert (section.start_line, section.end_line) == (4, 42)
    assert "<x-user-card" in section.content
    assert "@csrf" not in section.content  # the form is a chunk of its own
    form = chunk(analysis, "element", "form#login-form")
    assert (form.start_line, form.end_line) == (13, 38)
    assert "@csrf" in form.content and form.metadata["routes"] == ["login"]
    assert "components" not in form.metadata  # <x-user-card> is outside the form


def test_blade_products_index_components_livewire_includes():
    analysis = analyze(APP, PRODUCTS)
    view = chunk(analysis, "view", "products.index")
    meta = view.metadata
    # `<x-slot:label>` is part of the component call, not a component.
    assert meta["components"] == {"x-forms.input": "App\\View\\Components\\Forms\\Input"}
    assert meta["livewire"] == {"cart-counter": CART_COUNTER}
    assert meta["routes"] == ["products.index", "products.show"]
    assert meta["includes"] == ["partials.cart-hint"]
    assert meta["forms"][0]["method"] == "GET" and meta["forms"][0]["fields"] == ["q"]
    aside = chunk(analysis, "element", "aside.cart-summary")
    assert aside.metadata["livewire"] == {"cart-counter": CART_COUNTER}
    assert aside.metadata["related_symbols"] == [CART_COUNTER]
    article = chunk(analysis, "element", "article.product-card")
    assert "@if ($product->isInStock())" in article.content
    layout = chunk(analyze(APP, LAYOUT), "view", "layouts.app")
    assert layout.metadata["routes"] == ["products.index", "logout", "login"]
    assert layout.metadata["forms"][0]["route"] == "logout"


def test_blade_references_to_component_and_livewire_classes():
    analysis = analyze(APP, LOGIN)
    refs = {(r.name, r.start_line, r.start_character, r.end_character) for r in analysis.references}
    assert ("UserCard", 10, 13, 24) in refs  # the `x-user-card` tag name
    assert ("CartCounter", 40, 18, 32) in refs  # @livewire('cart-counter')
    user_card = next(r for r in analysis.references if r.name == "UserCard")
    assert user_card.container == "auth.login::content > section.auth-card"
    products = analyze(APP, PRODUCTS).references
    assert ("CartCounter", 31, 9) in {(r.name, r.start_line, r.start_character) for r in products}
    assert "Input" in {r.name for r in products}


def test_refs_user_card_finds_blade_usages_in_the_store(fixture_copy):
    root = fixture_copy("laravel_app")
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config())
    paths = {r.path for r in store.find_references(USER_CARD)}
    assert LOGIN in paths
    counter = {r.path for r in store.find_references("CartCounter")}
    assert {LOGIN, LAYOUT, PRODUCTS} <= counter
    [definition] = store.find_definitions("auth.login")
    assert definition.path == LOGIN


def test_blade_directives_edge_cases():
    source = b"""@extends('layouts.admin')
{{-- <x-hidden-card /> and @livewire('ghost') are commented out --}}
@section('content')
  <form method="POST" action="{{ route('users.update', $user) }}">
    @csrf
    @method('PUT')
    @if ($user->orders()->count() > 3 && $x < 2)
      <x-badge type="vip" />
    @endif
    <x-slot name="footer">ignored</x-slot>
    <x-dynamic-component :component="$name" />
    <x-mail::button :url="$url">Go</x-mail::button>
    @includeWhen($user->isAdmin(), 'admin.tools', ['user' => $user])
    @includeFirst(['custom.form', 'default.form'])
    @livewire('admin.users-table', ['page' => 1])
    <input name="email">
  </form>
@endsection
"""
    analysis = analyze_source("resources/views/users/edit.blade.php", source)
    assert analysis.syntax_errors == 0
    view = chunk(analysis, "view", "users.edit")
    meta = view.metadata
    assert meta["extends"] == "layouts.admin"
    assert meta["components"] == {"x-badge": "App\\View\\Components\\Badge"}
    assert meta["external_components"] == ["x-mail::button"]
    assert meta["livewire"] == {"admin.users-table": "App\\Livewire\\Admin\\UsersTable"}
    assert meta["includes"] == ["admin.tools", "custom.form", "default.form"]
    assert meta["routes"] == ["users.update"]
    assert meta["related_symbols"] == [
        "App\\View\\Components\\Badge",
        "App\\Livewire\\Admin\\UsersTable",
    ]
    [form] = meta["forms"]
    assert form["method"] == "PUT" and form["csrf"] is True and form["route"] == "users.update"
    assert form["fields"] == ["email"]
    names = {r.name for r in analysis.references}
    assert {"Badge", "UsersTable"} <= names and "HiddenCard" not in names


def test_blade_unclosed_section_and_tags_still_index_the_rest():
    source = b"""@section('sidebar')
  <nav id="side">
    <ul><li>one
@section('main')
  <main>
    <x-user-card :user="$user" />
    <form id="search" action="{{ route('search') }}">
"""
    analysis = analyze_source("resources/views/broken.blade.php", source)
    assert not analysis.notes
    names = {s.name for s in analysis.symbols}
    assert {"broken", "side", "search"} <= names
    assert chunk(analysis, "view", "broken").metadata["components"] == {"x-user-card": USER_CARD}
    assert "UserCard" in {r.name for r in analysis.references}


def test_anonymous_components_link_to_their_blade_file_and_packages_are_external():
    source = b"""@extends('layouts.default')
@section('content')
  <x-threads.thread :thread="$thread" />
  <x-heroicon-o-chevron-right class="w-6 h-6" />
  <x-si-github />
  @include('layouts._ads._forum_sidebar')
@endsection
"""
    analysis = analyze_source("resources/views/forum/overview.blade.php", source)
    meta = chunk(analysis, "view", "forum.overview").metadata
    assert meta["external_components"] == ["x-heroicon-o-chevron-right", "x-si-github"]
    assert set(meta["components"]) == {"x-threads.thread"}
    assert "components.heroicon-o-chevron-right" not in meta["views"]
    assert not any("Heroicon" in s for s in meta.get("related_symbols", []))
    lines = source.decode().splitlines()
    refs = {r.name: lines[r.start_line][r.start_character : r.end_character] for r in analysis.references}
    # By view name, to the Blade file: anonymous component, layout, include.
    assert refs["components.threads.thread"] == "x-threads.thread"
    assert refs["layouts.default"] == "layouts.default"
    assert refs["layouts._ads._forum_sidebar"] == "layouts._ads._forum_sidebar"
    assert not any(name.startswith("Heroicon") for name in refs)
