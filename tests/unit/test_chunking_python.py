"""The Python strategy on a realistic package: what `defs`, outlines and search rely on."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES, ctags_tags

PKG = FIXTURES / "python_pkg"


def analyze(rel: str, settings: ChunkSettings | None = None):
    return analyze_source(rel, (PKG / rel).read_bytes(), settings)


def by_qname(analysis):
    return {s.qualified_name: s for s in analysis.symbols}


def test_classes_methods_and_functions_get_kinds_and_qualified_names():
    symbols = by_qname(analyze("shop/auth/login.py"))
    assert symbols["shop.auth.login.LoginService"].kind is SymbolKind.CLASS
    login = symbols["shop.auth.login.LoginService.login"]
    assert login.kind is SymbolKind.METHOD
    assert login.container == "shop.auth.login.LoginService"
    assert symbols["shop.auth.login.hash_password"].kind is SymbolKind.FUNCTION
    assert symbols["shop.auth.login.LOCKOUT"].kind is SymbolKind.VARIABLE


def test_ranges_signature_and_docstring():
    login = by_qname(analyze("shop/auth/login.py"))["shop.auth.login.LoginService.login"]
    # `def login(` is on line 31 (1-based); the name starts after "    def ".
    assert login.range.start.line == 30
    assert login.selection_range.start.line == 30
    assert login.selection_range.start.character == 8
    assert login.range.end.line == 44
    assert login.signature == "def login(self, email: str, password: str) -> str"
    assert login.doc == "Check the credentials and return a new session token."


def test_chunks_are_syntactic_units_with_metadata():
    analysis = analyze("shop/orders/service.py")
    chunks = {(c.symbol_type, c.symbol_name): c for c in analysis.chunks}
    checkout = chunks[("method", "checkout")]
    assert checkout.content.lstrip().startswith("def checkout(self, order_id: int) -> Order:")
    assert "order.status = OrderStatus.PAID" in checkout.content
    assert checkout.metadata["qualified_name"] == "shop.orders.service.OrderService.checkout"
    assert checkout.metadata["docstring"] == "Charge the customer and mark the order paid."
    # The class chunk is a skeleton: method signatures without their bodies.
    service = chunks[("class", "OrderService")]
    assert "def checkout(self, order_id: int) -> Order:" in service.content
    assert "payment declined" not in service.content
    module = chunks[("module", "shop.orders.service")]
    assert module.content.startswith("Order processing")
    assert "from shop.auth.models import User" in module.content


def test_imports_map_local_names_to_qualified_targets():
    imports = analyze("shop/auth/login.py").imports
    assert imports["User"] == "shop.auth.models.User"  # relative import resolved
    assert imports["hashlib"] == "hashlib"
    assert analyze("shop/__init__.py").imports["OrderService"] == "shop.orders.service.OrderService"


def test_references_exclude_definitions_and_know_their_container():
    analysis = analyze("shop/auth/login.py")
    refs = [r for r in analysis.references if r.name == "hash_password"]
    assert [r.range.start.line for r in refs] == [38]  # the call in login(), not the def
    assert refs[0].container == "shop.auth.login.LoginService.login"


def test_top_level_script_code_is_kept_as_a_block_chunk():
    analysis = analyze("manage.py")
    blocks = [c for c in analysis.chunks if c.symbol_type == "block"]
    assert any('if __name__ == "__main__":' in c.content for c in blocks)


def test_oversized_chunks_are_split_and_nothing_is_dropped():
    body = "\n".join(f"    value_{i} = compute({i}) + other_value_{i}" for i in range(300))
    source = f"def huge():\n{body}\n".encode()
    chunks = [
        c for c in analyze_source("big.py", source, ChunkSettings(chunk_max_tokens=256)).chunks
        if c.symbol_name == "huge"
    ]
    assert len(chunks) > 1
    assert chunks[0].content.startswith("def huge():")
    assert {c.metadata["split"]["parts"] for c in chunks} == {len(chunks)}
    covered = [line for c in chunks for line in range(c.start_line, c.end_line + 1)]
    assert covered == list(range(301))


def test_syntax_error_mid_file_keeps_the_rest():
    source = (
        b"def before():\n    return 1\n\n"
        b"def broken(:\n    pass\n\n"
        b"class After:\n    def method(self):\n        return 2\n"
    )
    analysis = analyze_source("broken.py", source)
    names = {s.name for s in analysis.symbols}
    assert {"before", "After", "method"} <= names
    assert analysis.syntax_errors >= 1


def test_non_ascii_columns_are_utf16():
    source = "x = '日本語'; y = 1\ndef f():\n    return '𝒳' + name\n".encode()
    analysis = analyze_source("u.py", source)
    ref = next(r for r in analysis.references if r.name == "name")
    # '𝒳' is one code point but two UTF-16 units: "    return '" is 12, then 2, then "' + " 4
    assert ref.range.start.character == 18


def test_ctags_parity_on_the_python_fixture():
    tags = ctags_tags(PKG, {"function", "class", "member"})
    assert len(tags) >= 20
    ours: set[tuple[str, str, int]] = set()
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).as_posix()
        for s in analyze(rel).symbols:
            ours.add((rel, s.name, s.selection_range.start.line + 1))
            ours.add((rel, s.name, s.range.start.line + 1))
    missing = [t for t in tags if (t["path"], t["name"], t["line"]) not in ours]
    assert not missing, missing


def test_imports_below_the_top_level_are_recorded_wherever_they_stand():
    source = (
        "from __future__ import annotations\n"
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING: from shop.models import Order\n"
        "try:\n    import ujson as json\nexcept ImportError:\n    import json\n"
        "# import fake_from_a_comment\n"
        "NOTE = 'import fake_from_a_string'\n"
        "def f():\n    x = 1; from shop.util import helper\n    return helper(x)\n"
        "class C:\n    def m(self):\n        import shop.auth.login as login\n        return login\n"
        "def __import__(): pass\n"
    )
    imports = analyze_source("pkg/mod.py", source.encode()).imports
    assert imports["os"] == "os"
    assert imports["Order"] == "shop.models.Order"
    assert imports["json"] == "ujson"  # the first binding in file order wins
    assert imports["helper"] == "shop.util.helper"
    assert imports["login"] == "shop.auth.login"
    assert not any("fake" in k or "fake" in v for k, v in imports.items())
