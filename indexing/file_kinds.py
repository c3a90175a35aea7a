"""What kind of file a path is, for ranking and for deciding what to embed.

A request about code wants code: changelogs, docs, translation catalogues and lock
files share its words (every fix has a changelog line naming the function) and crowd
the top of a ranking; so do stylesheets for a request about a screen's behaviour, and
configuration files for a request about what the code does. Lock files, minified
bundles, generated and vendored code are also not worth an embedding each: they are large, machine-written and never the
answer to "where is X implemented".

Pure functions over paths (and, for `looks_machine_written`, a file's text).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from pathlib import PurePosixPath

CODE = "code"
DOCS = "docs"
CHANGELOG = "changelog"
LOCALE = "locale"
LOCK = "lock"
DATA = "data"
STYLE = "style"
MIGRATION = "migration"
SEED = "seed"
UI = "ui"
CONFIG = "config"
#: test code: ranked below the code under test unless the request asks for tests
TEST = "test"
#: minified bundles and third-party or built copies (`static/js/tom-select.min.js`,
#: `vendor/`, `dist/`): machine-written or not the project's own code, yet they spell
#: every word a UI request uses
VENDORED = "vendored"

#: kinds a code request does not want at the top (`include_prose` brings them back)
PROSE_KINDS = frozenset({DOCS, CHANGELOG, LOCALE, LOCK, STYLE, MIGRATION, SEED, CONFIG, VENDORED})

_LOCK_NAMES = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "composer.lock",
    "poetry.lock", "pipfile.lock", "uv.lock", "pdm.lock", "cargo.lock", "gemfile.lock",
    "go.sum", "bun.lockb", "mix.lock", "packages.lock.json", "podfile.lock",
})
_CHANGELOG = re.compile(r"^(changes|changelog|history|news|releases?|release[-_]notes|upgrad(e|ing))([.-].*)?$",
                        re.IGNORECASE)
_DOC_EXT = frozenset({".md", ".rst", ".txt", ".adoc", ".markdown", ".rdoc"})
_LOCALE_EXT = frozenset({".po", ".pot", ".mo", ".xliff", ".xlf"})
_DOC_DIRS = frozenset({"docs", "doc", "documentation"})
#: source files stay code even inside a docs directory (`docs/conf.py`, a docs site's components)
_CODE_EXT = frozenset({".py", ".php", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".vue", ".svelte", ".rb",
                       ".go", ".rs", ".java", ".kt", ".cs", ".c", ".h", ".cpp", ".hpp", ".swift", ".scala"})
#: stylesheets: they share a UI request's words (button, header, sidebar) but are rarely
#: where its behaviour lives
_STYLE_EXT = frozenset({".css", ".scss", ".sass", ".less", ".styl", ".pcss"})
#: schema migrations (Django `app/migrations/0003_x.py`, Laravel `database/migrations/`,
#: `db/clickhouse/migrations/*.sql`) and SQL schema dumps: they spell every table and
#: column name, so they match a request's domain words, but the behaviour it asks about
#: lives in the models and queries
_MIGRATION_DIRS = frozenset({"migrations", "migration", "data-migrations", "alembic"})
#: seed and demo-data generators (`database/seeders/`, `scripts/seed/`, `db/seeds/`):
#: they create one of everything, so they mention every feature's words
_SEED_DIRS = frozenset({"seed", "seeds", "seeder", "seeders", "seeding"})
#: Laravel's model factories (`database/factories/ReportFactory.php`): fake data for tests
#: and seeders that fills every column of a model, so they match a request's domain words
#: like seeders do (solidtime "issue a share secret when a report is made public": the
#: report factory ranked first, above the controller and service that do it)
_FACTORY_DIR = ("database", "factories")
#: UI components and page templates: a feature's page shares its words with the query or
#: handler that does the work (umami's `Revenue.tsx` and `getRevenue.ts`), and a request
#: that describes behaviour (compute, save, check) means the latter
_UI_SUFFIXES = (".tsx", ".jsx", ".vue", ".svelte", ".blade.php", ".html", ".htm", ".twig", ".hbs", ".jinja",
                ".jinja2", ".j2")
#: configuration and deployment files (`.env.example`, `TEMPLATE.env`, `app.json`,
#: `docker-compose.yml`, CI workflows, `uwsgi.ini`, `pyproject.toml`): they name every
#: setting a feature reads (`GEOIP_PATH`, `ALLOW_REGISTRATION`), so they share a request's
#: words, but the behaviour it asks about lives in the code that reads them
_CONFIG_EXT = frozenset({".env", ".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".json", ".jsonc",
                         ".json5", ".properties", ".xml", ".webmanifest", ".service", ".plist", ".dockerfile"})
_CONFIG_NAMES = frozenset({
    "dockerfile", "containerfile", "procfile", "makefile", "vagrantfile", "jenkinsfile", ".dockerignore",
    ".gitignore", ".gitattributes", ".gitmodules", ".editorconfig", ".coveragerc", ".flake8", ".pylintrc",
    ".npmrc", ".nvmrc", ".yarnrc", ".babelrc", ".eslintrc", ".prettierrc", ".browserslistrc", ".htaccess",
})
#: a template or sample of a configuration (`.env.example`, `env.sample`,
#: `local_settings.py.example`, `config.php.dist`)
_CONFIG_TEMPLATE = re.compile(r"(^|\.)env(\.|$)|\.(example|sample|dist|template|tmpl)$")
_PY_CONFIG_NAMES = frozenset({"settings.py", "local_settings.py", "wsgi.py", "asgi.py"})
_HANDLER_DIRS = frozenset({"views", "controllers", "handlers", "routes", "api", "pages", "endpoints"})
#: directories that hold only configuration when their files are not code
_CONFIG_DIRS = frozenset({".github", ".gitlab", ".circleci", ".devcontainer", ".vscode", ".idea", "kubernetes",
                          "k8s", "helm", "podman"})
#: a project's legal and contributor notes: prose without a prose suffix
_NOTICE_NAMES = re.compile(r"^(license|licence|copying|notice|authors|contributors|code_of_conduct)(\.[a-z]+)?$",
                           re.IGNORECASE)
_LOCALE_DIRS = frozenset({"locale", "locales", "lang", "i18n", "l10n", "intl", "translations"})
# a catalogue named by a locale with its region or script (`pt-BR.json`, `zh_Hant.yml`);
# a bare `en.json` is left to its directory (`app.json`, `ci.yml` are not catalogues)
_LOCALE_NAME = re.compile(r"[a-z]{2,3}[-_](?:[A-Z]{2}|[A-Z][a-z]{3})(?:[-_][A-Z]{2})?\.(?:json|ya?ml)")

#: minified bundles, vendored and built trees (file kind VENDORED)
_VENDORED_PATTERNS = (
    "**/*.min.js", "**/*.min.css", "**/*.min.mjs", "**/*.bundle.js", "**/*.map",
    "**/vendor/**", "**/node_modules/**", "**/third_party/**", "**/_vendor/**",
    "**/dist/**", "public/build/**", "public/vendor/**",
)
#: not embedded by default (config `embed_exclude_patterns`); still indexed and searchable
DEFAULT_EMBED_EXCLUDES = (
    "**/package-lock.json", "**/npm-shrinkwrap.json", "**/yarn.lock", "**/pnpm-lock.yaml",
    "**/composer.lock", "**/poetry.lock", "**/Pipfile.lock", "**/uv.lock", "**/pdm.lock",
    "**/Cargo.lock", "**/Gemfile.lock", "**/go.sum", "**/*.lock",
    "**/*_pb2.py", "**/*_pb2_grpc.py", "**/*.pb.go", "**/*.generated.*", "**/*.g.dart",
    *_VENDORED_PATTERNS,
)

_GENERATED_MARK = re.compile(
    r"@generated|do not edit|auto-?generated|generated by|code generated .* do not edit",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=65536)
def file_kind(path: str) -> str:
    """`code`, `docs`, `changelog`, `locale`, `lock`, `vendored`, `style`, `migration`, `seed`,
    `data`, `test`, `config` or `ui` (a component or page template: code, ranked a little below other code) for a
    workspace path. Cached: a long request's ranking asks it of thousands of candidates
    (≈ 10 ms of a pasted issue's answer on sympy)."""
    posix = path.replace("\\", "/")
    p = PurePosixPath(posix)
    name = p.name.lower()
    suffix = p.suffix.lower()
    parts = [s.lower() for s in p.parts[:-1]]
    if name in _LOCK_NAMES or suffix == ".lock":
        return LOCK
    if matches_any(posix, _VENDORED_PATTERNS):
        return VENDORED
    if _CHANGELOG.match(name) and suffix in _DOC_EXT | {""}:
        return CHANGELOG
    if suffix in _LOCALE_EXT or (suffix in {".json", ".php", ".yml", ".yaml"} and
                                 any(d in _LOCALE_DIRS for d in parts)) or _LOCALE_NAME.fullmatch(p.name):
        return LOCALE
    # A docs directory at any depth (healthchecks' `templates/docs/*.html-fragment`).
    if (suffix in _DOC_EXT or _NOTICE_NAMES.match(name)
            or (any(d in _DOC_DIRS for d in parts) and suffix not in _CODE_EXT)):
        return DOCS
    if suffix in _STYLE_EXT:
        return STYLE
    if any(d in _MIGRATION_DIRS for d in parts) or suffix == ".sql":
        return MIGRATION
    if any(d in _SEED_DIRS for d in parts) or tuple(parts[:2]) == _FACTORY_DIR:
        return SEED
    if suffix in {".csv", ".tsv", ".svg", ".ipynb"}:
        return DATA
    if is_test_path(posix):
        return TEST
    if _is_config(name, suffix, parts):
        return CONFIG
    if name.endswith(_UI_SUFFIXES):
        return UI
    return CODE


_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "__mocks__", "fixtures",
                        "e2e", "cypress", "playwright"})
