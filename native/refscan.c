/* The reference pass of the indexer, compiled (code_intel.indexing._refscan).
 *
 * Why: the pass visits every identifier of the workspace. In Python each one costs a
 * binding Node object (captures()), a loop step and a tuple; on a large tree that is
 * ~1.4x tree-sitter's own parse. Here the query runs, the captures are filtered and
 * the Reference tuples are built in one C loop; Python keeps only per-file work.
 *
 * It links a vendored copy of the tree-sitter runtime (native/vendor/tree-sitter, the exact
 * version py-tree-sitter bundles: VENDORED_TREE_SITTER) and reads py-tree-sitter's
 * Node/Tree objects by their C layout, so the caller must check that
 * tree_sitter.__version__ equals TREE_SITTER_VERSION before using it
 * (indexing/chunking/native_refs.py does). The semantics mirror
 * TreeSitterStrategy._references_py exactly; tests compare the two.
 *
 * The definitions pass's matching lives in defscan.c, included below (same module).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tree_sitter/api.h"
/* the runtime's internals (vendored, same version): the walk below reads subtrees
 * directly, as tree_cursor.c does, without the cursor's bookkeeping */
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"
#include "tree_cursor.h"

#define VENDORED_TREE_SITTER "0.26.1"

/* py-tree-sitter 0.26.1, tree_sitter/binding/types.h */
typedef struct {
    PyObject_HEAD
    TSNode node;
    PyObject *children;
    PyObject *tree;
} BNode;

typedef struct {
    PyObject_HEAD
    TSTree *tree;
    PyObject *source;
    PyObject *language;
} BTree;

/* ---- compiled query ------------------------------------------------------------ */

typedef struct {
    uint32_t capture_id;
    const char *text; /* owned by the TSQuery, or malloc'd for a Rule */
    uint32_t length;
    int positive;
} EqString;


#define MAX_LEVELS 8

/* A single-path pattern, capture first: `(P field: (Q (name) @reference))` is levels
 * name, Q, P. field/anchored describe a level's node inside the next level's. */
typedef struct {
    uint32_t n_levels;
    TSSymbol symbols[MAX_LEVELS];
    TSFieldId fields[MAX_LEVELS]; /* 0: any field */
    unsigned char anchored[MAX_LEVELS]; /* the first named child */
    uint32_t n_preds;
    EqString preds[4]; /* on the captured node */
    /* Sibling tests a single path cannot say, on the top level's node P: its child in
     * check_field must be of check_symbol (`(binary_expression operator: "instanceof"
     * right: (name) @r)`), and with emit_field the rule yields P's child in that field,
     * when of emit_symbol, instead of the matched node (`(member_access_expression
     * object: (variable_name (name) (#eq? "this")) name: (name) @r)`). 0: none. */
    TSFieldId check_field, emit_field;
    TSSymbol check_symbol, emit_symbol;
    /* A name-set test on the captured node (`#any-of?` over many names): its text must
     * be in this frozenset of bytes. NULL: none. names_max: the longest name, so most
     * nodes are refused without building a bytes object. */
    PyObject *names;
    Py_ssize_t names_max;
} Rule;

typedef struct {
    TSQuery *query;          /* NULL: a tree walk (kinds, then rules if any) */
    unsigned char *kinds;    /* symbol -> 1 when a node of that type is (may be) a reference */
    uint32_t n_symbols;
    Rule *rules;             /* NULL: every node of `kinds` is a reference */
    uint32_t n_rules;
    const TSLanguage *language;
    uint32_t n_patterns;
    uint32_t *first; /* n_patterns + 1 offsets into preds */
    EqString *preds;
} RefQuery;

static const char *QUERY_CAPSULE = "code_intel.refscan.query";
/* the nodes of a compile_kinds handle, recorded by the definitions walk (defs) */
static const char *FOUND_CAPSULE = "code_intel.refscan.found";

static void query_free(RefQuery *q) {
    if (q == NULL) return;
    if (q->query) ts_query_delete(q->query);
    free(q->kinds);
    if (q->rules) {
        for (uint32_t r = 0; r < q->n_rules; r++) {
            for (uint32_t k = 0; k < q->rules[r].n_preds; k++) free((void *)q->rules[r].preds[k].text);
            Py_XDECREF(q->rules[r].names);
        }
        free(q->rules);
    }
    free(q->first);
    free(q->preds);
    free(q);
}

static void capsule_destructor(PyObject *capsule) {
    query_free((RefQuery *)PyCapsule_GetPointer(capsule, QUERY_CAPSULE));
}

static int check_node(PyObject *obj) {
    if (strcmp(Py_TYPE(obj)->tp_name, "tree_sitter.Node") != 0) {
        PyErr_Format(PyExc_TypeError, "expected a tree_sitter.Node, got %s", Py_TYPE(obj)->tp_name);
        return 0;
    }
    return 1;
}

/* A tuple of n ints (then `last`, a new reference stolen, when not NULL); NULL with an
 * error set. The per-statement and per-string answers are built with it: Py_BuildValue's
 * format parsing costs ~1,500 instructions a tuple, more than the tuple. */
static PyObject *int_tuple(Py_ssize_t n, const long long *values, PyObject *last) {
    PyObject *t = PyTuple_New(n + (last != NULL));
    if (t == NULL) {
        Py_XDECREF(last);
        return NULL;
    }
    if (last != NULL) PyTuple_SET_ITEM(t, n, last);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLongLong(values[k]);
        if (v == NULL) {
            Py_DECREF(t); /* unset slots are NULL, which its dealloc skips */
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

/* A handle for a walk over node types of `language` (compile_kinds, compile_rules),
 * with its per-symbol table; NULL with MemoryError set. */
static RefQuery *new_walk_query(const TSLanguage *language) {
    RefQuery *q = calloc(1, sizeof(RefQuery));
    if (q == NULL) return (RefQuery *)PyErr_NoMemory();
    q->language = language;
    q->n_symbols = ts_language_symbol_count(language);
    q->kinds = calloc(q->n_symbols + 1, 1);
    if (q->kinds == NULL) {
        query_free(q);
        return (RefQuery *)PyErr_NoMemory();
    }
    return q;
}

/* The Python handle owning `q` (freed here if that fails). */
static PyObject *wrap_query(RefQuery *q) {
    PyObject *capsule = PyCapsule_New(q, QUERY_CAPSULE, capsule_destructor);
    if (capsule == NULL) query_free(q);
    return capsule;
}

/* compile(node, source) -> capsule, or None when a predicate is one this module does
 * not evaluate (only #eq? / #not-eq? between a capture and a string are). */
static PyObject *refscan_compile(PyObject *self, PyObject *args) {
    PyObject *node_obj;
    const char *source;
    Py_ssize_t source_len;
    if (!PyArg_ParseTuple(args, "Os#:compile", &node_obj, &source, &source_len)) return NULL;
    if (!check_node(node_obj)) return NULL;
    const TSLanguage *language = ts_node_language(((BNode *)node_obj)->node);
    uint32_t error_offset;
    TSQueryError error_type;
    TSQuery *query = ts_query_new(language, source, (uint32_t)source_len, &error_offset, &error_type);
    if (query == NULL) {
        PyErr_Format(PyExc_ValueError, "query error %d at offset %u", (int)error_type, error_offset);
        return NULL;
    }
    RefQuery *q = calloc(1, sizeof(RefQuery));
    if (q == NULL) {
        ts_query_delete(query);
        return PyErr_NoMemory();
    }
    q->query = query;
    q->language = language;
    q->n_patterns = ts_query_pattern_count(query);
    q->first = calloc(q->n_patterns + 1, sizeof(uint32_t));
    uint32_t total_steps = 0;
    for (uint32_t p = 0; p < q->n_patterns; p++) {
        uint32_t n;
        ts_query_predicates_for_pattern(query, p, &n);
        total_steps += n;
    }
    q->preds = calloc(total_steps + 1, sizeof(EqString));
    if (q->first == NULL || q->preds == NULL) {
        query_free(q);
        return PyErr_NoMemory();
    }
    uint32_t count = 0;
    for (uint32_t p = 0; p < q->n_patterns; p++) {
        q->first[p] = count;
        uint32_t n;
        const TSQueryPredicateStep *steps = ts_query_predicates_for_pattern(query, p, &n);
        uint32_t i = 0;
        while (i < n) {
            /* one predicate: String(op) Capture String Done */
            uint32_t len;
            if (i + 3 >= n || steps[i].type != TSQueryPredicateStepTypeString ||
                steps[i + 1].type != TSQueryPredicateStepTypeCapture ||
                steps[i + 2].type != TSQueryPredicateStepTypeString ||
                steps[i + 3].type != TSQueryPredicateStepTypeDone) {
                query_free(q);
                Py_RETURN_NONE;
            }
            const char *op = ts_query_string_value_for_id(query, steps[i].value_id, &len);
            int positive;
            if (len == 3 && memcmp(op, "eq?", 3) == 0) {
                positive = 1;
            } else if (len == 7 && memcmp(op, "not-eq?", 7) == 0) {
                positive = 0;
            } else {
                query_free(q);
                Py_RETURN_NONE;
            }
            EqString *e = &q->preds[count++];
            e->capture_id = steps[i + 1].value_id;
            e->text = ts_query_string_value_for_id(query, steps[i + 2].value_id, &e->length);
            e->positive = positive;
            i += 4;
        }
    }
    q->first[q->n_patterns] = count;
    return wrap_query(q);
}

/* compile_kinds(node, names) -> handle for a query that is only an alternation of
 * named node types (`[(identifier) (type_identifier)] @reference`): a tree walk
 * finds those nodes several times faster than the query engine. */
static PyObject *refscan_compile_kinds(PyObject *self, PyObject *args) {
    PyObject *node_obj, *names;
    if (!PyArg_ParseTuple(args, "OO!:compile_kinds", &node_obj, &PyList_Type, &names)) return NULL;
    if (!check_node(node_obj)) return NULL;
    const TSLanguage *language = ts_node_language(((BNode *)node_obj)->node);
    RefQuery *q = new_walk_query(language);
    if (q == NULL) return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
        Py_ssize_t len;
        const char *name = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(names, i), &len);
        if (name == NULL) {
            query_free(q);
            return NULL;
        }
        TSSymbol symbol = ts_language_symbol_for_name(language, name, (uint32_t)len, true);
        if (symbol == 0 || symbol >= q->n_symbols) {
            query_free(q);
            return PyErr_Format(PyExc_ValueError, "no node type %s in this grammar", name);
        }
        q->kinds[symbol] = 1;
    }
    return wrap_query(q);
}

