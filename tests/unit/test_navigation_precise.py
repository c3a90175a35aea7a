"""Definitions and references that mean one symbol: scopes, receivers, imports,
builtins, `$`, ranking and qualified names, per language, on code written the way
real projects write it (`tests/fixtures/nav_mixed`: a Python package, a TypeScript
client and a Laravel-style PHP app). Real tree-sitter grammars and the real SQLite
index; each case says what name-only matching answered before (the failing shape)."""

from __future__ import annotations

import shutil

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_named

from tests.conftest import FIXTURES

CATALOG = "app/Services/Catalog.php"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    root = tmp_path_factory.mktemp("nav") / "repo"
    shutil.copytree(FIXTURES / "nav_mixed", root)
    index = LiveIndex(root)
    index.sync()
    return index


def line_of(rel: str, needle: str) -> int:
    """1-based line of the first fixture line holding `needle`."""
    text = (FIXTURES / "nav_mixed" / rel).read_text(encoding="utf-8")
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def at(rel: str, needle: str, qualified: str) -> str:
    return f"{rel}:{line_of(rel, needle)} {qualified}"


def defs(live: LiveIndex, rel: str, needle: str, occurrence: int = 0) -> list[str]:
    """`path:line qualified.name` of what a definition request at the n-th occurrence
    of `needle` in `rel` answers (line 1-based)."""
    lines = (live.root / rel).read_text(encoding="utf-8").splitlines()
    seen = 0
    for n, line in enumerate(lines):
        col = line.find(needle)
        while col != -1:
            if seen == occurrence:
                _, found = live.resolve(rel, n, col)
                return [f"{s.path}:{s.symbol.selection_range.start.line + 1} {s.symbol.qualified_name}" for s in found]
            seen += 1
            col = line.find(needle, col + 1)
    raise AssertionError(f"{needle!r} #{occurrence} not in {rel}")


# ---- Python ------------------------------------------------------------------------------


def test_python_self_member_is_the_enclosing_class_or_its_base(live: LiveIndex):
    # name-only: every `save` / `close` in the workspace
    assert defs(live, "shop/models.py", "save", 0) == [at('shop/base.py', 'def save', "shop.base.Model.save")]


def test_python_attribute_assigned_in_a_method_is_a_field_with_its_constructed_type(live: LiveIndex):
    # `self.session.close()`: Session.close, not Model.close / Repo.close
    assert defs(live, "shop/models.py", "close", 1) == [at('shop/models.py', '    def close', "shop.models.Session.close")]
    assert defs(live, "shop/models.py", "session", 1) == [at('shop/models.py', 'self.session =', "shop.models.User.session")]


def test_python_typed_parameter_optional_and_union(live: LiveIndex):
    # `u: User | None` -> User.greet, not the test double's greet
    assert defs(live, "shop/repo.py", "greet", 0) == [at('shop/models.py', 'def greet', "shop.models.User.greet")]


def test_python_construction_and_declared_return_types(live: LiveIndex):
    assert defs(live, "shop/repo.py", "save", 0) == [at('shop/base.py', 'def save', "shop.base.Model.save")]
    # make_user() -> User, then owner() -> "User"
    assert defs(live, "shop/repo.py", "owner", 0) == [at('shop/models.py', 'def owner', "shop.models.User.owner")]
    assert defs(live, "shop/repo.py", "greet", 1) == [at('shop/models.py', 'def greet', "shop.models.User.greet")]


def test_python_locals_and_parameters_go_to_their_binding(live: LiveIndex):
    assert defs(live, "shop/repo.py", "built", 1) == [at('shop/repo.py', 'built =', "built")]
    assert defs(live, "shop/repo.py", "n.close", 0) == [at('shop/repo.py', 'def find', "n")]


def test_python_relative_module_import_goes_to_the_module_file(live: LiveIndex):
    assert defs(live, "shop/repo.py", "models", 1) == ["shop/models.py:1 shop.models"]
    assert defs(live, "shop/repo.py", "make_user", 2) == [at('shop/models.py', 'def make_user', "shop.models.make_user")]


