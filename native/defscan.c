/* The definitions pass's matching, compiled (included by refscan.c: same module, same
 * vendored runtime, same BNode layout).
 *
 * Why: tree-sitter's query engine costs ~0.4x the parse on a large Python tree for the
 * definitions query, almost all of it the engine's per-node walk (two patterns cost as
 * much as thirteen). Each supported pattern is a path of ancestors above the definition
 * node D and a small tree of children below it (indexing/chunking/defscan.py parses
 * them); one cursor walk checks the ancestors from a stack and the children by a short
 * search, and hands back py-tree-sitter Node objects for (D, name) only. When a pattern
 * matches one D in two ways the walk answers None and the caller runs the engine, so
 * the result never depends on the engine's match order.
 */

#define DEF_MAX_UP 8
#define DEF_MAX_DOWN 16
#define DEF_MAX_SLOTS 8
#define DEF_MAX_PREDS 4

typedef struct {
    TSSymbol symbol;
    unsigned char super; /* a supertype: any named node it wraps (the engine's rule) */
    TSFieldId field;   /* 0: any field */
    int slot;          /* -1: not captured; 0: the name; 1..: a predicate's capture */
    int n_kids;
    int kids[DEF_MAX_DOWN];
} DownNode;

typedef struct {
    uint32_t n_up; /* up[0] is D, up[i+1] its i+1-th ancestor */
    TSSymbol up_symbols[DEF_MAX_UP];
    unsigned char up_super[DEF_MAX_UP];
    TSFieldId up_fields[DEF_MAX_UP]; /* field of up[i] in up[i+1]; 0: any */
    uint32_t n_down;                 /* down[0] is D */
    DownNode down[DEF_MAX_DOWN];
    uint32_t n_preds;
    int pred_slot[DEF_MAX_PREDS];
    int pred_positive[DEF_MAX_PREDS];
    PyObject *pred_regex[DEF_MAX_PREDS];
    PyObject *kind; /* its `definition.*` capture (a str), which its items start with */
    unsigned char uses_super; /* the query's uses_super, for def_children */
} DefRule;

typedef struct {
    uint32_t n_symbols;
    unsigned char *kinds; /* symbol -> 1 when some rule's D has that type */
    uint32_t n_rules;
    DefRule *rules;
    /* Some rule has a supertype step: only then are the hidden supertypes above a node
     * (DefStatus.super) read, so only then does the walk look each hidden node up. */
    unsigned char uses_super;
} DefQuery;

static const char *DEF_CAPSULE = "code_intel.refscan.defs";

static void defs_free(DefQuery *q) {
    if (q == NULL) return;
    if (q->rules) {
        for (uint32_t r = 0; r < q->n_rules; r++) {
            for (uint32_t k = 0; k < q->rules[r].n_preds; k++) Py_XDECREF(q->rules[r].pred_regex[k]);
            Py_XDECREF(q->rules[r].kind);
        }
        free(q->rules);
    }
    free(q->kinds);
    free(q);
}

static void defs_destructor(PyObject *capsule) {
    defs_free((DefQuery *)PyCapsule_GetPointer(capsule, DEF_CAPSULE));
}

static int def_symbol(const TSLanguage *language, PyObject *name, int named, TSSymbol *out) {
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(name, &len);
    if (text == NULL) return 0;
    *out = ts_language_symbol_for_name(language, text, (uint32_t)len, named);
    if (*out == 0) {
        PyErr_Format(PyExc_ValueError, "no node type %s in this grammar", text);
        return 0;
    }
    return 1;
}

static int def_field(const TSLanguage *language, PyObject *name, TSFieldId *out) {
    *out = 0;
    if (name == Py_None) return 1;
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(name, &len);
    if (text == NULL) return 0;
    *out = ts_language_field_id_for_name(language, text, (uint32_t)len);
    if (*out == 0) {
        PyErr_Format(PyExc_ValueError, "no field %s in this grammar", text);
        return 0;
    }
    return 1;
}

/* compile_defs(node, rules) -> handle. rules = [(up, down, preds, kind)]: up = [(type, field)]
 * from D upward; down = [(type, field, parent index, slot, named)] with D first and parents
 * before children; preds = [(slot, compiled regex, positive)] (#match? / #not-match?). */