/* A rule's sibling test: None, or (field, node type, named) of `language`; 0 with an
 * exception set when the grammar has no such field or type. */
static int sibling_test(const TSLanguage *language, PyObject *spec, TSFieldId *field, TSSymbol *symbol) {
    if (spec == Py_None) return 1;
    const char *field_name, *type;
    Py_ssize_t field_len, type_len;
    int named;
    if (!PyArg_ParseTuple(spec, "s#s#p", &field_name, &field_len, &type, &type_len, &named)) return 0;
    *field = ts_language_field_id_for_name(language, field_name, (uint32_t)field_len);
    *symbol = ts_language_symbol_for_name(language, type, (uint32_t)type_len, named);
    if (*field == 0 || *symbol == 0) {
        PyErr_Format(PyExc_ValueError, "no field %s or node type %s in this grammar", field_name, type);
        return 0;
    }
    return 1;
}

/* The rule's name-set test: None, or a frozenset of bytes (see Rule.names). */
static int name_set(PyObject *spec, Rule *rule) {
    if (spec == Py_None) return 1;
    if (!PyFrozenSet_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "a rule's names must be a frozenset of bytes or None");
        return 0;
    }
    PyObject *it = PyObject_GetIter(spec), *item;
    if (it == NULL) return 0;
    while ((item = PyIter_Next(it)) != NULL) {
        if (!PyBytes_Check(item)) {
            Py_DECREF(item);
            Py_DECREF(it);
            PyErr_SetString(PyExc_TypeError, "a rule's names must be a frozenset of bytes or None");
            return 0;
        }
        if (PyBytes_GET_SIZE(item) > rule->names_max) rule->names_max = PyBytes_GET_SIZE(item);
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return 0;
    Py_INCREF(spec);
    rule->names = spec;
    return 1;
}

/* compile_rules(node, rules) -> handle for a query made of single-path patterns (the
 * PHP one): rules = [(levels, predicates)], levels = [(type, field or None, anchored)]
 * from the captured node up, predicates = [(positive, text)] on the captured node;
 * optionally then a check and an emit sibling test (see Rule), each (field, type,
 * named) or None, and a name set (frozenset of bytes: the captured node's text is one
 * of them) or None. indexing/chunking/refscan.py parses the query into this form or
 * keeps the engine. */
static PyObject *refscan_compile_rules(PyObject *self, PyObject *args) {
    PyObject *node_obj, *rules;
    if (!PyArg_ParseTuple(args, "OO!:compile_rules", &node_obj, &PyList_Type, &rules)) return NULL;
    if (!check_node(node_obj)) return NULL;
    const TSLanguage *language = ts_node_language(((BNode *)node_obj)->node);
    RefQuery *q = new_walk_query(language);
    if (q == NULL) return NULL;
    q->n_rules = (uint32_t)PyList_GET_SIZE(rules);
    q->rules = calloc(q->n_rules + 1, sizeof(Rule));
    if (q->rules == NULL) {
        query_free(q);
        return PyErr_NoMemory();
    }
    for (uint32_t r = 0; r < q->n_rules; r++) {
        Rule *rule = &q->rules[r];
        PyObject *levels, *preds, *check = Py_None, *emit = Py_None, *names = Py_None;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(rules, r), "O!O!|OOO", &PyList_Type, &levels, &PyList_Type, &preds,
                              &check, &emit, &names))
            goto fail;
        if (!name_set(names, rule)) goto fail;
        if (!sibling_test(language, check, &rule->check_field, &rule->check_symbol) ||
            !sibling_test(language, emit, &rule->emit_field, &rule->emit_symbol))
            goto fail;
        if (PyList_GET_SIZE(levels) < 1 || PyList_GET_SIZE(levels) > MAX_LEVELS || PyList_GET_SIZE(preds) > 4) {
            PyErr_SetString(PyExc_ValueError, "a rule has 1-8 levels and at most 4 predicates");
            goto fail;
        }
        rule->n_levels = (uint32_t)PyList_GET_SIZE(levels);
        for (uint32_t i = 0; i < rule->n_levels; i++) {
            const char *type, *field;
            Py_ssize_t type_len, field_len = 0;
            int anchored;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(levels, i), "s#z#p", &type, &type_len, &field, &field_len,
                                  &anchored))
                goto fail;
            rule->symbols[i] = ts_language_symbol_for_name(language, type, (uint32_t)type_len, true);
            if (rule->symbols[i] == 0 || rule->symbols[i] >= q->n_symbols) {
                PyErr_Format(PyExc_ValueError, "no node type %s in this grammar", type);
                goto fail;
            }
            if (field != NULL) {
                rule->fields[i] = ts_language_field_id_for_name(language, field, (uint32_t)field_len);
                if (rule->fields[i] == 0) {
                    PyErr_Format(PyExc_ValueError, "no field %s in this grammar", field);
                    goto fail;
                }
            }
            rule->anchored[i] = (unsigned char)anchored;
        }
        q->kinds[rule->symbols[0]] = 1;
        rule->n_preds = (uint32_t)PyList_GET_SIZE(preds);
        for (uint32_t k = 0; k < rule->n_preds; k++) {
            int positive;
            const char *text;
            Py_ssize_t len;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(preds, k), "ps#", &positive, &text, &len)) goto fail;
            char *copy = malloc((size_t)len + 1);
            if (copy == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            memcpy(copy, text, (size_t)len);
            rule->preds[k].text = copy;
            rule->preds[k].length = (uint32_t)len;
            rule->preds[k].positive = positive;
        }
    }
    return wrap_query(q);
