"""Filament v4's delegated layout and Laravel routes, as real apps write them."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.languages import detect_language
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES

NS = "App\\Filament\\Resources\\Shop\\Customers"

RESOURCE = b"""<?php
namespace App\\Filament\\Resources\\Shop\\Customers;

use App\\Filament\\Resources\\Shop\\Customers\\Schemas\\CustomerForm;
use App\\Filament\\Resources\\Shop\\Customers\\Tables\\CustomersTable;
use App\\Models\\Shop\\Customer;
use Filament\\Resources\\Resource;
use Filament\\Schemas\\Schema;
use Filament\\Tables\\Table;

class CustomerResource extends Resource
{
    protected static ?string $model = Customer::class;

    public static function form(Schema $schema): Schema
    {
        return CustomerForm::configure($schema);
    }

    public static function table(Table $table): Table
    {
        return CustomersTable::configure($table);
    }
}
"""

FORM = b"""<?php
namespace App\\Filament\\Resources\\Shop\\Customers\\Schemas;

use Filament\\Forms\\Components\\Repeater;
use Filament\\Forms\\Components\\Repeater\\TableColumn;
use Filament\\Forms\\Components\\Select;
use Filament\\Forms\\Components\\TextInput;
use Filament\\Schemas\\Components\\Section;
use Filament\\Schemas\\Schema;

class CustomerForm
{
    public static function configure(Schema $schema): Schema
    {
        return $schema->components([
            Section::make('Details')->schema(static::getDetailsComponents()),
            Repeater::make('addresses')
                ->table([TableColumn::make('Street')])
                ->schema([TextInput::make('street')]),
        ]);
    }

    /** @return array<Component> */
    public static function getDetailsComponents(): array
    {
        return [
            TextInput::make('name')->required(),
            Select::make('country')->searchable(),
        ];
    }
}
"""

TABLE = b"""<?php
namespace App\\Filament\\Resources\\Shop\\Customers\\Tables;

use Filament\\Actions\\DeleteBulkAction;
use Filament\\Actions\\EditAction;
use Filament\\Notifications\\Notification;
use Filament\\Tables\\Columns\\TextColumn;
use Filament\\Tables\\Filters\\QueryBuilder;
use Filament\\Tables\\Filters\\QueryBuilder\\Constraints\\TextConstraint;
use Filament\\Tables\\Table;

class CustomersTable
{
    public static function configure(Table $table): Table
    {
        return $table
            ->columns([TextColumn::make('name'), TextColumn::make('country.name')])
            ->filters([
                QueryBuilder::make()->constraints([
                    TextConstraint::make('name'),
                    TextConstraint::make('email'),
                ]),
            ])
            ->recordActions([EditAction::make()])
            ->groupedBulkActions([
                DeleteBulkAction::make()->action(function (): void {
                    Notification::make()->title('No')->send();
                }),
            ]);
    }
}
"""

RELATION_MANAGER = b"""<?php
namespace App\\Filament\\Resources\\Shop\\Customers\\RelationManagers;

use Filament\\Forms\\Components\\TextInput;
use Filament\\Resources\\RelationManagers\\RelationManager;
use Filament\\Schemas\\Schema;

class AddressesRelationManager extends RelationManager
{
    protected static string $relationship = 'addresses';

    public function form(Schema $schema): Schema
    {
        return $schema->components([TextInput::make('street')]);
    }
}
"""

API_RESOURCE = b"""<?php
namespace App\\Http\\Resources;

use Illuminate\\Http\\Resources\\Json\\JsonResource;

