"""Laravel-specific strategies on the fixture app: migrations (table schemas), Filament
resources (admin DSL) and composer.json (dependencies, PSR-4 namespaces)."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.languages import detect_language
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES

APP = FIXTURES / "laravel_app"
USERS_MIGRATION = "database/migrations/2024_01_01_000000_create_users_table.php"
PRODUCTS_MIGRATION = "database/migrations/2024_01_02_000000_create_products_table.php"
ORDERS_MIGRATION = "database/migrations/2024_01_03_000000_create_orders_table.php"
RESOURCE = "app/Filament/Resources/ProductResource.php"
RESOURCE_FQCN = "App\\Filament\\Resources\\ProductResource"


def analyze(rel: str):
    return analyze_source(rel, (APP / rel).read_bytes())


def chunks_of(analysis, symbol_type: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for c in analysis.chunks:
        if c.symbol_type == symbol_type:
            out.setdefault(c.symbol_name, []).append(c)
    return out


def columns(chunk) -> dict[str, dict]:
    return {c["name"]: c for c in chunk.metadata["columns"]}


# ---- migrations -----------------------------------------------------------------------


def test_users_table_schema_chunk():
    analysis = analyze(USERS_MIGRATION)
    assert analysis.language == "laravel_migration"
    tables = chunks_of(analysis, "table_schema")
    assert set(tables) == {"users", "password_reset_tokens"}
    users = tables["users"][0]
    assert (users.start_line, users.end_line) == (13, 21)
    assert users.content.lstrip().startswith(
        "Schema::create('users', function (Blueprint $table) {"
    )
    assert users.metadata["table"] == "users"
    assert users.metadata["operation"] == "create"
    cols = columns(users)
    assert list(cols) == [
        "id",
        "name",
        "email",
        "email_verified_at",
        "password",
        "remember_token",
        "created_at",
        "updated_at",
    ]
    assert cols["email"]["type"] == "string" and cols["email"]["modifiers"] == ["unique"]
    assert cols["email_verified_at"]["nullable"] is True
    assert {"type": "unique", "columns": ["email"]} in users.metadata["indexes"]
    assert {"type": "primary", "columns": ["id"]} in users.metadata["indexes"]
    assert users.metadata["foreign_keys"] == []
    assert users.metadata["migration"] == "CreateUsersTable"


def test_migration_keeps_its_php_symbols():
    analysis = analyze(USERS_MIGRATION)
    symbols = {s.qualified_name: s for s in analysis.symbols}
    # The anonymous migration class is named after the file, as Laravel used to.
    assert symbols["CreateUsersTable"].kind is SymbolKind.CLASS
    assert symbols["CreateUsersTable::up"].kind is SymbolKind.METHOD
    assert symbols["CreateUsersTable::up"].doc == "Run the migrations."
    assert symbols["CreateUsersTable::down"].range.start.line == 33
    assert symbols["users"].kind is SymbolKind.TABLE
    assert symbols["users"].selection_range.start.line == 13
    email = symbols["users.email"]
    assert email.kind is SymbolKind.FIELD and email.container == "users"
    assert email.range.start.line == 16
    methods = {c.symbol_name for c in analysis.chunks if c.symbol_type == "method"}
    assert methods == {"up", "down"}
    cls = next(c for c in analysis.chunks if c.symbol_type == "class")
    assert cls.metadata["tables"] == {
        "created": ["users", "password_reset_tokens"],
        "dropped": ["password_reset_tokens", "users"],
    }


def test_foreign_keys_from_constrained_and_explicit_foreign():
    products = analyze(PRODUCTS_MIGRATION)
    tables = chunks_of(products, "table_schema")
    assert tables["products"][0].metadata["foreign_keys"] == [
        {"column": "seller_id", "references": "id", "on": "users", "on_delete": "cascade"}
    ]
    cols = columns(tables["products"][0])
    assert cols["price"]["type"] == "decimal" and cols["price"]["args"] == [10, 2]
    assert cols["stock"]["default"] == 0
    assert cols["is_published"]["default"] is False
    assert cols["deleted_at"]["nullable"] is True
    assert {"type": "index", "columns": ["is_published", "created_at"]} in tables["products"][
        0
    ].metadata["indexes"]
    # `foreignId('user_id')->constrained()` guesses the table the way Laravel does.
    assert tables["favorites"][0].metadata["foreign_keys"] == [
        {"column": "user_id", "references": "id", "on": "users", "on_delete": "cascade"},
        {"column": "product_id", "references": "id", "on": "products", "on_delete": "cascade"},
    ]
    orders = analyze(ORDERS_MIGRATION)
    tables = chunks_of(orders, "table_schema")
    order = tables["orders"][0]
    assert order.metadata["foreign_keys"] == [
        {"column": "user_id", "references": "id", "on": "users", "on_delete": "cascade"}
    ]
    assert order.metadata["related_tables"] == ["users"]
    cols = columns(order)
    assert cols["status"]["default"] == "pending"
    assert cols["status"]["args"] == [20]
    assert {"type": "index", "columns": ["status"]} in order.metadata["indexes"]
    pivot = tables["order_product"][0]
    assert [fk["on"] for fk in pivot.metadata["foreign_keys"]] == ["orders", "products"]
    assert pivot.metadata["foreign_keys"][1]["on_delete"] == "restrict"
    assert {"type": "unique", "columns": ["order_id", "product_id"]} in pivot.metadata["indexes"]


def test_schema_table_is_an_alteration():
    analysis = analyze(ORDERS_MIGRATION)
    alters = chunks_of(analysis, "table_alter")["users"]
    assert [(c.start_line, c.end_line) for c in alters] == [(35, 38), (43, 45)]
    up = alters[0].metadata
    assert up["operation"] == "alter"
    assert columns(alters[0])["phone"]["modifiers"] == ["nullable", "after"]
    assert up["dropped_columns"] == ["legacy_points"]
    assert alters[1].metadata["dropped_columns"] == ["phone"]
    # Only Schema::create defines a table symbol; the added column is still a field.
    kinds = {(s.kind, s.qualified_name) for s in analysis.symbols}
    assert (SymbolKind.TABLE, "users") not in kinds
    assert (SymbolKind.FIELD, "users.phone") in kinds
    assert (SymbolKind.CLASS, "CreateOrdersTable") in kinds


def test_blueprint_helpers_connection_and_foreign_id_for():
    source = b"""<?php