fail:
    query_free(q);
    return NULL;
}

/* py-tree-sitter's rule: every node of the capture satisfies the (in)equality; a tree
 * without a source skips predicates. */
static int satisfies(const RefQuery *q, const TSQueryMatch *match, const char *source,
                     Py_ssize_t source_len) {
    if (source == NULL) return 1;
    for (uint32_t k = q->first[match->pattern_index]; k < q->first[match->pattern_index + 1]; k++) {
        const EqString *e = &q->preds[k];
        for (uint16_t c = 0; c < match->capture_count; c++) {
            if (match->captures[c].index != e->capture_id) continue;
            uint32_t s = ts_node_start_byte(match->captures[c].node);
            uint32_t t = ts_node_end_byte(match->captures[c].node);
            if (t > (uint32_t)source_len) t = (uint32_t)source_len;
            if (s > t) s = t;
            int equal = (t - s == e->length) && memcmp(source + s, e->text, e->length) == 0;
            if (equal != e->positive) return 0;
        }
    }
    return 1;
}

/* one ancestor of the walk's current node (see compile_rules) */
typedef struct {
    TSNode node;
    TSSymbol symbol;
    TSFieldId field;
    unsigned char first_named;
    uint32_t named_seen; /* named children of this node visited so far */
} Level;

/* Whether a rule matches the walk's node (levels[depth]); then *out is the node it
 * yields and *which the rule's index. -1 with an exception set. */
static int rules_match(const RefQuery *q, const Level *levels, size_t depth, TSNode node,
                       const char *source, Py_ssize_t source_len, TSNode *out, uint32_t *which) {
    for (uint32_t r = 0; r < q->n_rules; r++) {
        const Rule *rule = &q->rules[r];
        if (rule->n_levels > depth + 1 || rule->symbols[0] != levels[depth].symbol) continue;
        int ok = 1;
        for (uint32_t i = 0; ok && i < rule->n_levels; i++) {
            const Level *level = &levels[depth - i];
            if (i > 0 && level->symbol != rule->symbols[i]) ok = 0;
            else if (i + 1 < rule->n_levels && rule->fields[i] && level->field != rule->fields[i]) ok = 0;
            else if (i + 1 < rule->n_levels && rule->anchored[i] && !level->first_named) ok = 0;
        }
        if (ok && source != NULL && rule->n_preds) {
            uint32_t s = ts_node_start_byte(node), t = ts_node_end_byte(node);
            if (t > (uint32_t)source_len) t = (uint32_t)source_len;
            if (s > t) s = t;
            for (uint32_t k = 0; ok && k < rule->n_preds; k++) {
                const EqString *e = &rule->preds[k];
                int equal = (t - s == e->length) && memcmp(source + s, e->text, e->length) == 0;
                if (equal != e->positive) ok = 0;
            }
        }
        if (ok && source != NULL && rule->names != NULL) {
            uint32_t s = ts_node_start_byte(node), t = ts_node_end_byte(node);
            if (t > (uint32_t)source_len) t = (uint32_t)source_len;
            if (s > t) s = t;
            if ((Py_ssize_t)(t - s) > rule->names_max) {
                ok = 0;
            } else {
                PyObject *word = PyBytes_FromStringAndSize(source + s, (Py_ssize_t)(t - s));
                if (word == NULL) return -1;
                ok = PySet_Contains(rule->names, word);
                Py_DECREF(word);
                if (ok < 0) return -1;
            }
        }
        TSNode yielded = node;
        if (ok && (rule->check_field || rule->emit_field)) {
            TSNode top = levels[depth - (rule->n_levels - 1)].node;
            if (rule->check_field) {
                TSNode c = ts_node_child_by_field_id(top, rule->check_field);
                ok = !ts_node_is_null(c) && ts_node_symbol(c) == rule->check_symbol;
            }
            if (ok && rule->emit_field) {
                yielded = ts_node_child_by_field_id(top, rule->emit_field);
                ok = !ts_node_is_null(yielded) && ts_node_symbol(yielded) == rule->emit_symbol;
            }
        }
        if (ok) {
            *out = yielded;
            *which = r;
            return 1;
        }
    }
    return 0;
}

/* ---- the plain walk: every visible node whose type is in `kinds` --------------- */

typedef struct {
    Subtree parent;
    const TSSymbol *aliases;
    Length position; /* of the next child */
    uint32_t child;
    uint32_t structural;
} Frame;

/* Calls found(node) for each visible node of the kinds, in document order (that of
 * TSTreeCursor: a child's alias comes from its direct parent's production, extras
 * never take one). Returns 0 on allocation failure. */
#define WALK_KINDS(ROOT, KINDS, N_SYMBOLS, FOUND)                                                \
    do {                                                                                        \
        const TSTree *tree_ = (ROOT).tree;                                                      \
        const TSLanguage *lang_ = tree_->language;                                              \
        if (ts_node_symbol(ROOT) < (N_SYMBOLS) && (KINDS)[ts_node_symbol(ROOT)]) FOUND(ROOT);   \
        Subtree top_ = *(const Subtree *)(ROOT).id;                                             \
        if (ts_subtree_child_count(top_) == 0) break;                                           \
        size_t depth_ = 0;                                                                      \
        frames[0] = (Frame){top_, ts_language_alias_sequence(lang_, top_.ptr->production_id),   \
                            {ts_node_start_byte(ROOT), ts_node_start_point(ROOT)}, 0, 0};       \
        for (;;) {                                                                              \
            Frame *f_ = &frames[depth_];                                                        \
            if (f_->child == f_->parent.ptr->child_count) {                                     \
                if (depth_ == 0) break;                                                         \
                depth_--;                                                                       \
                continue;                                                                       \
            }                                                                                   \
            const Subtree *child_ = &ts_subtree_children(f_->parent)[f_->child];                \
            Length at_ = f_->position;                                                          \
            TSSymbol alias_ = 0;                                                                \
            if (!ts_subtree_extra(*child_)) {                                                   \
                if (f_->aliases) alias_ = f_->aliases[f_->structural];                          \
                f_->structural++;                                                               \
            }                                                                                   \
            f_->position = length_add(at_, ts_subtree_size(*child_));                           \
            f_->child++;                                                                        \
            if (f_->child < f_->parent.ptr->child_count)                                        \
                f_->position = length_add(                                                      \
                    f_->position, ts_subtree_padding(ts_subtree_children(f_->parent)[f_->child])); \
            if (alias_ || ts_subtree_visible(*child_)) {                                        \
                TSSymbol sym_ = ts_language_public_symbol(                                      \
                    lang_, alias_ ? alias_ : ts_subtree_symbol(*child_));                       \
                if (sym_ < (N_SYMBOLS) && (KINDS)[sym_]) {                                      \
                    TSNode node_ = ts_node_new(tree_, child_, at_, alias_);                     \
                    FOUND(node_);                                                               \
                }                                                                               \
            }                                                                                   \
            if (ts_subtree_child_count(*child_) > 0) {                                          \
                if (++depth_ == frames_size) {                                                  \
                    frames_size *= 2;                                                           \
                    Frame *more_ = realloc(frames, frames_size * sizeof(Frame));                \
                    if (more_ == NULL) {                                                        \
                        PyErr_NoMemory();                                                       \
                        goto done;                                                              \
                    }                                                                           \
                    frames = more_;                                                             \
                }                                                                               \
                frames[depth_] = (Frame){*child_,                                               \
                                         ts_language_alias_sequence(lang_, child_->ptr->production_id), \
                                         at_, 0, 0};                                            \
            }                                                                                   \
        }                                                                                       \
    } while (0)

