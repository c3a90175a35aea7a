/* python_texts(nodes, data): the Python strategy's per-definition hooks' strings
 * (signature, docstring) for all of a file's definitions in one call.
 *
 * Why: PythonStrategy.signature and .docstring asked the binding, per definition, for
 * the node's type, its `body` field, the body's named children one by one and the
 * first statement's child: each answer a new binding Node object. On sympy that was
 * ~4 % of a file's analysis, as much as the Python around the definitions walk. Here
 * the same nodes are read from the runtime directly, and the strings are made here
 * too (the docstring's inspect.cleandoc and the signature's whitespace collapse were
 * most of what was left: sympy's texts 0.048x -> 0.0xx the parse); python.py's hooks
 * (`signature`, `docstring`, `_strip_string`, `signature_text`) stay the definition
 * and the fallback, and test_python_one_walk compares the two on real code.
 *
 * Per node: (signature, docstring or None). The docstring is the body's first named
 * child that is not a comment, or that child's first named child when it is an
 * expression_statement, when it is a `string` (python.py's `_leading_string`).
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

/* `" ".join(text.split())`, then without trailing ' ', '{' and ':' when `strip_open`,
 * cut to `limit` characters: a signature on one line (base.signature_text,
 * python.py's _assignment_signature). Whitespace is str.split()'s (Py_UNICODE_ISSPACE). */
static PyObject *pt_collapse(PyObject *text, int strip_open, Py_ssize_t limit) {
    int kind = PyUnicode_KIND(text);
    const void *d = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), m = 0;
    Py_UCS4 *buf = PyMem_Malloc(((size_t)n + 1) * sizeof(Py_UCS4));
    if (buf == NULL) return PyErr_NoMemory();
    int space = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        if (Py_UNICODE_ISSPACE(c)) {
            space = m > 0;
            continue;
        }
        if (space) buf[m++] = ' ';
        space = 0;
        buf[m++] = c;
    }
    if (strip_open)
        while (m > 0 && (buf[m - 1] == ' ' || buf[m - 1] == '{' || buf[m - 1] == ':')) m--;
    if (m > limit) m = limit;
    PyObject *out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
    PyMem_Free(buf);
    return out;
}

/* inspect.cleandoc(text[lo:hi]) over its characters `c` (tabs already expanded):
 * lines split at '\n', the smallest indent of the non-blank lines after the first
 * removed from each, the first line's leading whitespace removed, empty lines at both
 * ends dropped, joined by '\n'. */
static PyObject *pt_cleandoc(const Py_UCS4 *c, Py_ssize_t lo, Py_ssize_t hi) {
    Py_ssize_t n_lines = 1;
    for (Py_ssize_t i = lo; i < hi; i++) n_lines += c[i] == '\n';
    Py_ssize_t *starts = PyMem_Malloc((size_t)n_lines * 2 * sizeof(Py_ssize_t));
    Py_UCS4 *buf = PyMem_Malloc(((size_t)(hi - lo) + 1) * sizeof(Py_UCS4));
    if (starts == NULL || buf == NULL) {
        PyMem_Free(starts);
        PyMem_Free(buf);
        return PyErr_NoMemory();
    }
    Py_ssize_t *ends = starts + n_lines, k = 0;
    starts[0] = lo;
    for (Py_ssize_t i = lo; i < hi; i++) {
        if (c[i] == '\n') {
            ends[k++] = i;
            starts[k] = i + 1;
        }
    }
    ends[k] = hi;
    Py_ssize_t margin = PY_SSIZE_T_MAX;
    for (Py_ssize_t j = 1; j < n_lines; j++) {
        Py_ssize_t at = starts[j];
        while (at < ends[j] && Py_UNICODE_ISSPACE(c[at])) at++;
        if (at < ends[j] && at - starts[j] < margin) margin = at - starts[j];
    }
    while (starts[0] < ends[0] && Py_UNICODE_ISSPACE(c[starts[0]])) starts[0]++;
    if (margin < PY_SSIZE_T_MAX)
        for (Py_ssize_t j = 1; j < n_lines; j++)
            starts[j] = ends[j] - starts[j] > margin ? starts[j] + margin : ends[j];
    Py_ssize_t first = 0, last = n_lines; /* lines first .. last-1 are kept */
    while (last > 0 && starts[last - 1] == ends[last - 1]) last--;
    while (first < last && starts[first] == ends[first]) first++;
    Py_ssize_t m = 0;
    for (Py_ssize_t j = first; j < last; j++) {
        if (j > first) buf[m++] = '\n';
        memcpy(buf + m, c + starts[j], (size_t)(ends[j] - starts[j]) * sizeof(Py_UCS4));
        m += ends[j] - starts[j];
    }
    PyObject *out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
    PyMem_Free(starts);
    PyMem_Free(buf);
    return out;
}

/* python.py's _strip_string(text): the literal's contents without its prefix and
 * quotes, cleaned as inspect.cleandoc does; text.strip() when no quote pair fits. */