def test_python_builtins_answer_no_workspace_stranger(live: LiveIndex):
    # the workspace defines `set` and `Cache.items`: neither is meant here
    assert defs(live, "shop/repo.py", "items", 0) == []
    assert defs(live, "shop/repo.py", "set", 0) == []
    assert defs(live, "shop/models.py", "upper", 0) == []


def test_python_module_names_under_try_and_type_checking_imports(live: LiveIndex):
    assert [s.path for s in live.definitions("FAST_JSON")] == ["shop/models.py"]
    assert live.imports_of("shop/models.py")["Repo"] == "shop.repo.Repo"
    assert defs(live, "shop/models.py", "Repo", 1) == [at('shop/repo.py', 'class Repo', "shop.repo.Repo")]


def test_python_untyped_receiver_ranks_same_file_first_and_test_files_last(live: LiveIndex):
    assert defs(live, "shop/repo.py", "n.close", 0) == [at("shop/repo.py", "def find", "n")]
    ranked = defs(live, "shop/repo.py", "close", 1)  # `n.close()`: n has no type
    assert ranked[0] == at("shop/repo.py", "def close", "shop.repo.Repo.close")
    assert ranked[-1].startswith("tests/") and len(ranked) == 4


# ---- TypeScript --------------------------------------------------------------------------


def test_ts_member_of_a_private_field_is_not_an_imported_function(live: LiveIndex):
    # `this.#options.timeout` jumped to the function `timeout` the file imports
    assert defs(live, "src/http.ts", "timeout", 3) == [at('src/http.ts', 'interface Options', "http.Options.timeout")]


def test_ts_this_super_and_typed_fields(live: LiveIndex):
    assert defs(live, "src/app.ts", "send", 0) == [at('src/http.ts', 'send()', "http.Client.send")]
    assert defs(live, "src/app.ts", "close", 1) == [at('src/http.ts', 'class Reply', "http.Reply.close")]
    assert defs(live, "src/app.ts", "close", 2) == [at('src/app.ts', 'class Base', "app.Base.close")]
    assert defs(live, "src/app.ts", "close", 3) == [at('src/http.ts', 'class Reply', "http.Reply.close")]


def test_ts_type_parameters_and_locals(live: LiveIndex):
    assert defs(live, "src/app.ts", "TItem", 1) == [at('src/app.ts', 'class App<', "TItem")]
    assert defs(live, "src/app.ts", "resp", 1) == [at('src/app.ts', 'const resp', "resp")]


def test_ts_dollar_is_part_of_the_name(live: LiveIndex):
    assert defs(live, "src/app.ts", "$ZodEmoji", 0) == [at('src/http.ts', 'class $ZodEmoji', "http.$ZodEmoji")]


def test_ts_global_objects_answer_nothing(live: LiveIndex):
    assert defs(live, "src/app.ts", "get", 0) == []


# ---- PHP -----------------------------------------------------------------------------------


def test_php_typed_parameters_and_promoted_properties(live: LiveIndex):
    assert defs(live, CATALOG, "products", 0) == [at('app/Models/Shop/Category.php', 'function products', "App\\Models\\Shop\\Category::products")]
    # `?BlogCategory $blog` through an aliased import
    assert defs(live, CATALOG, "products", 1) == [at('app/Models/Blog/Category.php', 'function products', "App\\Models\\Blog\\Category::products")]
    assert defs(live, CATALOG, "products", 2) == [at('app/Models/Blog/Category.php', 'function products', "App\\Models\\Blog\\Category::products")]


def test_php_traits_parents_and_static_return_types(live: LiveIndex):
    assert defs(live, CATALOG, "slug", 0) == [at('app/Models/Concerns/HasSlug.php', 'function slug', "App\\Models\\Concerns\\HasSlug::slug")]
    # Category::create(): static, then ->save() from its parent class
    assert defs(live, CATALOG, "save", 0) == [at('app/Models/Shop/Category.php', 'function save', "App\\Models\\Shop\\BaseModel::save")]
    assert defs(live, CATALOG, "helper", 0) == [at('app/Services/Catalog.php', 'function helper', "App\\Services\\BaseService::helper")]
    assert defs(live, CATALOG, "boot", 0) == [at('app/Services/Catalog.php', 'function boot', "App\\Services\\BaseService::boot")]