/* ---- per-file name cache: raw identifier bytes -> (name, byte length | -1) ------- */

typedef struct {
    const char *raw;
    uint32_t len;
    uint32_t hash;
    PyObject *name; /* NULL slot empty; Py_None: not a name */
    int32_t width;  /* byte length, -1 when the text spans lines */
    uint32_t group; /* packing (scan's `pack` mode): the name's row + 1; 0: none yet */
} NameSlot;

typedef struct {
    NameSlot *slots;
    uint32_t mask;
    uint32_t used;
} NameTable;

static uint32_t fnv1a(const char *p, uint32_t n) {
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 16777619u;
    }
    return h;
}

static void names_free(NameTable *t) {
    if (t->slots == NULL) return;
    for (uint32_t i = 0; i <= t->mask; i++) Py_XDECREF(t->slots[i].name);
    free(t->slots);
    t->slots = NULL;
}

static int names_grow(NameTable *t) {
    uint32_t size = (t->mask + 1) * 2;
    NameSlot *slots = calloc(size, sizeof(NameSlot));
    if (slots == NULL) return 0;
    for (uint32_t i = 0; i <= t->mask; i++) {
        NameSlot *s = &t->slots[i];
        if (s->name == NULL) continue;
        uint32_t j = s->hash & (size - 1);
        while (slots[j].name != NULL) j = (j + 1) & (size - 1);
        slots[j] = *s;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 1;
}

/* _reference_name: decode (errors=replace); a name starts with a letter or one of
 * `_$\#`; PHP's `$` sigil is stripped. */
static PyObject *make_name(const char *raw, uint32_t len, int sigil) {
    PyObject *name = PyUnicode_DecodeUTF8(raw, len, "replace");
    if (name == NULL) return NULL;
    if (PyUnicode_GET_LENGTH(name) == 0) {
        Py_DECREF(name);
        Py_RETURN_NONE;
    }
    Py_UCS4 first = PyUnicode_READ_CHAR(name, 0);
    if (!(Py_UNICODE_ISALPHA(first) || first == '_' || first == '$' || first == '\\' || first == '#')) {
        Py_DECREF(name);
        Py_RETURN_NONE;
    }
    if (sigil && first == '$') {
        Py_ssize_t n = PyUnicode_GET_LENGTH(name), i = 0;
        while (i < n && PyUnicode_READ_CHAR(name, i) == '$') i++;
        PyObject *rest = PyUnicode_Substring(name, i, n);
        Py_DECREF(name);
        return rest;
    }
    return name;
}

static NameSlot *names_get(NameTable *t, const char *raw, uint32_t len, int sigil) {
    uint32_t h = fnv1a(raw, len);
    uint32_t j = h & t->mask;
    while (t->slots[j].name != NULL) {
        NameSlot *s = &t->slots[j];
        if (s->hash == h && s->len == len && memcmp(s->raw, raw, len) == 0) return s;
        j = (j + 1) & t->mask;
    }
    PyObject *name = make_name(raw, len, sigil);
    if (name == NULL) return NULL;
    NameSlot *s = &t->slots[j];
    s->raw = raw;
    s->len = len;
    s->hash = h;
    s->name = name;
    s->width = memchr(raw, '\n', len) ? -1 : (int32_t)len;
    if (++t->used * 2 > t->mask + 1) {
        if (!names_grow(t)) {
            PyErr_NoMemory();
            return NULL;
        }
        return names_get(t, raw, len, sigil); /* found again after the move */
    }
    return s;
}

/* ---- the pass ---------------------------------------------------------------------- */

/* What the second phase needs of a node, copied out during the walk: that phase
 * calls back into Python (names, UTF-16 columns), and nothing of the tree is touched
 * after the walk, so even a tree edited meanwhile by another thread is never read. */
typedef struct {
    uint32_t start;
    uint32_t order;
    uint32_t end;
    TSPoint start_point;
    TSPoint end_point;
    uint32_t rule; /* the rule that matched (a rules walk), else 0 */
} Capture;

/* Captures as a walk finds them; `sorted` stays 1 while they come in byte order. */
typedef struct {
    Capture *caps;
    size_t n, size;
    int sorted;
} Captures;

/* Appends `node`; 0 with MemoryError set. */
static int capture_add(Captures *l, TSNode node, uint32_t rule) {
    if (l->n == l->size) {
        size_t size = l->size ? l->size * 2 : 1024;
        Capture *more = realloc(l->caps, size * sizeof(Capture));
        if (more == NULL) {
            PyErr_NoMemory();
            return 0;
        }
        l->caps = more;
        l->size = size;
    }
    Capture *c = &l->caps[l->n];
    c->start = ts_node_start_byte(node);
    c->end = ts_node_end_byte(node);
    c->start_point = ts_node_start_point(node);
    c->end_point = ts_node_end_point(node);
    c->order = (uint32_t)l->n;
    c->rule = rule;
    if (l->n == 0) l->sorted = 1;
    else if (c->start < l->caps[l->n - 1].start) l->sorted = 0;
    l->n++;
    return 1;
}

static int capture_cmp(const void *a, const void *b) {
    const Capture *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}

static int read_u32_list(PyObject *list, uint32_t **out, Py_ssize_t *n) {
    PyObject *seq = PySequence_Fast(list, "expected a list of ints");
    if (seq == NULL) return 0;
    *n = PySequence_Fast_GET_SIZE(seq);
    *out = malloc(((size_t)*n + 1) * sizeof(uint32_t));
    if (*out == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return 0;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == (unsigned long)-1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return 0;
        }
        (*out)[i] = (uint32_t)v;
    }
    Py_DECREF(seq);
    return 1;
}

/* UTF-16 columns, as SourceDocument.utf16_column computes them: left of a row's first
 * non-ASCII byte a byte column is the answer; right of it, the UTF-16 length of the
 * bytes from there decoded with errors="replace". Counted here for well-formed UTF-8,
 * continuing from the row's previous answer (references come in position order, so a
 * long non-ASCII line is walked once, not once per identifier); anything else asks
 * the Python function, which stays the definition. */
typedef struct {
    const unsigned char *data;
    Py_ssize_t len;
    uint32_t n_rows;
    uint32_t *start;  /* byte offset of each row */
    uint32_t *first;  /* column of the row's first non-ASCII byte; UINT32_MAX: none */
    PyObject *callback;
    uint32_t row;     /* the last answer: row, byte column, UTF-16 column */
    long col, units;
    int cached;
} Utf16;

/* UTF-16 units of well-formed UTF-8 in [p, end); -1 when it is not well formed. */
static long utf16_units(const unsigned char *p, const unsigned char *end) {
    long units = 0;
    while (p < end) {
        unsigned char c = *p;
        int n;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            p++, units++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) n = 1;
        else if (c == 0xE0) n = 2, lo = 0xA0;
        else if (c == 0xED) n = 2, hi = 0x9F;
        else if (c >= 0xE1 && c <= 0xEF) n = 2;
        else if (c == 0xF0) n = 3, lo = 0x90;
        else if (c == 0xF4) n = 3, hi = 0x8F;
        else if (c >= 0xF1 && c <= 0xF3) n = 3;
        else return -1;
        if (end - p <= n) return -1;
        if (p[1] < lo || p[1] > hi) return -1;
        for (int k = 2; k <= n; k++)
            if (p[k] < 0x80 || p[k] > 0xBF) return -1;
        p += n + 1;
        units += n == 3 ? 2 : 1;
    }
    return units;
}