static PyObject *pt_strip_string(PyObject *text) {
    static const char *quotes[] = {"\"\"\"", "\'\'\'", "\"", "\'"};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    for (int q = 0; q < 4; q++) {
        Py_ssize_t lq = (Py_ssize_t)strlen(quotes[q]);
        PyObject *needle = PyUnicode_FromString(quotes[q]);
        if (needle == NULL) return NULL;
        Py_ssize_t i = PyUnicode_Find(text, needle, 0, n, 1);
        Py_ssize_t tail = i >= 0 ? PyUnicode_Tailmatch(text, needle, 0, n, 1) : 0;
        Py_DECREF(needle);
        if (i == -2 || tail == -1) return NULL;
        if (i < 0 || !tail || n < i + 2 * lq) continue;
        PyObject *inner = PyUnicode_Substring(text, i + lq, n - lq);
        if (inner == NULL) return NULL;
        if (PyUnicode_FindChar(inner, '\t', 0, PyUnicode_GET_LENGTH(inner), 1) >= 0) {
            PyObject *expanded = PyObject_CallMethod(inner, "expandtabs", NULL);
            Py_DECREF(inner);
            if (expanded == NULL) return NULL;
            inner = expanded;
        }
        Py_UCS4 *chars = PyUnicode_AsUCS4Copy(inner);
        Py_ssize_t len = PyUnicode_GET_LENGTH(inner);
        Py_DECREF(inner);
        if (chars == NULL) return NULL;
        PyObject *out = pt_cleandoc(chars, 0, len);
        PyMem_Free(chars);
        return out;
    }
    return PyObject_CallMethod(text, "strip", NULL);
}

static PyObject *pt_decode(const char *data, Py_ssize_t data_len, uint32_t start, uint32_t end) {
    if (end > (uint32_t)data_len) end = (uint32_t)data_len;
    if (start > end) start = end;
    return PyUnicode_DecodeUTF8(data + start, end - start, "replace");
}

/* (a, b), stealing both (NULL: both released); by hand, not Py_BuildValue's format. */
static PyObject *pt_pair(PyObject *a, PyObject *b) {
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(a);
        Py_DECREF(b);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, a);
    PyTuple_SET_ITEM(pair, 1, b);
    return pair;
}

/* (signature, docstring or None) of one definition node (python.py's definition_texts);
 * `body_field` the grammar's `body` (resolved once per call, not by name per node). */
static PyObject *python_text(TSNode node, TSFieldId body_field, const char *data, Py_ssize_t data_len) {
    int assignment = strcmp(ts_node_type(node), "assignment") == 0;
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (assignment) { /* _assignment_signature(the whole assignment) */
        PyObject *text = pt_decode(data, data_len, start, end);
        PyObject *signature = text ? pt_collapse(text, 0, 200) : NULL;
        Py_XDECREF(text);
        return signature ? pt_pair(signature, Py_NewRef(Py_None)) : NULL;
    }
    PyObject *docstring = Py_NewRef(Py_None);
    TSNode body = ts_node_child_by_field_id(node, body_field);
    uint32_t sig_end;
    if (!ts_node_is_null(body)) {
        sig_end = ts_node_start_byte(body);
        if (ts_node_named_child_count(body) > 0) {
            TSNode doc = pf_leading_string(body);
            if (!ts_node_is_null(doc)) {
                PyObject *text = pt_decode(data, data_len, ts_node_start_byte(doc), ts_node_end_byte(doc));
                Py_DECREF(docstring);
                docstring = text ? pt_strip_string(text) : NULL;
                Py_XDECREF(text);
                if (docstring == NULL) return NULL;
            }
        }
    } else { /* signature_text without a body: to the end of the first line, <= 200 bytes */
        sig_end = end < start + 200 ? end : start + 200;
        if (sig_end > (uint32_t)data_len) sig_end = (uint32_t)data_len;
        const char *nl = start < sig_end ? memchr(data + start, '\n', sig_end - start) : NULL;
        if (nl != NULL) sig_end = (uint32_t)(nl - data);
    }
    PyObject *text = pt_decode(data, data_len, start, sig_end);
    PyObject *signature = text ? pt_collapse(text, 1, 300) : NULL;
    Py_XDECREF(text);
    if (signature == NULL) {
        Py_DECREF(docstring);
        return NULL;
    }
    return pt_pair(signature, docstring);
}

static PyObject *refscan_python_texts(PyObject *self, PyObject *args) {
    PyObject *nodes;
    const char *data;
    Py_ssize_t data_len;
    if (!PyArg_ParseTuple(args, "O!y#:python_texts", &PyList_Type, &nodes, &data, &data_len)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(nodes);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    TSFieldId body_field = 0;
    const TSLanguage *language = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *obj = PyList_GET_ITEM(nodes, i);
        PyObject *item = NULL;
        if (check_node(obj)) {
            TSNode node = ((BNode *)obj)->node;
            if (ts_node_language(node) != language) {
                language = ts_node_language(node);
                body_field = ts_language_field_id_for_name(language, "body", 4);
            }
            item = python_text(node, body_field, data, data_len);
        }
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}
