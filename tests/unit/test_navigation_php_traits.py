"""A PHP class that `use`s a trait and implements an interface declaring the same
method runs the trait's body: `$this->getFormatter()` and `parent::setFormatter()` go
to the trait, as intelephense answers (monolog's handlers). Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

H = "src/Monolog/Handler/"
FILES = {
    H + "FormattableHandlerInterface.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\ninterface FormattableHandlerInterface\n{\n"
        "    public function getFormatter(): string;\n}\n"
    ),
    H + "FormattableHandlerTrait.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\ntrait FormattableHandlerTrait\n{\n"
        "    public function getFormatter(): string\n    {\n        return 'line';\n    }\n}\n"
    ),
    H + "AbstractProcessingHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\n"
        "abstract class AbstractProcessingHandler implements FormattableHandlerInterface\n{\n"
        "    use FormattableHandlerTrait;\n}\n"
    ),
    H + "ElasticsearchHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nclass ElasticsearchHandler extends AbstractProcessingHandler\n{\n"
        "    public function bulk(): string\n    {\n        return $this->getFormatter();\n    }\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("traits") / "repo", FILES)


def test_a_trait_body_beats_the_interface_declaration_at_the_same_level(live: LiveIndex):
    rel = H + "ElasticsearchHandler.php"
    lines = FILES[rel].splitlines()
    n = next(i for i, line in enumerate(lines) if "$this->getFormatter" in line)
    _, found = live.resolve(rel, n, lines[n].index("getFormatter") + 1)
    # before: both the interface's declaration and the trait's method (ambiguous)
    assert [s.path for s in found] == [H + "FormattableHandlerTrait.php"]