static int utf16_column(Utf16 *u, long row, long col, long *out) {
    if (row < 0 || (uint32_t)row >= u->n_rows || u->first[row] == UINT32_MAX || col <= (long)u->first[row]) {
        *out = col;
        return 1;
    }
    long from = u->first[row], base = u->first[row];
    if (u->cached && u->row == (uint32_t)row && u->col <= col) from = u->col, base = u->units;
    Py_ssize_t a = (Py_ssize_t)u->start[row] + from, b = (Py_ssize_t)u->start[row] + col;
    if (b > u->len) b = u->len;
    if (a > b) a = b;
    long units = utf16_units(u->data + a, u->data + b);
    if (units >= 0) {
        *out = base + units;
    } else {
        PyObject *r = PyObject_CallFunction(u->callback, "ll", row, col);
        if (r == NULL) return 0;
        *out = PyLong_AsLong(r);
        Py_DECREF(r);
        if (*out == -1 && PyErr_Occurred()) return 0;
    }
    u->cached = 1, u->row = (uint32_t)row, u->col = col, u->units = *out;
    return 1;
}

static PyObject *new_reference(PyTypeObject *type, PyObject *name, long sr, long sc, long er,
                               long ec, PyObject *container) {
    PyObject *t = type->tp_alloc(type, 6);
    if (t == NULL) return NULL;
    PyObject *a = PyLong_FromLong(sr), *b = PyLong_FromLong(sc);
    PyObject *c = PyLong_FromLong(er), *d = PyLong_FromLong(ec);
    if (!a || !b || !c || !d) {
        Py_XDECREF(a), Py_XDECREF(b), Py_XDECREF(c), Py_XDECREF(d);
        Py_DECREF(t);
        return NULL;
    }
    Py_INCREF(name);
    Py_INCREF(container);
    PyTuple_SET_ITEM(t, 0, name);
    PyTuple_SET_ITEM(t, 1, a);
    PyTuple_SET_ITEM(t, 2, b);
    PyTuple_SET_ITEM(t, 3, c);
    PyTuple_SET_ITEM(t, 4, d);
    PyTuple_SET_ITEM(t, 5, container);
    /* str, int and None cannot form a cycle: keep millions of these out of the
     * collector's generations (CPython untracks such tuples too, but only once a
     * collection has visited them). */
    PyObject_GC_UnTrack(t);
    return t;
}

/* A node's field in its parent's production (0: none), as the tree cursor finds it. */
static TSFieldId own_field(const TSLanguage *lang, Subtree parent, uint32_t structural) {
    const TSFieldMapEntry *map, *end;
    ts_language_field_map(lang, parent.ptr->production_id, &map, &end);
    for (; map < end; map++)
        if (!map->inherited && map->child_index == structural) return map->field_id;
    return 0;
}

/* One subtree whose children the rules walk is visiting (hidden ones included). */
typedef struct {
    Subtree parent;
    const TSSymbol *aliases;
    Length position; /* of the next child */
    uint32_t child;
    uint32_t structural;
    TSFieldId inherit; /* a hidden subtree's field: its visible children's without their own */
    int visible;       /* a visible node: it has a Level */
} RuleFrame;

/* The rules walk: every node a rule of `q` matches (see rules_match), in document
 * order of the matched nodes, into `out`; 0 with an exception set. The walk keeps,
 * per depth of visible nodes, each ancestor's node, type, its field in its parent and
 * whether it is its parent's first named child: what the rules look at. It reads the
 * subtrees directly as WALK_KINDS does (a TSTreeCursor costs several times more per
 * node), and finds fields, aliases and named-ness as ts_tree_cursor_current_field_id,
 * ts_node_symbol and ts_node_is_named do. */