def test_php_fully_qualified_and_vendor_names_are_not_local_strangers(live: LiveIndex):
    # `\Illuminate\Cache\RateLimiter::class` is vendor code, not this file's RateLimiter
    assert defs(live, CATALOG, "RateLimiter", 1) == []
    # `use InvalidArgumentException;` is PHP's, not App\Support\InvalidArgumentException
    assert defs(live, CATALOG, "InvalidArgumentException", 1) == []


# ---- references ----------------------------------------------------------------------------


def _refs(live: LiveIndex, name: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    answer = references_named(live, name)
    return (
        [(r.path, r.reference.start_line + 1) for r in answer.resolved],
        [(r.path, r.reference.start_line + 1) for r, _ in answer.possible],
    )


def test_references_of_a_php_class_keep_to_its_namespace(live: LiveIndex):
    shop, _ = _refs(live, "App\\Models\\Shop\\Category")
    blog, _ = _refs(live, "App\\Models\\Blog\\Category")
    # docblock types are uses too (`@var Category`, `@return Category`), as PHP tools read them
    uses = ["use App\\Models\\Shop\\Category;", "private Category $category", "@var Category",
            "@return Category", "list(Category $c)", "Category::create()"]
    assert shop == [(CATALOG, line_of(CATALOG, u)) for u in uses]
    assert (CATALOG, line_of(CATALOG, "as BlogCategory")) in blog

    def spots(qualified: str) -> set[tuple[str, int, int]]:
        return {(r.path, r.reference.start_line, r.reference.start_character)
                for r in references_named(live, qualified).resolved}

    assert not spots("App\\Models\\Shop\\Category") & spots("App\\Models\\Blog\\Category")
    # uses spelled with the alias count too
    assert (CATALOG, line_of(CATALOG, "new BlogCategory()")) in blog
    assert (CATALOG, line_of(CATALOG, "?BlogCategory $blog")) in blog


def test_references_of_a_method_drop_other_classes_and_keep_undecided_apart(live: LiveIndex):
    resolved, possible = _refs(live, "shop.base.Model.close")
    assert resolved == []  # `self.session.close()` is Session's
    assert possible == [("shop/repo.py", line_of("shop/repo.py", "n.close()"))]  # n has no type
    greet, _ = _refs(live, "shop.models.User.greet")
    assert greet == [("shop/repo.py", line_of("shop/repo.py", n)) for n in ("u.greet()", "owner().greet()")] + [
        ("shop/service.py", line_of("shop/service.py", n)) for n in ("user.greet()", "value.greet()")
    ]


# ---- qualified names in find_definitions -----------------------------------------------------


@pytest.mark.parametrize(
    "query, expected",
    [
        ("User.greet", {"shop.models.User.greet", "tests.doubles.User.greet"}),
        ("shop.models.User.greet", {"shop.models.User.greet"}),
        ("User::greet", {"shop.models.User.greet", "tests.doubles.User.greet"}),
        ("Client.send", {"http.Client.send"}),
        ("Shop\\Category::products", {"App\\Models\\Shop\\Category::products"}),
        ("Category.products", {"App\\Models\\Shop\\Category::products", "App\\Models\\Blog\\Category::products"}),
        ("App\\Models\\Shop\\Category", {"App\\Models\\Shop\\Category"}),
    ],
)
def test_find_definitions_accepts_qualified_names_in_any_notation(live: LiveIndex, query: str, expected: set[str]):
    assert {s.symbol.qualified_name for s in live.definitions(query)} == expected
    assert {s.symbol.qualified_name for s in live.store.find_definitions(query)} == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        ("user.gre", {"shop.models.User.greet", "tests.doubles.User.greet"}),
        ("models.User::GREET", {"shop.models.User.greet"}),
        ("Shop\\Category::prod", {"App\\Models\\Shop\\Category::products"}),
    ],
)
def test_find_definitions_with_exact_false_takes_a_qualified_substring(live: LiveIndex, query: str,
                                                                        expected: set[str]):
    assert {s.symbol.qualified_name for s in live.store.find_definitions(query, exact=False)} == expected


