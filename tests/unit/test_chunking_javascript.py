"""The JavaScript / TypeScript strategies on a small React + TypeScript app: kinds,
module-qualified names, JSDoc, imports resolved to module names, React components,
exports, constructor injection, error recovery, ctags parity."""

from __future__ import annotations

import re

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.chunking.javascript import module_name, resolve_specifier
from code_intel.indexing.languages import detect_language
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES, ctags_tags

APP = FIXTURES / "ts_app"
JS_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")


def analyze(rel: str, settings: ChunkSettings | None = None):
    return analyze_source(rel, (APP / rel).read_bytes(), settings)


def by_qname(analysis):
    return {s.qualified_name: s for s in analysis.symbols}


def chunk(analysis, symbol_type: str, name: str):
    found = [c for c in analysis.chunks if c.symbol_type == symbol_type and c.symbol_name == name]
    assert len(found) == 1, [(c.symbol_type, c.symbol_name) for c in analysis.chunks]
    return found[0]


def test_module_names_follow_the_path_like_python():
    assert module_name("src/api/client.ts") == "api.client"
    assert module_name("src/components/index.tsx") == "components"
    assert module_name("web/src/api/client.ts") == "web.src.api.client"
    assert module_name("types/global.d.ts") == "types.global"
    assert resolve_specifier("../api/client", "src/auth/login.ts") == "api.client"
    assert resolve_specifier("./UserBadge.jsx", "src/components/LoginForm.tsx") == (
        "components.UserBadge"
    )
    assert resolve_specifier("@/api/types", "src/auth/login.ts") == "api.types"
    assert resolve_specifier("react", "src/auth/login.ts") == "react"
    assert resolve_specifier("@tanstack/react-query", "src/a.ts") == "@tanstack/react-query"


def test_a_package_entry_index_is_the_module_its_directory_import_names():
    # ioredis' tests `import { Cluster } from "../../../lib"`: before, the import named
    # `lib` and lib/index.ts was the module `index`, so the import decided nothing
    assert module_name("lib/index.ts") == resolve_specifier("../../lib", "test/unit/redis.ts") == "lib"
    assert module_name("src/index.ts") == resolve_specifier(".", "src/client.ts") == "src"


def test_typescript_class_methods_and_properties():
    analysis = analyze("src/api/client.ts")
    assert analysis.language == "typescript"
    assert analysis.syntax_errors == 0
    symbols = by_qname(analysis)
    cls = symbols["api.client.ApiClient"]
    assert cls.kind is SymbolKind.CLASS
    assert cls.container == "api.client"
    assert cls.range.start.line == 25 and cls.selection_range.start.character == 13
    assert cls.range.end.line == 66
    assert cls.doc == (
        "Thin wrapper around fetch that adds the base URL, JSON encoding and the\n"
        "bearer token of the current session."
    )
    request = symbols["api.client.ApiClient.request"]
    assert request.kind is SymbolKind.METHOD
    assert request.container == "api.client.ApiClient"
    assert (request.range.start.line, request.range.end.line) == (39, 57)
    assert request.selection_range.start.character == 8
    assert request.signature == (
        "async request<T>(path: string, options: RequestOptions = {}): Promise<T>"
    )
    assert request.doc == (
        "Send a request and decode the JSON response.\n"
        "@throws ApiError when the backend answers with a non-2xx status"
    )
    assert symbols["api.client.ApiClient.constructor"].kind is SymbolKind.CONSTRUCTOR
    # Parameter properties belong to the class, not to the constructor.
    base_url = symbols["api.client.ApiClient.baseUrl"]
    assert base_url.kind is SymbolKind.PROPERTY
    assert base_url.signature == "private readonly baseUrl: string"
    assert symbols["api.client.ApiClient.session"].kind is SymbolKind.PROPERTY
    assert symbols["api.client.toApiError"].kind is SymbolKind.FUNCTION
    assert symbols["api.client.toApiError"].signature == (
        "async function toApiError(response: Response): Promise<ApiError>"
    )