class ArticleResource extends JsonResource
{
    public function toArray($request): array
    {
        return ['id' => $this->id];
    }
}
"""


def chunk(analysis, symbol_type: str, name: str):
    return next(
        c for c in analysis.chunks if c.symbol_type == symbol_type and c.symbol_name == name
    )


def items(meta, kind: str) -> list[tuple[str, str | None]]:
    return [(i["component"], i.get("name")) for i in meta.get(kind, [])]


def test_v4_resource_records_the_classes_it_delegates_to():
    rel = "app/Filament/Resources/Shop/Customers/CustomerResource.php"
    analysis = analyze_source(rel, RESOURCE)
    form = chunk(analysis, "filament_form", "form")
    assert form.metadata["delegates_to"] == f"{NS}\\Schemas\\CustomerForm"
    table = chunk(analysis, "filament_table", "table")
    assert table.metadata["delegates_to"] == f"{NS}\\Tables\\CustomersTable"
    assert f"{NS}\\Tables\\CustomersTable" in table.metadata["related_symbols"]


def test_v4_form_class_has_its_fields_including_helper_methods():
    rel = "app/Filament/Resources/Shop/Customers/Schemas/CustomerForm.php"
    assert detect_language(rel) == "filament_resource"
    analysis = analyze_source(rel, FORM)
    cls = chunk(analysis, "filament_schema", "CustomerForm")
    assert cls.metadata["resource"] == f"{NS}\\CustomerResource"
    assert cls.metadata["sections"] == ["form"]
    form = chunk(analysis, "filament_form", "configure")
    assert form.metadata["resource"] == f"{NS}\\CustomerResource"
    # Helper-method fields come where the helper is called; a repeater's table
    # column header is no table column.
    assert items(form.metadata, "fields") == [
        ("TextInput", "name"),
        ("Select", "country"),
        ("Repeater", "addresses"),
        ("TextInput", "street"),
    ]
    assert "columns" not in form.metadata
    assert form.metadata["fields"][0]["modifiers"] == ["required"]


def test_v4_table_class_filters_constraints_actions_and_no_notification():
    rel = "app/Filament/Resources/Shop/Customers/Tables/CustomersTable.php"
    analysis = analyze_source(rel, TABLE)
    table = chunk(analysis, "filament_table", "configure").metadata
    assert items(table, "columns") == [("TextColumn", "name"), ("TextColumn", "country.name")]
    assert items(table, "filters") == [("QueryBuilder", None)]
    assert items(table, "constraints") == [("TextConstraint", "name"), ("TextConstraint", "email")]
    assert [(a["component"], a["placement"]) for a in table["actions"]] == [
        ("EditAction", "recordActions"),
        ("DeleteBulkAction", "groupedBulkActions"),
    ]
    assert "fields" not in table  # the Notification sent by the bulk action


def test_relation_manager_is_linked_to_its_resource():
    rel = "app/Filament/Resources/Shop/Customers/RelationManagers/AddressesRelationManager.php"
    analysis = analyze_source(rel, RELATION_MANAGER)
    cls = chunk(analysis, "filament_relation_manager", "AddressesRelationManager")
    assert cls.metadata["relationship"] == "addresses"
    assert cls.metadata["resource"] == f"{NS}\\CustomerResource"
    form = chunk(analysis, "filament_form", "form")
    assert items(form.metadata, "fields") == [("TextInput", "street")]


def test_json_resource_is_not_filament():
    rel = "app/Http/Resources/ArticleResource.php"
    analysis = analyze_source(rel, API_RESOURCE)
    assert not any(c.symbol_type.startswith("filament") for c in analysis.chunks)
    cls = next(c for c in analysis.chunks if c.symbol_name == "ArticleResource")
    assert cls.metadata["api_resource"] is True


# ---- routes -------------------------------------------------------------------------


ROUTES = b"""<?php
use App\\Http\\Controllers\\Forum\\ThreadsController;
use App\\Http\\Controllers\\BlockUserController;
use App\\Livewire\\Form;
use Illuminate\\Support\\Facades\\Route;

Route::prefix('forum')->name('forum.')->middleware('auth')->group(function () {
    Route::put('{thread}/mark-solution/{reply}', [ThreadsController::class, 'markSolution'])
        ->name('solution.mark');
});
Route::put('users/{username}/block', BlockUserController::class)->name('users.block');
Route::get('form', Form::class);
Route::view('rules', 'rules')->name('rules');
Route::resource('photos', PhotoController::class)->only(['index', 'show']);
"""


def route_facts(analysis) -> dict[str, dict]:
    out = {}
    for c in analysis.chunks:
        for r in c.metadata.get("route_definitions", []):
            out[r["name"] or f"{'|'.join(r['methods'])} {r['uri']}"] = r
    return out


def test_routes_are_symbols_with_prefixes_action_and_middleware():
    rel = "routes/web.php"
    assert detect_language(rel) == "laravel_routes"
    analysis = analyze_source(rel, ROUTES)
    routes = route_facts(analysis)
    mark = routes["forum.solution.mark"]
    assert mark["uri"] == "forum/{thread}/mark-solution/{reply}"
    assert mark["methods"] == ["PUT"]
    assert mark["middleware"] == ["auth"]
    assert mark["action"] == "App\\Http\\Controllers\\Forum\\ThreadsController::markSolution"
    block = routes["users.block"]
    assert block["action"] == "App\\Http\\Controllers\\BlockUserController::__invoke"
    assert routes["GET|HEAD form"]["action_type"] == "livewire"
    assert routes["rules"]["view"] == "rules"
    assert {"photos.index", "photos.show"} <= set(routes)
    assert "photos.create" not in routes
    kinds = {s.name: s.kind for s in analysis.symbols}
    assert kinds["forum.solution.mark"] is SymbolKind.ROUTE
    # The controller method named in the array is referenced, inside the quotes.
    (ref,) = [r for r in analysis.references if r.name == "markSolution"]
    assert ROUTES.decode().splitlines()[ref.start_line][ref.start_character - 1] == "'"


def test_route_helpers_reference_the_route_by_name():
    src = b"""<?php