static PyObject *refscan_compile_defs(PyObject *self, PyObject *args) {
    PyObject *node_obj, *rules;
    if (!PyArg_ParseTuple(args, "OO!:compile_defs", &node_obj, &PyList_Type, &rules)) return NULL;
    if (!check_node(node_obj)) return NULL;
    const TSLanguage *language = ts_node_language(((BNode *)node_obj)->node);
    DefQuery *q = calloc(1, sizeof(DefQuery));
    if (q == NULL) return PyErr_NoMemory();
    q->n_symbols = ts_language_symbol_count(language);
    q->kinds = calloc(q->n_symbols + 1, 1);
    q->n_rules = (uint32_t)PyList_GET_SIZE(rules);
    q->rules = calloc(q->n_rules + 1, sizeof(DefRule));
    if (q->kinds == NULL || q->rules == NULL) {
        defs_free(q);
        return PyErr_NoMemory();
    }
    for (uint32_t r = 0; r < q->n_rules; r++) {
        DefRule *rule = &q->rules[r];
        PyObject *up, *down, *preds, *kind;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(rules, r), "O!O!O!U", &PyList_Type, &up, &PyList_Type, &down,
                              &PyList_Type, &preds, &kind))
            goto fail;
        rule->kind = Py_NewRef(kind);
        if (PyList_GET_SIZE(up) < 1 || PyList_GET_SIZE(up) > DEF_MAX_UP || PyList_GET_SIZE(down) < 1 ||
            PyList_GET_SIZE(down) > DEF_MAX_DOWN || PyList_GET_SIZE(preds) > DEF_MAX_PREDS) {
            PyErr_SetString(PyExc_ValueError, "a definition rule has 1-8 levels up, 1-16 nodes down, <= 4 predicates");
            goto fail;
        }
        rule->n_up = (uint32_t)PyList_GET_SIZE(up);
        for (uint32_t i = 0; i < rule->n_up; i++) {
            PyObject *type, *field;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(up, i), "UO", &type, &field)) goto fail;
            if (!def_symbol(language, type, 1, &rule->up_symbols[i]) || !def_field(language, field, &rule->up_fields[i]))
                goto fail;
            rule->up_super[i] = ts_language_symbol_metadata(language, rule->up_symbols[i]).supertype;
        }
        rule->n_down = (uint32_t)PyList_GET_SIZE(down);
        for (uint32_t i = 0; i < rule->n_down; i++) {
            PyObject *type, *field;
            int parent, slot, named;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(down, i), "UOiip", &type, &field, &parent, &slot, &named))
                goto fail;
            DownNode *d = &rule->down[i];
            if (!def_symbol(language, type, named, &d->symbol) || !def_field(language, field, &d->field)) goto fail;
            d->super = ts_language_symbol_metadata(language, d->symbol).supertype;
            if (slot < -1 || slot >= DEF_MAX_SLOTS || (i == 0) != (parent < 0) || parent >= (int)i) {
                PyErr_SetString(PyExc_ValueError, "bad slot or parent in a definition rule");
                goto fail;
            }
            d->slot = slot;
            if (parent >= 0) {
                DownNode *p = &rule->down[parent];
                p->kids[p->n_kids++] = (int)i;
            }
        }
        if (rule->up_super[0]) { /* D by supertype: every named node a candidate; not worth it */
            defs_free(q);
            Py_RETURN_NONE;
        }
        if (rule->down[0].symbol != rule->up_symbols[0]) {
            PyErr_SetString(PyExc_ValueError, "a definition rule's first up and down nodes differ");
            goto fail;
        }
        rule->n_preds = (uint32_t)PyList_GET_SIZE(preds);
        for (uint32_t k = 0; k < rule->n_preds; k++) {
            PyObject *regex;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(preds, k), "iOp", &rule->pred_slot[k], &regex,
                                  &rule->pred_positive[k]))
                goto fail;
            if (rule->pred_slot[k] < 1 || rule->pred_slot[k] >= DEF_MAX_SLOTS) {
                PyErr_SetString(PyExc_ValueError, "bad predicate slot in a definition rule");
                goto fail;
            }
            rule->pred_regex[k] = Py_NewRef(regex);
        }
        if (rule->up_symbols[0] < q->n_symbols) q->kinds[rule->up_symbols[0]] = 1;
        for (uint32_t i = 1; i < rule->n_up; i++) q->uses_super |= rule->up_super[i];
        for (uint32_t i = 0; i < rule->n_down; i++) q->uses_super |= rule->down[i].super;
    }
    for (uint32_t r = 0; r < q->n_rules; r++) q->rules[r].uses_super = q->uses_super;
    PyObject *capsule = PyCapsule_New(q, DEF_CAPSULE, defs_destructor);
    if (capsule == NULL) defs_free(q);
    return capsule;
fail:
    defs_free(q);
    return NULL;
}

/* The runtime's ts_node_new, ts_language_public_symbol and ts_language_symbol_metadata's
 * supertype bit, inline: they live in another translation unit (lib.c), and the walk in
 * refscan_defs calls them for a million nodes on sympy's core/+printing/ (~25 M
 * instructions of calls). Same answers. */
static inline TSNode def_node_at(const TSTree *tree, const Subtree *subtree, Length at, TSSymbol alias) {
    return (TSNode){{at.bytes, at.extent.row, at.extent.column, alias}, subtree, tree};
}

static inline TSSymbol def_public_symbol(const TSLanguage *lang, TSSymbol symbol) {
    return symbol == ts_builtin_sym_error ? symbol : lang->public_symbol_map[symbol];
}

static inline int def_is_supertype(const TSLanguage *lang, TSSymbol symbol) {
    return symbol != ts_builtin_sym_error && symbol != ts_builtin_sym_error_repeat &&
           lang->symbol_metadata[symbol].supertype;
}

static int def_node_match(const DefRule *r, int p, TSNode node, TSNode *caps);

/* The hidden supertypes wrapping a node, and its field: the engine's view (what
 * ts_tree_cursor_current_status reports, without the later-sibling scans the engine
 * needs for anchors and quantifiers, not supported here). */
typedef struct {
    TSFieldId field;
    unsigned n_super;
    TSSymbol super[8];
} DefStatus;

/* The engine's test of one step against a node: its type, or for a supertype step a
 * named, non-error node wrapped in that supertype. */
static int def_step_matches(TSSymbol symbol, unsigned char super, TSNode node, const DefStatus *st) {
    if (!super) return ts_node_symbol(node) == symbol;
    if (!ts_node_is_named(node) || ts_node_symbol(node) == ts_builtin_sym_error) return 0;
    for (unsigned k = 0; k < st->n_super; k++)
        if (st->super[k] == symbol) return 1;
    return 0;
}

/* Ways the pattern children kids[j..] match node's children from index `from` on, in
 * order (0, 1, or 2 = more than one); the first way's captures are left in caps. */
