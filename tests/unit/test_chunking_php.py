"""The PHP strategy on a realistic Laravel app: fqcns, imports, docblocks, DI,
Eloquent relations, translatable models, references, error recovery, ctags parity."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.languages import detect_language
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES, ctags_tags

APP = FIXTURES / "laravel_app"
LOGIN = "app/Http/Controllers/Auth/LoginController.php"
LOGIN_FQCN = "App\\Http\\Controllers\\Auth\\LoginController"


def analyze(rel: str, settings: ChunkSettings | None = None):
    return analyze_source(rel, (APP / rel).read_bytes(), settings)


def by_qname(analysis):
    return {s.qualified_name: s for s in analysis.symbols}


def chunk(analysis, symbol_type: str, name: str):
    found = [c for c in analysis.chunks if c.symbol_type == symbol_type and c.symbol_name == name]
    assert len(found) == 1, [(c.symbol_type, c.symbol_name) for c in analysis.chunks]
    return found[0]


def test_login_controller_symbols_are_fully_qualified():
    analysis = analyze(LOGIN)
    assert analysis.language == "php"
    assert analysis.syntax_errors == 0
    symbols = by_qname(analysis)
    cls = symbols[LOGIN_FQCN]
    assert cls.kind is SymbolKind.CLASS
    assert cls.container == "App\\Http\\Controllers\\Auth"
    assert cls.range.start.line == 17 and cls.selection_range.start.character == 6
    login = symbols[f"{LOGIN_FQCN}::login"]
    assert login.kind is SymbolKind.METHOD
    assert login.container == LOGIN_FQCN
    assert login.range.start.line == 42
    assert login.signature == "public function login(Request $request): RedirectResponse"
    assert login.doc is not None
    assert login.doc.startswith("Authenticate the user with email and password")
    assert "@throws ValidationException" in login.doc
    assert symbols[f"{LOGIN_FQCN}::logout"].kind is SymbolKind.METHOD
    assert symbols[f"{LOGIN_FQCN}::__construct"].kind is SymbolKind.CONSTRUCTOR
    # Promoted constructor parameters are properties of the class, not of __construct.
    auth = symbols[f"{LOGIN_FQCN}::authService"]
    assert auth.kind is SymbolKind.PROPERTY and auth.container == LOGIN_FQCN
    const = symbols[f"{LOGIN_FQCN}::MAX_ATTEMPTS"]
    assert const.kind is SymbolKind.CONSTANT
    assert const.doc == "Failed attempts allowed before the account is throttled."
    assert const.signature == "public const MAX_ATTEMPTS = 5;"


def test_use_imports_map_aliases_to_fqcns():
    imports = analyze(LOGIN).imports
    assert imports["AuthService"] == "App\\Services\\AuthService"
    assert imports["UserRepository"] == "App\\Repositories\\UserRepository"
    assert imports["Request"] == "Illuminate\\Http\\Request"
    # `use X as Y` keys the alias.
    assert (
        analyze("app/Models/User.php").imports["Authenticatable"]
        == "Illuminate\\Foundation\\Auth\\User"
    )
    source = (
        b"<?php\nnamespace App;\n"
        b"use Illuminate\\Http\\{Request, Response as HttpResponse};\n"
        b"use function App\\Support\\money_format;\n"
        b"use \\Carbon\\Carbon;\n"
        b"class X {}\n"
    )
    imports = analyze_source("app/X.php", source).imports
    assert imports == {
        "Request": "Illuminate\\Http\\Request",
        "HttpResponse": "Illuminate\\Http\\Response",
        "money_format": "App\\Support\\money_format",
        "Carbon": "Carbon\\Carbon",
    }


def test_class_chunk_carries_fqcn_uses_and_constructor_dependencies():
    analysis = analyze(LOGIN)
    cls = chunk(analysis, "class", "LoginController")
    meta = cls.metadata
    assert meta["fqcn"] == LOGIN_FQCN
    assert meta["namespace"] == "App\\Http\\Controllers\\Auth"
    assert meta["extends"] == "App\\Http\\Controllers\\Controller"
    assert "App\\Services\\AuthService" in meta["uses"]
    assert meta["injected_dependencies"] == [
        {"class": "App\\Services\\AuthService", "variable": "authService", "promoted": True},
        {"class": "App\\Repositories\\UserRepository", "variable": "users", "promoted": True},
    ]
    assert meta["related_symbols"] == [
        "App\\Services\\AuthService",
        "App\\Repositories\\UserRepository",
    ]
    # The chunk starts at the class docblock ("Login feature: ...") and is a skeleton.
    assert cls.start_line == 13 and cls.end_line == 76
    assert cls.content.startswith("/**\n * Login feature:")
    assert "public function login(Request $request): RedirectResponse" in cls.content
    assert "regenerate();" not in cls.content


def test_method_chunks_know_their_class_and_what_they_use():
    analysis = analyze(LOGIN)
    login = chunk(analysis, "method", "login")
    assert login.metadata["fqcn"] == LOGIN_FQCN
    assert login.metadata["qualified_name"] == f"{LOGIN_FQCN}::login"
    assert login.start_line == 37  # the docblock above `public function login`
    assert login.end_line == 63
    assert "$this->authService->attempt(" in login.content
    related = login.metadata["related_symbols"]
    # `$this->authService->...` resolves through the promoted constructor property.
    assert "App\\Services\\AuthService" in related
    assert "App\\Repositories\\UserRepository" in related
    assert "Illuminate\\Validation\\ValidationException" in related
    assert LOGIN_FQCN not in related


def test_classic_constructor_injection_and_property_types():
    analysis = analyze("app/Http/Controllers/OrderController.php")
    cls = chunk(analysis, "class", "OrderController")
    assert cls.metadata["related_symbols"] == ["App\\Interfaces\\PaymentGateway"]
    assert cls.metadata["injected_dependencies"] == [
        {"class": "App\\Interfaces\\PaymentGateway", "variable": "payments"}
    ]
    checkout = chunk(analysis, "method", "checkout")
    assert "App\\Interfaces\\PaymentGateway" in checkout.metadata["related_symbols"]
    store = chunk(analysis, "method", "store")
    assert {"App\\Models\\Order", "App\\Models\\Product", "App\\Enums\\OrderStatus"} <= set(
        store.metadata["related_symbols"]
    )


def test_eloquent_relations_of_the_user_model():
    analysis = analyze("app/Models/User.php")
    meta = chunk(analysis, "class", "User").metadata
    assert meta["relations"] == [
        {"name": "orders", "type": "hasMany", "related": "App\\Models\\Order"},
        {"name": "products", "type": "hasMany", "related": "App\\Models\\Product"},
        {"name": "favoriteProducts", "type": "belongsToMany", "related": "App\\Models\\Product"},
    ]
    assert meta["related_symbols"] == ["App\\Models\\Order", "App\\Models\\Product"]
    assert meta["traits"] == [
        "Illuminate\\Database\\Eloquent\\Factories\\HasFactory",
        "Illuminate\\Notifications\\Notifiable",
        "Spatie\\Permission\\Traits\\HasRoles",
    ]
    assert "translatable" not in meta and "is_translatable_model" not in meta
    orders = chunk(analysis, "method", "orders")
    assert orders.metadata["relation"] == {
        "name": "orders",
        "type": "hasMany",
        "related": "App\\Models\\Order",
    }
    assert "relation" not in chunk(analysis, "method", "isSeller").metadata


def test_translatable_product_model():
    analysis = analyze("app/Models/Product.php")
    meta = chunk(analysis, "class", "Product").metadata
    assert meta["translatable"] == ["name", "description"]
    assert meta["is_translatable_model"] is True
    # A fluent chain after the relation call is still a relation.
    assert {"name": "orders", "type": "belongsToMany", "related": "App\\Models\\Order"} in meta[
        "relations"
    ]
    assert {"name": "seller", "type": "belongsTo", "related": "App\\Models\\User"} in meta[
        "relations"
    ]
    translatable = by_qname(analysis)["App\\Models\\Product::translatable"]
    assert translatable.kind is SymbolKind.PROPERTY
    assert translatable.signature == "public $translatable = ['name', 'description'];"


def test_translation_traits_of_other_packages():
    # Filament's page concern is not a translatable *model*.
    page = chunk(
        analyze("app/Filament/Resources/ProductResource/Pages/ListProducts.php"),
        "filament_page",
        "ListProducts",
    )
    assert page.metadata["traits"] == [
        "Filament\\Resources\\Pages\\ListRecords\\Concerns\\Translatable"
    ]
    assert "is_translatable_model" not in page.metadata
    # Astrotomic/laravel-translatable declares `$translatedAttributes`.
    source = b"""<?php
