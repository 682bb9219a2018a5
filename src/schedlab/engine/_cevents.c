/*
 * schedlab.engine._cevents: the kernel's event queue (engine/queue.py), in C.
 *
 * The same API and the same order as the pure-Python ``PyEventQueue`` of queue.py (the
 * fallback and the oracle of the differential tests): events are popped by the key
 * (time, rank, order, seq), where seq counts the pushes, so no two keys are equal and
 * the order of pops does not depend on how the heap is laid out. The kernel checks every
 * time it pushes (no NaN: validated delays and durations), so comparing doubles with < is
 * the order of Python's tuples.
 *
 * Layout: one binary heap of plain C structs (the key and one Python object, the item
 * returned by the pops: the tuple ``(kind, order, a, b)`` built at the push), grown by
 * doubling. Comparisons are C comparisons of doubles and integers: a grid's heap holds tens
 * of thousands of events, and comparing Python tuples was a tenth of its run.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include "_cevents.h"

typedef struct {
    double t;
    long long rank;
    long long order;
    long long seq;
    PyObject *item; /* (kind, order, a, b), owned */
} Event;

typedef struct {
    PyObject_HEAD
    Event *heap;
    Py_ssize_t n;
    Py_ssize_t cap;
    long long seq; /* pushes so far: the seq of the last one */
} EventQueue;

static inline int
before(const Event *x, const Event *y)
{
    if (x->t != y->t)
        return x->t < y->t;
    if (x->rank != y->rank)
        return x->rank < y->rank;
    if (x->order != y->order)
        return x->order < y->order;
    return x->seq < y->seq;
}

static void
sift_up(Event *heap, Py_ssize_t pos)
{
    Event item = heap[pos];
    while (pos > 0) {
        Py_ssize_t parent = (pos - 1) >> 1;
        if (!before(&item, &heap[parent]))
            break;
        heap[pos] = heap[parent];
        pos = parent;
    }
    heap[pos] = item;
}

static void
sift_down(Event *heap, Py_ssize_t n, Py_ssize_t pos)
{
    Event item = heap[pos];
    for (;;) {
        Py_ssize_t child = 2 * pos + 1;
        if (child >= n)
            break;
        if (child + 1 < n && before(&heap[child + 1], &heap[child]))
            child++;
        if (!before(&heap[child], &item))
            break;
        heap[pos] = heap[child];
        pos = child;
    }
    heap[pos] = item;
}

/* the top's item (a new reference to the caller), the heap restored */
static PyObject *
take_top(EventQueue *self)
{
    PyObject *item = self->heap[0].item;
    self->n--;
    if (self->n > 0) {
        self->heap[0] = self->heap[self->n];
        sift_down(self->heap, self->n, 0);
    }
    return item;
}

static int
as_long_long(PyObject *value, long long *out, const char *what)
{
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "EventQueue: %s must be an int", what);
        return -1;
    }
    *out = v;
    return 0;
}

static int capi_push(PyObject *q, double t, long long rank, long long order, PyObject *item);

/* push(t, rank, order, kind, a=None, b=None) */
static PyObject *
EventQueue_push(EventQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 4 || nargs > 6) {
        PyErr_SetString(PyExc_TypeError,
                        "EventQueue.push(t, rank, order, kind, a=None, b=None)");
        return NULL;
    }
    Event ev;
    ev.t = PyFloat_AsDouble(args[0]);
    if (ev.t == -1.0 && PyErr_Occurred())
        return NULL;
    if (as_long_long(args[1], &ev.rank, "rank") < 0 ||
        as_long_long(args[2], &ev.order, "order") < 0)
        return NULL;
    PyObject *a = nargs > 4 ? args[4] : Py_None;
    PyObject *b = nargs > 5 ? args[5] : Py_None;
    ev.item = PyTuple_Pack(4, args[3], args[2], a, b);
    if (ev.item == NULL)
        return NULL;
    if (capi_push((PyObject *)self, ev.t, ev.rank, ev.order, ev.item) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* -- the C API other extensions call (a capsule: engine/_ckernel.c's loop) ------------- */

/* the time, rank and order of the next event into *t, *rank, *order: 1, or 0 when none */
static int
capi_peek(PyObject *q, double *t, long long *rank, long long *order)
{
    EventQueue *self = (EventQueue *)q;
    if (!self->n)
        return 0;
    *t = self->heap[0].t;
    *rank = self->heap[0].rank;
    *order = self->heap[0].order;
    return 1;
}

/* the next event's item (a new reference), removed; the queue must not be empty */
static PyObject *
capi_pop(PyObject *q)
{
    return take_top((EventQueue *)q);
}

/* push an event whose item is ``item`` (the reference is stolen, even on failure) */
static int
capi_push(PyObject *q, double t, long long rank, long long order, PyObject *item)
{
    EventQueue *self = (EventQueue *)q;
    if (self->n == self->cap) {
        Py_ssize_t cap = self->cap ? 2 * self->cap : 64;
        Event *grown = PyMem_Realloc(self->heap, (size_t)cap * sizeof(Event));
        if (grown == NULL) {
            Py_DECREF(item);
            PyErr_NoMemory();
            return -1;
        }
        self->heap = grown;
        self->cap = cap;
    }
    Event ev = {t, rank, order, ++self->seq, item};
    self->heap[self->n] = ev;
    sift_up(self->heap, self->n);
    self->n++;
    return 0;
}

static PyObject *
EventQueue_next_time(EventQueue *self, PyObject *Py_UNUSED(ignored))
{
    return PyFloat_FromDouble(self->n ? self->heap[0].t : Py_HUGE_VAL);
}

/* whether the top is an event of rank args[1] at time args[0] (``name(now, rank)``): 1 or
   0, -1 with an exception set on bad arguments */
static int
top_is(EventQueue *self, PyObject *const *args, Py_ssize_t nargs, const char *name)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "EventQueue.%s(now, rank)", name);
        return -1;
    }
    double now = PyFloat_AsDouble(args[0]);
    if (now == -1.0 && PyErr_Occurred())
        return -1;
    long long rank;
    if (as_long_long(args[1], &rank, "rank") < 0)
        return -1;
    return self->n && self->heap[0].t == now && self->heap[0].rank == rank;
}