static int def_kids_match(const DefRule *r, const DownNode *p, int j, const TSNode *children,
                          const DefStatus *status, uint32_t n_children, uint32_t from, TSNode *caps) {
    if (j == p->n_kids) return 1;
    const DownNode *c = &r->down[p->kids[j]];
    int total = 0;
    TSNode scratch[DEF_MAX_SLOTS];
    for (uint32_t t = from; t < n_children && total < 2; t++) {
        if (!def_step_matches(c->symbol, c->super, children[t], &status[t])) continue;
        if (c->field && status[t].field != c->field) continue;
        TSNode *target = caps;
        if (total) {
            memcpy(scratch, caps, sizeof(scratch));
            target = scratch;
        }
        int here = def_node_match(r, p->kids[j], children[t], target);
        if (here < 0) return -1;
        if (here == 0) continue;
        int rest = def_kids_match(r, p, j + 1, children, status, n_children, t + 1, target);
        if (rest < 0) return -1;
        total += here * rest;
    }
    return total > 2 ? 2 : total;
}

/* The visible children of `parent` (a subtree starting at `position`), through hidden
 * ones, in the order a tree cursor's goto_first_child / goto_next_sibling yields them,
 * each with its DefStatus (its field; its own supertype and the hidden ones above it):
 * read from the subtrees directly, as the walk in refscan_defs does. The cursor's steps cost ~500 instructions a sibling, as much as
 * the rest of the matching (sympy's definitions pass: 0.13 G of the workers' 6.8 G).
 * Appends at children[count..cap) and returns the new count. */
static uint32_t def_children(const TSTree *tree, Subtree parent, Length position, const DefStatus *inherited,
                             TSNode *children, DefStatus *status, uint32_t count, uint32_t cap, int supers) {
    const TSLanguage *lang = tree->language;
    const TSSymbol *aliases = ts_language_alias_sequence(lang, parent.ptr->production_id);
    const TSFieldMapEntry *map, *map_end;
    ts_language_field_map(lang, parent.ptr->production_id, &map, &map_end);
    const Subtree *kids = ts_subtree_children(parent);
    uint32_t n_kids = parent.ptr->child_count, structural = 0;
    for (uint32_t i = 0; i < n_kids && count < cap; i++) {
        const Subtree *child = &kids[i];
        Length at = position;
        position = length_add(position, ts_subtree_size(*child));
        if (i + 1 < n_kids) position = length_add(position, ts_subtree_padding(kids[i + 1]));
        TSSymbol alias = 0;
        TSFieldId field = 0;
        if (!ts_subtree_extra(*child)) {
            if (aliases) alias = aliases[structural];
            for (const TSFieldMapEntry *m = map; m < map_end; m++) {
                if (!m->inherited && m->child_index == structural) {
                    field = m->field_id;
                    break;
                }
            }
            structural++;
        }
        if (!field) field = inherited->field;
        if (alias || ts_subtree_visible(*child)) {
            DefStatus *st = &status[count];
            *st = *inherited;
            st->field = field;
            TSSymbol symbol = alias ? alias : ts_subtree_symbol(*child);
            if (supers && def_is_supertype(lang, symbol) && st->n_super < 8) st->super[st->n_super++] = symbol;
            children[count++] = def_node_at(tree, child, at, alias);
        } else if (ts_subtree_child_count(*child) > 0 && ts_subtree_visible_child_count(*child) > 0) {
            DefStatus inherit = *inherited;
            inherit.field = field;
            TSSymbol symbol = ts_subtree_symbol(*child);
            if (supers && def_is_supertype(lang, symbol) && inherit.n_super < 8)
                inherit.super[inherit.n_super++] = symbol;
            count = def_children(tree, *child, at, &inherit, children, status, count, cap, supers);
        }
    }
    return count;
}

/* Ways pattern node p matches `node` (whose type the caller checked); -1 on error. */
static int def_node_match(const DefRule *r, int p, TSNode node, TSNode *caps) {
    const DownNode *d = &r->down[p];
    if (d->slot >= 0) caps[d->slot] = node;
    if (d->n_kids == 0) return 1;
    uint32_t n = ts_node_child_count(node);
    if (n == 0) return 0;
    TSNode local_nodes[32];
    DefStatus local_status[32];
    TSNode *children = local_nodes;
    DefStatus *status = local_status;
    if (n > 32) {
        children = malloc(n * sizeof(TSNode));
        status = malloc(n * sizeof(DefStatus));
        if (children == NULL || status == NULL) {
            free(children);
            free(status);
            PyErr_NoMemory();
            return -1;
        }
    }
    DefStatus none = {0};
    Length start = {ts_node_start_byte(node), ts_node_start_point(node)};
    uint32_t count = def_children(node.tree, *(const Subtree *)node.id, start, &none, children, status, 0, n,
                                  r->uses_super);
    int ways = def_kids_match(r, d, 0, children, status, count, 0, caps);
    if (children != local_nodes) {
        free(children);
        free(status);
    }
    return ways;
}

/* #match? / #not-match?: regex.search(text of the capture) */
static int def_preds_hold(const DefRule *r, const TSNode *caps, const char *data, Py_ssize_t data_len) {
    for (uint32_t k = 0; k < r->n_preds; k++) {
        TSNode n = caps[r->pred_slot[k]];
        uint32_t s = ts_node_start_byte(n), t = ts_node_end_byte(n);
        if (t > (uint32_t)data_len) t = (uint32_t)data_len;
        if (s > t) s = t;
        PyObject *text = PyUnicode_DecodeUTF8(data + s, t - s, "replace");
        if (text == NULL) return -1;
        PyObject *found = PyObject_CallMethod(r->pred_regex[k], "search", "O", text);
        Py_DECREF(text);
        if (found == NULL) return -1;
        int hit = found != Py_None;
        Py_DECREF(found);
        if (hit != r->pred_positive[k]) return 0;
    }
    return 1;
}

static PyObject *def_new_node(PyTypeObject *type, TSNode node, PyObject *tree) {
    BNode *b = (BNode *)type->tp_alloc(type, 0);
    if (b == NULL) return NULL;
    b->node = node;
    b->children = NULL;
    b->tree = Py_NewRef(tree);
    return (PyObject *)b;
}