#: `tests_e2e/`, `test-utils/`, `test_helpers/`: a directory named for the tests it serves
_TEST_DIR_PREFIX = re.compile(r"tests?[-_]\w+")


def is_test_path(path: str) -> bool:
    """Test code by the usual layouts: a tests/spec/e2e directory, `test_x.py`, `x_test.go`,
    `x.test.ts`, `x.spec.js`, `x.cy.ts`, `XTest.php`/`XTest.java`. Browser end-to-end
    suites (`e2e/`, `cypress/`) count: their page helpers are no answer to a request about
    the application either."""
    parts = path.split("/")
    if any(p in _TEST_DIRS or _TEST_DIR_PREFIX.fullmatch(p) for p in parts[:-1]):
        return True
    name = parts[-1]
    stem = name.split(".", 1)[0]
    return (
        name.startswith("test_")
        or stem.endswith(("_test", "Test", "Tests"))
        or ".test." in name
        or ".spec." in name
        or ".cy." in name
        or name == "conftest.py"
    )


def _is_config(name: str, suffix: str, parts: list[str]) -> bool:
    """A configuration, deployment or CI file: by its suffix or name, as a sample of one,
    or any non-code file in a configuration directory (`.github/`, `kubernetes/`)."""
    if suffix in _CODE_EXT:
        return _is_config_module(name, suffix, parts)
    if suffix in _CONFIG_EXT or name in _CONFIG_NAMES:
        return True
    if _CONFIG_TEMPLATE.search(name):
        return True
    return suffix not in _CODE_EXT and any(d in _CONFIG_DIRS for d in parts)


