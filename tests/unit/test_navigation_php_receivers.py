"""PHP receivers the way symfony/routing writes them: a property and a method of the same
name (`$this->collection` from a trait, `collection()` on the class), `$this` checked
against an interface it does not declare, a negated `instanceof` whose block uses the
other member of a union, a `@var` docblock on a variable later rebound by `[$x]`, a
`clone`, and `foreach` over an `IteratorAggregate` whose `getIterator()` documents its
items. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

NS = "<?php\n\nnamespace App\\Routing;\n\n"

FILES = {
    "src/Route.php": (
        NS + "class Route\n{\n"
        "    public function getPath(): string\n    {\n        return '';\n    }\n\n"
        "    public function setDefault(string $name, mixed $default): static\n    {\n        return $this;\n    }\n}\n"
    ),
    # an attribute class of the same short name in another namespace
    "src/Attribute/Route.php": (
        "<?php\n\nnamespace App\\Routing\\Attribute;\n\nclass Route\n{\n"
        "    public function getPath(): ?string\n    {\n        return null;\n    }\n\n"
        "    public function setDefault(string $name, mixed $default): void\n    {\n    }\n}\n"
    ),
    "src/RouteCollection.php": (
        NS + "class RouteCollection implements \\IteratorAggregate, \\Countable\n{\n"
        "    /** @var array<string, Route> */\n    private array $routes = [];\n\n"
        "    /**\n     * @return \\ArrayIterator<string, Route>\n     */\n"
        "    public function getIterator(): \\ArrayIterator\n    {\n        return new \\ArrayIterator($this->routes);\n    }\n\n"
        "    public function count(): int\n    {\n        return 0;\n    }\n\n"
        "    public function setSchemes(array $schemes): void\n    {\n    }\n}\n"
    ),
    "src/Traits/AddTrait.php": (
        "<?php\n\nnamespace App\\Routing\\Traits;\n\nuse App\\Routing\\RouteCollection;\n\n"
        "trait AddTrait\n{\n    protected RouteCollection $collection;\n}\n"
    ),
    "src/CollectionConfigurator.php": (
        NS + "class CollectionConfigurator\n{\n    use Traits\\AddTrait;\n\n"
        "    public function __construct()\n    {\n        $this->collection = new RouteCollection();\n    }\n\n"
        "    final public function collection(string $name = ''): self\n    {\n"
        "        return new self($this->collection);\n    }\n}\n"
    ),
    # same-named members elsewhere: a name alone does not decide
    "src/Generator/UrlGenerator.php": (
        "<?php\n\nnamespace App\\Routing\\Generator;\n\nuse App\\Routing\\RequestContext;\n\n"
        "class UrlGenerator\n{\n    protected RequestContext $context;\n\n"
        "    public function setSchemes(array $schemes): void\n    {\n    }\n}\n"
    ),
    "src/RequestContext.php": (
        NS + "class RequestContext\n{\n    public function getHost(): string\n    {\n        return '';\n    }\n}\n"
    ),
    "src/RedirectableUrlMatcherInterface.php": (
        NS + "interface RedirectableUrlMatcherInterface\n{\n"
        "    public function redirect(string $path, string $route): array;\n}\n"
    ),
    "src/UrlMatcherInterface.php": (
        NS + "interface UrlMatcherInterface\n{\n    public function match(string $pathinfo): array;\n}\n"
    ),
    "src/RequestMatcherInterface.php": (
        NS + "interface RequestMatcherInterface\n{\n    public function matchRequest(string $request): array;\n}\n"
    ),
    "src/UrlMatcher.php": (
        NS + "class UrlMatcher implements UrlMatcherInterface\n{\n"
        "    protected RequestContext $context;\n\n"
        "    public function match(string $pathinfo): array\n    {\n        return [];\n    }\n}\n"
    ),
    "src/TraceableUrlMatcher.php": (
        NS + "class TraceableUrlMatcher extends UrlMatcher\n{\n"
        "    protected function matchCollection(string $pathinfo, RouteCollection $routes): array\n    {\n"
        "        $supportsTrailingSlash = 'GET' === $pathinfo && $this instanceof RedirectableUrlMatcherInterface;\n"
        "        foreach ($routes as $name => $route) {\n"
        "            $path = $route->getPath();\n"
        "            $localized = clone $route;\n"
        "            $localized->setDefault('_locale', 'en');\n"
        "            $host = $this->context->getHost();\n"
        "        }\n        return [];\n    }\n}\n"
    ),
    "src/Router.php": (
        NS + "class Router\n{\n"
        "    public function getMatcher(): UrlMatcherInterface|RequestMatcherInterface\n    {\n"
        "        return new UrlMatcher();\n    }\n\n"
        "    public function matchRequest(string $request): array\n    {\n"
        "        $matcher = $this->getMatcher();\n"
        "        if (!$matcher instanceof RequestMatcherInterface) {\n"
        "            return $matcher->match($request);\n        }\n\n"
        "        return $matcher->matchRequest($request);\n    }\n\n"
        "    public function matchElse(string $request): array\n    {\n"
        "        $other = $this->getMatcher();\n"
        "        if ($other instanceof RequestMatcherInterface) {\n"
        "            return $other->matchRequest($request);\n        } else {\n"
        "            return $other->match($request.'/');\n        }\n    }\n}\n"
    ),
    "src/Loader/XmlLoader.php": (
        "<?php\n\nnamespace App\\Routing\\Loader;\n\nuse App\\Routing\\RouteCollection;\n\n"
        "class XmlLoader\n{\n"
        "    public function parseImport(mixed $resource, array $schemes): void\n    {\n"
        "        /** @var RouteCollection[] $imported */\n"
        "        $imported = $this->import($resource) ?: [];\n\n"
        "        if (!\\is_array($imported)) {\n            $imported = [$imported];\n        }\n\n"
        "        foreach ($imported as $subCollection) {\n"
        "            $subCollection->setSchemes($schemes);\n        }\n    }\n\n"
        "    public function import(mixed $resource): mixed\n    {\n        return null;\n    }\n}\n"
    ),
    # flysystem's MountManager: a documented variable bound by list destructuring
    "src/MountManager.php": (
        NS + "class MountManager\n{\n"
        "    public function fileExists(string $location): bool\n    {\n"
        "        /** @var UrlMatcherInterface $matcher */\n"
        "        [$matcher, $path] = $this->determine($location);\n\n"
        "        return [] !== $matcher->match($path);\n    }\n\n"
        "    private function determine(string $location): array\n    {\n        return [];\n    }\n\n"
        "    public function fallback(?UrlMatcherInterface $given, bool $strict): array\n    {\n"
        "        $first = $given ?? new UrlMatcher();\n"
        "        $second = $strict ? new UrlMatcher() : null;\n"
        "        return $first->match('a') + $second->match('b');\n    }\n\n"
        "    public function match(string $path): array\n    {\n        return [];\n    }\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("phprecv") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [f"{s.path}:{s.symbol.name}" for s in definitions_at(live, FILES, rel, needle, word)]


def test_a_property_read_is_not_the_method_of_the_same_name(live: LiveIndex):
    # before: the class's own `collection()` method answered; the property is the trait's
    got = defs(live, "src/CollectionConfigurator.php", "$this->collection = new", "collection")
    assert got == ["src/Traits/AddTrait.php:collection"]
    got = defs(live, "src/CollectionConfigurator.php", "new self($this->collection)", "collection")
    assert got == ["src/Traits/AddTrait.php:collection"]


def test_this_checked_against_an_unrelated_interface_keeps_its_class(live: LiveIndex):
    # before: `$this` became the interface alone, which has no `context`
    got = defs(live, "src/TraceableUrlMatcher.php", "$this->context->getHost()", "context")
    assert got == ["src/UrlMatcher.php:context"]


def test_foreach_over_an_iterator_aggregate_gives_its_documented_items(live: LiveIndex):
    # before: the items were unknown and both `getPath` methods were listed
    got = defs(live, "src/TraceableUrlMatcher.php", "$route->getPath()", "getPath")
    assert got == ["src/Route.php:getPath"]


def test_a_clone_has_the_type_of_what_it_copies(live: LiveIndex):
    got = defs(live, "src/TraceableUrlMatcher.php", "$localized->setDefault", "setDefault")
    assert got == ["src/Route.php:setDefault"]


def test_inside_a_negated_instanceof_block_the_other_member_of_the_union(live: LiveIndex):
    # before: `$matcher` was taken as the RequestMatcherInterface it is NOT in that block
    got = defs(live, "src/Router.php", "->match($request)", "match")
    assert got == ["src/UrlMatcherInterface.php:match"]
    got = defs(live, "src/Router.php", "->matchRequest($request)", "matchRequest")
    assert got == ["src/RequestMatcherInterface.php:matchRequest"]


def test_a_var_docblock_outlives_a_rebinding_that_says_nothing(live: LiveIndex):
    # `$imported = [$imported];` in between: the items are still RouteCollections
    got = defs(live, "src/Loader/XmlLoader.php", "$subCollection->setSchemes", "setSchemes")
    assert got == ["src/RouteCollection.php:setSchemes"]


def test_a_var_docblock_types_a_variable_bound_by_list_destructuring(live: LiveIndex):
    # before: `$matcher` had no type and every `match` (MountManager's own too) was listed
    got = defs(live, "src/MountManager.php", "->match($path)", "match")
    assert got == ["src/UrlMatcherInterface.php:match"]


def test_the_else_of_an_instanceof_check_is_the_other_member_of_the_union(live: LiveIndex):
    got = defs(live, "src/Router.php", "->match($request.'/')", "match")
    assert got == ["src/UrlMatcherInterface.php:match"]


def test_a_null_coalescing_or_ternary_value_has_its_branches_type(live: LiveIndex):
    # before: `??` and `? :` values had no type, every `match` was listed
    assert defs(live, "src/MountManager.php", "->match('a')", "match") == ["src/UrlMatcherInterface.php:match"]
    assert defs(live, "src/MountManager.php", "->match('b')", "match") == ["src/UrlMatcher.php:match"]
