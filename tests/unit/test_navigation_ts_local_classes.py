"""TypeScript tests the way InversifyJS writes them: every `it(...)` callback declares its
own `class Katana`, `interface Weapon`, `class Ninja` with the same names and members as
the next test's. A class or interface declared inside a function is seen only inside that
function (the innermost declaration shadows the rest), and `this.x` / `weapon.x` is the
member of that one declaration, not of every same-named class in the file. Real
tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

TEST = (
    "import { Container } from '../container/container';\n\n"
    "describe('InversifyJS', () => {\n"
    "  it('Should resolve a first katana', () => {\n"
    "    interface Weapon {\n      name: string;\n    }\n\n"
    "    class Katana implements Weapon {\n"
    "      public name: string;\n"
    "      constructor() {\n        this.name = 'Katana';\n      }\n"
    "      public hit() {\n        return 'cut!';\n      }\n"
    "    }\n\n"
    "    class Ninja {\n"
    "      private readonly _katana: Katana;\n"
    "      constructor(katana: Katana) {\n        this._katana = katana;\n      }\n"
    "      public fight() {\n        return this._katana.hit(); // first\n      }\n"
    "    }\n\n"
    "    const container: Container = new Container();\n"
    "    const ninja: Ninja = container.get<Ninja>('Ninja');\n"
    "    const weapon: Weapon = new Katana();\n"
    "    expect(weapon.name).eql('Katana'); // first\n"
    "  });\n\n"
    "  it('Should resolve a second katana', () => {\n"
    "    interface Weapon {\n      name: string;\n    }\n\n"
    "    class Katana implements Weapon {\n"
    "      public name: string;\n"
    "      constructor() {\n        this.name = 'Katana'; // second\n      }\n"
    "      public hit() {\n        return 'cut!';\n      }\n"
    "    }\n\n"
    "    class Ninja {\n"
    "      private readonly _katana: Katana;\n"
    "      constructor(katana: Katana) {\n        this._katana = katana;\n      }\n"
    "      public fight() {\n        return this._katana.hit(); // second\n      }\n"
    "    }\n\n"
    "    const ninja: Ninja = new Ninja(new Katana());\n"
    "    const weapon: Weapon = new Katana();\n"
    "    expect(weapon.name).eql('Katana'); // second\n"
    "    expect(ninja.fight()).eql('cut!'); // second\n"
    "  });\n"
    "});\n"
)
CONTAINER = "export class Container {\n  public get<T>(id: string): T {\n    return null as T;\n  }\n}\n"
FILES = {"src/test/inversify.test.ts": TEST, "src/container/container.ts": CONTAINER}
PATH = "src/test/inversify.test.ts"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tslocalclasses") / "repo", FILES)


def _lines() -> list[str]:
    return TEST.splitlines()


def _line(needle: str, after: int = 0) -> int:
    return next(i for i, line in enumerate(_lines()) if i >= after and needle in line)


SECOND = _line("Should resolve a second katana")


def defs(live: LiveIndex, needle: str, word: str) -> list[int]:
    n = _line(needle)
    _, found = live.resolve(PATH, n, _lines()[n].index(word) + 1)
    return [s.symbol.selection_range.start.line for s in found if s.path == PATH]


def test_this_member_is_the_enclosing_declarations_own(live: LiveIndex):
    # before: `this._katana` answered both tests' `Ninja._katana` fields
    assert defs(live, "this._katana.hit(); // first", "_katana") == [_line("private readonly _katana")]
    assert defs(live, "this._katana.hit(); // second", "_katana") == [_line("private readonly _katana", SECOND)]
    assert defs(live, "this.name = 'Katana'; // second", "name") == [_line("public name: string;", SECOND)]


def test_a_typed_receiver_uses_the_interface_declared_in_its_own_function(live: LiveIndex):
    # before: `weapon: Weapon` was either test's interface, so `weapon.name` had two targets
    assert defs(live, "expect(weapon.name).eql('Katana'); // first", "name") == [_line("name: string;")]
    assert defs(live, "expect(weapon.name).eql('Katana'); // second", "name") == [
        _line("name: string;", SECOND)
    ]


def test_a_class_reference_goes_to_the_declaration_in_scope(live: LiveIndex):
    assert defs(live, "expect(ninja.fight()).eql('cut!'); // second", "fight") == [
        _line("public fight()", SECOND)
    ]
    n = _line("const ninja: Ninja = new Ninja(new Katana());")
    _, found = live.resolve(PATH, n, _lines()[n].index("Ninja") + 1)
    assert [s.symbol.selection_range.start.line for s in found] == [_line("class Ninja {", SECOND)]


def test_references_of_a_member_stay_with_its_own_declaration(live: LiveIndex):
    from code_intel.lsp_server.references import references_at

    # before: the next test's `Weapon.name` / `Katana.name` and their uses were listed too
    n = _line("expect(weapon.name).eql('Katana'); // first")
    answer = references_at(live, PATH, n, _lines()[n].index("name") + 1)
    lines = sorted({r.reference.start_line for r in answer.resolved} | {
        t.symbol.selection_range.start.line for t in answer.targets
    })
    assert lines and all(line < SECOND for line in lines), lines


def test_references_of_an_interface_property_list_the_implementing_class_property(live: LiveIndex):
    from code_intel.lsp_server.references import references_at

    # tsserver: `Katana implements Weapon`, so `Katana.name` and `this.name = …` are
    # references of `Weapon.name` (before: only the interface's own uses)
    n = _line("expect(weapon.name).eql('Katana'); // first")
    answer = references_at(live, PATH, n, _lines()[n].index("name") + 1)
    lines = {r.reference.start_line for r in answer.resolved} | {
        t.symbol.selection_range.start.line for t in answer.targets
    }
    assert _line("this.name = 'Katana';") in lines
    assert _line("public name: string;") in lines


DECORATED = (
    "describe('nested validation', () => {\n"
    "  it('should validate nested objects', () => {\n"
    "    class MySubClass {\n"
    "      @MinLength(5)\n"
    "      name: string;\n"
    "    }\n\n"
    "    class MyClass {\n"
    "      @ValidateNested()\n"
    "      mySubClasses: MySubClass[];\n"
    "    }\n\n"
    "    const model = new MyClass();\n"
    "    model.mySubClasses[0].name = 'my';\n"
    "  });\n\n"
    "  it('should validate again', () => {\n"
    "    class MySubClass {\n      name: string;\n    }\n"
    "  });\n"
    "});\n"
)


def test_a_decorated_fields_declared_type_types_its_uses(tmp_path):
    # class-validator: `@ValidateNested()` on the line above the field was stored as the
    # field's whole signature, so `mySubClasses` had no type and `name` answered both classes
    live = indexed_tree(tmp_path / "repo", {"test/nested.spec.ts": DECORATED})
    lines = DECORATED.splitlines()
    n = next(i for i, line in enumerate(lines) if "model.mySubClasses[0].name" in line)
    _, found = live.resolve("test/nested.spec.ts", n, lines[n].rindex("name") + 1)
    assert [s.symbol.selection_range.start.line for s in found] == [4]
    fields = [s for s in live.file_symbols("test/nested.spec.ts") if s.symbol.name == "mySubClasses"]
    assert [s.symbol.signature for s in fields] == ["mySubClasses: MySubClass[]"]