static int walk_rules(const RefQuery *q, TSNode root, const char *source, Py_ssize_t source_len,
                      Captures *out) {
    const TSTree *tree = root.tree;
    const TSLanguage *lang = tree->language;
    size_t depth = 0, levels_size = 64, fdepth = 0, frames_size = 64;
    int ok = 0;
    Level *levels = malloc(levels_size * sizeof(Level));
    RuleFrame *frames = malloc(frames_size * sizeof(RuleFrame));
    TSNode yielded;
    uint32_t which;
    if (levels == NULL || frames == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    levels[0] = (Level){root, ts_node_symbol(root), 0, 0, 0};
    if (levels[0].symbol < q->n_symbols && q->kinds[levels[0].symbol]) {
        int m = rules_match(q, levels, 0, root, source, source_len, &yielded, &which);
        if (m < 0 || (m && !capture_add(out, yielded, which))) goto done;
    }
    Subtree top = *(const Subtree *)root.id;
    if (ts_subtree_child_count(top) == 0) {
        ok = 1;
        goto done;
    }
    frames[0] = (RuleFrame){top, ts_language_alias_sequence(lang, top.ptr->production_id),
                            {ts_node_start_byte(root), ts_node_start_point(root)}, 0, 0, 0, 1};
    for (;;) {
        RuleFrame *f = &frames[fdepth];
        if (f->child == f->parent.ptr->child_count) {
            if (fdepth == 0) break;
            if (f->visible) depth--;
            fdepth--;
            continue;
        }
        const Subtree *child = &ts_subtree_children(f->parent)[f->child];
        Length at = f->position;
        TSSymbol alias = 0;
        TSFieldId field = 0;
        int extra = ts_subtree_extra(*child);
        if (!extra) {
            if (f->aliases) alias = f->aliases[f->structural];
            field = own_field(lang, f->parent, f->structural);
            if (!field && !f->visible) field = f->inherit;
            f->structural++;
        }
        f->position = length_add(at, ts_subtree_size(*child));
        f->child++;
        if (f->child < f->parent.ptr->child_count)
            f->position = length_add(f->position, ts_subtree_padding(ts_subtree_children(f->parent)[f->child]));
        int visible = alias || ts_subtree_visible(*child);
        int has_children = ts_subtree_child_count(*child) > 0;
        if (visible) {
            if (++depth == levels_size) {
                levels_size *= 2;
                Level *more = realloc(levels, levels_size * sizeof(Level));
                if (more == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                levels = more;
            }
            TSNode node = ts_node_new(tree, child, at, alias);
            Level *here = &levels[depth];
            *here = (Level){node, ts_language_public_symbol(lang, alias ? alias : ts_subtree_symbol(*child)), field,
                            0, 0};
            int named = alias ? ts_language_symbol_metadata(lang, alias).named : ts_subtree_named(*child);
            if (named) {
                here->first_named = levels[depth - 1].named_seen == 0;
                levels[depth - 1].named_seen++;
            }
            if (here->symbol < q->n_symbols && q->kinds[here->symbol]) {
                int m = rules_match(q, levels, depth, node, source, source_len, &yielded, &which);
                if (m < 0 || (m && !capture_add(out, yielded, which))) goto done;
            }
            if (!has_children) depth--;
        }
        if (has_children) {
            if (++fdepth == frames_size) {
                frames_size *= 2;
                RuleFrame *more = realloc(frames, frames_size * sizeof(RuleFrame));
                if (more == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                frames = more;
            }
            frames[fdepth] = (RuleFrame){*child, ts_language_alias_sequence(lang, child->ptr->production_id), at, 0,
                                         0, extra ? 0 : field, visible};
        }
    }
    ok = 1;
done:
    free(levels);
    free(frames);
    return ok;
}

/* rule_spans(root, handle) -> [(start byte, end byte, rule index)] of the nodes a
 * compile_rules handle yields, by start byte; None when the tree's language is not the
 * handle's. For passes that want spans, not references (php.py's related classes). */
static PyObject *refscan_rule_spans(PyObject *self, PyObject *args) {
    PyObject *root_obj, *capsule;
    if (!PyArg_ParseTuple(args, "OO:rule_spans", &root_obj, &capsule)) return NULL;
    if (!check_node(root_obj)) return NULL;
    RefQuery *q = PyCapsule_GetPointer(capsule, QUERY_CAPSULE);
    if (q == NULL) return NULL;
    if (q->rules == NULL) {
        PyErr_SetString(PyExc_ValueError, "rule_spans needs a compile_rules handle");
        return NULL;
    }
    BNode *root = (BNode *)root_obj;
    if (ts_node_language(root->node) != q->language) Py_RETURN_NONE;
    const char *source = NULL;
    Py_ssize_t source_len = 0;
    if (root->tree != NULL && strcmp(Py_TYPE(root->tree)->tp_name, "tree_sitter.Tree") == 0) {
        PyObject *src = ((BTree *)root->tree)->source;
        if (src != NULL && PyBytes_Check(src)) {
            source = PyBytes_AS_STRING(src);
            source_len = PyBytes_GET_SIZE(src);
        }
    }
    Captures found = {NULL, 0, 0, 1};
    PyObject *result = NULL;
    if (!walk_rules(q, root->node, source, source_len, &found)) goto done;
    if (!found.sorted) qsort(found.caps, found.n, sizeof(Capture), capture_cmp);
    result = PyList_New((Py_ssize_t)found.n);
    if (result == NULL) goto done;
    for (size_t k = 0; k < found.n; k++) {
        PyObject *t = Py_BuildValue("(III)", found.caps[k].start, found.caps[k].end, found.caps[k].rule);
        if (t == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)k, t);
    }
done:
    free(found.caps);
    return result;
}

/* scan(root, query, data, name_starts, def_starts, def_ends, containers, sigil, utf16,
 *      reference_type) -> list of reference_type(name, sl, sc, el, ec, container), or None
 *      when the tree's language is not the one the query was compiled for
 *
 * name_starts: sorted start bytes of definition names (never references).
 * def_starts/def_ends/containers: the definitions in their list order (sorted by
 * start) and each one's qualified name; the innermost open one is a reference's
 * container. utf16: None for an ASCII file, else (row, byte col) -> UTF-16 column,
 * called for positions on rows holding non-ASCII bytes. */
/* ---- packing: store.pack_references in C ------------------------------------- */

/* One row of the packing: a name's occurrences as little-endian int32 quintuples
 * (start line, start column, end line, end column, container number), stored as int16
 * ones unless a value needs more (`wide`). */
typedef struct {
    unsigned char *bytes;
    size_t used, size;
    int wide;
} Group;

/* The rows of one file, names in first-occurrence order, and the file's containers
 * numbered in first-occurrence order (1-based; 0 is none), which every row's
 * container numbers index. */
typedef struct {
    PyObject *index; /* name -> row number */
    PyObject *order; /* the names, by row */
    Group *groups;
    size_t n, size;
    PyObject *numbers; /* container -> number, insertion-ordered */
    PyObject *last;    /* borrowed: the container the last occurrence had (they repeat) */
    long last_number;
} Packer;

static int packer_init(Packer *p) {
    memset(p, 0, sizeof(Packer));
    p->index = PyDict_New();
    p->order = PyList_New(0);
    p->numbers = PyDict_New();
    return p->index != NULL && p->order != NULL && p->numbers != NULL;
}

static void packer_free(Packer *p) {
    for (size_t g = 0; g < p->n; g++) free(p->groups[g].bytes);
    free(p->groups);
    Py_XDECREF(p->index);
    Py_XDECREF(p->order);
    Py_XDECREF(p->numbers);
    memset(p, 0, sizeof(Packer));
}

/* The row of `name`, opened after the others when it is new; -1 on error. */
static Py_ssize_t packer_row(Packer *p, PyObject *name) {
    PyObject *number = PyDict_GetItemWithError(p->index, name);
    if (number != NULL) return PyLong_AsSsize_t(number);
    if (PyErr_Occurred()) return -1;
    if (p->n == p->size) {
        size_t size = p->size ? p->size * 2 : 64;
        Group *more = realloc(p->groups, size * sizeof(Group));
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        p->groups = more;
        p->size = size;
    }
    PyObject *num = PyLong_FromSize_t(p->n);
    if (num == NULL || PyDict_SetItem(p->index, name, num) < 0 || PyList_Append(p->order, name) < 0) {
        Py_XDECREF(num);
        return -1;
    }
    Py_DECREF(num);
    memset(&p->groups[p->n], 0, sizeof(Group));
    return (Py_ssize_t)p->n++;
}

/* One occurrence's five values (sr, sc, er, ec, container number) appended as
 * little-endian int32s: one capacity check and one range check for the five (a call
 * per value was 19 M instructions on sympy's core/+printing/). */
static int put_occurrence(Group *g, const long v[5]) {
    for (int k = 0; k < 5; k++) {
        if (v[k] < INT32_MIN || v[k] > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "signed integer is greater than maximum");
            return 0;
        }
    }
    if (g->used + 20 > g->size) {
        size_t size = g->size ? g->size * 2 : 80;
        while (g->used + 20 > size) size *= 2;
        unsigned char *more = realloc(g->bytes, size);
        if (more == NULL) {
            PyErr_NoMemory();
            return 0;
        }
        g->bytes = more;
        g->size = size;
    }
    unsigned char *b = g->bytes + g->used;
    for (int k = 0; k < 5; k++, b += 4) {
        if (v[k] < INT16_MIN || v[k] > INT16_MAX) g->wide = 1;
        uint32_t u = (uint32_t)(int32_t)v[k];
        b[0] = u & 0xff, b[1] = (u >> 8) & 0xff, b[2] = (u >> 16) & 0xff, b[3] = u >> 24;
    }
    g->used += 20;
    return 1;
}

/* One occurrence into `row`; `container` (a str or None) is numbered per file in
 * first-occurrence order (0: none). */
static int packer_add(Packer *p, Py_ssize_t row, long sr, long sc, long er, long ec, PyObject *container) {
    Group *group = &p->groups[row];
    long number = 0;
    if (container != Py_None) {
        if (container == p->last) {
            number = p->last_number;
        } else {
            PyObject *known = PyDict_GetItemWithError(p->numbers, container);
            if (known == NULL) {
                if (PyErr_Occurred()) return 0;
                number = (long)PyDict_GET_SIZE(p->numbers) + 1;
                PyObject *num = PyLong_FromLong(number);
                if (num == NULL || PyDict_SetItem(p->numbers, container, num) < 0) {
                    Py_XDECREF(num);
                    return 0;
                }
                Py_DECREF(num);
            } else {
                number = PyLong_AsLong(known);
            }
            p->last = container, p->last_number = number;
        }
    }
    const long values[5] = {sr, sc, er, ec, number};
    return put_occurrence(group, values);
}

/* ([(path, name, count, positions)] one per row, the file's containers joined by sep);
 * `positions` is int16 quintuples where every value of the row fits, else int32 ones. */
static PyObject *packer_rows(Packer *p, PyObject *path, PyObject *sep) {
    PyObject *keys = PyDict_Keys(p->numbers);
    PyObject *joined = keys ? PyUnicode_Join(sep, keys) : NULL;
    Py_XDECREF(keys);
    PyObject *rows = joined ? PyList_New((Py_ssize_t)p->n) : NULL;
    if (rows == NULL) {
        Py_XDECREF(joined);
        return NULL;
    }
    for (size_t g = 0; g < p->n; g++) {
        Group *group = &p->groups[g];
        PyObject *positions;
        if (group->wide) {
            positions = PyBytes_FromStringAndSize((const char *)group->bytes, (Py_ssize_t)group->used);
        } else { /* the low halves of the little-endian int32s */
            positions = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(group->used / 2));
            if (positions) {
                unsigned char *to = (unsigned char *)PyBytes_AS_STRING(positions);
                for (size_t k = 0; k < group->used; k += 4) *to++ = group->bytes[k], *to++ = group->bytes[k + 1];
            }
        }
        /* built by hand: Py_BuildValue's format parsing was ~1,500 instructions a row */
        PyObject *row = NULL, *count = NULL;
        if (positions && (count = PyLong_FromSsize_t((Py_ssize_t)(group->used / 20))) != NULL &&
            (row = PyTuple_New(4)) != NULL) {
            PyObject *name = PyList_GET_ITEM(p->order, g);
            PyTuple_SET_ITEM(row, 0, Py_NewRef(path));
            PyTuple_SET_ITEM(row, 1, Py_NewRef(name));
            PyTuple_SET_ITEM(row, 2, count);
            PyTuple_SET_ITEM(row, 3, positions);
        } else {
            Py_XDECREF(count);
            Py_XDECREF(positions);
        }
        if (row == NULL) {
            Py_DECREF(rows);
            Py_DECREF(joined);
            return NULL;
        }
        PyList_SET_ITEM(rows, (Py_ssize_t)g, row);
    }
    return Py_BuildValue("(NN)", rows, joined);
}