namespace App\\Models;

use Astrotomic\\Translatable\\Translatable;
use Illuminate\\Database\\Eloquent\\Model;

class Category extends Model
{
    use Translatable;

    public $translatedAttributes = ['title'];
}
"""
    meta = chunk(analyze_source("app/Models/Category.php", source), "class", "Category").metadata
    assert meta["translatable"] == ["title"]
    assert meta["is_translatable_model"] is True


def test_interface_trait_enum_and_functions():
    gateway = by_qname(analyze("app/Interfaces/PaymentGateway.php"))
    assert gateway["App\\Interfaces\\PaymentGateway"].kind is SymbolKind.INTERFACE
    charge = gateway["App\\Interfaces\\PaymentGateway::charge"]
    assert charge.kind is SymbolKind.METHOD
    assert charge.doc == "Charge the order total and return the provider's payment reference."
    trait = by_qname(analyze("app/Concerns/HasSlug.php"))
    assert trait["App\\Concerns\\HasSlug"].kind is SymbolKind.TRAIT
    assert trait["App\\Concerns\\HasSlug::uniqueSlug"].kind is SymbolKind.METHOD
    enum = by_qname(analyze("app/Enums/OrderStatus.php"))
    assert enum["App\\Enums\\OrderStatus"].kind is SymbolKind.ENUM
    assert enum["App\\Enums\\OrderStatus::Paid"].kind is SymbolKind.ENUM_MEMBER
    stripe = chunk(
        analyze("app/Services/StripePaymentGateway.php"), "class", "StripePaymentGateway"
    )
    assert stripe.metadata["implements"] == ["App\\Interfaces\\PaymentGateway"]
    assert stripe.metadata["related_symbols"] == ["Stripe\\StripeClient"]


def test_several_namespaces_in_one_file_and_functions():
    source = (
        b"<?php\n"
        b"namespace App\\Support {\n"
        b"    function money(int $cents): string { return number_format($cents / 100, 2); }\n"
        b"    class Formatter { public function format() {} }\n"
        b"}\n"
        b"namespace App\\Other {\n"
        b"    class Formatter {}\n"
        b"}\n"
    )
    names = {s.qualified_name: s.kind for s in analyze_source("lib.php", source).symbols}
    assert names == {
        "App\\Support\\money": SymbolKind.FUNCTION,
        "App\\Support\\Formatter": SymbolKind.CLASS,
        "App\\Support\\Formatter::format": SymbolKind.METHOD,
        "App\\Other\\Formatter": SymbolKind.CLASS,
    }


def test_references_are_class_method_and_property_names_not_variables():
    analysis = analyze(LOGIN)
    names = {r.name for r in analysis.references}
    assert {
        "findByEmail",
        "attempt",
        "AuthService",
        "ValidationException",
        "withMessages",
        "MAX_ATTEMPTS",
        "users",
        "Log",
        "route",
    } <= names
    # Local variables and $this are not references (see the php module docstring).
    assert "request" not in names and "this" not in names and "credentials" not in names
    attempt = [r for r in analysis.references if r.name == "attempt"]
    assert [(r.start_line, r.container) for r in attempt] == [(54, f"{LOGIN_FQCN}::login")]
    # Definitions are not references: `login` occurs as the method name and as the
    # route name in `redirect()->route('login')`, which references the route only.
    assert [r.start_line for r in analysis.references if r.name == "login"] == [74]
    source = (
        b"<?php\n$u = new User();\n$c = Post::class;\nPost::query();\nif ($x instanceof Admin) {}\n"
    )
    refs = [(r.name, r.start_line) for r in analyze_source("s.php", source).references]
    assert refs == [("User", 1), ("Post", 2), ("Post", 3), ("query", 3), ("Admin", 4)]


def test_header_chunk_and_no_orphan_blocks():
    analysis = analyze(LOGIN)
    header = chunk(analysis, "namespace", "App\\Http\\Controllers\\Auth")
    assert (header.start_line, header.end_line) == (0, 11)
    assert "use App\\Services\\AuthService;" in header.content
    assert header.metadata["defines"] == [LOGIN_FQCN]
    assert not [c for c in analysis.chunks if c.symbol_type == "block"]
    routes = analyze("routes/web.php")
    blocks = [c for c in routes.chunks if c.symbol_type == "block"]
    (store,) = [c for c in blocks if "->name('orders.store')" in c.content]
    assert "orders.store" in [r["name"] for r in store.metadata["route_definitions"]]
    assert routes.imports["LoginController"] == LOGIN_FQCN


def test_syntax_error_mid_file_keeps_the_definitions_after_it():
    source = b"""<?php

