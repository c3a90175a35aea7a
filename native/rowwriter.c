/* A first build's worker appends its files' rows to its own rows file (indexing/store.py
 * `RowsFile`) through SQLite's C API, binding each row tuple's values directly.
 *
 * Why: through Python's `sqlite3` the binding costs more than SQLite's own insert
 * (`executemany` looks up an adapter for every None and bytes value, and copies every
 * string into SQLite's memory before the record copies it again): 11-13 % of a
 * worker's CPU on sympy, two thirds of it binding. Here each value is bound where it
 * is (SQLITE_STATIC: the tuple lives until its row is stepped), many rows a statement.
 *
 * Which SQLite: the very library Python's `_sqlite3` loaded, found through that module's
 * own handle (`dlopen(_sqlite3.__file__, RTLD_NOLOAD)`, whose `dlsym` searches its
 * dependencies), never a second copy of SQLite in the process (two copies break each
 * other's POSIX locks on a file). No sqlite3.h is needed: the few functions of SQLite's
 * stable C API used here are declared below. Where anything is missing `open` raises
 * and the caller writes through Python's `sqlite3` (the same rows). Python's public C
 * API only, none of its internals.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

#define RW_SQLITE_OK 0
#define RW_SQLITE_DONE 101
#define RW_SQLITE_OPEN_READWRITE 0x00000002
#define RW_SQLITE_OPEN_CREATE 0x00000004
#define RW_SQLITE_OPEN_NOMUTEX 0x00008000
#define RW_SQLITE_STATIC ((void (*)(void *))0)
#define RW_TABLES_MAX 8

static struct {
    int loaded;
    int (*open_v2)(const char *, sqlite3 **, int, const char *);
    int (*close)(sqlite3 *);
    int (*exec)(sqlite3 *, const char *, void *, void *, char **);
    int (*prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
    int (*bind_parameter_count)(sqlite3_stmt *);
    int (*bind_int64)(sqlite3_stmt *, int, long long);
    int (*bind_double)(sqlite3_stmt *, int, double);
    int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
    int (*bind_blob)(sqlite3_stmt *, int, const void *, int, void (*)(void *));
    int (*bind_null)(sqlite3_stmt *, int);
    int (*step)(sqlite3_stmt *);
    int (*reset)(sqlite3_stmt *);
    int (*clear_bindings)(sqlite3_stmt *);
    int (*finalize)(sqlite3_stmt *);
    int (*busy_timeout)(sqlite3 *, int);
    const char *(*errmsg)(sqlite3 *);
    void (*free)(void *);
} api;

typedef struct {
    sqlite3 *db;
    int tables;
    sqlite3_stmt *insert[RW_TABLES_MAX];
    sqlite3_stmt *many[RW_TABLES_MAX]; /* the same INSERT of `per[i]` rows */
    int params[RW_TABLES_MAX];
    int per[RW_TABLES_MAX];
} Writer;

static const char *CAPSULE = "code_intel.rowwriter";

/* Resolve SQLite's functions through the module `library` (Python's `_sqlite3`, already
 * loaded). 0 with a Python exception set when one is missing. */
static int load_api(const char *library) {
    if (api.loaded)
        return 1;
    void *handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    if (handle == NULL) {
        PyErr_Format(PyExc_OSError, "%s is not loaded", library);
        return 0;
    }
#define RESOLVE(field, name)                                                              \
    do {                                                                                  \
        *(void **)(&api.field) = dlsym(handle, name);                                     \
        if (api.field == NULL) {                                                          \
            PyErr_Format(PyExc_OSError, "%s not found through %s", name, library);        \
            return 0;                                                                     \
        }                                                                                 \
    } while (0)
    RESOLVE(open_v2, "sqlite3_open_v2");
    RESOLVE(close, "sqlite3_close");
    RESOLVE(exec, "sqlite3_exec");
    RESOLVE(prepare_v2, "sqlite3_prepare_v2");
    RESOLVE(bind_parameter_count, "sqlite3_bind_parameter_count");
    RESOLVE(bind_int64, "sqlite3_bind_int64");
    RESOLVE(bind_double, "sqlite3_bind_double");
    RESOLVE(bind_text, "sqlite3_bind_text");
    RESOLVE(bind_blob, "sqlite3_bind_blob");
    RESOLVE(bind_null, "sqlite3_bind_null");
    RESOLVE(step, "sqlite3_step");
    RESOLVE(reset, "sqlite3_reset");
    RESOLVE(clear_bindings, "sqlite3_clear_bindings");
    RESOLVE(finalize, "sqlite3_finalize");
    RESOLVE(busy_timeout, "sqlite3_busy_timeout");
    RESOLVE(errmsg, "sqlite3_errmsg");
    RESOLVE(free, "sqlite3_free");
#undef RESOLVE
    /* the handle stays open: the functions are used for the life of the process */
    api.loaded = 1;
    return 1;
}

