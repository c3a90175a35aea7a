"""Reading a pasted issue: traceback frames, named paths, code names, error lines and a
lead for the encoder; and what kind of file a path is (ranking, embedding)."""

from __future__ import annotations

from code_intel.indexing.file_kinds import (
    DEFAULT_EMBED_EXCLUDES,
    PROSE_KINDS,
    file_kind,
    looks_machine_written,
    matches_any,
)
from code_intel.indexing.request_text import parse_request

ISSUE = '''url_for fails with BuildError for blueprints mounted twice

When a blueprint is registered twice with different names, `url_for("b2.index")`
raises instead of building the URL. See src/flask/blueprints.py.

```python
app.register_blueprint(bp, name="b2")
```

Traceback (most recent call last):
  File "/home/me/venv/lib/python3.12/site-packages/flask/app.py", line 1498, in url_for
    rv = url_adapter.build(endpoint, values, method=method)
  File "/home/me/venv/lib/python3.12/site-packages/werkzeug/routing/map.py", line 924, in build
    raise BuildError(endpoint, values, method, self)
werkzeug.routing.exceptions.BuildError: Could not build url for endpoint 'b2.index'.
''' + "Some more log lines that go on.\n" * 300


def test_frames_paths_names_and_errors_come_out_of_a_pasted_issue():
    req = parse_request(ISSUE)
    assert req.is_long
    assert [(f.path.rsplit("/", 2)[-2:], f.line, f.function) for f in req.frames] == [
        (["routing", "map.py"], 924, "build"),  # innermost first
        (["flask", "app.py"], 1498, "url_for"),
    ]
    assert "src/flask/blueprints.py" in req.paths
    assert {"url_for", "register_blueprint", "BuildError"} <= set(req.identifiers)
    assert any(e.startswith("werkzeug.routing.exceptions.BuildError: Could not build") for e in req.errors)
    # the encoder sees the title and first paragraph, not 300 lines of log
    assert req.vector_text().startswith("url_for fails with BuildError")
    assert len(req.vector_text()) < 800


def test_short_requests_are_left_alone():
    req = parse_request("where is the login handled")
    assert not req.is_long
    assert req.vector_text() == "where is the login handled"
    assert req.frames == [] and req.paths == []


def test_js_and_php_frames():
    req = parse_request("TypeError: x is undefined\n    at render (src/components/Cart.tsx:42:7)\n"
                        "#0 /var/www/app/Http/Controllers/OrderController.php(88): store()")
    assert ("src/components/Cart.tsx", 42) in [(f.path, f.line) for f in req.frames]
    assert ("/var/www/app/Http/Controllers/OrderController.php", 88) in [(f.path, f.line) for f in req.frames]


def test_file_kinds():
    assert file_kind("CHANGES.rst") == "changelog"
    assert file_kind("CHANGELOG.md") == "changelog"
    assert file_kind("sphinx/locale/ja/LC_MESSAGES/sphinx.po") == "locale"
    assert file_kind("lang/ja/messages.php") == "locale"
    assert file_kind("public/intl/messages/ja-JP.json") == "locale"  # umami's catalogues
    assert file_kind("src/i18n/pt-BR.json") == "locale"
    assert file_kind("config/zh_Hant.yml") == "locale"
    assert file_kind("config/ca-ES.json") == "locale"
    assert file_kind("app.json") != "locale" and file_kind(".github/ci.yml") != "locale"
    assert file_kind("src/messages/Mailer.php") == "code"
    assert file_kind("doc/usage/quickstart.rst") == "docs"
    assert file_kind("composer.lock") == "lock"
    assert file_kind("package-lock.json") == "lock"
    assert file_kind("src/flask/app.py") == "code"
    assert file_kind("docs/conf.py") == "code"
    assert file_kind("app/Models/Order.php") == "code"


def test_migrations_and_seed_data_are_their_own_kinds():
    # umami: `db/clickhouse/migrations/*.sql`, `db/postgresql/data-migrations/*.sql`,
    # `scripts/seed/**` ranked high for requests about the queries and handlers
    assert file_kind("db/clickhouse/migrations/05_add_utm_clid.sql") == "migration"
    assert file_kind("db/postgresql/data-migrations/convert-utm-clid-columns.sql") == "migration"
    assert file_kind("db/clickhouse/schema.sql") == "migration"
    assert file_kind("hc/api/migrations/0001_initial.py") == "migration"
    assert file_kind("database/migrations/2024_01_01_create_orders_table.php") == "migration"
    assert file_kind("scripts/seed/generators/events.ts") == "seed"
    assert file_kind("database/seeders/DatabaseSeeder.php") == "seed"
    assert {"migration", "seed"} <= PROSE_KINDS
    # code that only has a similar name stays code
    assert file_kind("src/lib/migrate.ts") == "code"
    assert file_kind("app/Console/Commands/SeedDemo.php") == "code"


