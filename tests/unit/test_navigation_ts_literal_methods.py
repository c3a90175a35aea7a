"""TypeScript functions written as values of an object literal's keys the way
class-validator's decorators write them: `ValidateBy({name, validator: {validate: (value,
args) => …args?.constraints[0]}})`. The literal is checked against the parameter's declared
type, so `args` is parameter j of that type's `validate`. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

ARGS = "export interface ValidationArguments {\n  value: any;\n  constraints: any[];\n}\n"
IFACE = (
    "import { ValidationArguments } from './ValidationArguments';\n\n"
    "export interface ValidatorConstraintInterface {\n"
    "  validate(value: any, validationArguments?: ValidationArguments): boolean;\n"
    "}\n"
)
BY = (
    "import { ValidatorConstraintInterface } from '../validation/ValidatorConstraintInterface';\n\n"
    "export interface ValidateByOptions {\n"
    "  name: string;\n"
    "  constraints?: any[];\n"
    "  validator: ValidatorConstraintInterface;\n"
    "}\n\n"
    "export function ValidateBy(options: ValidateByOptions): PropertyDecorator {\n"
    "  return () => undefined;\n}\n"
)
MAX = (
    "import { ValidateBy } from './ValidateBy';\n\n"
    "export function MaxLength(max: number): PropertyDecorator {\n"
    "  return ValidateBy({\n"
    "    name: 'maxLength',\n"
    "    constraints: [max],\n"
    "    validator: {\n"
    "      validate: (value, args): boolean => value.length <= args?.constraints[0],\n"
    "    },\n"
    "  });\n"
    "}\n\n"
    "export function MinLength(min: number): PropertyDecorator {\n"
    "  return ValidateBy({\n"
    "    name: 'minLength',\n"
    "    validator: {\n"
    "      validate(value, args): boolean {\n"
    "        return value.length >= args?.constraints[0];\n"
    "      },\n"
    "    },\n"
    "  });\n"
    "}\n"
)
# the same member name elsewhere: a name alone cannot tell
OTHER = "export class ValidationMetadata {\n  constraints: any[] = [];\n}\n"
FILES = {
    "src/validation/ValidationArguments.ts": ARGS,
    "src/validation/ValidatorConstraintInterface.ts": IFACE,
    "src/decorator/ValidateBy.ts": BY,
    "src/decorator/MaxLength.ts": MAX,
    "src/metadata/ValidationMetadata.ts": OTHER,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsliteralmethods") / "repo", FILES)


def defs(live: LiveIndex, needle: str) -> list[tuple[str, int]]:
    lines = MAX.splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    _, found = live.resolve("src/decorator/MaxLength.ts", n, lines[n].index("constraints[0]") + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


def test_a_parameter_of_a_function_under_a_literal_key_is_the_declared_methods(live: LiveIndex):
    assert defs(live, "value.length <= args") == [("src/validation/ValidationArguments.ts", 2)]


def test_a_parameter_of_a_method_written_in_a_literal_is_the_declared_methods(live: LiveIndex):
    assert defs(live, "value.length >= args") == [("src/validation/ValidationArguments.ts", 2)]