namespace App\\Services;

class InvoiceService
{
    public function total(Order $order): string
    {
        return $order->total;
    }

    public function broken(Order $order
    {
        $x = ;
    }

    public function send(Order $order): void
    {
        Mail::to($order->user)->send(new InvoiceMail($order));
    }
}

function format_money(int $cents): string
{
    return number_format($cents / 100, 2);
}

interface Sender
{
    public function deliver(string $to): bool;
}
"""
    analysis = analyze_source("app/Services/InvoiceService.php", source)
    assert analysis.syntax_errors >= 1
    symbols = by_qname(analysis)
    assert symbols["App\\Services\\InvoiceService::send"].range.start.line == 16
    assert symbols["App\\Services\\format_money"].kind is SymbolKind.FUNCTION
    assert symbols["App\\Services\\Sender::deliver"].kind is SymbolKind.METHOD
    assert any(c.symbol_name == "format_money" for c in analysis.chunks)


def test_oversized_method_with_docblock_is_split_and_keeps_every_line():
    body = "\n".join(f"        $total += $this->line{i}() * {i};" for i in range(200))
    source = (
        "<?php\nclass Report\n{\n    /**\n     * Sum every line.\n     */\n"
        f"    public function total(): int\n    {{\n        $total = 0;\n{body}\n"
        "        return $total;\n    }\n}\n"
    ).encode()
    analysis = analyze_source("Report.php", source, ChunkSettings(chunk_max_tokens=256))
    parts = [c for c in analysis.chunks if c.symbol_name == "total"]
    assert len(parts) > 1
    assert parts[0].content.lstrip().startswith("public function total(): int")
    covered = sorted(line for c in parts for line in range(c.start_line, c.end_line + 1))
    assert covered == list(range(6, 211))
    assert by_qname(analysis)["Report::total"].doc == "Sum every line."


def test_ctags_parity_on_the_laravel_fixture():
    tags = ctags_tags(APP, {"function", "class", "method", "interface", "trait"})
    tags = [t for t in tags if t["path"].endswith(".php") and not t["path"].endswith(".blade.php")]
    assert len(tags) >= 80
    ours: set[tuple[str, str, int]] = set()
    class_lines: set[tuple[str, int]] = set()
    for path in APP.rglob("*.php"):
        rel = path.relative_to(APP).as_posix()
        if rel.endswith(".blade.php"):
            continue
        analysis = analyze(rel)
        assert analysis.language == detect_language(rel)
        assert not analysis.notes, (rel, analysis.notes)
        for s in analysis.symbols:
            ours.add((rel, s.name, s.selection_range.start.line + 1))
            ours.add((rel, s.name, s.range.start.line + 1))
            if s.kind is SymbolKind.CLASS:
                class_lines.add((rel, s.range.start.line + 1))
    missing = []
    for t in tags:
        if t["name"].startswith("AnonymousClass"):
            # ctags invents a hash name for `new class ...`; we name it (`class@anonymous`,
            # or `CreateUsersTable` in migrations), so compare the line only.
            if (t["path"], t["line"]) not in class_lines:
                missing.append(t)
        elif (t["path"], t["name"], t["line"]) not in ours:
            missing.append(t)
    assert not missing, missing


def test_filament_plugin_translatable_concern_is_not_a_translatable_model():
    source = b"""<?php
namespace App\\Filament\\Resources\\Posts\\Pages;

use LaraZeus\\SpatieTranslatable\\Resources\\Pages\\ListRecords\\Concerns\\Translatable;

class ListPosts extends \\Filament\\Resources\\Pages\\ListRecords
{
    use Translatable;
}
"""
    analysis = analyze_source("app/Filament/Resources/Posts/Pages/ListPosts.php", source)
    (page,) = [c for c in analysis.chunks if c.symbol_name == "ListPosts"]
    assert "is_translatable_model" not in page.metadata
