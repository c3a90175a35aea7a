/* python_imports(root, data): what the Python strategy reads of a module's import
 * statements and its docstring, in one call.
 *
 * Why: the imports pass asked the binding for the root's statements (a Node per
 * statement), then per import statement for its fields and names (a Node per answer),
 * found the nested statements from each `import` keyword by a Python loop over the
 * bytes and a descent per keyword, and the summary chunk asked for the root's
 * statements again. On sympy that was ~8 % of the analysis above the parse. Here the
 * same nodes are read from the runtime; python.py makes the same strings from the
 * spans, and keeps the binding's way as the definition and the fallback.
 *
 * Answer: (top, nested, (docstring start, end)) where top are the root's import
 * statements in order and nested the statements holding an `import` keyword outside
 * them whose parent is not the module (first statement per start byte, by start
 * byte), each as (start, end, is from-import, module_name start, end (-1, -1: none),
 * [(aliased, name start, end, alias start, end)]); docstring (-1, -1) when the module
 * has none (python.py's `_leading_string` of the root). None when a statement lacks a
 * field the Python reading would fail on: the caller then runs that reading.
 *
 * Included by refscan.c (same extension, same vendored runtime, same Node layout). */

/* glibc's (declared only under _GNU_SOURCE, which the build does not set) */
void *memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len);

