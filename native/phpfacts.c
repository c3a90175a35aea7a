/* php_facts(nodes): what the PHP strategy's per-definition hooks read of each
 * definition node, for all of a file's definitions in one call.
 *
 * Why: PhpStrategy.signature asked the binding for each definition's `body` field (a
 * new Node object), and its docstring hook for the declaration's previous sibling
 * (another), with their types and points; on Laravel's `src/` the two were about 3 %
 * of a file's analysis. Here the same nodes are read from the runtime directly; the
 * strings are still made in Python (indexing/chunking/php.py, whose `signature`,
 * `docstring` and `docblock` stay the definition and the fallback).
 *
 * Per node: (kind, signature start byte, signature end byte, body start byte or -1,
 * comment start byte, comment end byte, comment start row, comment start column).
 * kind: 0 a declaration, 1 a `const_element` or `property_element` (the signature
 * span is its parent declaration's), 2 a `property_promotion_parameter`, 3 an
 * `anonymous_class`. The comment is the docblock candidate `php.docblock` reads: the
 * previous sibling of the declaration (of the parent for kind 1, of the enclosing
 * statement for kind 3) when it is a `comment` ending at most one row above the
 * declaration; (-1, -1, -1, -1) otherwise. Whether it opens with `/` `**` is checked
 * in Python, on the bytes.
 *
 * Included by refscan.c (same extension, same vendored runtime, same Node layout). */

static int pf_type_is(TSNode node, const char *type) { return strcmp(ts_node_type(node), type) == 0; }

static PyObject *php_fact(TSNode node) {
    int kind = 0;
    TSNode decl = node; /* whose span is the signature's, whose row the comment must reach */
    if (pf_type_is(node, "const_element") || pf_type_is(node, "property_element")) {
        kind = 1;
        TSNode parent = ts_node_parent(node);
        if (!ts_node_is_null(parent)) decl = parent;
    } else if (pf_type_is(node, "property_promotion_parameter")) {
        kind = 2;
    } else if (pf_type_is(node, "anonymous_class")) {
        kind = 3;
    }
    long body_start = -1;
    if (kind == 0 || kind == 3) {
        TSNode body = ts_node_child_by_field_name(node, "body", 4);
        if (!ts_node_is_null(body)) body_start = (long)ts_node_start_byte(body);
    }
    TSNode above = decl; /* whose previous sibling may be the docblock */
    if (kind == 3) {
        for (;;) {
            TSNode parent = ts_node_parent(above);
            if (ts_node_is_null(parent) || pf_type_is(parent, "program") || pf_type_is(parent, "compound_statement"))
                break;
            above = parent;
        }
    }
    long cs = -1, ce = -1, crow = -1, ccol = -1;
    TSNode prev = ts_node_prev_sibling(above);
    if (!ts_node_is_null(prev) && pf_type_is(prev, "comment") &&
        (long)ts_node_end_point(prev).row >= (long)ts_node_start_point(decl).row - 1) {
        TSPoint at = ts_node_start_point(prev);
        cs = (long)ts_node_start_byte(prev);
        ce = (long)ts_node_end_byte(prev);
        crow = (long)at.row;
        ccol = (long)at.column;
    }
    return Py_BuildValue("(iIIlllll)", kind, ts_node_start_byte(decl), ts_node_end_byte(decl),
                         body_start, cs, ce, crow, ccol);
}

static PyObject *refscan_php_facts(PyObject *self, PyObject *args) {
    return facts_of_nodes(args, "O!:php_facts", php_fact);
}
