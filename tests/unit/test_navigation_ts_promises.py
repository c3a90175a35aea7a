"""TypeScript promise callbacks the way class-validator's tests write them:
`validator.validate(model).then(errors => { errors[0].value … })` with `validate():
Promise<ValidationError[]>`; the callback's parameter is what the promise resolves to.
Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

ERROR = "export class ValidationError {\n  target?: object;\n  value?: any;\n}\n"
VALIDATOR = (
    "import { ValidationError } from './ValidationError';\n\n"
    "export class Validator {\n"
    "  validate(object: object): Promise<ValidationError[]> {\n"
    "    return Promise.resolve([]);\n  }\n\n"
    "  first(object: object): Promise<ValidationError> {\n"
    "    return Promise.resolve(new ValidationError());\n  }\n"
    "}\n"
)
TEST = (
    "import { Validator } from '../../src/validation/Validator';\n\n"
    "const validator = new Validator();\n\n"
    "it('validates', () => {\n"
    "  return validator.validate({}).then(errors => {\n"
    "    expect(errors[0].value).toEqual('my');\n"
    "  });\n"
    "});\n\n"
    "it('validates one', () => {\n"
    "  return validator.first({}).then((error) => expect(error.target).toBeDefined());\n"
    "});\n"
)
# the same member names elsewhere: a name alone cannot tell
OTHER = "export class Tag {\n  value: string;\n  target: string;\n}\n"
FILES = {
    "src/validation/ValidationError.ts": ERROR,
    "src/validation/Validator.ts": VALIDATOR,
    "sample/Tag.ts": OTHER,
    "test/functional/validation.spec.ts": TEST,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tspromises") / "repo", FILES)


def defs(live: LiveIndex, needle: str, word: str) -> list[tuple[str, int]]:
    lines = TEST.splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    _, found = live.resolve("test/functional/validation.spec.ts", n, lines[n].index(word) + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


def test_a_then_callback_parameter_is_what_the_promise_resolves_to(live: LiveIndex):
    assert defs(live, "errors[0].value", "value") == [("src/validation/ValidationError.ts", 2)]
    assert defs(live, "error.target", "target") == [("src/validation/ValidationError.ts", 1)]