/* pop_at(now, rank): the top's item if it is an event of that rank at now, else None */
static PyObject *
EventQueue_pop_at(EventQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
    int here = top_is(self, args, nargs, "pop_at");
    if (here < 0)
        return NULL;
    if (here)
        return take_top(self);
    Py_RETURN_NONE;
}

/* order_at(now, rank): the top's order if it is an event of that rank at now, else -1 */
static PyObject *
EventQueue_order_at(EventQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
    int here = top_is(self, args, nargs, "order_at");
    if (here < 0)
        return NULL;
    return PyLong_FromLongLong(here ? self->heap[0].order : -1);
}

static PyObject *
EventQueue_pop(EventQueue *self, PyObject *Py_UNUSED(ignored))
{
    if (!self->n) {
        PyErr_SetString(PyExc_IndexError, "pop from an empty event queue");
        return NULL;
    }
    return take_top(self);
}

static PyObject *
EventQueue_get_seq(EventQueue *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(self->seq);
}

static Py_ssize_t
EventQueue_len(EventQueue *self)
{
    return self->n;
}

static int
EventQueue_traverse(EventQueue *self, visitproc visit, void *arg)
{
    for (Py_ssize_t i = 0; i < self->n; i++)
        Py_VISIT(self->heap[i].item);
    return 0;
}

static int
EventQueue_clear(EventQueue *self)
{
    Py_ssize_t n = self->n;
    self->n = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        Py_CLEAR(self->heap[i].item);
    return 0;
}

static void
EventQueue_dealloc(EventQueue *self)
{
    PyObject_GC_UnTrack(self);
    EventQueue_clear(self);
    PyMem_Free(self->heap);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
EventQueue_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
        PyErr_SetString(PyExc_TypeError, "EventQueue() takes no arguments");
        return NULL;
    }
    EventQueue *self = (EventQueue *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->heap = NULL;
    self->n = self->cap = 0;
    self->seq = 0;
    return (PyObject *)self;
}

static PyMethodDef EventQueue_methods[] = {
    {"push", (PyCFunction)(void (*)(void))EventQueue_push, METH_FASTCALL,
     "push(t, rank, order, kind, a=None, b=None): an event; pops return (kind, order, a, b)"},
    {"next_time", (PyCFunction)EventQueue_next_time, METH_NOARGS,
     "The time of the next event (inf when none is left)."},
    {"pop_at", (PyCFunction)(void (*)(void))EventQueue_pop_at, METH_FASTCALL,
     "pop_at(now, rank): the next event's item if it is of that rank at now, else None."},
    {"order_at", (PyCFunction)(void (*)(void))EventQueue_order_at, METH_FASTCALL,
     "order_at(now, rank): the next event's order if it is of that rank at now, else -1."},
    {"pop", (PyCFunction)EventQueue_pop, METH_NOARGS, "The next event's item, removed."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef EventQueue_getset[] = {
    {"seq", (getter)EventQueue_get_seq, NULL, "The number of events pushed so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods EventQueue_as_sequence = {
    .sq_length = (lenfunc)EventQueue_len,
};

static PyTypeObject EventQueueType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "schedlab.engine._cevents.EventQueue",
    .tp_doc = "The kernel's events, popped by (time, rank, order, seq): engine/queue.py.",
    .tp_basicsize = sizeof(EventQueue),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = EventQueue_new,
    .tp_dealloc = (destructor)EventQueue_dealloc,
    .tp_traverse = (traverseproc)EventQueue_traverse,
    .tp_clear = (inquiry)EventQueue_clear,
    .tp_methods = EventQueue_methods,
    .tp_getset = EventQueue_getset,
    .tp_as_sequence = &EventQueue_as_sequence,
};

static struct PyModuleDef cevents_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "schedlab.engine._cevents",
    .m_doc = "The kernel's event queue in C (engine/queue.py has the pure-Python twin).",
    .m_size = -1,
};

/* what engine/_ckernel.c reads through the capsule (_cevents.h) */
static EventQueueCAPI capi = {&EventQueueType, capi_peek, capi_pop, capi_push};

PyMODINIT_FUNC
PyInit__cevents(void)
{
    if (PyType_Ready(&EventQueueType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&cevents_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&EventQueueType);
    if (PyModule_AddObject(m, "EventQueue", (PyObject *)&EventQueueType) < 0) {
        Py_DECREF(&EventQueueType);
        Py_DECREF(m);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(&capi, "schedlab.engine._cevents._C_API", NULL);
    if (capsule == NULL || PyModule_AddObject(m, "_C_API", capsule) < 0) {
        Py_XDECREF(capsule);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
