/* Builders of the indexer's slotted records (indexing/model.py's Position, Range, Symbol,
 * Chunk; chunking/base.py's _Def) that fill their slots directly.
 *
 * Why: a frozen dataclass's __init__ is a Python frame per object that sets each field
 * through the slot's descriptor, and each such call (a method-wrapper) packs its
 * arguments in a tuple and unpacks them again: ~1,000 instructions a Position, ~2,500 a
 * Symbol. The definitions pass builds seven records per definition (8,000 definitions on
 * sympy's core/+printing/), the chunks pass one per chunk. maker(cls)(*values) builds the
 * same object (every slot set, in __slots__ order) in one vectorcall. Only for classes
 * whose __init__ sets exactly its slots from its arguments, in that order: the caller
 * (indexing/records.py) says which.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <structmember.h>

#define MAX_SLOTS 16

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *cls;
    Py_ssize_t n;
    Py_ssize_t offsets[MAX_SLOTS];
} Maker;

static PyObject *maker_vectorcall(PyObject *self_obj, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Maker *self = (Maker *)self_obj;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n != self->n || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0)) {
        PyErr_Format(PyExc_TypeError, "%s maker takes exactly %zd positional arguments (%zd given)",
                     self->cls->tp_name, self->n, n);
        return NULL;
    }
    PyObject *obj = self->cls->tp_alloc(self->cls, 0);
    if (obj == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) *(PyObject **)((char *)obj + self->offsets[i]) = Py_NewRef(args[i]);
    return obj;
}

static void maker_dealloc(PyObject *self) {
    Py_XDECREF(((Maker *)self)->cls);
    Py_TYPE(self)->tp_free(self);
}

static PyTypeObject MakerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "code_intel.indexing._records.Maker",
    .tp_basicsize = sizeof(Maker),
    .tp_dealloc = maker_dealloc,
    .tp_vectorcall_offset = offsetof(Maker, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Builds an instance of one slotted class from its slots' values, in __slots__ order.",
};

/* maker(cls): cls a class of object directly, with __slots__ (a tuple of names, each an
 * object slot of cls's own) and no __dict__; ValueError otherwise. */
static PyObject *records_maker(PyObject *module, PyObject *cls_obj) {
    if (!PyType_Check(cls_obj)) {
        PyErr_SetString(PyExc_TypeError, "maker(cls): a class");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)cls_obj;
    if (cls->tp_base != &PyBaseObject_Type || cls->tp_dictoffset != 0 || cls->tp_itemsize != 0) {
        PyErr_Format(PyExc_ValueError, "%s: not a slotted class of object", cls->tp_name);
        return NULL;
    }
    PyObject *slots = PyDict_GetItemString(cls->tp_dict, "__slots__"); /* its own: its base is object */
    if (slots == NULL || !PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) > MAX_SLOTS) {
        PyErr_Format(PyExc_ValueError, "%s: __slots__ is not a tuple of at most %d names", cls->tp_name, MAX_SLOTS);
        return NULL;
    }
    Maker *self = PyObject_New(Maker, &MakerType);
    if (self == NULL) return NULL;
    self->vectorcall = maker_vectorcall;
    self->cls = (PyTypeObject *)Py_NewRef(cls_obj);
    self->n = PyTuple_GET_SIZE(slots);
    for (Py_ssize_t i = 0; i < self->n; i++) {
        PyObject *descr = PyDict_GetItemWithError(cls->tp_dict, PyTuple_GET_ITEM(slots, i));
        if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type) ||
            ((PyMemberDescrObject *)descr)->d_member->type != T_OBJECT_EX) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s: slot %R is not an object slot of the class", cls->tp_name,
                             PyTuple_GET_ITEM(slots, i));
            Py_DECREF(self);
            return NULL;
        }
        self->offsets[i] = ((PyMemberDescrObject *)descr)->d_member->offset;
    }
    return (PyObject *)self;
}

static PyMethodDef methods[] = {
    {"maker", records_maker, METH_O,
     "maker(cls) -> a callable building cls from its slots' values, in __slots__ order (see native/records.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_records", "Builders of slotted records (see native/records.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__records(void) {
    if (PyType_Ready(&MakerType) < 0) return NULL;
    return PyModule_Create(&module);
}
