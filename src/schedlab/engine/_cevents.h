/*
 * The C API of schedlab.engine._cevents (the kernel's event queue), which other extensions
 * reach through the capsule "schedlab.engine._cevents._C_API" (engine/_ckernel.c's loop).
 */

#ifndef SCHEDLAB_CEVENTS_H
#define SCHEDLAB_CEVENTS_H

#include <Python.h>

typedef struct {
    PyTypeObject *type; /* the EventQueue type: check a queue with PyObject_TypeCheck */
    /* the time, rank and order of the next event into *t, *rank, *order: 1, or 0 when none */
    int (*peek)(PyObject *q, double *t, long long *rank, long long *order);
    /* the next event's item (a new reference), removed; the queue must not be empty */
    PyObject *(*pop)(PyObject *q);
    /* push an event whose item is ``item`` (the reference is stolen, even on failure) */
    int (*push)(PyObject *q, double t, long long rank, long long order, PyObject *item);
} EventQueueCAPI;

#endif
