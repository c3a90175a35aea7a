"""PHP docblock types that span lines, the way PHP-Parser documents its node
constructors: `@param array{ … } $subNodes` with one key per line. The class names
inside are types (intelephense lists them among the classes' references); the prose
after the shape is not."""

from __future__ import annotations

from code_intel.indexing.chunking.php_docblock import docblock_type_names

ARROW_FUNCTION = b"""/**
     * @param array{
     *     expr: Expr,
     *     static?: bool,
     *     params?: Node\\Param[],
     *     returnType?: null|Node\\Identifier|Node\\Name|Node\\ComplexType,
     *     attrGroups?: Node\\AttributeGroup[]
     * } $subNodes Array of the following subnodes:
     *             'expr'                  : Expression body
     *             'static'     => false   : Whether the Closure is static
     * @param array<string, mixed> $attributes Additional Attributes
     */"""


def test_a_shape_across_lines_names_every_class_in_it():
    # before: the span ended at the first line break, so nothing inside `array{` counted
    assert [w for _, _, w in docblock_type_names(ARROW_FUNCTION)] == [
        "Expr", "Node\\Param", "Node\\Identifier", "Node\\Name", "Node\\ComplexType", "Node\\AttributeGroup",
    ]


def test_offsets_point_at_the_names():
    for s, e, w in docblock_type_names(ARROW_FUNCTION):
        assert ARROW_FUNCTION[s:e].decode() == w


def test_an_unclosed_shape_stops_at_the_next_tag():
    text = b"/**\n * @param array{\n *     expr: Expr,\n * Some Prose\n * @return Foo\n */"
    assert [w for _, _, w in docblock_type_names(text)] == ["Foo"]