static int pi_is_word(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* (aliased, name start, end, alias start, end) of an aliased_import, or NULL with no
 * error set when a field is missing (`_imports` would fail on it). */
static PyObject *pi_aliased(TSNode node) {
    TSNode name = ts_node_child_by_field_name(node, "name", 4);
    TSNode alias = ts_node_child_by_field_name(node, "alias", 5);
    if (ts_node_is_null(name) || ts_node_is_null(alias)) return NULL;
    long long v[5] = {1, ts_node_start_byte(name), ts_node_end_byte(name), ts_node_start_byte(alias),
                      ts_node_end_byte(alias)};
    return int_tuple(5, v, NULL);
}

static PyObject *pi_plain(TSNode node) {
    long long v[5] = {0, ts_node_start_byte(node), ts_node_end_byte(node), -1, -1};
    return int_tuple(5, v, NULL);
}

/* One import statement's facts; NULL with an error set on failure, Py_None when a
 * field is missing. */
static PyObject *pi_statement(TSNode node, TSFieldId name_field) {
    int from = strcmp(ts_node_type(node), "import_from_statement") == 0;
    long ms = -1, me = -1;
    if (from) {
        TSNode module = ts_node_child_by_field_name(node, "module_name", 11);
        if (!ts_node_is_null(module)) {
            ms = (long)ts_node_start_byte(module);
            me = (long)ts_node_end_byte(module);
        }
    }
    PyObject *names = PyList_New(0);
    if (names == NULL) return NULL;
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    int ok = ts_tree_cursor_goto_first_child(&cursor);
    PyObject *missing = NULL; /* Py_None once a field is missing */
    for (; ok; ok = ts_tree_cursor_goto_next_sibling(&cursor)) {
        TSNode child = ts_tree_cursor_current_node(&cursor);
        PyObject *item = NULL;
        if (from) { /* children_by_field_name("name") */
            if (!name_field || ts_tree_cursor_current_field_id(&cursor) != name_field) continue;
            item = strcmp(ts_node_type(child), "aliased_import") == 0 ? pi_aliased(child) : pi_plain(child);
        } else { /* named_children of the types `_imports` reads */
            if (!ts_node_is_named(child)) continue;
            const char *type = ts_node_type(child);
            if (strcmp(type, "aliased_import") == 0)
                item = pi_aliased(child);
            else if (strcmp(type, "dotted_name") == 0)
                item = pi_plain(child);
            else
                continue;
        }
        if (item == NULL) {
            if (!PyErr_Occurred()) missing = Py_None;
            break;
        }
        int appended = PyList_Append(names, item);
        Py_DECREF(item);
        if (appended < 0) break;
    }
    ts_tree_cursor_delete(&cursor);
    if (missing != NULL) {
        Py_DECREF(names);
        Py_RETURN_NONE;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(names);
        return NULL;
    }
    long long v[5] = {ts_node_start_byte(node), ts_node_end_byte(node), from, ms, me};
    return int_tuple(5, v, names);
}

static int pi_is_import(TSNode node) {
    const char *type = ts_node_type(node);
    return strcmp(type, "import_statement") == 0 || strcmp(type, "import_from_statement") == 0;
}

/* Appends pi_statement(node) to out: 1 on success, 0 on error, -1 when a field is missing. */
static int pi_add(PyObject *out, TSNode node, TSFieldId name_field) {
    PyObject *fact = pi_statement(node, name_field);
    if (fact == NULL) return 0;
    if (fact == Py_None) {
        Py_DECREF(fact);
        return -1;
    }
    int appended = PyList_Append(out, fact);
    Py_DECREF(fact);
    return appended == 0;
}

static PyObject *refscan_python_imports(PyObject *self, PyObject *args) {
    PyObject *root_obj;
    const char *data;
    Py_ssize_t data_len;
    if (!PyArg_ParseTuple(args, "Oy#:python_imports", &root_obj, &data, &data_len)) return NULL;
    if (!check_node(root_obj)) return NULL;
    TSNode root = ((BNode *)root_obj)->node;
    TSFieldId name_field = ts_language_field_id_for_name(ts_node_language(root), "name", 4);
    PyObject *top = PyList_New(0), *nested = PyList_New(0), *result = NULL;
    uint32_t *spans = NULL; /* the top statements' (start, end) */
    size_t n_spans = 0, spans_size = 0;
    NodePath path = {NULL, 0};
    long *seen_starts = NULL;
    int status = 1;
    if (top == NULL || nested == NULL) goto done;

    /* the root's import statements, in order (`root.named_children` of those types) */
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    for (int ok = ts_tree_cursor_goto_first_child(&cursor); ok && status == 1;
         ok = ts_tree_cursor_goto_next_sibling(&cursor)) {
        TSNode child = ts_tree_cursor_current_node(&cursor);
        if (!ts_node_is_named(child) || !pi_is_import(child)) continue;
        status = pi_add(top, child, name_field);
        if (status == 1 && n_spans == spans_size) {
            spans_size = spans_size ? spans_size * 2 : 32;
            uint32_t *more = realloc(spans, spans_size * 2 * sizeof(uint32_t));
            if (more == NULL) {
                PyErr_NoMemory();
                status = 0;
                break;
            }
            spans = more;
        }
        if (status == 1) {
            spans[2 * n_spans] = ts_node_start_byte(child);
            spans[2 * n_spans + 1] = ts_node_end_byte(child);
            n_spans++;
        }
    }
    ts_tree_cursor_delete(&cursor);
    if (status != 1) goto done;

    /* each whole word `import` outside them (python.py's import_keywords): its nearest
     * import statement at or above the smallest named node over it, kept when its
     * parent is not the module; first per start byte, then sorted by start */
    size_t k = 0, n_seen = 0, seen_size = 0;
    const char *at = data, *end = data + data_len;
    int sorted = 1;
    long last = -1;
    while (end - at >= 6) {
        const char *hit = memmem(at, (size_t)(end - at), "import", 6);
        if (hit == NULL) break;
        at = hit + 6;
        if ((hit > data && pi_is_word((unsigned char)hit[-1])) || (at < end && pi_is_word((unsigned char)*at)))
            continue;
        uint32_t lo = (uint32_t)(hit - data);
        while (k < n_spans && spans[2 * k + 1] <= lo) k++;
        if (k < n_spans && spans[2 * k] <= lo) continue;
        TSNode node = ts_node_named_descendant_for_byte_range(root, lo, lo + 6);
        if (ts_node_is_null(node)) continue;
        size_t depth = enc_path(&path, root, node);
        if (depth == 0) {
            status = 0;
            goto done;
        }
        size_t up = depth;
        while (up > 0 && !pi_is_import(path.nodes[up - 1])) up--;
        if (up == 0) continue;
        TSNode statement = path.nodes[up - 1];
        long start = (long)ts_node_start_byte(statement);
        /* the first statement found at a start byte decides (a dict's setdefault) */
        int seen = 0;
        for (size_t j = n_seen; j > 0 && !seen; j--) seen = seen_starts[j - 1] == start;
        if (seen) continue;
        if (n_seen == seen_size) {
            seen_size = seen_size ? seen_size * 2 : 32;
            long *more = realloc(seen_starts, seen_size * sizeof(long));
            if (more == NULL) {
                PyErr_NoMemory();
                status = 0;
                goto done;
            }
            seen_starts = more;
        }
        seen_starts[n_seen++] = start;
        if (up >= 2 && strcmp(ts_node_type(path.nodes[up - 2]), "module") == 0) continue;
        if (start < last) sorted = 0;
        last = start;
        status = pi_add(nested, statement, name_field);
        if (status != 1) goto done;
    }
    if (!sorted && PyList_Sort(nested) < 0) { /* by start byte: starts are distinct */
        status = 0;
        goto done;
    }

    TSNode doc = pf_leading_string(root);
    long ds = ts_node_is_null(doc) ? -1 : (long)ts_node_start_byte(doc);
    long de = ts_node_is_null(doc) ? -1 : (long)ts_node_end_byte(doc);
    result = Py_BuildValue("(OO(ll))", top, nested, ds, de);
done:
    Py_XDECREF(top);
    Py_XDECREF(nested);
    free(spans);
    free(path.nodes);
    free(seen_starts);
    if (status == -1) Py_RETURN_NONE;
    return result;
}
