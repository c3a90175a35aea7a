"""The Java strategy on a small Spring app: package-qualified names, Javadoc,
annotations, constructor/field injection, records and enums, imports, error
recovery, ctags parity."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.model import SymbolKind

from tests.conftest import FIXTURES, ctags_tags

APP = FIXTURES / "java_app"
SRC = "src/main/java/com/example/shop"
CONTROLLER = f"{SRC}/web/OrderController.java"
CONTROLLER_FQCN = "com.example.shop.web.OrderController"


def analyze(rel: str):
    return analyze_source(rel, (APP / rel).read_bytes())


def by_qname(analysis):
    return {s.qualified_name: s for s in analysis.symbols}


def chunk(analysis, symbol_type: str, name: str):
    found = [c for c in analysis.chunks if c.symbol_type == symbol_type and c.symbol_name == name]
    assert len(found) == 1, [(c.symbol_type, c.symbol_name) for c in analysis.chunks]
    return found[0]


def test_controller_symbols_are_package_qualified():
    analysis = analyze(CONTROLLER)
    assert analysis.language == "java"
    assert analysis.syntax_errors == 0
    symbols = by_qname(analysis)
    cls = symbols[CONTROLLER_FQCN]
    assert cls.kind is SymbolKind.CLASS
    assert cls.container == "com.example.shop.web"
    # The range starts at the first annotation, the selection at the name.
    assert cls.range.start.line == 12
    assert (cls.selection_range.start.line, cls.selection_range.start.character) == (14, 13)
    assert cls.signature == "public class OrderController"
    assert cls.doc == "REST endpoints for customer orders."
    ctor = symbols[f"{CONTROLLER_FQCN}.OrderController"]
    assert ctor.kind is SymbolKind.CONSTRUCTOR
    assert ctor.signature == "public OrderController(OrderService orderService, Clock clock)"
    list_ = symbols[f"{CONTROLLER_FQCN}.list"]
    assert list_.kind is SymbolKind.METHOD
    assert (list_.range.start.line, list_.range.end.line) == (32, 35)
    assert list_.signature == (
        'public List<Order> list(@RequestParam(defaultValue = "0") int page)'
    )
    assert list_.doc == (
        "Lists the orders of the signed-in customer, newest first.\n"
        "@param page zero-based page number\n"
        "@return one page of orders"
    )
    field = symbols[f"{CONTROLLER_FQCN}.orderService"]
    assert field.kind is SymbolKind.FIELD
    assert field.signature == "private final OrderService orderService"
    record = symbols[f"{CONTROLLER_FQCN}.CreateOrderRequest"]
    assert record.kind is SymbolKind.CLASS and record.container == CONTROLLER_FQCN
    assert symbols[f"{CONTROLLER_FQCN}.CreateOrderRequest.customerId"].kind is SymbolKind.FIELD


def test_imports_map_simple_names_to_fqcns():
    analysis = analyze(CONTROLLER)
    assert analysis.imports["OrderService"] == "com.example.shop.service.OrderService"
    assert analysis.imports["List"] == "java.util.List"
    summary = chunk(analysis, "module", CONTROLLER)
    assert summary.metadata["wildcard_imports"] == ["org.springframework.web.bind.annotation"]
    assert summary.metadata["package"] == "com.example.shop.web"
    assert summary.metadata["defines"] == [CONTROLLER_FQCN]
    assert "import com.example.shop.service.OrderService;" in summary.content
    source = b"package a;\nimport static java.util.Objects.requireNonNull;\nclass B {}\n"
    assert analyze_source("B.java", source).imports == {
        "requireNonNull": "java.util.Objects.requireNonNull"
    }


def test_class_chunk_has_annotations_dependencies_and_a_skeleton():
    analysis = analyze(CONTROLLER)
    cls = chunk(analysis, "class", "OrderController")
    meta = cls.metadata
    assert meta["qualified_name"] == CONTROLLER_FQCN
    assert meta["annotations"] == ["@RestController", '@RequestMapping("/api/orders")']
    assert meta["injected_dependencies"] == [
        {
            "class": "com.example.shop.service.OrderService",
            "variable": "orderService",
            "via": "constructor",
        },
        {"class": "com.example.shop.web.Clock", "variable": "clock", "via": "constructor"},
    ]
    assert meta["related_symbols"] == [
        "com.example.shop.service.OrderService",
        "com.example.shop.web.Clock",
    ]
    # The chunk opens with the Javadoc; members show their annotations and
    # signatures, not their bodies.
    assert cls.start_line == 9
    assert cls.content.startswith("/**\n * REST endpoints for customer orders.")
    assert '    @PostMapping("/{id}/cancel")\n    public Order cancel(@PathVariable long id) {' in (
        cls.content
    )
    assert "orderService.findRecent" not in cls.content
    list_ = chunk(analysis, "method", "list")
    assert list_.metadata["annotations"] == ["@GetMapping"]
    assert "return orderService.findRecent(page, PAGE_SIZE);" in list_.content
    assert list_.content.lstrip().startswith("/**")
    create = chunk(analysis, "method", "create")
    assert create.metadata["annotations"] == [
        "@PostMapping",
        "@ResponseStatus(HttpStatus.CREATED)",
    ]


def test_field_injection_and_implements():
    analysis = analyze(f"{SRC}/service/OrderServiceImpl.java")
    meta = chunk(analysis, "class", "OrderServiceImpl").metadata
    assert meta["annotations"] == ["@Service"]
    assert meta["implements"] == ["com.example.shop.service.OrderService"]
    assert meta["related_symbols"] == [
        "com.example.shop.repository.OrderRepository",
        "com.example.shop.service.PaymentGateway",
    ]
    assert meta["injected_dependencies"][1] == {
        "class": "com.example.shop.service.PaymentGateway",
        "variable": "payments",
        "via": "field",
    }
    cancel = chunk(analysis, "method", "cancel")
    assert cancel.metadata["annotations"] == ["@Override", "@Transactional"]
    assert cancel.metadata["docstring"].startswith("Cancels an order that has not shipped yet.")
    payments = by_qname(analysis)["com.example.shop.service.OrderServiceImpl.payments"]
    assert payments.range.start.line == 18  # the @Autowired line
    repo = analyze(f"{SRC}/repository/OrderRepository.java")
    assert chunk(repo, "interface", "OrderRepository").metadata["extends"] == [
        "org.springframework.data.jpa.repository.JpaRepository"
    ]


def test_enum_record_and_entity():
    status = by_qname(analyze(f"{SRC}/domain/OrderStatus.java"))
    assert status["com.example.shop.domain.OrderStatus"].kind is SymbolKind.ENUM
    shipped = status["com.example.shop.domain.OrderStatus.SHIPPED"]
    assert shipped.kind is SymbolKind.ENUM_MEMBER and shipped.signature == 'SHIPPED("shipped")'
    ctor = status["com.example.shop.domain.OrderStatus.OrderStatus"]
    assert ctor.kind is SymbolKind.CONSTRUCTOR
    assert status["com.example.shop.domain.OrderStatus.isOpen"].doc == (
        "Whether the order can still be changed by the customer."
    )
    money = analyze(f"{SRC}/domain/Money.java")
    record = chunk(money, "class", "Money")
    assert record.metadata["record"] is True
    assert record.metadata["components"] == ["cents", "currency"]
    assert record.metadata["signature"] == "public record Money(long cents, String currency)"
    symbols = by_qname(money)
    assert symbols["com.example.shop.domain.Money.Money"].kind is SymbolKind.CONSTRUCTOR
    assert symbols["com.example.shop.domain.Money.ofCents"].kind is SymbolKind.METHOD
    order = analyze(f"{SRC}/domain/Order.java")
    entity = chunk(order, "class", "Order")
    assert entity.metadata["annotations"] == ["@Entity", '@Table(name = "orders")']
    assert "    @Id\n    @GeneratedValue(strategy = GenerationType.IDENTITY)" in entity.content
    id_field = by_qname(order)["com.example.shop.domain.Order.id"]
    assert id_field.range.start.line == 12 and id_field.selection_range.start.line == 14
    assert id_field.signature == "private Long id"


def test_interface_and_annotation_type():
    service = by_qname(analyze(f"{SRC}/service/OrderService.java"))
    find = service["com.example.shop.service.OrderService.findRecent"]
    assert find.kind is SymbolKind.METHOD
    assert find.signature == "List<Order> findRecent(int page, int size)"
    assert find.doc == "The customer's most recent orders, newest first."
    source = b"""package a;