/* (kind, d, name, ids, where) as defs() answers it, stealing d, name and ids (an empty
 * 2-tuple filled here with the two node ids); NULL with an error set. Built by hand:
 * Py_BuildValue's format parsing cost ~3,500 instructions a definition. */
static PyObject *def_item(PyObject *kind, PyObject *d, PyObject *name, PyObject *ids, void *d_id, void *name_id,
                          const long long *where) {
    PyObject *w = int_tuple(12, where, NULL), *item = w ? PyTuple_New(5) : NULL;
    if (item == NULL) {
        Py_XDECREF(w);
        Py_DECREF(d);
        Py_DECREF(name);
        Py_DECREF(ids);
        return NULL;
    }
    PyTuple_SET_ITEM(item, 1, d);
    PyTuple_SET_ITEM(item, 2, name);
    PyTuple_SET_ITEM(item, 3, ids);
    PyTuple_SET_ITEM(item, 4, w);
    PyTuple_SET_ITEM(item, 0, Py_NewRef(kind));
    PyObject *v;
    if ((v = PyLong_FromVoidPtr(d_id)) == NULL) goto fail;
    PyTuple_SET_ITEM(ids, 0, v);
    if ((v = PyLong_FromVoidPtr(name_id)) == NULL) goto fail;
    PyTuple_SET_ITEM(ids, 1, v);
    return item;
fail:
    Py_DECREF(item); /* a tuple's unset slots are NULL, which its dealloc skips */
    return NULL;
}

/* A visible node on the walk's path. Its field is resolved only when a rule asks
 * (def_level_field): status.field holds what it inherits from hidden parents, and
 * (production, structural) where its own is in its parent's field map (structural
 * DEF_NO_FIELD: an extra, which has none). Most visible nodes are never asked. */
typedef struct {
    TSSymbol symbol;
    TSNode node;
    DefStatus status;
    TSStateId production; /* its parent's production_id */
    uint32_t structural;  /* its structural index among its parent's children */
} DefLevel;

#define DEF_NO_FIELD UINT32_MAX

/* The field of child `structural` in a parent of `production`: 0 for none. */
static inline TSFieldId def_field_of(const TSLanguage *lang, TSStateId production, uint32_t structural) {
    const TSFieldMapEntry *map, *map_end;
    ts_language_field_map(lang, production, &map, &map_end);
    for (; map < map_end; map++)
        if (!map->inherited && map->child_index == structural) return map->field_id;
    return 0;
}

/* A level's field as the engine sees it: its own in its parent, else the one it inherits. */
static inline TSFieldId def_level_field(const TSLanguage *lang, const DefLevel *level) {
    TSFieldId own = level->structural == DEF_NO_FIELD ? 0 : def_field_of(lang, level->production, level->structural);
    return own ? own : level->status.field;
}

/* Every rule whose D is the visible node at levels[depth]: appends (rule, D, name) to
 * out. Returns 0 on success, 1 when ambiguous, -1 on error. */
static int def_visit(const DefQuery *q, const DefLevel *levels, size_t depth, PyObject *root_obj,
                     const char *data, Py_ssize_t data_len, PyObject *out) {
    TSSymbol symbol = levels[depth].symbol;
    TSNode node = levels[depth].node;
    if (symbol >= q->n_symbols || !q->kinds[symbol]) return 0;
    for (uint32_t ri = 0; ri < q->n_rules; ri++) {
        const DefRule *r = &q->rules[ri];
        if (r->up_symbols[0] != symbol || r->n_up > depth + 1) continue;
        int ok = 1;
        for (uint32_t i = 0; ok && i < r->n_up; i++) {
            const DefLevel *level = &levels[depth - i];
            if (i > 0 && !def_step_matches(r->up_symbols[i], r->up_super[i], level->node, &level->status))
                ok = 0;
            else if (r->up_fields[i] && def_level_field(node.tree->language, level) != r->up_fields[i]) ok = 0;
        }
        if (!ok) continue;
        TSNode caps[DEF_MAX_SLOTS];
        memset(caps, 0, sizeof(caps));
        int ways = def_node_match(r, 0, node, caps);
        if (ways < 0) return -1;
        if (ways == 0) continue;
        if (ways > 1) return 1;
        int holds = def_preds_hold(r, caps, data, data_len);
        if (holds < 0) return -1;
        if (!holds) continue;
        PyObject *tree = ((BNode *)root_obj)->tree;
        PyObject *d = def_new_node(Py_TYPE(root_obj), node, tree);
        PyObject *name = d ? def_new_node(Py_TYPE(root_obj), caps[0], tree) : NULL;
        PyObject *ids = name ? PyTuple_New(2) : NULL;
        if (ids == NULL) {
            Py_XDECREF(d);
            Py_XDECREF(name);
            return -1;
        }
        /* Bytes and points of D and its name, so the caller builds the symbol's ranges
         * without asking the binding for them node by node. */
        TSPoint ds = ts_node_start_point(node), de = ts_node_end_point(node);
        TSPoint ns = ts_node_start_point(caps[0]), ne = ts_node_end_point(caps[0]);
        long long where[12] = {ts_node_start_byte(node), ts_node_end_byte(node), ds.row, ds.column, de.row,
                              de.column, ts_node_start_byte(caps[0]), ts_node_end_byte(caps[0]), ns.row,
                              ns.column, ne.row, ne.column};
        PyObject *item = def_item(r->kind, d, name, ids, (void *)node.id, (void *)caps[0].id, where);
        if (item == NULL) return -1;
        int appended = PyList_Append(out, item);
        Py_DECREF(item);
        if (appended < 0) return -1;
    }
    return 0;
}

