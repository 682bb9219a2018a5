/*
 * The state of a run of schedlab.engine._ckernel, which every part reads: the loop
 * (_ckernel.c) and the life of a job in it (_ckernel_jobs.c); _ckernel_state.c defines what
 * is declared here. See _ckernel.c for what the extension is.
 */

#ifndef SCHEDLAB_CKERNEL_STATE_H
#define SCHEDLAB_CKERNEL_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <math.h>
#include <stdlib.h>

#include "_cevents.h" /* the event queue's C API */

/* defined in _ckernel_state.c, set by the module's init or its first run (_ckernel.c) */
extern EventQueueCAPI *queue_api;
extern double nan_value; /* float("nan"), the NaN the Python code writes */
extern PyObject *s_segment_start_at, *s_free_procs, *s_on_submit, *s_on_finish,
    *s_time_factor, *s_allocate, *s_schedule; /* attribute names, interned */

/* engine/events.py: kinds, ranks, states */
enum { END, NODES, RELEASE, ARRIVE, ADMIT, MESSAGE, WAKE_POOL, WAKE_ACTOR };
enum { ENDS, DELIVERIES, WAKES };
enum { PENDING, WAITING, RUNNING, SUSPENDED, DONE, RELEASED, TRANSIT };

/* slots of the kernel (engine/core.py) and of a pool (engine/pools.py) */
enum {
    K_NOW, K_RUNNING, K_DONE, K_RELEASED, K_DIRTY_POOLS, K_DIRTY_ACTORS, K_SLOTS
};
enum {
    P_INDEX, P_FREE, P_FREE_TOTAL, P_POWERS, P_SINGLE, P_RNG, P_T_MAX, P_SLOWEST, P_MU_REC,
    P_MU_ENV, P_ENV_UPPER, P_POLICY, P_STEP, P_ENDED, P_VIEW, P_GIDS, P_QUEUED, P_RECEIVED,
    P_CHANGE_LOGS, P_RUNNING, P_DIRTY, P_APPENDS, P_ATTRIBUTE_APPENDS, P_SLOTS
};

/* the job table's typed columns this loop reads or writes (engine/jobs.py) */
enum {
    /* "d" */
    C_RELEASE_AT, C_WORK, C_REQUESTED_WORK, C_REQUESTED_S, C_SEG_START, C_FACTOR,
    C_DONE_WORK, C_NODE_POWER, C_SUBMITTED_AT, C_ADMITTED_AT, C_STARTED_AT, C_FINISHED_AT,
    C_POOL_TIME, C_OVERHEAD, C_SEG_OVER, C_SUSPENDED_SINCE, C_SUSPENDED_TIME,
    /* "q" */
    C_PROCS, C_USER, C_PARENT, C_LOCAL, C_HOST, C_HOST_USED, C_GEN, C_ALLOC_PROCS,
    /* "i" */
    C_TARGET_ACTOR, C_TARGET_POOL, C_WHERE,
    /* "b" */
    C_OPEN_ENDED, C_STATE, C_WILL_KILL, C_KILLED,
    C_COLUMNS
};
#define FIRST_PREEMPTION C_POOL_TIME /* columns C_POOL_TIME..C_SUSPENDED_TIME */
#define LAST_PREEMPTION C_SUSPENDED_TIME


/* the Python methods called for what is not done here (engine/compiled_loop.py) */
enum {
    F_COMPLETE, F_RELEASE_NODES, F_DELIVER, F_ARRIVE, F_START_LOCAL, F_NOTIFY, F_MESSAGE,
    F_MARK_ACTOR, F_ACTORS_PASS, F_BY_POOL, F_LIVELOCK, F_AFTER_INSTANT, F_PROGRESS,
    F_COUNT
};

typedef struct {
    PyObject *kernel, *queue, *table, *pools, *clock, *rigid, *started, *start_type;
    PyObject *call[F_COUNT]; /* borrowed from the parts dict, which outlives the run */
    PyObject *model, *children, *groups, *state_column; /* the table's lists; its state */
    Py_ssize_t kslot[K_SLOTS], pslot[P_SLOTS], clock_now;
    void *col[C_COLUMNS];
    Py_ssize_t jobs; /* the table's length when the pointers were taken */
    long long nroots_table; /* ids below are the workload's (children: roots only) */
    int preemptive, kill_on_overrun, heard, traced;
    long long max_rounds;
    PyObject *now_obj; /* ``now`` as a float, owned */
    double now;
} Run;

#define D(r, c) ((double *)(r)->col[c])
#define Q(r, c) ((long long *)(r)->col[c])
#define I(r, c) ((int *)(r)->col[c])
#define B(r, c) ((signed char *)(r)->col[c])