static void writer_close(Writer *w) {
    for (int i = 0; i < w->tables; i++) {
        if (w->insert[i] != NULL)
            api.finalize(w->insert[i]);
        if (w->many[i] != NULL)
            api.finalize(w->many[i]);
    }
    if (w->db != NULL)
        api.close(w->db);
    PyMem_Free(w);
}

static void capsule_free(PyObject *capsule) {
    Writer *w = PyCapsule_GetPointer(capsule, CAPSULE);
    if (w != NULL)
        writer_close(w);
}

static int sql_error(Writer *w, const char *what) {
    PyErr_Format(PyExc_RuntimeError, "rows file: %s: %s", what, api.errmsg(w->db));
    return 0;
}

static int exec_sql(Writer *w, const char *sql) {
    char *message = NULL;
    if (api.exec(w->db, sql, NULL, NULL, &message) != RW_SQLITE_OK) {
        PyErr_Format(PyExc_RuntimeError, "rows file: %s", message ? message : "error");
        api.free(message);
        return 0;
    }
    return 1;
}

/* open(library, path, setup_sql, inserts) -> writer: opens (creates) the rows file at
 * `path`, runs `setup_sql` (pragmas, tables) and prepares each table's INSERTs, `inserts`
 * holding one (one-row INSERT, the same INSERT of `per` rows, per) per table. */
static PyObject *rowwriter_open(PyObject *self, PyObject *args) {
    const char *library, *path, *setup;
    PyObject *inserts;
    if (!PyArg_ParseTuple(args, "sssO!", &library, &path, &setup, &PyTuple_Type, &inserts))
        return NULL;
    Py_ssize_t tables = PyTuple_Size(inserts);
    if (tables < 1 || tables > RW_TABLES_MAX) {
        PyErr_SetString(PyExc_ValueError, "between 1 and 8 insert statements");
        return NULL;
    }
    if (!load_api(library))
        return NULL;
    Writer *w = PyMem_Calloc(1, sizeof(Writer));
    if (w == NULL)
        return PyErr_NoMemory();
    /* NOMUTEX: the connection is only ever used under the GIL, by calls of this module,
     * so SQLite need not lock it around every bind and step */
    int flags = RW_SQLITE_OPEN_READWRITE | RW_SQLITE_OPEN_CREATE | RW_SQLITE_OPEN_NOMUTEX;
    if (api.open_v2(path, &w->db, flags, NULL) != RW_SQLITE_OK) {
        if (w->db == NULL)
            PyErr_NoMemory();
        else
            sql_error(w, "open");
        writer_close(w);
        return NULL;
    }
    api.busy_timeout(w->db, 5000); /* what Python's sqlite3.connect sets */
    if (!exec_sql(w, setup)) {
        writer_close(w);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < tables; i++) {
        PyObject *item = PyTuple_GET_ITEM(inserts, i);
        const char *sql = NULL, *many = NULL;
        int per = 0;
        w->tables = (int)i + 1;
        if (!PyArg_ParseTuple(item, "ssi", &sql, &many, &per)) {
            writer_close(w);
            return NULL;
        }
        if (api.prepare_v2(w->db, sql, -1, &w->insert[i], NULL) != RW_SQLITE_OK
            || api.prepare_v2(w->db, many, -1, &w->many[i], NULL) != RW_SQLITE_OK) {
            sql_error(w, "prepare");
            writer_close(w);
            return NULL;
        }
        w->params[i] = api.bind_parameter_count(w->insert[i]);
        w->per[i] = per;
        if (per < 1 || api.bind_parameter_count(w->many[i]) != per * w->params[i]) {
            PyErr_SetString(PyExc_ValueError, "rows file: a many-row INSERT of the wrong size");
            writer_close(w);
            return NULL;
        }
    }
    PyObject *capsule = PyCapsule_New(w, CAPSULE, capsule_free);
    if (capsule == NULL)
        writer_close(w);
    return capsule;
}

/* Bind one value as Python's sqlite3 would: int, float, str (subclasses too), bytes or
 * bytearray, None. */
static int bind_value(Writer *w, sqlite3_stmt *stmt, int column, PyObject *value) {
    int rc;
    if (value == Py_None) {
        rc = api.bind_null(stmt, column);
    } else if (PyUnicode_Check(value)) {
        Py_ssize_t size;
        const char *text = PyUnicode_AsUTF8AndSize(value, &size);
        if (text == NULL)
            return 0;
        if (size > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "string longer than INT_MAX bytes");
            return 0;
        }
        rc = api.bind_text(stmt, column, text, (int)size, RW_SQLITE_STATIC);
    } else if (PyLong_Check(value)) {
        long long number = PyLong_AsLongLong(value);
        if (number == -1 && PyErr_Occurred())
            return 0;
        rc = api.bind_int64(stmt, column, number);
    } else if (PyFloat_Check(value)) {
        rc = api.bind_double(stmt, column, PyFloat_AsDouble(value));
    } else if (PyBytes_Check(value) || PyByteArray_Check(value)) {
        char *data = PyBytes_Check(value) ? PyBytes_AS_STRING(value) : PyByteArray_AS_STRING(value);
        Py_ssize_t size = PyBytes_Check(value) ? PyBytes_GET_SIZE(value) : PyByteArray_GET_SIZE(value);
        if (size > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "BLOB longer than INT_MAX bytes");
            return 0;
        }
        rc = api.bind_blob(stmt, column, data, (int)size, RW_SQLITE_STATIC);
    } else {
        PyErr_Format(PyExc_TypeError, "rows file: unsupported value of type %s",
                     Py_TYPE(value)->tp_name);
        return 0;
    }
    return rc == RW_SQLITE_OK ? 1 : sql_error(w, "bind");
}

