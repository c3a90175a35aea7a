"""The Go strategy on a small service: package-qualified names, receiver types as
containers, doc comments, imports, chunks, error recovery, ctags parity."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking.go import import_alias
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES, ctags_tags

SERVICE = FIXTURES / "go_service"
AUTH = "internal/auth/service.go"


def analyze(rel: str):
    return analyze_source(rel, (SERVICE / rel).read_bytes())


def by_qname(analysis):
    return {s.qualified_name: s for s in analysis.symbols}


def chunk(analysis, symbol_type: str, name: str):
    found = [c for c in analysis.chunks if c.symbol_type == symbol_type and c.symbol_name == name]
    assert len(found) == 1, [(c.symbol_type, c.symbol_name) for c in analysis.chunks]
    return found[0]


def test_methods_belong_to_their_receiver_type():
    analysis = analyze(AUTH)
    assert analysis.language == "go"
    assert analysis.syntax_errors == 0
    symbols = by_qname(analysis)
    login = symbols["auth.Service.Login"]
    assert login.kind is SymbolKind.METHOD
    assert login.container == "auth.Service"
    assert (login.range.start.line, login.range.end.line) == (52, 66)
    assert login.selection_range.start.character == 18
    assert login.signature == (
        "func (s *Service) Login(ctx context.Context, email, password string) (Token, error)"
    )
    assert login.doc == "Login checks the password and returns a new session token."
    # A value receiver and an unexported method.
    assert symbols["auth.Service.active"].container == "auth.Service"
    new = symbols["auth.NewService"]
    assert new.kind is SymbolKind.FUNCTION and new.container == "auth"
    assert new.signature == "func NewService(users store.UserRepository) *Service"


def test_types_fields_and_interface_methods():
    symbols = by_qname(analyze(AUTH))
    service = symbols["auth.Service"]
    assert service.kind is SymbolKind.STRUCT
    assert service.signature == "type Service struct"
    assert service.doc == "Service implements Authenticator on top of the user store."
    assert service.range.start.line == 35
    users = symbols["auth.Service.users"]
    assert users.kind is SymbolKind.FIELD and users.signature == "users store.UserRepository"
    iface = symbols["auth.Authenticator"]
    assert iface.kind is SymbolKind.INTERFACE
    spec = symbols["auth.Authenticator.Login"]
    assert spec.kind is SymbolKind.METHOD and spec.container == "auth.Authenticator"
    assert spec.signature == "Login(ctx context.Context, email, password string) (Token, error)"
    token = symbols["auth.Token"]
    assert token.kind is SymbolKind.TYPE and token.signature == "type Token = string"
    assert token.doc == "Token is an opaque session token handed to clients."
    role = by_qname(analyze("internal/store/users.go"))["store.Role"]
    assert role.kind is SymbolKind.TYPE and role.signature == "type Role int"


def test_top_level_consts_and_vars():
    symbols = by_qname(analyze(AUTH))
    err = symbols["auth.ErrInvalidCredentials"]
    assert err.kind is SymbolKind.VARIABLE
    assert err.doc == "ErrInvalidCredentials is returned when the email or password is wrong."
    max_attempts = symbols["auth.MaxAttempts"]
    assert max_attempts.kind is SymbolKind.CONSTANT
    assert max_attempts.signature == "const MaxAttempts = 5"
    assert max_attempts.doc == "MaxAttempts is how many failed logins lock an account."
    # Locals are not definitions.
    assert "auth.Service.Login.user" not in symbols
    assert not any(s.name in ("user", "token", "buf") for s in symbols.values())


def test_several_names_in_one_spec_and_embedded_fields():
    source = b"""package geo

import (
\t"fmt"
\tm "math"
\t_ "embed"
)

const (
\tNorth, South = 1, 2
)

var _ fmt.Stringer = Point{}

type Point struct {
\tX, Y float64
\tfmt.Stringer
\t*Label
}