namespace App\\Http\\Controllers;
class C {
    public function f() {
        if (\\Route::has('forum')) { return to_route('home'); }
        return redirect()->route('threads.show', 1);
    }
}
"""
    analysis = analyze_source("app/Http/Controllers/C.php", src)
    names = {r.name for r in analysis.references}
    assert {"forum", "home", "threads.show"} <= names


def test_fixture_routes_file_links_blade_route_calls():
    rel = "routes/web.php"
    analysis = analyze_source(rel, (FIXTURES / "laravel_app" / rel).read_bytes())
    routes = route_facts(analysis)
    assert {"products.index", "login", "orders.pay"} <= set(routes)
    assert routes["login"]["middleware"] == ["guest"]
    # No chunk per route: the facts ride on the code block (a one-line chunk per route
    # would outrank the controller in semantic search).
    assert not [c for c in analysis.chunks if c.symbol_type == "route"]


# ---- models, tables, schema dumps ------------------------------------------------------


MODEL = b"""<?php
namespace App\\Models;

use App\\Enums\\ThreadStatus;
use Illuminate\\Database\\Eloquent\\Model;

final class Thread extends Model
{
    const TABLE = 'threads';

    protected $table = self::TABLE;

    protected $fillable = ['subject', 'body'];

    protected $hidden = ['ip'];

    protected $with = ['authorRelation'];

    protected function casts(): array
    {
        return ['locked_at' => 'datetime', 'status' => ThreadStatus::class];
    }
}
"""


def test_model_properties_and_table():
    analysis = analyze_source("app/Models/Thread.php", MODEL)
    (cls,) = [c for c in analysis.chunks if c.symbol_name == "Thread"]
    meta = cls.metadata
    assert (meta["table"], meta["table_source"]) == ("threads", "property")
    assert meta["fillable"] == ["subject", "body"]
    assert meta["hidden"] == ["ip"]
    assert meta["with"] == ["authorRelation"]
    assert meta["casts"] == {"locked_at": "datetime", "status": "App\\Enums\\ThreadStatus"}


def test_model_table_by_naming_convention():
    source = b"""<?php
