"""PHP loop variables typed by what the loop walks, the way monolog and Laravel write
it: `foreach ($this->handlers as $handler)` with `/** @var HandlerInterface[] */`,
`list<Foo>` / `array<string, Foo>` docblocks, `as $key => $value`. Real tree-sitter,
real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

H = "src/Monolog/Handler/"
FILES = {
    H + "HandlerInterface.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\ninterface HandlerInterface\n{\n"
        "    public function handleBatch(array $records): void;\n}\n"
    ),
    H + "NullHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nclass NullHandler implements HandlerInterface\n{\n"
        "    public function handleBatch(array $records): void\n    {\n    }\n}\n"
    ),
    H + "FileJar.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nclass FileJar implements \\IteratorAggregate\n{\n"
        "    public function handleBatch(array $records): void\n    {\n    }\n\n"
        "    public function save(): void\n    {\n        /** @var HandlerInterface $jarred */\n"
        "        foreach ($this as $jarred) {\n            $jarred->handleBatch([]);\n        }\n    }\n}\n"
    ),
    H + "GroupHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nclass GroupHandler\n{\n"
        "    /** @var HandlerInterface[] */\n    protected array $handlers;\n\n"
        "    /** @var array<string, HandlerInterface> */\n    protected array $named = [];\n\n"
        "    /**\n     * @param HandlerInterface[] $handlers\n     */\n"
        "    public function __construct(array $handlers)\n    {\n"
        "        foreach ($handlers as $given) {\n            $given->handleBatch([]);\n        }\n    }\n\n"
        "    /**\n     * @return HandlerInterface[]\n     */\n"
        "    public function all(): array\n    {\n        return $this->handlers;\n    }\n\n"
        "    public function raw(): array\n    {\n        return [];\n    }\n\n"
        "    public function flush(): void\n    {\n"
        "        foreach ($this->all() as $listed) {\n            $listed->handleBatch([]);\n        }\n"
        "        foreach ($this->raw() as $unknown) {\n            $unknown->handleBatch([]);\n        }\n"
        "    }\n\n"
        "    public function handleBatch(array $records): void\n    {\n"
        "        foreach ($this->handlers as $handler) {\n            $handler->handleBatch($records);\n        }\n"
        "        foreach ($this->named as $name => $each) {\n            $each->handleBatch($records);\n        }\n"
        "    }\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("phpeach") / "repo", FILES)


@pytest.mark.parametrize(
    "needle", ["$handler->handleBatch", "$each->handleBatch", "$given->handleBatch", "$listed->handleBatch"]
)
def test_a_loop_variable_is_an_item_of_the_docblock_typed_array(live: LiveIndex, needle: str):
    rel = H + "GroupHandler.php"
    lines = FILES[rel].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    _, found = live.resolve(rel, n, lines[n].index("handleBatch") + 1)
    # before: every handleBatch (GroupHandler's own, NullHandler's) ranked by name
    assert [s.path for s in found] == [H + "HandlerInterface.php"]


def test_a_loop_over_an_array_of_unknown_items_stays_undecided(live: LiveIndex):
    # symfony/console: `foreach ($this->all() as $command)` with `all(): array` and no
    # docblock must not answer "outside the workspace" (nothing) for `$command->isHidden()`
    rel = H + "GroupHandler.php"
    lines = FILES[rel].splitlines()
    n = next(i for i, line in enumerate(lines) if "$unknown->handleBatch" in line)
    _, found = live.resolve(rel, n, lines[n].index("handleBatch") + 1)
    assert found  # ranked by name, as before the loop typing


def test_a_docblock_on_the_loop_types_its_variable(live: LiveIndex):
    # guzzle's FileCookieJar: `/** @var SetCookie $cookie */ foreach ($this as $cookie)`;
    # before: the comment above the loop was not read (only one above a statement)
    rel = H + "FileJar.php"
    lines = FILES[rel].splitlines()
    n = next(i for i, line in enumerate(lines) if "$jarred->handleBatch" in line)
    _, found = live.resolve(rel, n, lines[n].index("handleBatch") + 1)
    assert [s.path for s in found] == [H + "HandlerInterface.php"]