use App\\Models\\User;
use Illuminate\\Database\\Migrations\\Migration;
use Illuminate\\Database\\Schema\\Blueprint;
use Illuminate\\Support\\Facades\\Schema;

return new class extends Migration
{
    public function up(): void
    {
        Schema::connection('audit')->create('activity_log', function (Blueprint $t) {
            $t->ulid('id')->primary();
            $t->foreignIdFor(User::class)->nullable()->constrained()->nullOnDelete();
            $t->nullableMorphs('subject');
            $t->enum('level', ['info', 'warning'])->default('info');
            $t->engine('InnoDB');
        });
    }
};
"""
    rel = "database/migrations/2024_02_01_120000_create_activity_log_table.php"
    analysis = analyze_source(rel, source)
    (log,) = chunks_of(analysis, "table_schema")["activity_log"]
    cols = columns(log)
    assert list(cols) == ["id", "user_id", "subject_type", "subject_id", "level"]
    assert cols["user_id"]["nullable"] is True
    assert cols["subject_id"]["type"] == "unsignedBigInteger"
    assert cols["level"]["args"] == [["info", "warning"]]
    assert log.metadata["foreign_keys"] == [
        {"column": "user_id", "references": "id", "on": "users", "on_delete": "set null"}
    ]
    assert {"type": "index", "columns": ["subject_type", "subject_id"]} in log.metadata["indexes"]
    assert log.metadata["options"] == {"engine": "InnoDB"}
    assert log.metadata["migration"] == "CreateActivityLogTable"


# ---- Filament -------------------------------------------------------------------------


def test_filament_resource_class_chunk():
    analysis = analyze(RESOURCE)
    assert analysis.language == "filament_resource"
    (cls,) = chunks_of(analysis, "filament_resource")["ProductResource"]
    meta = cls.metadata
    assert meta["fqcn"] == RESOURCE_FQCN
    assert meta["model"] == "App\\Models\\Product"
    assert meta["navigation_icon"] == "heroicon-o-shopping-bag"
    assert meta["navigation_group"] == "Shop"
    assert meta["translatable"] is True
    assert meta["sections"] == ["form", "table", "relations", "pages"]
    assert meta["related_symbols"][:2] == [
        "App\\Models\\Product",
        "App\\Filament\\Resources\\ProductResource\\RelationManagers\\OrdersRelationManager",
    ]
    assert (
        "App\\Filament\\Resources\\ProductResource\\Pages\\EditProduct" in meta["related_symbols"]
    )
    # The symbols are plain PHP.
    symbols = {s.qualified_name: s.kind for s in analysis.symbols}
    assert symbols[RESOURCE_FQCN] is SymbolKind.CLASS
    assert symbols[f"{RESOURCE_FQCN}::form"] is SymbolKind.METHOD


def test_filament_form_fields():
    analysis = analyze(RESOURCE)
    (form,) = chunks_of(analysis, "filament_form")["form"]
    assert form.start_line == 42
    assert form.metadata["qualified_name"] == f"{RESOURCE_FQCN}::form"
    assert form.metadata["model"] == "App\\Models\\Product"
    fields = [(f["component"], f["name"]) for f in form.metadata["fields"]]
    assert fields == [
        ("TextInput", "name"),
        ("Textarea", "description"),
        ("TextInput", "price"),
        ("TextInput", "stock"),
        ("Select", "seller_id"),
        ("Toggle", "is_published"),
    ]
    assert form.metadata["fields"][0]["modifiers"] == ["required", "maxLength"]
    assert form.metadata["layout"] == [{"component": "Section", "label": "Product details"}]


def test_filament_table_columns_filters_and_actions():
    analysis = analyze(RESOURCE)
    (table,) = chunks_of(analysis, "filament_table")["table"]
    meta = table.metadata
    assert [(c["component"], c["name"]) for c in meta["columns"]] == [
        ("TextColumn", "name"),
        ("TextColumn", "seller.name"),
        ("TextColumn", "price"),
        ("TextColumn", "stock"),
        ("IconColumn", "is_published"),
    ]
    assert [(f["component"], f["name"]) for f in meta["filters"]] == [
        ("TernaryFilter", "is_published"),
        ("SelectFilter", "seller"),
    ]
    actions = [(a["component"], a["name"], a["placement"]) for a in meta["actions"]]
    assert actions == [
        ("EditAction", None, "actions"),
        ("Action", "publish", "actions"),
        ("DeleteBulkAction", None, "bulkActions"),
    ]
    assert "requiresConfirmation" in meta["actions"][1]["modifiers"]


def test_filament_relations_and_pages():
    analysis = analyze(RESOURCE)
    (relations,) = chunks_of(analysis, "filament_relations")["getRelations"]
    assert relations.metadata["relations"] == [
        "App\\Filament\\Resources\\ProductResource\\RelationManagers\\OrdersRelationManager"
    ]
    (pages,) = chunks_of(analysis, "filament_pages")["getPages"]
    assert pages.metadata["pages"] == [
        {
            "name": "index",
            "page": "App\\Filament\\Resources\\ProductResource\\Pages\\ListProducts",
            "route": "/",
        },
        {
            "name": "create",
            "page": "App\\Filament\\Resources\\ProductResource\\Pages\\CreateProduct",
            "route": "/create",
        },
        {
            "name": "edit",
            "page": "App\\Filament\\Resources\\ProductResource\\Pages\\EditProduct",
            "route": "/{record}/edit",
        },
    ]


def test_filament_header_actions_method():
    source = b"""<?php