def test_configuration_files_are_their_own_kind():
    # shynet's `TEMPLATE.env` and `app.json`, linkding's `.env.sample` and Dockerfile ranked
    # next to the code that reads the settings they list
    for path in ("TEMPLATE.env", ".env", ".env.example", "podman/env.sample", "app.json", "docker-compose.yml",
                 ".github/workflows/ci.yml", "uwsgi.ini", "pyproject.toml", "hc/local_settings.py.example",
                 "Dockerfile", "docker/alpine.Dockerfile", "Makefile", "nginx.conf", "podman/umami.service"):
        assert file_kind(path) == "config", path
    assert "config" in PROSE_KINDS
    # configuration written as code: Django settings, Laravel's config/, a tool's *.config.js
    for path in ("shynet/shynet/settings.py", "bookmarks/settings/base.py", "bookmarks/wsgi.py",
                 "config/app.php", "next.config.ts", "rollup.tracker.config.js"):
        assert file_kind(path) == "config", path
    # code that reads the settings stays code, and so does a settings screen's handler
    for path in ("src/env.ts", "src/lib/environment.ts", "src/lib/config.ts", "app/Services/Config.php",
                 "bookmarks/views/settings.py"):
        assert file_kind(path) == "code", path
    # tests are their own kind, whatever they test
    for path in ("hc/integrations/trello/tests/test_settings.py", "tests/Unit/Service/DeletionServiceTest.php",
                 "src/lib/date.test.ts", "e2e/invitation-accept.spec.ts", "conftest.py"):
        assert file_kind(path) == "test", path
    # browser end-to-end suites and their helpers too (solidtime's `e2e/utils/reporting.ts`
    # ranked as code for a reporting request)
    for path in ("e2e/utils/reporting.ts", "cypress/support/commands.js", "cypress/e2e/login.cy.ts",
                 "src/login.cy.tsx", "hc/tests_e2e/helpers.py", "packages/test-utils/render.tsx"):
        assert file_kind(path) == "test", path
    for path in ("src/testimonials/Card.php", "app/Services/Latest.php", "src/contest/rules.py"):
        assert file_kind(path) == "code", path
    assert file_kind("src/app/(main)/settings/layout.tsx") == "ui"
    # licences are prose, lock files stay lock files
    assert file_kind("LICENSE") == "docs" and file_kind("composer.lock") == "lock"


def test_embedding_excludes_lock_minified_generated_and_vendored_files():
    excluded = list(DEFAULT_EMBED_EXCLUDES)
    for path in ("composer.lock", "web/package-lock.json", "public/js/app.min.js", "api/user_pb2.py",
                 "vendor/laravel/framework/src/Foo.php", "public/build/assets/app-4f2a.js"):
        assert matches_any(path, excluded), path
    for path in ("app/Models/Order.php", "src/flask/app.py", "resources/js/app.js"):
        assert not matches_any(path, excluded), path


def test_machine_written_text():
    assert looks_machine_written("// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n")
    assert looks_machine_written("!function(){" + "var a=1;" * 2000 + "}()")
    assert not looks_machine_written("def f():\n    return 1\n" * 200)


def test_a_quoted_path_names_the_workspace_file_sharing_its_tail(tmp_path):
    from code_intel.indexing.lexical import LexicalIndex
    from code_intel.indexing.search import _resolve_path

    lex = LexicalIndex(tmp_path / "lexical.db")
    for i, path in enumerate(["src/flask/app.py", "src/flask/helpers.py", "app/Http/Controllers/Controller.php",
                              "docs/app.py", "manage.py"]):
        lex.conn.execute("INSERT INTO lex_files(rowid, path, fingerprint) VALUES (?,?,?)", (i + 1, path, "x"))
    assert _resolve_path(lex, "/venv/lib/python3.12/site-packages/flask/app.py") == "src/flask/app.py"
    assert _resolve_path(lex, "helpers.py") == "src/flask/helpers.py"
    assert _resolve_path(lex, "app.py") is None  # two files are called that
    assert _resolve_path(lex, "/srv/project/manage.py") == "manage.py"
    assert _resolve_path(lex, "vendor/laravel/framework/src/Illuminate/Routing/Controller.php") is None


def test_nested_docs_directories_and_stylesheets_are_not_code():
    # a docs directory at any depth holds prose (healthchecks' templates/docs/)
    assert file_kind("templates/docs/api.html-fragment") == "docs"
    assert file_kind("website/docs/guide/intro.html") == "docs"
    # source files inside a docs directory stay code
    assert file_kind("docs/conf.py") == "code"
    assert file_kind("site/docs/components/Demo.tsx") == "ui"  # a component, not docs
    assert file_kind("resources/css/app.css") == "style"
    assert file_kind("static/scss/_buttons.scss") == "style"
    assert file_kind("templates/front/dashboard.html") == "ui"  # a page template: not docs


def test_components_and_page_templates_are_ui():
    # umami's `Revenue.tsx` outranked `getRevenue.ts` for a request about computing revenue
    assert file_kind("src/app/(main)/websites/[websiteId]/(reports)/revenue/Revenue.tsx") == "ui"
    assert file_kind("resources/views/articles/show.blade.php") == "ui"
    assert file_kind("templates/front/details.html") == "ui"
    assert file_kind("src/components/Button.vue") == "ui"
    assert file_kind("src/queries/sql/reports/getRevenue.ts") == "code"
    assert file_kind("app/Http/Controllers/ArticlesController.php") == "code"
    assert "ui" not in PROSE_KINDS  # ranked a little below code, not with the prose