def test_interfaces_type_aliases_enums_and_constants():
    symbols = by_qname(analyze("src/api/types.ts"))
    user_id = symbols["api.types.UserId"]
    assert user_id.kind is SymbolKind.TYPE
    assert user_id.signature == "type UserId = string"
    assert user_id.doc == "Identifier of a user as issued by the backend."
    role = symbols["api.types.Role"]
    assert role.kind is SymbolKind.ENUM and role.doc == "What a signed-in user may do."
    assert symbols["api.types.Role.Admin"].kind is SymbolKind.ENUM_MEMBER
    assert symbols["api.types.User"].kind is SymbolKind.INTERFACE
    assert symbols["api.types.User.email"].kind is SymbolKind.PROPERTY
    client = by_qname(analyze("src/api/client.ts"))
    options = client["api.client.RequestOptions"]
    assert options.kind is SymbolKind.INTERFACE and options.range.start.line == 5
    const = client["api.client.DEFAULT_TIMEOUT_MS"]
    assert const.kind is SymbolKind.CONSTANT
    assert const.signature == "const DEFAULT_TIMEOUT_MS = 10_000"


def test_arrow_functions_bound_to_names_are_functions():
    symbols = by_qname(analyze("src/auth/login.ts"))
    restore = symbols["auth.login.restoreSession"]
    assert restore.kind is SymbolKind.FUNCTION
    assert restore.signature == (
        "const restoreSession = (storage: Storage = localStorage): Session | null =>"
    )
    assert restore.doc == "Restore a remembered session, if it has not expired."
    assert symbols["auth.login.AuthService.user"].kind is SymbolKind.METHOD  # a getter
    assert symbols["auth.login.SESSION_KEY"].kind is SymbolKind.CONSTANT
    # Locals are not definitions, but named functions nested in functions are.
    assert not any(s.name == "session" for s in by_qname(analyze("src/auth/login.ts")).values())
    form = by_qname(analyze("src/components/LoginForm.tsx"))
    handler = form["components.LoginForm.LoginForm.handleSubmit"]
    assert handler.kind is SymbolKind.FUNCTION
    assert handler.container == "components.LoginForm.LoginForm"


def test_imports_resolve_to_module_names():
    imports = analyze("src/auth/login.ts").imports
    assert imports == {
        "ApiClient": "api.client.ApiClient",
        "Session": "api.types.Session",
        "User": "api.types.User",
        "Role": "api.types.Role",  # via the `@/` alias
    }
    form = analyze("src/components/LoginForm.tsx").imports
    assert form["React"] == "react"
    assert form["useState"] == "react.useState"
    assert form["UserBadge"] == "components.UserBadge.UserBadge"  # default import
    # Re-exports of a barrel file, with aliases.
    barrel = analyze("src/index.ts").imports
    assert barrel["loadSession"] == "auth.login.restoreSession"
    assert barrel["LoginForm"] == "components.LoginForm.LoginForm"
    assert barrel["ApiError"] == "api.client.ApiError"
    # CommonJS require, plain and destructured.
    storage = analyze("src/utils/storage.cjs")
    assert storage.imports == {
        "fs": "node:fs",
        "join": "node:path.join",
        "dirname": "node:path.dirname",
    }
    assert "fs" not in {s.name for s in storage.symbols}


def test_react_components_are_marked():
    analysis = analyze("src/components/LoginForm.tsx")
    assert analysis.language == "tsx"
    form = chunk(analysis, "function", "LoginForm")
    assert form.metadata["react_component"] is True
    assert form.metadata["exported"] is True and form.metadata["default_export"] is True
    assert form.metadata["hooks"] == ["useState"]
    assert form.metadata["docstring"].startswith(
        'The sign-in form: email, password and "remember me".'
    )
    assert "<form onSubmit={handleSubmit}" in form.content
    link = chunk(analysis, "function", "ForgotPasswordLink")
    assert link.metadata["react_component"] is True
    assert (link.start_line, link.end_line) == (58, 58)
    # A lower-case handler rendering nothing is not a component.
    assert "react_component" not in chunk(analysis, "function", "handleSubmit").metadata
    assert "react_component" not in chunk(analysis, "interface", "LoginFormProps").metadata
    badge = analyze("src/components/UserBadge.jsx")
    assert badge.language == "jsx"
    meta = chunk(badge, "function", "UserBadge").metadata
    assert meta["react_component"] is True
    assert meta["default_export"] is True  # `export default UserBadge;` at the end
    source = b"export class Clock extends React.Component {\n  render() { return <time />; }\n}\n"
    assert chunk(analyze_source("Clock.jsx", source), "class", "Clock").metadata["react_component"]