namespace App\\Models\\Shop;
use Illuminate\\Database\\Eloquent\\Model;
class OrderItem extends Model { protected $guarded = []; }
class Category extends Model {}
"""
    analysis = analyze_source("app/Models/Shop/OrderItem.php", source)
    tables = {c.symbol_name: c.metadata["table"] for c in analysis.chunks if "table" in c.metadata}
    assert tables == {"OrderItem": "order_items", "Category": "categories"}


DUMP = b"""/*!40101 SET NAMES utf8 */;
DROP TABLE IF EXISTS `articles`;
CREATE TABLE `articles` (
  `id` int unsigned NOT NULL AUTO_INCREMENT,
  `author_id` int unsigned NOT NULL,
  `title` varchar(255) COLLATE utf8mb4_unicode_ci NOT NULL,
  `approved_at` timestamp NULL DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `articles_title_unique` (`title`),
  CONSTRAINT `articles_author_id_foreign` FOREIGN KEY (`author_id`) REFERENCES `users` (`id`) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE IF NOT EXISTS "tags" ("id" integer primary key autoincrement not null, "name" varchar not null);
"""


def test_schema_dump_tables_are_table_chunks_and_symbols():
    rel = "database/schema/mysql-schema.sql"
    assert detect_language(rel) == "laravel_schema_dump"
    analysis = analyze_source(rel, DUMP)
    tables = {c.symbol_name: c for c in analysis.chunks if c.symbol_type == "table_schema"}
    assert set(tables) == {"articles", "tags"}
    articles = tables["articles"].metadata
    assert [c["name"] for c in articles["columns"]] == ["id", "author_id", "title", "approved_at"]
    assert articles["columns"][2]["type"] == "varchar(255)"
    assert "nullable" in articles["columns"][3]["modifiers"]
    assert articles["foreign_keys"] == [
        {"column": "author_id", "references": "id", "on": "users", "on_delete": "cascade"}
    ]
    assert {"type": "unique", "columns": ["title"]} in articles["indexes"]
    symbols = {s.qualified_name: s.kind for s in analysis.symbols}
    assert symbols["articles"] is SymbolKind.TABLE
    assert symbols["articles.title"] is SymbolKind.FIELD


def test_after_closure_columns_are_columns_not_an_after_column():
    source = b"""<?php
use Illuminate\\Database\\Migrations\\Migration;
use Illuminate\\Database\\Schema\\Blueprint;
use Illuminate\\Support\\Facades\\Schema;

return new class extends Migration
{
    public function up(): void
    {
        Schema::table('articles', function (Blueprint $table) {
            $table->after('hero_image', function () use ($table) {
                $table->string('hero_image_url')->nullable();
                $table->string('hero_image_author_name')->nullable();
            });
        });
    }
};
"""
    rel = "database/migrations/2024_09_27_095949_add_hero_image_columns.php"
    analysis = analyze_source(rel, source)
    (alter,) = [c for c in analysis.chunks if c.symbol_type == "table_alter"]
    cols = [(c["name"], c["type"], c.get("after")) for c in alter.metadata["columns"]]
    assert cols == [
        ("hero_image_url", "string", "hero_image"),
        ("hero_image_author_name", "string", "hero_image_url"),
    ]


def test_relation_names_in_strings_reference_the_relation_method():
    source = b"""<?php
namespace App\\Http\\Controllers;

class ThreadsController
{
    protected $with = ['authorRelation'];

    public function index()
    {
        return Thread::with(['tagsRelation', 'author.profile:id,name' => fn ($q) => $q])
            ->whereHas('replies')
            ->get() . TextColumn::make('customer.name') . Select::make('brand_id')
            ->relationship('brand', 'name');
    }
}
"""
    analysis = analyze_source("app/Http/Controllers/ThreadsController.php", source)
    lines = source.decode().splitlines()
    found = {}
    for r in analysis.references:
        text = lines[r.start_line][r.start_character : r.end_character]
        if text == r.name and lines[r.start_line][r.start_character - 1] in "'.":
            found[r.name] = r.start_line
    assert {
        "authorRelation",
        "tagsRelation",
        "author",
        "profile",
        "replies",
        "customer",
        "brand",
    } <= set(found)
    # Columns are not relations: `name` in 'customer.name', `id` after the colon.
    assert "name" not in found and "id" not in found and "brand_id" not in found


def test_factories_are_not_models_and_table_widgets_have_columns():
    factory = b"""<?php
namespace Database\\Factories;
use Illuminate\\Database\\Eloquent\\Factories\\Factory;
class ArticleFactory extends Factory {}
"""
    analysis = analyze_source("database/factories/ArticleFactory.php", factory)
    assert not any("table" in c.metadata for c in analysis.chunks)
    widget = b"""<?php
namespace App\\Filament\\Widgets;
use Filament\\Tables\\Columns\\TextColumn;
use Filament\\Tables\\Table;
use Filament\\Widgets\\TableWidget as BaseWidget;
class LatestOrders extends BaseWidget
{
    public function table(Table $table): Table
    {
        return $table->columns([TextColumn::make('number')]);
    }
}
"""
    analysis = analyze_source("app/Filament/Widgets/LatestOrders.php", widget)
    table = chunk(analysis, "filament_table", "table")
    assert items(table.metadata, "columns") == [("TextColumn", "number")]


def test_interpolated_blade_include_is_no_view_reference():
    source = b"""@include("notifications.{$notification->data['type']}")
@include('partials.nav')
"""
    analysis = analyze_source("resources/views/livewire/list.blade.php", source)
    names = {r.name for r in analysis.references}
    assert "partials.nav" in names
    assert not any("{" in n for n in names)