/* References into the packing after what is there: (name, start line, start column, end
 * line, end column, container) 6-tuples when `with_container` (pack's Reference
 * tuples), else (name, sl, sc, el, ec) tuples, container None (scan's `extras`). */
static int packer_extend(Packer *p, PyObject *refs, int with_container) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(refs); i++) {
        PyObject *ref = PyList_GET_ITEM(refs, i);
        if (with_container ? !PyTuple_Check(ref) || PyTuple_GET_SIZE(ref) != 6
                           : !PyTuple_Check(ref) || PyTuple_GET_SIZE(ref) < 5) {
            PyErr_SetString(PyExc_TypeError, with_container ? "a reference is a 6-tuple"
                                                            : "an extra reference is (name, sl, sc, el, ec)");
            return 0;
        }
        long v[4];
        for (int k = 0; k < 4; k++) {
            v[k] = PyLong_AsLong(PyTuple_GET_ITEM(ref, k + 1));
            if (v[k] == -1 && PyErr_Occurred()) return 0;
        }
        Py_ssize_t row = packer_row(p, PyTuple_GET_ITEM(ref, 0));
        PyObject *container = with_container ? PyTuple_GET_ITEM(ref, 5) : Py_None;
        if (row < 0 || !packer_add(p, row, v[0], v[1], v[2], v[3], container)) return 0;
    }
    return 1;
}

/* pack(path, refs, sep) -> ([(path, name, count, positions)], containers), the rows of
 * store.pack_references: names in first-occurrence order, each name's occurrences in
 * list order; the file's containers numbered in first-occurrence order (0: none) and
 * joined by sep. */
static PyObject *refscan_pack(PyObject *self, PyObject *args) {
    PyObject *path, *refs, *sep, *rows = NULL;
    if (!PyArg_ParseTuple(args, "OO!U:pack", &path, &PyList_Type, &refs, &sep)) return NULL;
    Packer packer;
    if (!packer_init(&packer) || !packer_extend(&packer, refs, 1)) goto done;
    rows = packer_rows(&packer, path, sep);
done:
    packer_free(&packer);
    return rows;
}