def test_class_chunk_is_a_skeleton_with_docs_and_dependencies():
    analysis = analyze("src/auth/login.ts")
    service = chunk(analysis, "class", "AuthService")
    # The chunk starts at the JSDoc; the symbol range at the declaration.
    assert service.start_line == 12
    assert by_qname(analysis)["auth.login.AuthService"].range.start.line == 15
    assert service.content.startswith("/**\n * Keeps the signed-in session")
    assert "  async login(credentials: Credentials): Promise<User> {" in service.content
    assert "this.storage.setItem" not in service.content
    meta = service.metadata
    assert meta["qualified_name"] == "auth.login.AuthService"
    assert meta["exported"] is True
    assert meta["injected_dependencies"][0] == {
        "class": "api.client.ApiClient",
        "variable": "client",
        "property": True,
    }
    assert meta["related_symbols"] == ["api.client.ApiClient", "Storage"]
    login = chunk(analysis, "method", "login")
    assert "this.storage.setItem(SESSION_KEY" in login.content
    assert login.metadata["container"] == "auth.login.AuthService"
    assert login.metadata["signature"] == "async login(credentials: Credentials): Promise<User>"


def test_interface_members_are_definitions_but_not_chunks():
    analysis = analyze("src/api/client.ts")
    assert "api.client.ApiError.status" in by_qname(analysis)
    names = {(c.symbol_type, c.symbol_name) for c in analysis.chunks}
    assert ("interface", "ApiError") in names
    assert not any(name == "status" for _, name in names)


def test_module_summary_chunk():
    analysis = analyze("src/utils/format.js")
    module = chunk(analysis, "module", "utils.format")
    assert module.content.startswith("Formatting helpers shared by the components.")
    assert "defines: constant DEFAULT_LOCALE, function formatCurrency" in module.content
    assert module.metadata["exports"] == [
        "DEFAULT_LOCALE",
        "formatCurrency",
        "formatName",
        "formatDate",
        "Formatter",
    ]
    form = chunk(analyze("src/components/LoginForm.tsx"), "module", "components.LoginForm")
    assert form.metadata["directives"] == ["use client"]
    assert 'import UserBadge from "./UserBadge";' in form.content
    storage = analyze("src/utils/storage.cjs")
    assert chunk(storage, "function", "readCache").metadata["exported"] is True  # module.exports
    # Imports live in the summary chunk, not in anonymous blocks.
    for rel in ("src/utils/format.js", "src/api/client.ts", "src/utils/storage.cjs"):
        assert not [c for c in analyze(rel).chunks if c.symbol_type == "block"], rel


def test_decorators_and_class_heritage():
    source = b"""import { Injectable } from "@angular/core";
import { HttpClient } from "@angular/common/http";
import { Base } from "./base";

/** Loads orders. */
@Injectable({ providedIn: "root" })
export class OrderService extends Base implements OnInit {
  constructor(private http: HttpClient) {
    super();
  }

  @Memoize()
  load(id: number) {
    return this.http.get(`/orders/${id}`);
  }
}
"""
    analysis = analyze_source("src/app/order.service.ts", source)
    cls = chunk(analysis, "class", "OrderService")
    assert cls.start_line == 4  # JSDoc and decorator included
    assert cls.metadata["decorators"] == ["Injectable"]
    assert cls.metadata["extends"] == "app.base.Base"
    assert cls.metadata["implements"] == ["OnInit"]
    assert cls.metadata["related_symbols"] == ["@angular/common/http.HttpClient"]
    assert by_qname(analysis)["app.order.service.OrderService"].doc == "Loads orders."
    load = chunk(analysis, "method", "load")
    assert load.metadata["decorators"] == ["Memoize"]
    assert load.start_line == 11


def test_references_know_their_container():
    analysis = analyze("src/auth/login.ts")
    refs = [r for r in analysis.references if r.name == "isValidEmail"]
    assert refs == []  # only defined here
    form = analyze("src/components/LoginForm.tsx")
    calls = [r for r in form.references if r.name == "isValidEmail"]
    assert [r.start_line for r in calls] == [3, 24]
    assert calls[1].container == "components.LoginForm.LoginForm.handleSubmit"