namespace App\\Filament\\Resources;

use Filament\\Actions\\DeleteAction;
use Filament\\Resources\\Resource;

class InvoiceResource extends Resource
{
    protected static ?string $model = \\App\\Models\\Invoice::class;

    public static function getNavigationGroup(): ?string
    {
        return __('Billing');
    }

    protected function getHeaderActions(): array
    {
        return [
            DeleteAction::make()->requiresConfirmation(),
        ];
    }
}
"""
    rel = "app/Filament/Resources/InvoiceResource.php"
    assert detect_language(rel) == "filament_resource"
    analysis = analyze_source(rel, source)
    (cls,) = chunks_of(analysis, "filament_resource")["InvoiceResource"]
    assert cls.metadata["model"] == "App\\Models\\Invoice"
    assert cls.metadata["navigation_group"] == "Billing"
    assert cls.metadata["translatable"] is False
    (actions,) = chunks_of(analysis, "filament_actions")["getHeaderActions"]
    assert actions.metadata["actions"] == [
        {
            "component": "DeleteAction",
            "name": None,
            "modifiers": ["requiresConfirmation"],
            "placement": "getHeaderActions",
        }
    ]


# ---- composer.json --------------------------------------------------------------------


def test_composer_dependencies_and_autoload():
    analysis = analyze("composer.json")
    assert analysis.language == "composer_json"
    assert analysis.notes == []
    require = chunks_of(analysis, "dependencies")["require"][0]
    assert (require.start_line, require.end_line) == (6, 16)
    assert require.metadata["type"] == "production"
    assert "laravel/framework" in require.metadata["packages"]
    assert "spatie/laravel-translatable" in require.metadata["packages"]
    assert require.metadata["versions"]["livewire/livewire"] == "^3.4"
    dev = chunks_of(analysis, "dependencies")["require-dev"][0]
    assert dev.metadata["packages"] == [
        "fakerphp/faker",
        "laravel/pint",
        "mockery/mockery",
        "nunomaduro/collision",
        "phpunit/phpunit",
    ]
    autoload = chunks_of(analysis, "autoload")["autoload"][0]
    assert autoload.metadata["namespaces"] == [
        "App\\",
        "Database\\Factories\\",
        "Database\\Seeders\\",
    ]
    assert autoload.metadata["psr4"]["App\\"] == ["app/"]
    assert '"App\\\\": "app/"' in autoload.content
    assert chunks_of(analysis, "autoload")["autoload-dev"][0].metadata["namespaces"] == ["Tests\\"]
    package = chunks_of(analysis, "package")["acme/shop"][0]
    assert package.metadata["scripts"] == ["post-autoload-dump", "test"]
    assert '"minimum-stability": "stable"' in package.content


def test_composer_packages_and_namespaces_are_key_symbols():
    symbols = {s.qualified_name: s for s in analyze("composer.json").symbols}
    framework = symbols["require.laravel/framework"]
    assert framework.name == "laravel/framework"
    assert framework.kind is SymbolKind.KEY
    assert framework.selection_range.start.line == 10
    assert framework.selection_range.start.character == 9
    assert symbols["require-dev.phpunit/phpunit"].container == "require-dev"
    app = symbols["autoload.psr-4.App\\"]
    assert app.name == "App\\" and app.selection_range.start.line == 26
    assert symbols["acme/shop"].kind is SymbolKind.PACKAGE


def test_broken_composer_json_falls_back_to_line_windows():
    source = b'{\n    "name": "acme/shop",\n    "require": {\n        "php": "^8.2",\n    }\n'
    analysis = analyze_source("composer.json", source)
    assert analysis.syntax_errors == 1
    assert analysis.notes and "not valid JSON" in analysis.notes[0]
    assert [(c.symbol_type, c.start_line, c.end_line) for c in analysis.chunks] == [("lines", 0, 4)]
    assert analysis.symbols == []
    not_an_object = analyze_source("composer.json", b'["laravel/framework"]\n')
    assert not_an_object.notes and not_an_object.chunks[0].symbol_type == "lines"
