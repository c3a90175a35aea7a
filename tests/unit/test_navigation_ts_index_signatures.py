"""TypeScript index-signature objects the way class-validator's executor uses them:
`groupByPropertyName(): { [propertyName: string]: ValidationMetadata[] }`, then
`grouped[name].filter(metadata => metadata.type …)`; a subscript is the signature's value
type. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

META = "export class ValidationMetadata {\n  type: string = '';\n}\n"
STORAGE = (
    "import { ValidationMetadata } from './ValidationMetadata';\n\n"
    "export class MetadataStorage {\n"
    "  groupByPropertyName(metadata: ValidationMetadata[]): { [propertyName: string]: ValidationMetadata[] } {\n"
    "    return {};\n  }\n"
    "}\n"
)
EXECUTOR = (
    "import { MetadataStorage } from '../metadata/MetadataStorage';\n\n"
    "export class ValidationExecutor {\n"
    "  private metadataStorage = new MetadataStorage();\n\n"
    "  execute(): void {\n"
    "    const grouped = this.metadataStorage.groupByPropertyName([]);\n"
    "    Object.keys(grouped).forEach(propertyName => {\n"
    "      const defined = grouped[propertyName].filter(metadata => metadata.type === 'isDefined');\n"
    "    });\n"
    "  }\n"
    "}\n"
)
# the same member name elsewhere: a name alone cannot tell
OTHER = "export class Post {\n  type: string = '';\n}\n"
FILES = {
    "src/metadata/ValidationMetadata.ts": META,
    "src/metadata/MetadataStorage.ts": STORAGE,
    "src/validation/ValidationExecutor.ts": EXECUTOR,
    "sample/Post.ts": OTHER,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsindexsig") / "repo", FILES)


def test_a_subscript_of_an_index_signature_object_is_its_value_type(live: LiveIndex):
    lines = EXECUTOR.splitlines()
    n = next(i for i, line in enumerate(lines) if "metadata.type" in line)
    _, found = live.resolve("src/validation/ValidationExecutor.ts", n, lines[n].index("metadata.type") + 10)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/metadata/ValidationMetadata.ts", 1)]