/* One subtree of the walk: WALK_KINDS's frame, plus what its visible descendants
 * inherit from it when it is hidden (DefStatus's field and supertypes). */
typedef struct {
    Subtree parent;
    const TSSymbol *aliases;
    Length position;
    uint32_t child;
    uint32_t structural;
    size_t level; /* the nearest visible ancestor's index in levels */
    DefStatus inherited;
} DefFrame;

/* ---- Python's quoted names (python_strings.py's _CANDIDATE), for `strings` ---- */

static int qn_first(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int qn_word(unsigned char c) { return qn_first(c) || (c >= '0' && c <= '9') || c == '.'; } /* [\w.] */
static int qn_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }           /* bytes \s */

/* _CANDIDATE matched at t[i] (a quote): the match's end, or -1. Its quantifiers are
 * possessive, so one deterministic pass is the regex's only path. */
static Py_ssize_t qn_match(const unsigned char *t, Py_ssize_t n, Py_ssize_t i) {
    unsigned char q = t[i];
    Py_ssize_t p = i + 1;
    if (p >= n || !qn_first(t[p])) return -1;
    for (p++; p < n && qn_word(t[p]); p++) {}
    for (;;) { /* (?:\s*+\|\s*+[A-Za-z_][\w.]*+)*+ : an iteration that fails is undone */
        Py_ssize_t r = p;
        while (r < n && qn_space(t[r])) r++;
        if (r >= n || t[r] != '|') break;
        for (r++; r < n && qn_space(t[r]); r++) {}
        if (r >= n || !qn_first(t[r])) break;
        for (r++; r < n && qn_word(t[r]); r++) {}
        p = r;
    }
    return p < n && t[p] == q ? p + 1 : -1;
}

/* Start bytes of _CANDIDATE.finditer(data)'s matches (non-overlapping, left to right);
 * NULL with MemoryError set. */
static uint32_t *qn_starts(const unsigned char *t, Py_ssize_t n, size_t *count) {
    size_t size = 64, used = 0;
    uint32_t *out = malloc(size * sizeof(uint32_t));
    if (out == NULL) return (uint32_t *)PyErr_NoMemory();
    Py_ssize_t pos = 0;
    /* the next of each quote at or after pos, searched again only once pos passes it
     * (a memchr per quote and step re-read, at every `"`, the bytes to the next `'`) */
    const unsigned char *a = memchr(t, '"', (size_t)n), *b = memchr(t, '\'', (size_t)n);
    while (pos < n) {
        if (a != NULL && a < t + pos) a = memchr(t + pos, '"', (size_t)(n - pos));
        if (b != NULL && b < t + pos) b = memchr(t + pos, '\'', (size_t)(n - pos));
        const unsigned char *q = a == NULL ? b : (b == NULL || a < b ? a : b);
        if (q == NULL) break;
        Py_ssize_t i = q - t, end = qn_match(t, n, i);
        if (end < 0) {
            pos = i + 1;
            continue;
        }
        if (used == size) {
            size *= 2;
            uint32_t *more = realloc(out, size * sizeof(uint32_t));
            if (more == NULL) {
                free(out);
                return (uint32_t *)PyErr_NoMemory();
            }
            out = more;
        }
        out[used++] = (uint32_t)i;
        pos = end;
    }
    *count = used;
    return out;
}

/* What `strings` asks the walk for: nodes of the target type whose whole text is one
 * _CANDIDATE match starting where finditer found one, with the first of the context
 * types among their next max_up ancestors (as enclosing() answers for that match) and
 * what that ancestor decides (qn_decides: no binding Node per string for Python to
 * ask; sympy has ~47k such strings, a few thousand of them types). */
/* What qn_decides reads of a context type (its name, resolved once). */
enum { QN_OTHER, QN_TYPE, QN_KEYWORD_ARGUMENT, QN_SUBSCRIPT, QN_ASSIGNMENT, QN_CALL };

typedef struct {
    unsigned char *is_target; /* public symbol -> 1 when its name is the target type */
    uint32_t n_symbols;       /* is_target's and context_of's size (ERROR's symbol is above it) */
    const char **contexts;
    Py_ssize_t n_contexts;
    /* public symbol -> index of the first context type of its name, -1 for none: a
     * string's ancestors are looked up here instead of strcmp per ancestor and type */
    int16_t *context_of;
    unsigned char *decider; /* context index -> QN_* */
    TSFieldId f_name, f_value, f_left, f_function, f_arguments; /* the fields qn_decides reads */
    unsigned int max_up;
    uint32_t *starts; /* qn_starts */
    size_t n_starts;
    PyObject *out;
    int64_t last_start; /* of the last item in out, -1 for none */
} QuotedNames;

static int qn_has_start(const QuotedNames *w, uint32_t at) {
    size_t lo = 0, hi = w->n_starts;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->starts[mid] < at) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->n_starts && w->starts[lo] == at;
}

/* A field's text (NULL for a missing field), its length in *len. */
static const char *qn_field_text(TSNode node, TSFieldId field, const char *data, Py_ssize_t data_len,
                                 uint32_t *len) {
    TSNode child = ts_node_child_by_field_id(node, field);
    if (ts_node_is_null(child)) return NULL;
    uint32_t s = ts_node_start_byte(child), e = ts_node_end_byte(child);
    if (e > (uint32_t)data_len) e = (uint32_t)data_len;
    if (s > e) s = e;
    *len = e - s;
    return data + s;
}

/* The text after its last `.` (all of it without one): `rsplit(b".", 1)[-1]`. */
static const char *qn_last_segment(const char *text, uint32_t *len) {
    for (uint32_t i = *len; i > 0; i--) {
        if (text[i - 1] == '.') {
            *len -= i;
            return text + i;
        }
    }
    return text;
}

