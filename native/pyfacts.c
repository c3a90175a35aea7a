/* python_facts(nodes): what the Python strategy's per-definition hooks read of each
 * definition node, for all of a file's definitions in one call.
 *
 * Why: PythonStrategy.signature and .docstring asked the binding, per definition, for
 * the node's type, its `body` field, the body's named children one by one and the
 * first statement's child: each answer a new binding Node object. On sympy that was
 * ~4 % of a file's analysis, as much as the Python around the definitions walk. Here
 * the same nodes are read from the runtime directly; the strings are still made in
 * Python (indexing/chunking/python.py), which stays the definition and the fallback.
 *
 * Per node: (kind, start byte, end byte, body start byte or -1, docstring start byte,
 * docstring end byte) with kind 1 for `assignment`, 0 otherwise, and the docstring
 * span (-1, -1) where there is none: the body's first named child that is not a
 * comment, or that child's first named child when it is an expression_statement,
 * when it is a `string` (python.py's `_leading_string`).
 *
 * Included by refscan.c (same extension, same vendored runtime, same Node layout). */

static TSNode pf_leading_string(TSNode block) {
    TSNode none = {{0}, NULL, NULL};
    uint32_t n = ts_node_named_child_count(block);
    TSNode first = none;
    for (uint32_t i = 0; i < n; i++) {
        first = ts_node_named_child(block, i);
        if (strcmp(ts_node_type(first), "comment") != 0) break;
        first = none;
    }
    if (ts_node_is_null(first)) return none;
    if (strcmp(ts_node_type(first), "expression_statement") == 0 && ts_node_named_child_count(first))
        first = ts_node_named_child(first, 0);
    if (strcmp(ts_node_type(first), "string") == 0) return first;
    return none;
}

static PyObject *python_fact(TSNode node) {
    int assignment = strcmp(ts_node_type(node), "assignment") == 0;
    long body_start = -1, doc_start = -1, doc_end = -1;
    TSNode body = ts_node_child_by_field_name(node, "body", 4);
    if (!ts_node_is_null(body)) {
        body_start = (long)ts_node_start_byte(body);
        if (!assignment && ts_node_named_child_count(body) > 0) {
            TSNode doc = pf_leading_string(body);
            if (!ts_node_is_null(doc)) {
                doc_start = (long)ts_node_start_byte(doc);
                doc_end = (long)ts_node_end_byte(doc);
            }
        }
    }
    return Py_BuildValue("(iIIlll)", assignment, ts_node_start_byte(node), ts_node_end_byte(node),
                         body_start, doc_start, doc_end);
}

static PyObject *refscan_python_facts(PyObject *self, PyObject *args) {
    return facts_of_nodes(args, "O!:python_facts", python_fact);
}