static PyObject *refscan_scan(PyObject *self, PyObject *args) {
    PyObject *root_obj, *capsule, *name_starts_obj, *def_starts_obj, *def_ends_obj, *containers;
    PyObject *utf16, *found_obj = Py_None, *pack_path = Py_None, *extras = NULL, *sep = NULL;
    PyTypeObject *ref_type;
    const char *data;
    Py_ssize_t data_len;
    int sigil;
    if (!PyArg_ParseTuple(args, "OOy#OOOO!pOO!|OOO!U:scan", &root_obj, &capsule, &data, &data_len,
                          &name_starts_obj, &def_starts_obj, &def_ends_obj, &PyList_Type,
                          &containers, &sigil, &utf16, &PyType_Type, &ref_type, &found_obj,
                          &pack_path, &PyList_Type, &extras, &sep))
        return NULL;
    /* pack mode (pack_path not None): what pack(pack_path, references + extras,
     * sep) gives, without a Reference per occurrence; extras are (name, sl, sc, el, ec) */
    int packing = pack_path != Py_None;
    if (packing && (extras == NULL || sep == NULL)) {
        PyErr_SetString(PyExc_TypeError, "scan: pack mode needs extras and sep");
        return NULL;
    }
    Captures *given = NULL; /* the reference nodes the definitions walk recorded (defs) */
    if (found_obj != Py_None && (given = PyCapsule_GetPointer(found_obj, FOUND_CAPSULE)) == NULL) return NULL;
    if (given != NULL && PyCapsule_GetContext(found_obj) != PyCapsule_GetPointer(capsule, QUERY_CAPSULE)) {
        PyErr_SetString(PyExc_ValueError, "found: recorded for another handle");
        return NULL;
    }
    if (!check_node(root_obj)) return NULL;
    if (!PyType_IsSubtype(ref_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "reference_type must be a tuple subclass");
        return NULL;
    }
    RefQuery *q = PyCapsule_GetPointer(capsule, QUERY_CAPSULE);
    if (q == NULL) return NULL;
    BNode *root = (BNode *)root_obj;
    if (ts_node_language(root->node) != q->language) Py_RETURN_NONE; /* the Python pass runs */
    const char *source = NULL;
    Py_ssize_t source_len = 0;
    if (root->tree != NULL && strcmp(Py_TYPE(root->tree)->tp_name, "tree_sitter.Tree") == 0) {
        PyObject *src = ((BTree *)root->tree)->source;
        if (src != NULL && PyBytes_Check(src)) {
            source = PyBytes_AS_STRING(src);
            source_len = PyBytes_GET_SIZE(src);
        }
    }

    PyObject *result = NULL;
    uint32_t *name_starts = NULL, *def_starts = NULL, *def_ends = NULL, *stack = NULL;
    Captures found = {NULL, 0, 0, 1};
    Utf16 u16 = {0};
    NameTable names = {0};
    Packer packer = {0};
    TSQueryCursor *cursor = NULL;
    Frame *frames = NULL;
    size_t frames_size = 64;
    Py_ssize_t n_names, n_defs, n_ends;
    if (!read_u32_list(name_starts_obj, &name_starts, &n_names) ||
        !read_u32_list(def_starts_obj, &def_starts, &n_defs) ||
        !read_u32_list(def_ends_obj, &def_ends, &n_ends))
        goto done;
    if (n_ends != n_defs || PyList_GET_SIZE(containers) != n_defs) {
        PyErr_SetString(PyExc_ValueError, "def_starts, def_ends and containers differ in length");
        goto done;
    }
    stack = malloc(((size_t)n_defs + 1) * sizeof(uint32_t));
    if (stack == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    u16.data = (const unsigned char *)data, u16.len = data_len, u16.n_rows = 1, u16.callback = utf16;
    if (utf16 != Py_None) {
        for (Py_ssize_t k = 0; k < data_len; k++) u16.n_rows += data[k] == '\n';
        u16.start = malloc(u16.n_rows * sizeof(uint32_t));
        u16.first = malloc(u16.n_rows * sizeof(uint32_t));
        if (u16.start == NULL || u16.first == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        uint32_t row = 0;
        u16.start[0] = 0;
        u16.first[0] = UINT32_MAX;
        for (Py_ssize_t k = 0; k < data_len; k++) {
            unsigned char ch = (unsigned char)data[k];
            if (ch == '\n') {
                row++;
                u16.start[row] = (uint32_t)(k + 1);
                u16.first[row] = UINT32_MAX;
            } else if (ch >= 0x80 && u16.first[row] == UINT32_MAX) {
                u16.first[row] = (uint32_t)(k - u16.start[row]);
            }
        }
    }

    /* 1. the reference nodes (captures that pass their predicates), by start byte */
#define ADD_CAPTURE(NODE)                                  \
    do {                                                   \
        if (!capture_add(&found, (NODE), 0)) goto done;    \
    } while (0)
    if (given != NULL && q->query == NULL && q->rules == NULL) {
        found = *given; /* borrowed: the capsule frees it */
        if (!found.sorted) {
            qsort(found.caps, found.n, sizeof(Capture), capture_cmp);
            given->sorted = found.sorted = 1;
        }
    } else if (q->query == NULL && q->rules == NULL) {
        given = NULL;
        frames = malloc(frames_size * sizeof(Frame));
        if (frames == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        WALK_KINDS(root->node, q->kinds, q->n_symbols, ADD_CAPTURE);
    } else if (q->query == NULL) {
        if (!walk_rules(q, root->node, source, source_len, &found)) goto done;
    } else {
        cursor = ts_query_cursor_new();
        if (cursor == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        ts_query_cursor_exec(cursor, q->query, root->node);
        TSQueryMatch match;
        uint32_t capture_index;
        while (ts_query_cursor_next_capture(cursor, &match, &capture_index)) {
            if (!satisfies(q, &match, source, source_len)) continue;
            ADD_CAPTURE(match.captures[capture_index].node);
        }
    }
#undef ADD_CAPTURE
    Capture *caps = found.caps;
    size_t n_caps = found.n;
    if (!found.sorted) qsort(caps, n_caps, sizeof(Capture), capture_cmp);

    /* 2. the loop of _references_py */
    names.slots = calloc(1024, sizeof(NameSlot));
    if (names.slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    names.mask = 1023;
    if (packing ? !packer_init(&packer) : (result = PyList_New((Py_ssize_t)n_caps)) == NULL) goto fail;
    Py_ssize_t out = 0, ni = 0, i = 0, depth = 0;
    int64_t last = -1;               /* start of the last reference kept */
    int64_t next_def = n_defs ? (int64_t)def_starts[0] : -1;
    int64_t scope_end = -1;
    PyObject *container = Py_None;
    for (size_t k = 0; k < n_caps; k++) {
        uint32_t start = caps[k].start;
        if ((int64_t)start == last) continue;
        while (ni < n_names && name_starts[ni] < start) ni++;
        if (ni < n_names && name_starts[ni] == start) continue;
        uint32_t end = caps[k].end;
        if (end > (uint32_t)data_len) end = (uint32_t)data_len;
        if (start > end) start = end;
        NameSlot *slot = names_get(&names, data + start, end - start, sigil);
        if (slot == NULL) goto fail;
        if (slot->name == Py_None) continue;
        last = caps[k].start;
        if ((0 <= next_def && next_def <= start) || (0 <= scope_end && scope_end <= start)) {
            while (i < n_defs && def_starts[i] <= start) {
                while (depth && def_ends[stack[depth - 1]] <= def_starts[i]) depth--;
                stack[depth++] = (uint32_t)i;
                i++;
            }
            while (depth && def_ends[stack[depth - 1]] <= start) depth--;
            next_def = i < n_defs ? (int64_t)def_starts[i] : -1;
            scope_end = depth ? (int64_t)def_ends[stack[depth - 1]] : -1;
            container = depth ? PyList_GET_ITEM(containers, stack[depth - 1]) : Py_None;
        }
        TSPoint sp = caps[k].start_point;
        long sr = sp.row, sc = sp.column, er, ec;
        if (slot->width < 0) {
            TSPoint ep = caps[k].end_point;
            er = ep.row, ec = ep.column;
        } else {
            er = sr, ec = sc + slot->width;
        }
        if (u16.first != NULL && (!utf16_column(&u16, sr, sc, &sc) || !utf16_column(&u16, er, ec, &ec)))
            goto fail;
        if (packing) {
            if (slot->group == 0) {
                Py_ssize_t row = packer_row(&packer, slot->name);
                if (row < 0) goto fail;
                slot->group = (uint32_t)row + 1;
            }
            if (!packer_add(&packer, (Py_ssize_t)slot->group - 1, sr, sc, er, ec, container)) goto fail;
            continue;
        }
        PyObject *ref = new_reference(ref_type, slot->name, sr, sc, er, ec, container);
        if (ref == NULL) goto fail;
        PyList_SET_ITEM(result, out++, ref);
    }
    if (packing) {
        if (!packer_extend(&packer, extras, 0)) goto fail;
        result = packer_rows(&packer, pack_path, sep);
    } else if (PyList_SetSlice(result, out, (Py_ssize_t)n_caps, NULL) < 0) {
        goto fail;
    }
    goto done;
fail:
    Py_CLEAR(result);
done:
    if (cursor) ts_query_cursor_delete(cursor);
    names_free(&names);
    packer_free(&packer);
    if (given == NULL) free(found.caps);
    free(name_starts);
    free(def_starts);
    free(def_ends);
    free(stack);
    free(u16.start);
    free(u16.first);
    free(frames);
    return result;
}

#include "defscan.c"
#include "docblock.c"
#include "enclosing.c"
/* One fact tuple per binding Node of a Python list: php_facts' loop (phpfacts.c gives
 * the per-node function). */
static PyObject *facts_of_nodes(PyObject *args, const char *format, PyObject *(*fact)(TSNode)) {
    PyObject *nodes;
    if (!PyArg_ParseTuple(args, format, &PyList_Type, &nodes)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(nodes);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *obj = PyList_GET_ITEM(nodes, i);
        PyObject *item = check_node(obj) ? fact(((BNode *)obj)->node) : NULL;
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

#include "phpfacts.c"
#include "pyfacts.c"
#include "pyimports.c"

static PyMethodDef methods[] = {
    {"compile_defs", refscan_compile_defs, METH_VARARGS,
     "compile_defs(node, rules) -> handle matching definition patterns (see native/defscan.c)."},
    {"enclosing", refscan_enclosing, METH_VARARGS,
     "enclosing(root, starts, ends, targets, contexts, max_up) -> [(target start, end, context "
     "index or -1, context node or None, target node) or None] per span."},
    {"php_facts", refscan_php_facts, METH_VARARGS,
     "php_facts(nodes) -> [(kind, signature start, end, body start or -1, comment start, end, row, "
     "column)] (native/phpfacts.c)."},
    {"python_texts", refscan_python_texts, METH_VARARGS,
     "python_texts(nodes, data) -> [(signature, docstring or None)] (native/pyfacts.c)."},
    {"python_imports", refscan_python_imports, METH_VARARGS,
     "python_imports(root, data) -> (top import facts, nested import facts, (docstring start, end)) or None "
     "(native/pyimports.c)."},
    {"defs", refscan_defs, METH_VARARGS,
     "defs(root, handle, data) -> [(its rule's `definition.*` capture, definition node, name node, ids, "
     "bytes and points)], or None when ambiguous."},
    {"pack", refscan_pack, METH_VARARGS,
     "pack(path, refs, sep) -> (the store's packed rows, one per name, the file's containers) "
     "(store.pack_references)."},
    {"compile", refscan_compile, METH_VARARGS,
     "compile(node, source) -> query handle for node's language, or None when a predicate "
     "is not #eq?/#not-eq? against a string."},
    {"compile_kinds", refscan_compile_kinds, METH_VARARGS,
     "compile_kinds(node, names) -> handle that keeps the named nodes of these types."},
    {"compile_rules", refscan_compile_rules, METH_VARARGS,
     "compile_rules(node, rules) -> handle matching single-path patterns in a tree walk."},
    {"docblock_type_names", refscan_docblock_type_names, METH_VARARGS,
     "docblock_type_names(text) -> [(start, end, written)] (indexing/chunking/php_docblock.py)."},
    {"calls_any", refscan_calls_any, METH_VARARGS,
     "calls_any(data, names) -> whether a name of the frozenset is called (`name (`) in data."},
    {"rule_spans", refscan_rule_spans, METH_VARARGS,
     "rule_spans(root, handle) -> [(start byte, end byte, rule index)] of a compile_rules handle."},
    {"scan", refscan_scan, METH_VARARGS,
     "scan(root, query, data, name_starts, def_starts, def_ends, containers, sigil, utf16, "
     "reference_type[, found, pack_path, extras, sep]) -> the file's references; with a "
     "pack_path, pack()'s (rows, containers) of them followed by extras (name, sl, sc, el, ec)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_refscan",
    "The reference pass in C over py-tree-sitter's trees (see native/refscan.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__refscan(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "TREE_SITTER_VERSION", VENDORED_TREE_SITTER) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