/* python_strings._decides: whether the deciding ancestor `context` (of type `type`)
 * says the string starting at `string_start` below it stands where a type (or an
 * `__all__` entry) does. Keep the two in step: test_python_one_walk compares them. */
static int qn_decides(const QuotedNames *w, TSNode context, int decider, uint32_t string_start, const char *data,
                      Py_ssize_t data_len) {
    uint32_t len = 0;
    const char *text;
    if (decider == QN_TYPE) return 1;
    if (decider == QN_KEYWORD_ARGUMENT) { /* bound="Base" */
        text = qn_field_text(context, w->f_name, data, data_len, &len);
        return text != NULL && len == 5 && memcmp(text, "bound", 5) == 0;
    }
    if (decider == QN_SUBSCRIPT) { /* Union[...], typing.Optional[...], not d["k"] */
        text = qn_field_text(context, w->f_value, data, data_len, &len);
        if (text == NULL) return 0;
        text = qn_last_segment(text, &len);
        return len > 0 && text[0] >= 'A' && text[0] <= 'Z';
    }
    if (decider == QN_ASSIGNMENT) { /* __all__ = [...] */
        text = qn_field_text(context, w->f_left, data, data_len, &len);
        return text != NULL && len == 7 && memcmp(text, "__all__", 7) == 0;
    }
    if (decider == QN_CALL) { /* cast("Client", value): the first argument */
        text = qn_field_text(context, w->f_function, data, data_len, &len);
        if (text == NULL) return 0;
        text = qn_last_segment(text, &len);
        if (len != 4 || memcmp(text, "cast", 4) != 0) return 0;
        TSNode args = ts_node_child_by_field_id(context, w->f_arguments);
        if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0) return 0;
        return ts_node_start_byte(ts_node_named_child(args, 0)) == string_start;
    }
    return 0; /* function_definition, class_definition, block, module */
}

/* levels[depth] is a visible node: record it when it is such a string; 0 on error. */
static int qn_visit(QuotedNames *w, const DefLevel *levels, size_t depth, const char *data,
                    Py_ssize_t data_len) {
    TSNode node = levels[depth].node;
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (end > (uint32_t)data_len || end - start < 3) return 1;
    const unsigned char *t = (const unsigned char *)data + start;
    if ((t[0] != '"' && t[0] != '\'') || qn_match(t, (Py_ssize_t)(end - start), 0) != (Py_ssize_t)(end - start))
        return 1;
    if (!qn_has_start(w, start)) return 1;
    long which = -1;
    TSNode context = node;
    for (size_t up = 1; up <= w->max_up && up <= depth && which < 0; up++) {
        TSSymbol symbol = levels[depth - up].symbol; /* ts_node_symbol of that node */
        if (symbol < w->n_symbols) {
            which = w->context_of[symbol];
        } else { /* ERROR: by its name, as for any other */
            const char *type = ts_node_type(levels[depth - up].node);
            for (Py_ssize_t c = 0; c < w->n_contexts && which < 0; c++)
                if (strcmp(type, w->contexts[c]) == 0) which = (long)c;
        }
        if (which >= 0) context = levels[depth - up].node;
    }
    int decided = which >= 0 && qn_decides(w, context, w->decider[which], start, data, data_len);
    long long v[3] = {start, end, which};
    PyObject *item = int_tuple(3, v, Py_NewRef(decided ? Py_True : Py_False));
    if (item == NULL) return 0;
    if (w->last_start == (int64_t)start) /* a string node inside one over the same bytes: */
        /* enclosing() answers the match with the nearest, the inner one, visited last */
        return PyList_SetItem(w->out, PyList_GET_SIZE(w->out) - 1, item) == 0;
    w->last_start = start;
    int ok = PyList_Append(w->out, item) == 0;
    Py_DECREF(item);
    return ok;
}

/* The part of a QuotedNames that depends only on the language and the spec (the
 * strategy's constant): built on its first file, kept for the next ones (its symbol
 * tables cost a strcmp per symbol and context type). One entry: one strategy asks. */
static struct {
    const TSLanguage *lang;
    PyObject *spec; /* held: `contexts` point into its strings */
    QuotedNames tables;
} qn_cache = {NULL, NULL, {0}};

static void qn_tables_free(QuotedNames *t) {
    free(t->is_target);
    free(t->contexts);
    free(t->context_of);
    free(t->decider);
    memset(t, 0, sizeof(*t));
}

