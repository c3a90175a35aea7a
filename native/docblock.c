/* PHP byte scans the analysis runs on every file, compiled: docblock_type_names and
 * calls_any (the Laravel links gate, at the end).
 *
 * docblock_type_names(text): the class names written in a PHP docblock's type tags,
 * exactly as indexing/chunking/php_docblock.py's Python functions find them (the Python
 * stays the definition and the fallback; tests compare the two on real docblocks and
 * generated ones).
 *
 * Why: Laravel's `src/` has ~17,000 docblocks, and the Python scan cost ~11 µs each,
 * about a tenth of a PHP file's analysis. Each regex of the Python is followed here by
 * hand: _TAG's alternatives in their order (with the lookahead each must pass), then
 * _type_span, _closes_later and _NAME's scan with the same filters.
 *
 * Included by refscan.c (same extension). */

static int db_word(unsigned char c) { /* bytes regex \w */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int db_blank(unsigned char c) { return c == ' ' || c == '\t'; }

/* `word` at p: its end, or -1 */
static Py_ssize_t db_lit(const unsigned char *t, Py_ssize_t n, Py_ssize_t p, const char *word) {
    size_t len = strlen(word);
    if (p < 0 || (size_t)(n - p) < len || memcmp(t + p, word, len) != 0) return -1;
    return p + (Py_ssize_t)len;
}

/* (?![\w-]) at p */
static int db_free(const unsigned char *t, Py_ssize_t n, Py_ssize_t p) {
    return p >= n || !(db_word(t[p]) || t[p] == '-');
}

static Py_ssize_t db_skip_blanks(const unsigned char *t, Py_ssize_t n, Py_ssize_t p) {
    while (p < n && db_blank(t[p])) p++;
    return p;
}

/* _TAG's kind group at p: the end of the kind (its lookahead passed), or -1;
 * *method when the kind is `method`. */
static Py_ssize_t db_kind(const unsigned char *t, Py_ssize_t n, Py_ssize_t p, int *method) {
    static const char *plain[] = {"param", "return", "var", "throws", "mixin", NULL};
    static const char *after_property[] = {"method", "see", "extends", "implements", "use", "template-extends",
                                           "template-implements", NULL};
    Py_ssize_t e;
    *method = 0;
    for (int k = 0; plain[k]; k++)
        if ((e = db_lit(t, n, p, plain[k])) >= 0 && db_free(t, n, e)) return e;
    if ((e = db_lit(t, n, p, "property")) >= 0) {
        Py_ssize_t r;
        if ((r = db_lit(t, n, e, "-read")) >= 0 && db_free(t, n, r)) return r;
        if ((r = db_lit(t, n, e, "-write")) >= 0 && db_free(t, n, r)) return r;
        if (db_free(t, n, e)) return e;
    }
    for (int k = 0; after_property[k]; k++)
        if ((e = db_lit(t, n, p, after_property[k])) >= 0 && db_free(t, n, e)) {
            *method = k == 0;
            return e;
        }
    if ((e = db_lit(t, n, p, "template")) >= 0) {
        /* (?:-covariant|-contravariant)? then [ \t]+\w+[ \t]+of: each run is maximal,
         * as backtracking into a shorter one cannot succeed (the classes are disjoint) */
        Py_ssize_t starts[3] = {db_lit(t, n, e, "-covariant"), db_lit(t, n, e, "-contravariant"), e};
        for (int k = 0; k < 3; k++) {
            Py_ssize_t q = starts[k];
            if (q < 0) continue;
            Py_ssize_t b = db_skip_blanks(t, n, q);
            if (b == q) continue;
            Py_ssize_t w = b;
            while (w < n && db_word(t[w])) w++;
            if (w == b) continue;
            Py_ssize_t b2 = db_skip_blanks(t, n, w);
            if (b2 == w) continue;
            Py_ssize_t o = db_lit(t, n, b2, "of");
            if (o >= 0 && db_free(t, n, o)) return o;
        }
    }
    if ((e = db_lit(t, n, p, "type")) >= 0) {
        Py_ssize_t b = db_skip_blanks(t, n, e);
        if (b > e) {
            Py_ssize_t w = b;
            while (w < n && db_word(t[w])) w++;
            if (w > b) {
                Py_ssize_t eq = db_skip_blanks(t, n, w);
                if (eq < n && t[eq] == '=' && db_free(t, n, eq + 1)) return eq + 1;
                if (db_free(t, n, w)) return w;
            }
        }
    }
    return -1;
}

/* _TAG at '@' p: the match's end (blanks after the kind included), or -1 */
static Py_ssize_t db_tag(const unsigned char *t, Py_ssize_t n, Py_ssize_t p, int *method) {
    Py_ssize_t q, e;
    if ((q = db_lit(t, n, p + 1, "phpstan-")) >= 0 || (q = db_lit(t, n, p + 1, "psalm-")) >= 0) {
        if ((e = db_kind(t, n, q, method)) >= 0) return db_skip_blanks(t, n, e);
    }
    if ((e = db_kind(t, n, p + 1, method)) >= 0) return db_skip_blanks(t, n, e);
    return -1;
}

static int db_open(unsigned char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
static int db_close(unsigned char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }

/* _NEXT_TAG.search(text, at): start of `\n[ \t]*\*?[ \t]*@` or `*`+`/`, or n */
static Py_ssize_t db_next_tag(const unsigned char *t, Py_ssize_t n, Py_ssize_t at) {
    for (Py_ssize_t p = at; p < n; p++) {
        if (t[p] == '\n') {
            Py_ssize_t q = db_skip_blanks(t, n, p + 1);
            if (q < n && t[q] == '@') return p;
            if (q < n && t[q] == '*') {
                Py_ssize_t r = db_skip_blanks(t, n, q + 1);
                if (r < n && t[r] == '@') return p;
            }
        } else if (t[p] == '*' && p + 1 < n && t[p + 1] == '/') {
            return p;
        }
    }
    return n;
}

static int db_closes_later(const unsigned char *t, Py_ssize_t n, Py_ssize_t at, long depth) {
    Py_ssize_t stop = db_next_tag(t, n, at);
    for (Py_ssize_t p = at; p < stop; p++) {
        if (db_open(t[p])) depth++;
        else if (db_close(t[p]) && --depth == 0) return 1;
    }
    return 0;
}

static Py_ssize_t db_type_span(const unsigned char *t, Py_ssize_t n, Py_ssize_t start) {
    long depth = 0;
    for (Py_ssize_t i = start; i < n; i++) {
        unsigned char c = t[i];
        if (c == '\n' || c == '\r') {
            if (depth == 0 || !db_closes_later(t, n, i, depth)) return i;
        } else if (db_blank(c)) {
            if (depth == 0) {
                Py_ssize_t after = db_skip_blanks(t, n, i);
                int joins = after < n && (t[after] == '|' || t[after] == '&');
                unsigned char b = i > 0 ? t[i - 1] : 0;
                if (!joins && !(i > 0 && (b == '|' || b == '&' || b == ',' || b == ':'))) return i;
            }
        } else if (db_open(c)) {
            depth++;
        } else if (db_close(c)) {
            depth = depth > 0 ? depth - 1 : 0;
        }
    }
    return n;
}

static int db_ident_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/* _NAME at p within [.., end): the match's end, or -1 */
static Py_ssize_t db_name(const unsigned char *t, Py_ssize_t end, Py_ssize_t p) {
    Py_ssize_t q = p;
    if (q < end && t[q] == '\\' && q + 1 < end && db_ident_start(t[q + 1])) q++;
    if (q >= end || !db_ident_start(t[q])) return -1;
    q++;
    for (;;) {
        while (q < end && db_word(t[q])) q++;
        if (q + 1 < end && t[q] == '\\' && db_ident_start(t[q + 1])) {
            q += 2;
            continue;
        }
        return q;
    }
}

static PyObject *refscan_docblock_type_names(PyObject *self, PyObject *args) {
    const char *raw;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y#:docblock_type_names", &raw, &n)) return NULL;
    const unsigned char *t = (const unsigned char *)raw;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    if (memchr(t, '@', (size_t)n) == NULL) return out;
    Py_ssize_t p = 0;
    while (p < n) {
        const unsigned char *at = memchr(t + p, '@', (size_t)(n - p));
        if (at == NULL) break;
        Py_ssize_t a = at - t;
        int method;
        Py_ssize_t start = db_tag(t, n, a, &method);
        if (start < 0) {
            p = a + 1;
            continue;
        }
        p = start; /* finditer goes on after the match */
        if (method && n - start >= 7 && memcmp(t + start, "static ", 7) == 0) start += 7;
        Py_ssize_t end = db_type_span(t, n, start);
        if (method) {
            const unsigned char *close = memchr(t + end, ')', (size_t)(n - end));
            const unsigned char *line_end = memchr(t + end, '\n', (size_t)(n - end));
            if (close != NULL && (line_end == NULL || close < line_end)) end = close - t;
        }
        Py_ssize_t i = start;
        while (i < end) {
            Py_ssize_t e = db_name(t, end, i);
            if (e < 0) {
                i++;
                continue;
            }
            Py_ssize_t s = i;
            i = e;
            unsigned char before = s > 0 ? t[s - 1] : 0, after = e < n ? t[e] : 0;
            if ((s > 0 && (before == '$' || before == '-' || before == ':' || before == '.')) ||
                (e < n && (after == '-' || after == ':')) || (e + 1 < n && after == '?' && t[e + 1] == ':'))
                continue;
            int qualified = t[s] == '\\' || memchr(t + s, '\\', (size_t)(e - s)) != NULL;
            if (!(qualified || (t[s] >= 'A' && t[s] <= 'Z'))) continue;
            if (method && e < n && after == '(') continue;
            PyObject *item = Py_BuildValue("(nnN)", s, e, PyUnicode_DecodeASCII(raw + s, e - s, NULL));
            if (item == NULL || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(item);
        }
    }
    return out;
}

/* calls_any(data, names) -> whether some name of the set `names` (bytes) is called in
 * `data`: a whole identifier run (bytes regex \w, not preceded by one) equal to a name,
 * then blanks (\s) and `(`. The same test as the regex `\b(?:name|...)\s*\(` that gates
 * laravel_links.py's query, without trying the alternation at every word start. */
static PyObject *refscan_calls_any(PyObject *self, PyObject *args) {
    const char *raw;
    Py_ssize_t n;
    PyObject *names;
    if (!PyArg_ParseTuple(args, "y#O!:calls_any", &raw, &n, &PyFrozenSet_Type, &names)) return NULL;
    const unsigned char *t = (const unsigned char *)raw;
    Py_ssize_t p = 0;
    while (p < n) {
        if (!db_word(t[p])) {
            p++;
            continue;
        }
        Py_ssize_t s = p;
        while (p < n && db_word(t[p])) p++;
        Py_ssize_t q = p;
        while (q < n && (t[q] == ' ' || t[q] == '\t' || t[q] == '\n' || t[q] == '\r' || t[q] == '\f' || t[q] == '\v'))
            q++;
        if (q >= n || t[q] != '(') continue;
        PyObject *word = PyBytes_FromStringAndSize(raw + s, p - s);
        if (word == NULL) return NULL;
        int found = PySet_Contains(names, word);
        Py_DECREF(word);
        if (found < 0) return NULL;
        if (found) Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}
