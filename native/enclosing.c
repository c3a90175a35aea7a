/* enclosing(root, starts, ends, targets, contexts, max_up): for each byte span, the
 * nearest node of one of the `targets` types at or above the smallest named node over
 * the span, and the first of `contexts` among that node's next `max_up` ancestors.
 *
 * Why: Python's type strings (python_strings.py) ask this of tens of thousands of
 * quoted names per large tree, its imports of every `import` keyword, and py-tree-sitter's `Node.parent` descends from the
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

static int enc_is_one_of(const char *type, const char **names, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (strcmp(type, names[i]) == 0) return 1;
    return 0;
}

static PyObject *refscan_enclosing(PyObject *self, PyObject *args) {
    PyObject *root_obj, *starts_obj, *ends_obj, *targets, *contexts;
    unsigned int max_up;
    if (!PyArg_ParseTuple(args, "OOOO!O!I:enclosing", &root_obj, &starts_obj, &ends_obj, &PyTuple_Type,
                          &targets, &PyTuple_Type, &contexts, &max_up))
        return NULL;
    if (!check_node(root_obj)) return NULL;
    Py_ssize_t n_targets = PyTuple_GET_SIZE(targets), n_contexts = PyTuple_GET_SIZE(contexts);
    /* names[0 .. n_contexts) the contexts, then the targets */
    const char **names = calloc((size_t)(n_contexts + n_targets) + 1, sizeof(char *));
    uint32_t *starts = NULL, *ends = NULL;
    Py_ssize_t n = 0, n_ends = 0;
    NodePath path = {NULL, 0};
    PyObject *out = NULL;
    if (names == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_contexts + n_targets; i++) {
        PyObject *name = i < n_contexts ? PyTuple_GET_ITEM(contexts, i) : PyTuple_GET_ITEM(targets, i - n_contexts);
        names[i] = PyUnicode_AsUTF8(name);
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
        while (at > 0 && !enc_is_one_of(ts_node_type(path.nodes[at - 1]), names + n_contexts, n_targets)) at--;
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
            PyObject *found_obj = context_obj ? def_new_node(Py_TYPE(root_obj), found, tree) : NULL;
            item = found_obj ? Py_BuildValue("(IIlNN)", ts_node_start_byte(found), ts_node_end_byte(found),
                                             which, context_obj, found_obj)
                             : NULL;
            if (found_obj == NULL) Py_XDECREF(context_obj);
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