/* qn_cache for (spec, lang); 0 with an error set. */
static int qn_tables(PyObject *spec, const TSLanguage *lang) {
    if (qn_cache.spec == spec && qn_cache.lang == lang) return 1;
    qn_tables_free(&qn_cache.tables);
    Py_CLEAR(qn_cache.spec);
    qn_cache.lang = NULL;
    QuotedNames *w = &qn_cache.tables;
    const char *target;
    PyObject *contexts;
    if (!PyArg_ParseTuple(spec, "sO!I", &target, &PyTuple_Type, &contexts, &w->max_up)) return 0;
    uint32_t n_symbols = ts_language_symbol_count(lang);
    w->n_symbols = n_symbols;
    w->n_contexts = PyTuple_GET_SIZE(contexts);
    if (w->n_contexts > INT16_MAX) {
        PyErr_SetString(PyExc_ValueError, "strings: too many context types");
        return 0;
    }
    w->is_target = calloc(n_symbols + 1, 1);
    w->contexts = calloc((size_t)w->n_contexts + 1, sizeof(char *));
    w->context_of = malloc((n_symbols + 1) * sizeof(int16_t));
    w->decider = calloc((size_t)w->n_contexts + 1, 1);
    if (w->is_target == NULL || w->contexts == NULL || w->context_of == NULL || w->decider == NULL) {
        qn_tables_free(w);
        PyErr_NoMemory();
        return 0;
    }
    static const struct { const char *type; unsigned char decider; } deciders[] = {
        {"type", QN_TYPE}, {"keyword_argument", QN_KEYWORD_ARGUMENT}, {"subscript", QN_SUBSCRIPT},
        {"assignment", QN_ASSIGNMENT}, {"call", QN_CALL}};
    for (Py_ssize_t c = 0; c < w->n_contexts; c++) {
        if ((w->contexts[c] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(contexts, c))) == NULL) {
            qn_tables_free(w);
            return 0;
        }
        for (size_t k = 0; k < sizeof(deciders) / sizeof(deciders[0]); k++)
            if (strcmp(w->contexts[c], deciders[k].type) == 0) w->decider[c] = deciders[k].decider;
    }
    for (uint32_t sym = 0; sym < n_symbols; sym++) {
        const char *name = ts_language_symbol_name(lang, (TSSymbol)sym);
        w->is_target[sym] = name != NULL && strcmp(name, target) == 0;
        w->context_of[sym] = -1;
        for (Py_ssize_t c = 0; name != NULL && c < w->n_contexts; c++) {
            if (strcmp(name, w->contexts[c]) == 0) {
                w->context_of[sym] = (int16_t)c;
                break;
            }
        }
    }
    w->f_name = ts_language_field_id_for_name(lang, "name", 4);
    w->f_value = ts_language_field_id_for_name(lang, "value", 5);
    w->f_left = ts_language_field_id_for_name(lang, "left", 4);
    w->f_function = ts_language_field_id_for_name(lang, "function", 8);
    w->f_arguments = ts_language_field_id_for_name(lang, "arguments", 9);
    qn_cache.spec = Py_NewRef(spec);
    qn_cache.lang = lang;
    return 1;
}

/* strings = (target type, context types, max_up) -> a QuotedNames; 0 with an error set.
 * Its tables are qn_cache's (not freed by qn_free). */
static int qn_init(QuotedNames *w, PyObject *spec, const TSLanguage *lang, const char *data, Py_ssize_t data_len) {
    if (!qn_tables(spec, lang)) return 0;
    *w = qn_cache.tables;
    w->out = PyList_New(0);
    w->last_start = -1;
    if (w->out == NULL) return 0;
    w->starts = qn_starts((const unsigned char *)data, data_len, &w->n_starts);
    return w->starts != NULL;
}

static void qn_free(QuotedNames *w) {
    free(w->starts);
    Py_CLEAR(w->out);
}

static void found_capsule_destructor(PyObject *capsule) {
    Captures *found = PyCapsule_GetPointer(capsule, FOUND_CAPSULE);
    if (found != NULL) {
        free(found->caps);
        free(found);
    }
}

/* defs(root, handle, data[, collect]) -> [(rule index, D node, name node, (D id, name id), (D start byte,
 * end byte, start row, column, end row, column, then the same six of the name))] in walk
 * order, or None when a rule matches one D in more than one way (the caller then runs the engine).
 * The walk reads the runtime's subtrees directly (as WALK_KINDS does): the cursor's
 * bookkeeping cost more than the matching.
 * With `collect` (a compile_kinds handle: the reference pass's node types) the answer is
 * (that list, found): the walk also records those nodes, the same ones in the same order
 * as WALK_KINDS finds them, and scan(..., found) reads them instead of walking the tree
 * a second time (sympy's analysis above the parse: -10 %).
 * With `strings` too ((target type, context types, max_up); Python's type strings) the
 * answer is (list, found, strings): [(start, end, context index or -1, whether that
 * context decides it is a type (qn_decides))] for each target node whose text is one quoted-name match (_CANDIDATE) that
 * _CANDIDATE.finditer over the file finds at its start: what enclosing() answered for
 * those matches, without the regex over the file or a descent per match. */