/* -- slots ------------------------------------------------------------------------------- */

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* a slot read that must have been set (as Python raises AttributeError) */
static inline PyObject *
get(PyObject *o, Py_ssize_t off, const char *name)
{
    PyObject *v = SLOT(o, off);
    if (v == NULL)
        PyErr_Format(PyExc_AttributeError, "_ckernel: %s is not set", name);
    return v;
}

/* a slot that holds a list (or, with ``tuple`` set, a tuple): a TypeError otherwise, rather
   than a read out of bounds */
static inline PyObject *
get_seq(PyObject *o, Py_ssize_t off, const char *name, int tuple)
{
    PyObject *v = get(o, off, name);
    if (v != NULL && !(tuple ? PyTuple_Check(v) : PyList_Check(v))) {
        PyErr_Format(PyExc_TypeError, "_ckernel: %s must be a %s", name,
                     tuple ? "tuple" : "list");
        return NULL;
    }
    return v;
}

/* set a slot to ``v`` (a new reference, stolen; NULL: an error already set) */
static inline int
put(PyObject *o, Py_ssize_t off, PyObject *v)
{
    if (v == NULL)
        return -1;
    PyObject *old = SLOT(o, off);
    SLOT(o, off) = v;
    Py_XDECREF(old);
    return 0;
}

static inline int
get_ll(PyObject *o, Py_ssize_t off, long long *out)
{
    PyObject *v = get(o, off, "an int slot");
    if (v == NULL)
        return -1;
    *out = PyLong_AsLongLong(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static inline int
get_d(PyObject *o, Py_ssize_t off, double *out)
{
    PyObject *v = get(o, off, "a number slot");
    if (v == NULL)
        return -1;
    *out = PyFloat_AsDouble(v);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* ``o.slot += delta`` on an int slot */
static inline int
slot_add(PyObject *o, Py_ssize_t off, long long delta)
{
    long long v;
    if (get_ll(o, off, &v) < 0)
        return -1;
    return put(o, off, PyLong_FromLongLong(v + delta));
}

/* -- the job table's columns and calls into Python ----------------------------------------- */

int ck_fetch_columns(Run *r); /* _ckernel_state.c */

/* after any call into Python: the table may have grown (a spawned job), which moves its
   columns; nothing else resizes them (engine/jobs.py, `JobTable.append`) */
static inline int
grown(Run *r)
{
    return Py_SIZE(r->state_column) != r->jobs ? ck_fetch_columns(r) : 0;
}

/* call a Python method of the kernel; -1 on error */
static inline int
call(Run *r, int f, PyObject *const *args, size_t nargs)
{
    PyObject *res = PyObject_Vectorcall(r->call[f], args, nargs, NULL);
    if (res == NULL)
        return -1;
    Py_DECREF(res);
    return grown(r);
}

/* call(f, j, now) */
static inline int
call_job(Run *r, int f, long long j)
{
    PyObject *jo = PyLong_FromLongLong(j);
    if (jo == NULL)
        return -1;
    PyObject *args[2] = {jo, r->now_obj};
    int rc = call(r, f, args, 2);
    Py_DECREF(jo);
    return rc;
}

/* call ``method(arg)`` (an append, a policy's hook); -1 on error */
static inline int
call1(Run *r, PyObject *method, PyObject *arg /* stolen */)
{
    if (arg == NULL)
        return -1;
    PyObject *res = PyObject_Vectorcall(method, &arg, 1, NULL);
    Py_DECREF(arg);
    if (res == NULL)
        return -1;
    Py_DECREF(res);
    return grown(r);
}

/* -- pools ----------------------------------------------------------------------------- */

static inline PyObject *
pool_at(Run *r, long long p)
{
    if (p < 0 || p >= PyList_GET_SIZE(r->pools)) {
        PyErr_Format(PyExc_IndexError, "_ckernel: no pool %lld", p);
        return NULL;
    }
    return PyList_GET_ITEM(r->pools, p);
}

/* every change log of the pool hears of a change (`Pool.change_logs`) */
static inline int
pool_changed(Run *r, PyObject *pool)
{
    PyObject *logs = get_seq(pool, r->pslot[P_CHANGE_LOGS], "change_logs", 1);
    if (logs == NULL)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(logs);
    if (!n)
        return 0;
    PyObject *index = get(pool, r->pslot[P_INDEX], "index");
    if (index == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyList_Append(PyTuple_GET_ITEM(logs, i), index) < 0)
            return -1;
    return 0;
}

/* `KernelCore.mark`: the pool schedules in the next round */
static inline int
mark(Run *r, PyObject *pool)
{
    if (SLOT(pool, r->pslot[P_DIRTY]) == Py_True)
        return 0;
    Py_INCREF(Py_True);
    put(pool, r->pslot[P_DIRTY], Py_True);
    PyObject *dirty = get_seq(r->kernel, r->kslot[K_DIRTY_POOLS], "_dirty_pools", 0);
    return dirty == NULL ? -1 : PyList_Append(dirty, pool);
}

#endif
