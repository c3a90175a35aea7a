/* enclosing(root, starts, ends, target, contexts, max_up): for each byte span, the
 * nearest node of type `target` at or above the smallest named node over the span,
 * and the first of `contexts` among that node's next `max_up` ancestors.
 *
 * Why: Python's type strings (python_strings.py) ask this of tens of thousands of
 * quoted names per large tree, and py-tree-sitter's `Node.parent` descends from the
 * root on every call, so walking up eight levels cost eight descents. Here one descent
 * per span (ts_node_child_with_descendant, the step ts_node_parent repeats) records the
 * whole ancestor path and the walk up reads it. Types are compared by name, as the
 * Python walk compares `node.type`.
 *
 * Included by refscan.c (same extension, same vendored runtime, same Node layout). */

typedef struct {
    TSNode *nodes;
    size_t size;
} NodePath;

/* root .. node through ts_node_child_with_descendant; the count, or 0 on MemoryError. */
static size_t enc_path(NodePath *path, TSNode root, TSNode node) {
    size_t n = 0;
    TSNode cur = root;
    for (;;) {
        if (n == path->size) {
            size_t size = path->size ? path->size * 2 : 64;
            TSNode *more = realloc(path->nodes, size * sizeof(TSNode));
            if (more == NULL) {
                PyErr_NoMemory();
                return 0;
            }
            path->nodes = more;
            path->size = size;
        }
        path->nodes[n++] = cur;
        if (cur.id == node.id) return n;
        TSNode next = ts_node_child_with_descendant(cur, node);
        /* as ts_node_parent: where the descent stops, its last node is the parent */
        cur = ts_node_is_null(next) ? node : next;
    }
}

static PyObject *refscan_enclosing(PyObject *self, PyObject *args) {
    PyObject *root_obj, *starts_obj, *ends_obj, *contexts;
    const char *target;
    unsigned int max_up;
    if (!PyArg_ParseTuple(args, "OOOsO!I:enclosing", &root_obj, &starts_obj, &ends_obj, &target,
                          &PyTuple_Type, &contexts, &max_up))
        return NULL;
    if (!check_node(root_obj)) return NULL;
    Py_ssize_t n_contexts = PyTuple_GET_SIZE(contexts);
    const char **names = calloc((size_t)n_contexts + 1, sizeof(char *));
    uint32_t *starts = NULL, *ends = NULL;
    Py_ssize_t n = 0, n_ends = 0;
    NodePath path = {NULL, 0};
    PyObject *out = NULL;
    if (names == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_contexts; i++) {
        names[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(contexts, i));
        if (names[i] == NULL) goto done;
    }
    if (!read_u32_list(starts_obj, &starts, &n) || !read_u32_list(ends_obj, &ends, &n_ends)) goto done;
    if (n != n_ends) {
        PyErr_SetString(PyExc_ValueError, "starts and ends differ in length");
        goto done;
    }
    TSNode root = ((BNode *)root_obj)->node;
    PyObject *tree = ((BNode *)root_obj)->tree;
    out = PyList_New(n);
    if (out == NULL) goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = Py_None;
        TSNode node = ts_node_named_descendant_for_byte_range(root, starts[k], ends[k]);
        size_t depth = ts_node_is_null(node) ? 0 : enc_path(&path, root, node);
        if (!ts_node_is_null(node) && depth == 0) {
            Py_CLEAR(out);
            goto done;
        }
        size_t at = depth; /* one past the candidate */
        while (at > 0 && strcmp(ts_node_type(path.nodes[at - 1]), target) != 0) at--;
        if (at > 0) {
            TSNode found = path.nodes[at - 1];
            long which = -1;
            TSNode context = {{0}, NULL, NULL};
            for (size_t up = 1; up <= max_up && up < at && which < 0; up++) {
                const char *type = ts_node_type(path.nodes[at - 1 - up]);
                for (Py_ssize_t c = 0; c < n_contexts; c++) {
                    if (strcmp(type, names[c]) == 0) {
                        which = (long)c;
                        context = path.nodes[at - 1 - up];
                        break;
                    }
                }
            }
            PyObject *context_obj = which < 0 ? Py_NewRef(Py_None)
                                              : def_new_node(Py_TYPE(root_obj), context, tree);
            item = context_obj ? Py_BuildValue("(IIlN)", ts_node_start_byte(found), ts_node_end_byte(found),
                                               which, context_obj)
                               : NULL;
            if (item == NULL) {
                Py_CLEAR(out);
                goto done;
            }
        } else {
            Py_INCREF(item);
        }
        PyList_SET_ITEM(out, k, item);
    }
done:
    free(names);
    free(starts);
    free(ends);
    free(path.nodes);
    return out;
}