def _is_config_module(name: str, suffix: str, parts: list[str]) -> bool:
    """Configuration written as code: Django's `settings.py` (or a `settings/` package),
    `wsgi.py`/`asgi.py`, Laravel's top-level `config/*.php`, a tool's `*.config.js`
    (`next.config.ts`, `vite.config.js`). They name every feature's settings, so they
    share a behaviour request's words like `.env` files do. Other code with "env" or
    "config" in its name (`src/env.ts`, `src/lib/config.ts`) stays code."""
    if suffix == ".py":
        if parts and parts[-1] in _HANDLER_DIRS:
            return False  # `bookmarks/views/settings.py`: the settings screen's handlers
        return name in _PY_CONFIG_NAMES or (bool(parts) and parts[-1] == "settings")
    if suffix == ".php":
        return parts == ["config"]
    return ".config." in name


def matches_any(path: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Glob match where `**/` also matches nothing (`**/x.lock` matches `x.lock`)."""
    path = path.replace("\\", "/")
    for pat in patterns:
        if fnmatch.fnmatchcase(path, pat):
            return True
        if pat.startswith("**/") and fnmatch.fnmatchcase(path, pat[3:]):
            return True
    return False


def looks_minified(text: str | bytes) -> bool:
    """Minified or bundled: lines over 300 characters long on average (hand-written
    code, even with a few long literals, stays far below)."""
    newline = "\n" if isinstance(text, str) else b"\n"
    lines = text.count(newline) + (0 if text.endswith(newline) else 1)  # type: ignore[arg-type]
    return len(text) > 2000 and len(text) / max(lines, 1) > 300


def looks_machine_written(text: str) -> bool:
    """A generated-file banner in the first lines, or minified text (very long lines)."""
    head = "\n".join(text[:2000].splitlines()[:10])
    if _GENERATED_MARK.search(head) or looks_minified(text):
        return True
    return any(len(line) > 5000 for line in text.splitlines()[:50])
