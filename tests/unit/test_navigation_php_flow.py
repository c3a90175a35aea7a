"""PHP receivers the way league/commonmark writes them: a long fluent chain of a
builder interface's methods, a variable reassigned from itself (`$closer =
$closer->getNext()`), a variable narrowed by an earlier `instanceof` check and used in a
chain, and a parameter whose `@param` docblock names a narrower class than its declared
type. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "src/Environment/EnvironmentBuilderInterface.php": (
        "<?php\n\nnamespace League\\CommonMark\\Environment;\n\ninterface EnvironmentBuilderInterface\n{\n"
        "    public function addRenderer(string $nodeClass, $renderer, int $priority = 0): EnvironmentBuilderInterface;\n\n"
        "    public function addInlineParser($parser, int $priority = 0): EnvironmentBuilderInterface;\n}\n"
    ),
    "src/Environment/Environment.php": (
        "<?php\n\nnamespace League\\CommonMark\\Environment;\n\n"
        "final class Environment implements EnvironmentBuilderInterface\n{\n"
        "    public function addRenderer(string $nodeClass, $renderer, int $priority = 0): EnvironmentBuilderInterface\n"
        "    {\n        return $this;\n    }\n\n"
        "    public function addInlineParser($parser, int $priority = 0): EnvironmentBuilderInterface\n"
        "    {\n        return $this;\n    }\n}\n"
    ),
    "src/Extension/InlinesOnlyExtension.php": (
        "<?php\n\nnamespace League\\CommonMark\\Extension;\n\n"
        "use League\\CommonMark\\Environment\\EnvironmentBuilderInterface;\n\n"
        "final class InlinesOnlyExtension\n{\n"
        "    public function register(EnvironmentBuilderInterface $environment): void\n    {\n"
        "        $environment\n"
        "            ->addInlineParser('a', 10)\n            ->addInlineParser('b', 20)\n"
        "            ->addInlineParser('c', 30)\n            ->addInlineParser('d', 40)\n"
        "            ->addRenderer('x', 'y', 0)\n            ->addRenderer('z', 'w', 0)\n"
        "            ->addRenderer('p', 'q', 0)\n            ->addRenderer('last', 'one', 0);\n"
        "    }\n}\n"
    ),
    "src/Delimiter/DelimiterInterface.php": (
        "<?php\n\nnamespace League\\CommonMark\\Delimiter;\n\ninterface DelimiterInterface\n{\n"
        "    public function getNext(): ?DelimiterInterface;\n\n    public function getInlineNode(): string;\n}\n"
    ),
    "src/Delimiter/Delimiter.php": (
        "<?php\n\nnamespace League\\CommonMark\\Delimiter;\n\nfinal class Delimiter implements DelimiterInterface\n{\n"
        "    public function getNext(): ?DelimiterInterface\n    {\n        return null;\n    }\n\n"
        "    public function getInlineNode(): string\n    {\n        return '';\n    }\n}\n"
    ),
    "src/Delimiter/DelimiterStack.php": (
        "<?php\n\nnamespace League\\CommonMark\\Delimiter;\n\nfinal class DelimiterStack\n{\n"
        "    private ?DelimiterInterface $top = null;\n\n"
        "    public function process(): void\n    {\n        $closer = $this->top;\n"
        "        while ($closer !== null) {\n            $next = $closer->getNext();\n"
        "            $closer = $next;\n            $closer = $closer->getNext();\n"
        "            $closerNode = $closer->getInlineNode();\n        }\n    }\n}\n"
    ),
    "src/Node/Node.php": (
        "<?php\n\nnamespace League\\CommonMark\\Node;\n\nabstract class Node\n{\n"
        "    public function getData(): string\n    {\n        return '';\n    }\n}\n"
    ),
    "src/Reference/ReferenceInterface.php": (
        "<?php\n\nnamespace League\\CommonMark\\Reference;\n\ninterface ReferenceInterface\n{\n"
        "    public function getLabel(): string;\n}\n"
    ),
    "src/Mention/Mention.php": (
        "<?php\n\nnamespace League\\CommonMark\\Mention;\n\nfinal class Mention\n{\n"
        "    public function getLabel(): string\n    {\n        return '';\n    }\n}\n"
    ),
    "src/Footnote/Footnote.php": (
        "<?php\n\nnamespace League\\CommonMark\\Footnote;\n\nuse League\\CommonMark\\Node\\Node;\n"
        "use League\\CommonMark\\Reference\\ReferenceInterface;\n\n"
        "final class Footnote extends Node\n{\n"
        "    public function getReference(): ReferenceInterface\n    {\n        return $this->reference;\n    }\n}\n"
    ),
    "src/Footnote/GatherFootnotesListener.php": (
        "<?php\n\nnamespace League\\CommonMark\\Footnote;\n\nuse League\\CommonMark\\Node\\Node;\n\n"
        "final class GatherFootnotesListener\n{\n"
        "    /** @param Node[] $nodes */\n    public function gather(array $nodes): void\n    {\n"
        "        foreach ($nodes as $node) {\n            if (! $node instanceof Footnote) {\n                continue;\n            }\n\n"
        "            $label = $node->getReference()->getLabel();\n        }\n    }\n}\n"
    ),
    # PHP-Parser's token emulators: the parameter's item type is documented only on the
    # abstract method they implement
    "lib/PhpParser/Token.php": (
        "<?php\n\nnamespace PhpParser;\n\nclass Token\n{\n    public string $text;\n    public int $id;\n}\n"
    ),
    "lib/PhpParser/Comment.php": (
        "<?php\n\nnamespace PhpParser;\n\nclass Comment\n{\n    protected string $text;\n}\n"
    ),
    "lib/PhpParser/Lexer/TokenEmulator/TokenEmulator.php": (
        "<?php\n\nnamespace PhpParser\\Lexer\\TokenEmulator;\n\nuse PhpParser\\Token;\n\n"
        "abstract class TokenEmulator\n{\n"
        "    /**\n     * @param Token[] $tokens Original tokens\n     * @return Token[] Modified Tokens\n     */\n"
        "    abstract public function emulate(string $code, array $tokens): array;\n}\n"
    ),
    "lib/PhpParser/Lexer/TokenEmulator/PipeOperatorEmulator.php": (
        "<?php\n\nnamespace PhpParser\\Lexer\\TokenEmulator;\n\n"
        "class PipeOperatorEmulator extends TokenEmulator\n{\n"
        "    public function emulate(string $code, array $tokens): array\n    {\n"
        "        for ($i = 0, $c = count($tokens); $i < $c; ++$i) {\n            $token = $tokens[$i];\n"
        "            if ($token->text === '|' && $tokens[$i + 1]->id === 1) {\n                return [];\n            }\n"
        "        }\n        return $tokens;\n    }\n}\n"
    ),
    # laravel's collections: a base method returning `static`, called on a subclass
    "src/Collections/Collection.php": (
        "<?php\n\nnamespace Illuminate\\Support;\n\nclass Collection\n{\n"
        "    /**\n     * @return static\n     */\n    public function filter(?callable $callback = null)\n    {\n        return new static();\n    }\n\n"
        "    public function where(string $key): static\n    {\n        return $this;\n    }\n\n"
        "    /**\n     * @return $this\n     */\n    public function each(callable $callback)\n    {\n        return $this;\n    }\n}\n"
    ),
    "src/Database/Eloquent/Collection.php": (
        "<?php\n\nnamespace Illuminate\\Database\\Eloquent;\n\nuse Illuminate\\Support\\Collection as BaseCollection;\n\n"
        "class Collection extends BaseCollection\n{\n    public function load($relations)\n    {\n        return $this;\n    }\n\n"
        "    protected function loadMissingRelation(self $models, array $path)\n    {\n"
        "        $models->filter(fn ($model) => $model !== null)->load('a');\n"
        "        $models->where('a')->load('b');\n        $models->each(fn ($m) => $m)->load('c');\n    }\n}\n"
    ),
    "src/Queue/Loader.php": (
        "<?php\n\nnamespace Illuminate\\Queue;\n\nclass Loader\n{\n    public function load($x)\n    {\n    }\n}\n"
    ),
    # laravel's helpers: global functions, and methods of the same names
    "src/Support/helpers.php": (
        "<?php\n\nif (! function_exists('tap')) {\n    function tap($value, $callback = null)\n    {\n        return $value;\n    }\n}\n"
    ),
    "src/Support/Traits/Tappable.php": (
        "<?php\n\nnamespace Illuminate\\Support\\Traits;\n\ntrait Tappable\n{\n"
        "    public function tap($callback = null)\n    {\n        return $this;\n    }\n\n"
        "    public function count(): int\n    {\n        return 0;\n    }\n}\n"
    ),
    "src/Cache/FileStore.php": (
        "<?php\n\nnamespace Illuminate\\Cache;\n\nclass FileStore\n{\n    public function increment($key, $value = 1)\n    {\n"
        "        return tap(((int) $key) + $value, function ($newValue) {\n            return count([$newValue]);\n        });\n    }\n}\n"
    ),
    # guzzle's cookie middleware: an array element checked by instanceof, then assigned
    "src/Cookie/CookieJarInterface.php": (
        "<?php\n\nnamespace GuzzleHttp\\Cookie;\n\ninterface CookieJarInterface\n{\n"
        "    public function withCookieHeader($request);\n}\n"
    ),
    "src/Cookie/CookieJar.php": (
        "<?php\n\nnamespace GuzzleHttp\\Cookie;\n\nclass CookieJar implements CookieJarInterface\n{\n"
        "    public function withCookieHeader($request)\n    {\n        return $request;\n    }\n}\n"
    ),
    "src/Middleware.php": (
        "<?php\n\nnamespace GuzzleHttp;\n\nuse GuzzleHttp\\Cookie\\CookieJarInterface;\n\nfinal class Middleware\n{\n"
        "    public static function cookies(): callable\n    {\n"
        "        return static function ($request, array $options) {\n"
        "            if (!($options['cookies'] instanceof CookieJarInterface)) {\n"
        "                throw new \\InvalidArgumentException('cookies');\n            }\n"
        "            $cookieJar = $options['cookies'];\n"
        "            $request = $cookieJar->withCookieHeader($request);\n"
        "            return $request->then(static function ($response) use ($cookieJar, $request) {\n"
        "                $cookieJar->withCookieHeader($response);\n            });\n        };\n    }\n}\n"
    ),
    # laravel's RedirectController: a parameter reassigned from itself
    "src/Routing/UrlGenerator.php": (
        "<?php\n\nnamespace Illuminate\\Routing;\n\nclass UrlGenerator\n{\n"
        "    public function toRoute($route, $parameters, $absolute): string\n    {\n        return '';\n    }\n}\n"
    ),
    "src/Routing/Redirector.php": (
        "<?php\n\nnamespace Illuminate\\Routing;\n\nclass Redirector\n{\n"
        "    public function toRoute($route): string\n    {\n        return '';\n    }\n}\n"
    ),
    "src/Routing/RedirectController.php": (
        "<?php\n\nnamespace Illuminate\\Routing;\n\nclass RedirectController\n{\n"
        "    public function __invoke(UrlGenerator $url)\n    {\n"
        "        $url = $url->toRoute('r', [], false);\n\n        return $url;\n    }\n}\n"
    ),
    "src/Footnote/FootnoteRenderer.php": (
        "<?php\n\nnamespace League\\CommonMark\\Footnote;\n\nuse League\\CommonMark\\Node\\Node;\n\n"
        "final class FootnoteRenderer\n{\n"
        "    /**\n     * @param Footnote $node\n     *\n     * @return array<string, scalar>\n     */\n"
        "    public function getXmlAttributes(Node $node): array\n    {\n"
        "        return ['label' => $node->getReference()->getLabel()];\n    }\n}\n"
    ),
    # PHP-Parser: classes named like scalar types
    "lib/PhpParser/Node/Expr/Cast/Double.php": (
        "<?php\n\nnamespace PhpParser\\Node\\Expr\\Cast;\n\nclass Double\n{\n"
        "    public const KIND_DOUBLE = 1; // \"double\" syntax\n    public const KIND_REAL = 3;\n}\n"
    ),
    "lib/PhpParser/ParserAbstract.php": (
        "<?php\n\nnamespace PhpParser;\n\nuse PhpParser\\Node\\Expr\\Cast\\Double;\n\n"
        "abstract class ParserAbstract\n{\n    protected function getFloatCastKind(string $cast): int\n    {\n"
        "        return Double::KIND_REAL;\n    }\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("phpflow") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [s.path for s in definitions_at(live, FILES, rel, needle, word)]


def test_a_long_fluent_chain_keeps_its_type(live: LiveIndex):
    # before: past four calls the chain lost its type and every addRenderer was listed
    got = defs(live, "src/Extension/InlinesOnlyExtension.php", "->addRenderer('last'", "addRenderer")
    assert got == ["src/Environment/EnvironmentBuilderInterface.php"]


def test_a_variable_reassigned_from_itself(live: LiveIndex):
    # before: `$closer = $closer->getNext()` read itself and said nothing
    got = defs(live, "src/Delimiter/DelimiterStack.php", "$closer->getInlineNode", "getInlineNode")
    assert got == ["src/Delimiter/DelimiterInterface.php"]


def test_an_instanceof_guard_types_a_chain(live: LiveIndex):
    # before: `$node->getReference()` went through Node, which has no getReference
    got = defs(live, "src/Footnote/GatherFootnotesListener.php", "->getLabel()", "getLabel")
    assert got == ["src/Reference/ReferenceInterface.php"]


def test_a_param_docblock_narrower_than_the_declared_type(live: LiveIndex):
    got = defs(live, "src/Footnote/FootnoteRenderer.php", "->getLabel()", "getLabel")
    assert got == ["src/Reference/ReferenceInterface.php"]


def test_a_class_named_like_a_scalar_type(live: LiveIndex):
    # before: `Double::KIND_REAL` was taken for the scalar `double` and answered nothing
    got = defs(live, "lib/PhpParser/ParserAbstract.php", "Double::KIND_REAL", "KIND_REAL")
    assert got == ["lib/PhpParser/Node/Expr/Cast/Double.php"]


def test_a_parameter_reassigned_from_itself(live: LiveIndex):
    got = defs(live, "src/Routing/RedirectController.php", "$url->toRoute", "toRoute")
    assert got == ["src/Routing/UrlGenerator.php"]


def test_a_parameter_documented_on_the_method_it_implements(live: LiveIndex):
    # before: `array $tokens` had unknown items; `->text` ranked Comment's and Token's
    rel = "lib/PhpParser/Lexer/TokenEmulator/PipeOperatorEmulator.php"
    assert defs(live, rel, "$token->text", "text") == ["lib/PhpParser/Token.php"]
    assert defs(live, rel, "$tokens[$i + 1]->id", "id") == ["lib/PhpParser/Token.php"]


@pytest.mark.parametrize("needle", ["->load('a')", "->load('b')", "->load('c')"])
def test_a_static_return_is_the_class_called_on(live: LiveIndex, needle: str):
    # before: `static` was the base Collection, which has no load(): every load ranked
    got = defs(live, "src/Database/Eloquent/Collection.php", needle, "load")
    assert got == ["src/Database/Eloquent/Collection.php"]


def test_a_function_call_is_a_function_never_a_method(live: LiveIndex):
    # before: `tap(...)` ranked the trait's method with the helper; `count()` (PHP's
    # own) answered the trait's count
    assert defs(live, "src/Cache/FileStore.php", "return tap(", "tap") == ["src/Support/helpers.php"]
    assert defs(live, "src/Cache/FileStore.php", "count([", "count") == []


def test_an_array_element_checked_by_instanceof(live: LiveIndex):
    # guzzle (found after its held-out run): before, `$options['cookies']` said nothing
    got = defs(live, "src/Middleware.php", "$cookieJar->withCookieHeader", "withCookieHeader")
    assert got == ["src/Cookie/CookieJarInterface.php"]


def test_a_closure_use_variable_has_the_enclosing_binding(live: LiveIndex):
    # guzzle: `function ($response) use ($cookieJar, $request)` inside the middleware
    got = defs(live, "src/Middleware.php", "$cookieJar->withCookieHeader($response)", "withCookieHeader")
    assert got == ["src/Cookie/CookieJarInterface.php"]