func (p Point[T]) Norm() float64 { return m.Sqrt(p.X*p.X + p.Y*p.Y) }
"""
    analysis = analyze_source("geo/point.go", source)
    symbols = by_qname(analysis)
    assert symbols["geo.North"].kind is SymbolKind.CONSTANT
    assert symbols["geo.South"].selection_range.start.character == 8
    assert {"geo.Point.X", "geo.Point.Y", "geo.Point.Stringer", "geo.Point.Label"} <= set(symbols)
    assert symbols["geo.Point.Norm"].container == "geo.Point"  # generic receiver
    assert not any(s.name == "_" for s in analysis.symbols)
    assert analysis.imports == {"fmt": "fmt", "m": "math"}
    assert chunk(analysis, "struct", "Point").metadata["embeds"] == ["fmt.Stringer", "Label"]


def test_imports_map_package_names_to_paths():
    imports = analyze("cmd/server/main.go").imports
    assert imports["userstore"] == "github.com/acme/go-service/internal/store"
    assert imports["auth"] == "github.com/acme/go-service/internal/auth"
    assert imports["chi"] == "github.com/go-chi/chi/v5"  # major-version suffix skipped
    assert imports["http"] == "net/http"
    assert import_alias("gopkg.in/yaml.v3") == "yaml.v3"


def test_chunks_docs_and_metadata():
    analysis = analyze(AUTH)
    login = chunk(analysis, "method", "Login")
    # The doc comment opens the chunk; the symbol range starts at `func`.
    assert login.start_line == 51
    assert login.content.startswith("// Login checks the password")
    assert "bcrypt.CompareHashAndPassword" in login.content
    assert login.metadata["qualified_name"] == "auth.Service.Login"
    assert login.metadata["container"] == "auth.Service"
    assert login.metadata["receiver"] == "Service"
    assert login.metadata["pointer_receiver"] is True
    assert login.metadata["package"] == "auth"
    assert login.metadata["exported"] is True
    assert chunk(analysis, "method", "active").metadata["exported"] is False
    service = chunk(analysis, "struct", "Service")
    assert service.content.splitlines()[1] == "type Service struct {"
    # Interface method specs are shown by the interface chunk only.
    assert not [c for c in analysis.chunks if c.symbol_name == "Logout" and c.start_line < 35]
    iface = chunk(analysis, "interface", "Authenticator")
    assert "Logout(ctx context.Context, token Token) error" in iface.content


def test_file_summary_chunk():
    analysis = analyze(AUTH)
    summary = chunk(analysis, "module", AUTH)
    assert summary.content.startswith("Package auth checks credentials and issues session tokens.")
    assert '"golang.org/x/crypto/bcrypt"' in summary.content
    assert "method Service.Login" in summary.content
    assert summary.metadata["package"] == "auth"
    assert summary.metadata["imports"]["store"] == "github.com/acme/go-service/internal/store"
    main = analyze("cmd/server/main.go")
    assert chunk(main, "module", "cmd/server/main.go").metadata["docstring"] == (
        "Command server runs the HTTP API of the shop backend."
    )
    assert not [c for c in main.chunks if c.symbol_type == "block"]


def test_references_know_their_container():
    analysis = analyze("cmd/server/main.go")
    refs = [r for r in analysis.references if r.name == "NewService"]
    assert [r.start_line for r in refs] == [25]
    assert refs[0].container == "main.main"


def test_syntax_error_mid_file_keeps_the_rest():
    source = b"""package demo

func Before() int {
\treturn 1
}

func Broken( {
\tx :=
}

type After struct {
\tName string
}

func (a *After) Method() string {
\treturn a.Name
}
"""
    analysis = analyze_source("demo/broken.go", source)
    assert analysis.syntax_errors >= 1
    symbols = by_qname(analysis)
    assert symbols["demo.After"].kind is SymbolKind.STRUCT
    assert symbols["demo.After.Method"].range.start.line == 14
    assert any(c.symbol_name == "Method" for c in analysis.chunks)


def test_ctags_parity_on_the_go_fixture():
    kinds = {"func", "struct", "interface", "type", "talias", "const", "var"}
    kinds |= {"member", "anonMember", "methodSpec"}
    tags = [t for t in ctags_tags(SERVICE, kinds) if t["path"].endswith(".go")]
    assert len(tags) >= 35
    ours: set[tuple[str, str, int]] = set()
    for path in SERVICE.rglob("*.go"):
        rel = path.relative_to(SERVICE).as_posix()
        analysis = analyze(rel)
        assert not analysis.notes, (rel, analysis.notes)
        for s in analysis.symbols:
            ours.add((rel, s.name, s.selection_range.start.line + 1))
            ours.add((rel, s.name, s.range.start.line + 1))
    missing = [t for t in tags if (t["path"], t["name"], t["line"]) not in ours]
    assert not missing, missing