def test_syntax_error_mid_file_keeps_the_rest():
    source = b"""export function before(): number {
  return 1;
}

export function broken(a: string {
  const x = ;
}

export class After {
  method(): string {
    return "ok";
  }
}

export const last = () => 2;
"""
    analysis = analyze_source("src/broken.ts", source)
    assert analysis.syntax_errors >= 1
    symbols = by_qname(analysis)
    assert symbols["broken.After.method"].range.start.line == 9
    assert symbols["broken.last"].kind is SymbolKind.FUNCTION
    assert any(c.symbol_name == "After" for c in analysis.chunks)


def test_oversized_function_is_split_and_keeps_every_line():
    body = "\n".join(f"  total += lineItem{i}.price * {i};" for i in range(200))
    source = (
        f"/** Sum it. */\nexport function total() {{\n  let total = 0;\n{body}\n"
        "  return total;\n}\n"
    )
    analysis = analyze_source("src/report.js", source.encode(), ChunkSettings(chunk_max_tokens=256))
    parts = [c for c in analysis.chunks if c.symbol_name == "total"]
    assert len(parts) > 1
    assert parts[0].content.startswith("export function total() {")
    covered = sorted(line for c in parts for line in range(c.start_line, c.end_line + 1))
    assert covered == list(range(1, 205))


_TOP_LEVEL_DECLARATION = r"^(export\s+)?(const|let|var)\s+{name}\b"
# ctags' kinds for what we emit. Constants and variables only count at top level:
# we do not index locals, and ctags 5.9 loses the scope of locals in arrow functions.
_DEFINITION_KINDS = {
    "class",
    "function",
    "method",
    "interface",
    "enum",
    "alias",
    "enumerator",
    "property",
    "field",
    "generator",
    "getter",
    "setter",
    "namespace",
}


def _counts_for_parity(tag: dict) -> bool:
    if tag["path"].endswith(".jsx") and tag.get("scope"):
        # ctags' JavaScript parser does not know JSX: it reads `{compact ? ...}` and
        # `UserBadge.propTypes = {...}` as classes with fields.
        return False
    if tag["kind"] in _DEFINITION_KINDS:
        return True
    line = (APP / tag["path"]).read_text().splitlines()[tag["line"] - 1]
    return re.match(_TOP_LEVEL_DECLARATION.format(name=re.escape(tag["name"])), line) is not None


def test_ctags_parity_on_the_typescript_fixture():
    tags = ctags_tags(APP, _DEFINITION_KINDS | {"constant", "variable"})
    tags = [t for t in tags if t["path"].endswith(JS_SUFFIXES) and _counts_for_parity(t)]
    assert len(tags) >= 50
    ours: set[tuple[str, str, int]] = set()
    for path in APP.rglob("*"):
        rel = path.relative_to(APP).as_posix()
        if not rel.endswith(JS_SUFFIXES):
            continue
        analysis = analyze(rel)
        assert analysis.language == detect_language(rel)
        assert not analysis.notes, (rel, analysis.notes)
        for s in analysis.symbols:
            for line in (s.selection_range.start.line, s.range.start.line):
                ours.add((rel, s.name.lstrip("#"), line + 1))
    missing = [t for t in tags if (t["path"], t["name"].lstrip("#"), t["line"]) not in ours]
    assert not missing, missing


def test_a_minified_bundle_is_not_analysed_but_a_long_literal_is_no_bundle():
    # the shape of Laravel's `renderer/dist/scripts.js`: a few lines, each thousands of
    # characters of one-letter names
    body = "".join(f"function {c}(e){{return t(e)+n.{c}}}var {c}{i}=Object.defineProperty;"
                   for i in range(200) for c in "stuv")
    bundle = analyze_source("dist/scripts.js", f"var e=1;{body}\n{body}\n".encode())
    assert not bundle.symbols and not bundle.references and not bundle.chunks
    assert any("minified" in note for note in bundle.notes)
    assert not analyze_source("dist/styles.css", ("a{color:red}" * 400).encode()).chunks

    handwritten = "\n".join(
        ['const ICON = "data:image/svg+xml;base64,' + "A" * 6000 + '";']
        + [f"export function render{i}(el) {{\n  return el.append(ICON);\n}}" for i in range(40)]
    )
    analysis = analyze_source("src/icons.js", handwritten.encode())
    assert "render39" in {s.name for s in analysis.symbols}