/* Insert each row (a tuple of the statement's parameter count) of `rows`, a list of
 * lists of tuples, in order: `per` rows a statement while that many are left (SQLite's
 * work per statement, its program's start and `sqlite3VdbeHalt`, was a fifth of the
 * writing one row at a time), then one at a time. */
static int insert_rows(Writer *w, int table, PyObject *rows) {
    int params = w->params[table], per = w->per[table];
    if (!PyList_Check(rows)) {
        PyErr_SetString(PyExc_TypeError, "rows file: a table's rows are a list of lists");
        return 0;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t g = 0; g < PyList_GET_SIZE(rows); g++) {
        PyObject *group = PyList_GET_ITEM(rows, g);
        if (!PyList_Check(group)) {
            PyErr_SetString(PyExc_TypeError, "rows file: a table's rows are a list of lists");
            return 0;
        }
        total += PyList_GET_SIZE(group);
    }
    /* the first rows `per` at a time, the rest one by one */
    Py_ssize_t batched = total / per * per, n = 0;
    sqlite3_stmt *stmt = NULL;
    for (Py_ssize_t g = 0; g < PyList_GET_SIZE(rows); g++) {
        PyObject *group = PyList_GET_ITEM(rows, g);
        for (Py_ssize_t r = 0; r < PyList_GET_SIZE(group); r++, n++) {
            PyObject *row = PyList_GET_ITEM(group, r);
            if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != params) {
                PyErr_Format(PyExc_ValueError, "rows file: a row of table %d is not a tuple of %d values",
                             table, params);
                goto fail;
            }
            int slot = n < batched ? (int)(n % per) : 0;
            stmt = n < batched ? w->many[table] : w->insert[table];
            for (int c = 0; c < params; c++)
                if (!bind_value(w, stmt, slot * params + c + 1, PyTuple_GET_ITEM(row, c)))
                    goto fail;
            if (n < batched && slot != per - 1)
                continue;
            int rc = api.step(stmt);
            api.reset(stmt);
            if (rc != RW_SQLITE_DONE) {
                sql_error(w, "insert");
                goto fail;
            }
        }
    }
    /* no binding may outlive its row's tuple */
    api.clear_bindings(w->many[table]);
    api.clear_bindings(w->insert[table]);
    return 1;
fail:
    api.reset(w->many[table]);
    api.reset(w->insert[table]);
    api.clear_bindings(w->many[table]);
    api.clear_bindings(w->insert[table]);
    return 0;
}

/* write(writer, tables): one transaction appending each table's rows, `tables` holding
 * one list of lists of row tuples per prepared statement, in `open`'s order. */
static PyObject *rowwriter_write(PyObject *self, PyObject *args) {
    PyObject *capsule, *tables;
    if (!PyArg_ParseTuple(args, "OO!", &capsule, &PyTuple_Type, &tables))
        return NULL;
    Writer *w = PyCapsule_GetPointer(capsule, CAPSULE);
    if (w == NULL)
        return NULL;
    if (PyTuple_GET_SIZE(tables) != w->tables) {
        PyErr_Format(PyExc_ValueError, "rows file: %d tables' rows expected", w->tables);
        return NULL;
    }
    if (!exec_sql(w, "BEGIN"))
        return NULL;
    for (int t = 0; t < w->tables; t++) {
        if (!insert_rows(w, t, PyTuple_GET_ITEM(tables, t))) {
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            api.exec(w->db, "ROLLBACK", NULL, NULL, NULL);
            PyErr_Restore(type, value, traceback);
            return NULL;
        }
    }
    if (!exec_sql(w, "COMMIT"))
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"open", rowwriter_open, METH_VARARGS,
     "open(library, path, setup_sql, inserts) -> writer of a rows file; inserts: (one-row SQL, "
     "many-row SQL, rows in it) per table"},
    {"write", rowwriter_write, METH_VARARGS,
     "write(writer, tables): append each table's rows (lists of lists of tuples) in one transaction"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_rowwriter",
    "A first build's worker writes its rows file through SQLite's C API.", -1, methods,
};

PyMODINIT_FUNC PyInit__rowwriter(void) { return PyModule_Create(&module); }