/** Marks audited endpoints. */
public @interface Audited {
    String value() default "";
}
"""
    analysis = analyze_source("a/Audited.java", source)
    audited = chunk(analysis, "interface", "Audited")
    assert audited.metadata["annotation_type"] is True
    assert by_qname(analysis)["a.Audited.value"].kind is SymbolKind.METHOD


def test_references_know_their_container():
    analysis = analyze(f"{SRC}/service/OrderServiceImpl.java")
    refs = [r for r in analysis.references if r.name == "authorize"]
    assert [r.start_line for r in refs] == [34]
    assert refs[0].container == "com.example.shop.service.OrderServiceImpl.place"


def test_syntax_error_mid_file_keeps_the_rest():
    source = b"""package demo;

public class Broken {
    public int before() {
        return 1;
    }

    public void broken( {
        int x = ;
    }

    public String after() {
        return "ok";
    }
}

interface Later {
    void run();
}
"""
    analysis = analyze_source("demo/Broken.java", source)
    assert analysis.syntax_errors >= 1
    symbols = by_qname(analysis)
    assert symbols["demo.Broken.after"].range.start.line == 11
    assert symbols["demo.Later.run"].kind is SymbolKind.METHOD
    assert any(c.symbol_name == "after" for c in analysis.chunks)


def test_ctags_parity_on_the_java_fixture():
    kinds = {"class", "interface", "enum", "enumConstant", "method", "field", "annotation"}
    tags = [t for t in ctags_tags(APP, kinds) if t["path"].endswith(".java")]
    assert len(tags) >= 45
    ours: set[tuple[str, str, int]] = set()
    for path in APP.rglob("*.java"):
        rel = path.relative_to(APP).as_posix()
        analysis = analyze(rel)
        assert not analysis.notes, (rel, analysis.notes)
        for s in analysis.symbols:
            ours.add((rel, s.name, s.selection_range.start.line + 1))
            ours.add((rel, s.name, s.range.start.line + 1))
    # ctags 5.9 reads records as methods; name and line still match our classes.
    missing = [t for t in tags if (t["path"], t["name"], t["line"]) not in ours]
    assert not missing, missing
