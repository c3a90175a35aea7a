"""References of a method include the methods it overrides or implements and those that
override or implement them, and calls through any of them: intelephense and tsserver
answer that way (`$handler->close()` on a `HandlerInterface` is a reference of
`RotatingFileHandler::close()`). Written the way monolog writes its handlers. References
asked from `self` are the class's. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_at

from tests.unit.source_tree import indexed_tree, position_of

H = "src/Monolog/Handler/"
FILES = {
    H + "HandlerInterface.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\ninterface HandlerInterface\n{\n"
        "    public function close(): void;\n}\n"
    ),
    H + "AbstractHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nabstract class AbstractHandler implements HandlerInterface\n{\n"
        "    public function close(): void\n    {\n    }\n}\n"
    ),
    H + "StreamHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nclass StreamHandler extends AbstractHandler\n{\n"
        "    public function close(): void\n    {\n        parent::close();\n    }\n}\n"
    ),
    H + "RotatingFileHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nclass RotatingFileHandler extends StreamHandler\n{\n"
        "    public function close(): void\n    {\n        parent::close();\n    }\n}\n"
    ),
    H + "BufferHandler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nclass BufferHandler extends AbstractHandler\n{\n"
        "    public function __construct(private HandlerInterface $handler)\n    {\n    }\n\n"
        "    public function close(): void\n    {\n        $this->handler->close();\n    }\n}\n"
    ),
    # another implementer of the interface, outside AbstractHandler's tree: one family
    # through the interface (tsserver's rule; intelephense mostly agrees: monolog's
    # `isHandling`, though not `reset`)
    H + "Handler.php": (
        "<?php\n\nnamespace Monolog\\Handler;\n\nabstract class Handler implements HandlerInterface\n{\n"
        "    public function close(): void\n    {\n    }\n}\n"
    ),
    "src/Monolog/Logger.php": (
        "<?php\n\nnamespace Monolog;\n\nuse Monolog\\Handler\\HandlerInterface;\n\nclass Logger\n{\n"
        "    public function pop(HandlerInterface $handler): void\n    {\n        $handler->close();\n    }\n\n"
        "    public static function create(): self\n    {\n        return new static();\n    }\n}\n"
    ),
    "src/Monolog/Registry.php": (
        "<?php\n\nnamespace Monolog;\n\nclass Registry\n{\n"
        "    public static function make(): Logger\n    {\n        return Logger::create();\n    }\n}\n"
    ),
    # an unrelated `close`: not in the family
    "src/Monolog/Connection.php": (
        "<?php\n\nnamespace Monolog;\n\nclass Connection\n{\n    public function close(): void\n    {\n    }\n\n"
        "    public function drop(Connection $other): void\n    {\n        $other->close();\n    }\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("family") / "repo", FILES)


def _at(rel: str, needle: str, word: str) -> tuple[int, int]:
    return position_of(FILES, rel, needle, word)


def test_references_of_an_override_cover_its_family(live: LiveIndex):
    rel = H + "RotatingFileHandler.php"
    answer = references_at(live, rel, *_at(rel, "function close", "close"))
    declared = sorted(t.path for t in answer.targets)
    assert declared == sorted(
        H + f for f in ("HandlerInterface.php", "AbstractHandler.php", "StreamHandler.php",
                        "RotatingFileHandler.php", "BufferHandler.php", "Handler.php")
    )
    calls = sorted((r.path, r.reference.start_line) for r in answer.resolved)
    assert calls == sorted([
        ("src/Monolog/Logger.php", _at("src/Monolog/Logger.php", "$handler->close", "close")[0]),
        (H + "BufferHandler.php", _at(H + "BufferHandler.php", "$this->handler->close", "close")[0]),
        (H + "StreamHandler.php", _at(H + "StreamHandler.php", "parent::close", "close")[0]),
        (H + "RotatingFileHandler.php", _at(H + "RotatingFileHandler.php", "parent::close", "close")[0]),
    ])  # not Connection's `$other->close()`


def test_references_asked_from_self_are_the_class(live: LiveIndex):
    rel = "src/Monolog/Logger.php"
    answer = references_at(live, rel, *_at(rel, "create(): self", "self"))
    assert [t.symbol.qualified_name for t in answer.targets] == ["Monolog\\Logger"]
    assert ("src/Monolog/Registry.php", _at("src/Monolog/Registry.php", "Logger::create", "Logger")[0]) in {
        (r.path, r.reference.start_line) for r in answer.resolved
    }