SERVICE = "shop/service.py"


def test_python_field_assigned_from_an_annotated_parameter(live: LiveIndex):
    assert defs(live, SERVICE, "close", 0) == [at("shop/models.py", "    def close", "shop.models.Session.close")]


def test_python_await_with_as_and_isinstance_give_the_receiver_type(live: LiveIndex):
    greet = [at("shop/models.py", "def greet", "shop.models.User.greet")]
    assert defs(live, SERVICE, "greet", 0) == greet  # user = await self.fetch()
    assert defs(live, SERVICE, "close", 1) == [at("shop/models.py", "    def close", "shop.models.Session.close")]
    assert defs(live, SERVICE, "greet", 1) == greet  # if isinstance(value, User)


def test_python_keyword_argument_is_no_attribute_of_that_name(live: LiveIndex):
    # `User(name="x")`: the parameter, not the field `User.name`
    assert defs(live, SERVICE, "name=", 0) == []


def test_python_package_attribute_chain_reaches_the_submodule_function(live: LiveIndex):
    assert defs(live, SERVICE, "models", 1) == ["shop/models.py:1 shop.models"]
    assert defs(live, SERVICE, "make_user", 0) == [at("shop/models.py", "def make_user", "shop.models.make_user")]


def test_ts_private_names_have_references(live: LiveIndex):
    resolved, _ = _refs(live, "http.Client.#options")
    http = "src/http.ts"
    assert resolved == [(http, line_of(http, "this.#options = {")), (http, line_of(http, "get limit()"))]


def test_php_docblock_var_and_return_types(live: LiveIndex):
    shop = [at("app/Models/Shop/Category.php", "function products", "App\\Models\\Shop\\Category::products")]
    assert defs(live, CATALOG, "cached->products", 0) == [at(CATALOG, "private $cached", "App\\Services\\Catalog::cached")]
    pos_cached = defs(live, CATALOG, "products();", 3)  # $this->cached->products()
    pos_current = defs(live, CATALOG, "products();", 4)  # $this->current()->products()
    assert pos_cached == shop and pos_current == shop


def test_python_import_inside_a_function_resolves_through_its_alias(live: LiveIndex):
    assert defs(live, SERVICE, "build()", 0) == [at("shop/models.py", "def make_user", "shop.models.make_user")]
    assert defs(live, SERVICE, "owner", 0) == [at("shop/models.py", "def owner", "shop.models.User.owner")]


def test_ts_wrapper_generics_keep_the_wrapped_members(live: LiveIndex):
    # `settings: Required<Options>`: `Required` is a global, its members are Options'
    http = "src/http.ts"
    assert defs(live, http, "timeout; }", 1) == [at(http, "interface Options", "http.Options.timeout")]


def test_blade_component_tags_are_not_uses_of_a_same_named_model(live: LiveIndex):
    view = "resources/views/forum/show.blade.php"
    model, model_possible = _refs(live, "App\\Models\\Thread")
    assert (view, line_of(view, "<x-threads.thread")) not in model + model_possible
    avatar, _ = _refs(live, "App\\View\\Components\\Avatar")
    assert (view, line_of(view, "<x-avatar")) in avatar


def test_php_callable_array_names_the_method_of_its_class(live: LiveIndex):
    """`[ThreadController::class, 'solve']` (a route action) is that controller's
    method, not the model's `solve`, and it is a reference of it."""
    routes = "routes/web.php"
    controller = "app/Http/Controllers/ThreadController.php"
    assert defs(live, routes, "solve'])") == [
        at(controller, "function solve", "App\\Http\\Controllers\\ThreadController::solve")
    ]
    resolved, _ = _refs(live, "App\\Http\\Controllers\\ThreadController::solve")
    assert (routes, line_of(routes, "'solve'")) in resolved
    model, _ = _refs(live, "App\\Models\\Thread::solve")
    assert (routes, line_of(routes, "'solve'")) not in model