static PyObject *refscan_defs(PyObject *self, PyObject *args) {
    PyObject *root_obj, *capsule, *collect_obj = Py_None, *strings_obj = Py_None;
    const char *data;
    Py_ssize_t data_len;
    if (!PyArg_ParseTuple(args, "OOy#|OO:defs", &root_obj, &capsule, &data, &data_len, &collect_obj, &strings_obj))
        return NULL;
    if (!check_node(root_obj)) return NULL;
    DefQuery *q = PyCapsule_GetPointer(capsule, DEF_CAPSULE);
    if (q == NULL) return NULL;
    TSNode root = ((BNode *)root_obj)->node;
    /* `collect`: a compile_kinds handle whose nodes this walk records on the way, in
     * WALK_KINDS's order (the same visit), for scan() to read instead of walking again */
    const RefQuery *collect = NULL;
    Captures found = {NULL, 0, 0, 1};
    if (collect_obj != Py_None) {
        collect = PyCapsule_GetPointer(collect_obj, QUERY_CAPSULE);
        if (collect == NULL) return NULL;
        if (collect->query != NULL || collect->rules != NULL || collect->language != ts_node_language(root)) {
            PyErr_SetString(PyExc_ValueError, "collect: a compile_kinds handle of this tree's language");
            return NULL;
        }
    }
    /* `strings` (only with `collect`): see QuotedNames */
    QuotedNames quoted = {0};
    QuotedNames *strings = NULL;
    if (strings_obj != Py_None) {
        if (collect == NULL) {
            PyErr_SetString(PyExc_ValueError, "strings: only with collect");
            return NULL;
        }
        if (!qn_init(&quoted, strings_obj, ts_node_language(root), data, data_len)) {
            qn_free(&quoted);
            return NULL;
        }
        strings = &quoted;
    }
#define COLLECT(SYMBOL, NODE)                                                                          \
    do {                                                                                               \
        if (collect && (SYMBOL) < collect->n_symbols && collect->kinds[(SYMBOL)] && !capture_add(&found, (NODE), 0)) { \
            status = -1;                                                                               \
            goto done;                                                                                 \
        }                                                                                              \
    } while (0)
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        qn_free(&quoted);
        return NULL;
    }
    size_t levels_size = 64, frames_size = 64, top = 0;
    DefLevel *levels = malloc(levels_size * sizeof(DefLevel));
    DefFrame *frames = malloc(frames_size * sizeof(DefFrame));
    int status = 0; /* 1 ambiguous, -1 error */
    if (levels == NULL || frames == NULL) {
        PyErr_NoMemory();
        status = -1;
        goto done;
    }
    const TSTree *tree = root.tree;
    const TSLanguage *lang = tree->language;
    levels[0].symbol = ts_node_symbol(root);
    levels[0].node = root;
    memset(&levels[0].status, 0, sizeof(DefStatus));
    levels[0].production = 0;
    levels[0].structural = DEF_NO_FIELD; /* the root has no field */
    COLLECT(levels[0].symbol, root);
    status = def_visit(q, levels, 0, root_obj, data, data_len, out);
    Subtree root_subtree = *(const Subtree *)root.id;
    if (status || ts_subtree_child_count(root_subtree) == 0) goto done;
    frames[0] = (DefFrame){root_subtree, ts_language_alias_sequence(lang, root_subtree.ptr->production_id),
                           {ts_node_start_byte(root), ts_node_start_point(root)}, 0, 0, 0, {0}};
    for (;;) {
        DefFrame *f = &frames[top];
        if (f->child == f->parent.ptr->child_count) {
            if (top == 0) break;
            top--;
            continue;
        }
        const Subtree *child = &ts_subtree_children(f->parent)[f->child];
        Length at = f->position;
        TSSymbol alias = 0;
        uint32_t structural = DEF_NO_FIELD; /* its field is looked up only where it is read */
        if (!ts_subtree_extra(*child)) {
            if (f->aliases) alias = f->aliases[f->structural];
            structural = f->structural++;
        }
        f->position = length_add(at, ts_subtree_size(*child));
        f->child++;
        if (f->child < f->parent.ptr->child_count)
            f->position = length_add(f->position, ts_subtree_padding(ts_subtree_children(f->parent)[f->child]));
        TSSymbol symbol = alias ? alias : ts_subtree_symbol(*child);
        size_t level = f->level;
        DefStatus inherit = {0};
        if (alias || ts_subtree_visible(*child)) {
            level = f->level + 1;
            if (level == levels_size) {
                levels_size *= 2;
                DefLevel *more = realloc(levels, levels_size * sizeof(DefLevel));
                if (more == NULL) {
                    PyErr_NoMemory();
                    status = -1;
                    goto done;
                }
                levels = more;
            }
            levels[level].symbol = def_public_symbol(lang, symbol);
            levels[level].node = def_node_at(tree, child, at, alias);
            levels[level].status = f->inherited;
            levels[level].production = f->parent.ptr->production_id;
            levels[level].structural = structural;
            COLLECT(levels[level].symbol, levels[level].node);
            if (strings && levels[level].symbol < strings->n_symbols && strings->is_target[levels[level].symbol] &&
                !qn_visit(strings, levels, level, data, data_len)) {
                status = -1;
                goto done;
            }
            /* most visible nodes are no rule's D: no call for them (a million on sympy's core/+printing/) */
            if (levels[level].symbol < q->n_symbols && q->kinds[levels[level].symbol]) {
                status = def_visit(q, levels, level, root_obj, data, data_len, out);
                if (status) goto done;
            }
        } else if (ts_subtree_child_count(*child) > 0) { /* a hidden leaf passes nothing on */
            inherit = f->inherited;
            TSFieldId own = structural == DEF_NO_FIELD ? 0 : def_field_of(lang, f->parent.ptr->production_id, structural);
            if (own) inherit.field = own;
            if (q->uses_super && def_is_supertype(lang, symbol) && inherit.n_super < 8)
                inherit.super[inherit.n_super++] = symbol;
        }
        if (ts_subtree_child_count(*child) > 0) {
            if (++top == frames_size) {
                frames_size *= 2;
                DefFrame *more = realloc(frames, frames_size * sizeof(DefFrame));
                if (more == NULL) {
                    PyErr_NoMemory();
                    status = -1;
                    goto done;
                }
                frames = more;
            }
            frames[top] = (DefFrame){*child, ts_language_alias_sequence(lang, child->ptr->production_id), at,
                                     0, 0, level, inherit};
        }
    }
#undef COLLECT
done:
    free(levels);
    free(frames);
    if (status != 0) {
        free(found.caps);
        qn_free(&quoted);
        Py_DECREF(out);
        if (status < 0) return NULL;
        Py_RETURN_NONE;
    }
    if (collect == NULL) return out;
    PyObject *strings_out = strings ? Py_NewRef(quoted.out) : NULL;
    qn_free(&quoted);
    Captures *kept = malloc(sizeof(Captures));
    if (kept == NULL) {
        free(found.caps);
        Py_XDECREF(strings_out);
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    *kept = found;
    PyObject *held = PyCapsule_New(kept, FOUND_CAPSULE, found_capsule_destructor);
    if (held == NULL) {
        free(found.caps);
        free(kept);
        Py_XDECREF(strings_out);
        Py_DECREF(out);
        return NULL;
    }
    if (PyCapsule_SetContext(held, (void *)collect) < 0) { /* the handle scan() checks it against */
        Py_DECREF(held);
        Py_XDECREF(strings_out);
        Py_DECREF(out);
        return NULL;
    }
    if (strings_out != NULL) return Py_BuildValue("(NNN)", out, held, strings_out);
    return Py_BuildValue("(NN)", out, held);
}
