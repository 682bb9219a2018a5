/*
 * schedlab.engine._ckernel: the general kernel's loop in C (engine/compiled_loop.py says
 * what it is given; engine/kernel.py's ``Kernel._loop`` is the same loop in Python, the
 * fallback and the oracle of the tests).
 *
 * It does itself what every job of a cluster does, with the operations of engine/core.py,
 * engine/pools.py, engine/apply.py and engine/lifecycle.py in the same order on the same
 * doubles (so the same bits): a root's release straight to its pool, the admission to the
 * pool's view, its start on its own size (a `Steps` policy's, or a classic policy's
 * `Start(job)`), the end and the nodes freed; this file holds the loop and the passes,
 * _ckernel_jobs.c the life of a job, _ckernel_state.c the state they share. Whatever is not that plain case is handed, whole, to
 * the kernel's Python method for it, decided before any state is touched: a job for an
 * actor or behind a receive delay, an end with payloads, dependants, a node-release delay,
 * a checkpoint or an actor listening, a traced run, any other decision of a policy
 * (`Decisions.by_pool`), actors, messages, observers.
 *
 * State (_ckernel_state.h): the job table's typed columns are read and written in place
 * through pointers to their buffers (taken again whenever the table has grown: spawned jobs
 * are appended by Python code, and only in `JobTable.append`, which grows every column);
 * the kernel's and the pools' attributes are slots, reached at the offsets their member
 * descriptors give, as Python's own attribute access does.
 */

#include "_ckernel_jobs.h"
#include "_ckernel_state.h"

#include <stdlib.h>
#include <string.h>

static const char *kernel_slots[K_SLOTS] = {
    "now", "running", "done", "released", "_dirty_pools", "_dirty_actors",
};

static const char *pool_slots[P_SLOTS] = {
    "index", "free", "free_total", "powers", "single", "rng", "t_max", "slowest", "mu_rec",
    "mu_env", "env_upper", "policy", "step", "ended", "view", "gids", "queued", "received",
    "change_logs", "running", "dirty", "_appends", "_attribute_appends",
};


static const char *callback_names[F_COUNT] = {
    "complete", "release_nodes", "deliver", "arrive", "start_local", "notify", "message",
    "mark_actor", "actors_pass", "by_pool", "livelock", "after_instant", "progress",
};



/* -- slots ------------------------------------------------------------------------------- */

static int
slot_offset(PyObject *type, const char *name, Py_ssize_t *out)
{
    PyObject *d = PyObject_GetAttrString(type, name);
    if (d == NULL)
        return -1;
    int ok = Py_IS_TYPE(d, &PyMemberDescr_Type) &&
             ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
    if (ok)
        *out = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "_ckernel: %R.%s is not a slot", type, name);
        return -1;
    }
    return 0;
}

/* -- a `Steps` policy's pass ------------------------------------------------------------ */

static int
steps_pass_on(Run *r, PyObject *pool, PyObject *step, PyObject *view)
{
    PyObject *free = get(pool, r->pslot[P_FREE_TOTAL], "free_total");
    PyObject *ended = get_seq(pool, r->pslot[P_ENDED], "ended", 0);
    if (free == NULL || ended == NULL)
        return -1;
    Py_INCREF(free);
    int rc = PyObject_SetAttr(view, s_free_procs, free);
    long long nfree = PyLong_AsLongLong(free);
    if (rc < 0 || (nfree == -1 && PyErr_Occurred())) {
        Py_DECREF(free);
        return -1;
    }
    Py_INCREF(ended);
    if (PyList_GET_SIZE(ended)) {
        if (put(pool, r->pslot[P_ENDED], PyList_New(0)) < 0)
            goto fail;
    }
    else if (!nfree) {
        Py_DECREF(ended);
        Py_DECREF(free);
        return 0;
    }
    PyObject *gids = get(pool, r->pslot[P_GIDS], "gids");
    Py_ssize_t n = gids ? PyObject_Length(gids) : -1;
    PyObject *count = n < 0 ? NULL : PyLong_FromSsize_t(n);
    if (count == NULL)
        goto fail;
    PyObject *args[4] = {r->now_obj, free, count, ended};
    PyObject *starts = PyObject_Vectorcall(step, args, 4, NULL);
    Py_DECREF(count);
    Py_DECREF(ended);
    Py_DECREF(free);
    if (starts == NULL || grown(r) < 0) {
        Py_XDECREF(starts);
        return -1;
    }
    PyObject *it = PyObject_GetIter(starts);
    Py_DECREF(starts);
    if (it == NULL)
        return -1;
    PyObject *local;
    while ((local = PyIter_Next(it)) != NULL) {
        rc = ck_start_local(r, pool, local);
        Py_DECREF(local);
        if (rc < 0 || grown(r) < 0) {
            Py_DECREF(it);
            return -1;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return -1;
    PyObject *left = get(pool, r->pslot[P_FREE_TOTAL], "free_total");
    return left == NULL ? -1 : PyObject_SetAttr(view, s_free_procs, left);
fail:
    Py_DECREF(ended);
    Py_DECREF(free);
    return -1;
}

/* a `Steps` policy's pass (`Kernel._loop`, step 5), on the view it held at the start (a
   reference kept, as the Python loop's local variable keeps one) */
static int
steps_pass(Run *r, PyObject *pool, PyObject *step)
{
    PyObject *view = get(pool, r->pslot[P_VIEW], "view");
    if (view == NULL)
        return -1;
    Py_INCREF(view);
    int rc = steps_pass_on(r, pool, step, view);
    Py_DECREF(view);
    return rc;
}

/* a classic policy's pass (`Kernel._pool_pass`): its plain starts here, any other decision
   through `Decisions.by_pool` */
static int
classic_pass(Run *r, PyObject *pool)
{
    PyObject *view = get(pool, r->pslot[P_VIEW], "view");
    PyObject *policy = get(pool, r->pslot[P_POLICY], "policy");
    PyObject *free = get(pool, r->pslot[P_FREE_TOTAL], "free_total");
    if (view == NULL || policy == NULL || free == NULL ||
        PyObject_SetAttr(view, s_free_procs, free) < 0)
        return -1;
    Py_INCREF(view);
    PyObject *args[3] = {policy, r->now_obj, view};
    PyObject *decisions = PyObject_VectorcallMethod(s_schedule, args, 3, NULL);
    PyObject *it = decisions == NULL ? NULL : PyObject_GetIter(decisions);
    Py_XDECREF(decisions);
    if (it == NULL || grown(r) < 0)
        goto fail;
    PyObject *d;
    while ((d = PyIter_Next(it)) != NULL) {
        int rc;
        if (Py_TYPE(d) == (PyTypeObject *)r->start_type && PyTuple_GET_SIZE(d) == 2 &&
            PyTuple_GET_ITEM(d, 1) == Py_None) {
            rc = ck_start_local(r, pool, PyTuple_GET_ITEM(d, 0));
        }
        else {
            PyObject *call_args[3] = {pool, d, r->now_obj};
            rc = call(r, F_BY_POOL, call_args, 3);
        }
        Py_DECREF(d);
        if (rc < 0 || grown(r) < 0)
            goto fail;
    }
    if (PyErr_Occurred())
        goto fail;
    Py_DECREF(it);
    free = get(pool, r->pslot[P_FREE_TOTAL], "free_total");
    int rc = free == NULL ? -1 : PyObject_SetAttr(view, s_free_procs, free);
    Py_DECREF(view);
    return rc;
fail:
    Py_XDECREF(it);
    Py_DECREF(view);
    return -1;
}

static int
by_index(const void *x, const void *y)
{
    long long a = ((const long long *)x)[0], b = ((const long long *)y)[0];
    return (a > b) - (a < b);
}

/* the pools marked this round schedule, in index order (`Kernel._loop`, step 5) */
static int
pools_pass(Run *r)
{
    PyObject *marked = get_seq(r->kernel, r->kslot[K_DIRTY_POOLS], "_dirty_pools", 0);
    if (marked == NULL)
        return -1;
    Py_ssize_t n = PyList_GET_SIZE(marked);
    if (!n)
        return 0;
    Py_INCREF(marked);
    if (put(r->kernel, r->kslot[K_DIRTY_POOLS], PyList_New(0)) < 0) {
        Py_DECREF(marked);
        return -1;
    }
    /* (index, pool) pairs, sorted by index */
    long long *pairs = PyMem_Malloc((size_t)n * 2 * sizeof(long long));
    if (pairs == NULL) {
        Py_DECREF(marked);
        PyErr_NoMemory();
        return -1;
    }
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *pool = PyList_GET_ITEM(marked, i);
        rc = get_ll(pool, r->pslot[P_INDEX], &pairs[2 * i]);
        pairs[2 * i + 1] = (long long)i;
    }
    if (rc == 0 && n > 1)
        qsort(pairs, (size_t)n, 2 * sizeof(long long), by_index);
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *pool = PyList_GET_ITEM(marked, (Py_ssize_t)pairs[2 * i + 1]);
        Py_INCREF(Py_False);
        put(pool, r->pslot[P_DIRTY], Py_False);
        PyObject *step = get(pool, r->pslot[P_STEP], "step");
        if (step == NULL) {
            rc = -1;
        }
        else if (step == Py_None) {
            rc = classic_pass(r, pool);
        }
        else {
            Py_INCREF(step);
            rc = steps_pass(r, pool, step);
            Py_DECREF(step);
        }
    }
    PyMem_Free(pairs);
    Py_DECREF(marked);
    return rc;
}

/* -- the loop ---------------------------------------------------------------------------- */

/* whether the next event is of ``rank`` at ``now`` (its order into *order) */
static inline int
top_at(Run *r, int rank, long long *order)
{
    double t;
    long long k, o;
    if (!queue_api->peek(r->queue, &t, &k, &o) || t != r->now || k != rank)
        return 0;
    *order = o;
    return 1;
}

/* the next event's (kind, order, a, b), removed (a new reference) */
static PyObject *
pop_item(Run *r, long long *kind, long long *j)
{
    PyObject *item = queue_api->pop(r->queue);
    *kind = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 0));
    *j = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 1));
    return item;
}

static inline Py_ssize_t
list_size(Run *r, int slot)
{
    PyObject *v = get_seq(r->kernel, r->kslot[slot], kernel_slots[slot], 0);
    return v == NULL ? -1 : PyList_GET_SIZE(v);
}

static int
set_now(Run *r, double now)
{
    PyObject *f = PyFloat_FromDouble(now);
    if (f == NULL)
        return -1;
    Py_XSETREF(r->now_obj, f);
    r->now = now;
    Py_INCREF(f);
    Py_INCREF(f);
    put(r->kernel, r->kslot[K_NOW], f);
    put(r->clock, r->clock_now, f);
    return 0;
}

static int
loop(Run *r, PyObject *roots, long long *instants_out, long long *rounds_out)
{
    const long long *root_ids = NULL; /* NULL: every job is a root (roots is a range) */
    Py_buffer roots_view = {0};
    Py_ssize_t nroots;
    if (PyRange_Check(roots)) {
        nroots = PyObject_Length(roots);
        if (nroots < 0)
            return -1;
    }
    else {
        if (PyObject_GetBuffer(roots, &roots_view, PyBUF_FORMAT) < 0)
            return -1;
        if (roots_view.format == NULL || strcmp(roots_view.format, "q") != 0) {
            PyBuffer_Release(&roots_view);
            PyErr_SetString(PyExc_TypeError, "_ckernel: roots must be a range or array('q')");
            return -1;
        }
        root_ids = roots_view.buf; /* (held until the end: the array cannot move) */
        nroots = roots_view.len / (Py_ssize_t)sizeof(long long);
    }
#define ROOT(i) (root_ids ? root_ids[i] : (long long)(i))
    int rc = -1;
    Py_ssize_t ri = 0;
    double root_at = nroots ? D(r, C_RELEASE_AT)[ROOT(0)] : Py_HUGE_VAL;
    long long instants = 0, rounds_total = 0, kind, j, order;
    PyObject *progress = r->call[F_PROGRESS], *after = r->call[F_AFTER_INSTANT];
    for (;;) {
        double t;
        long long k, o;
        double now = queue_api->peek(r->queue, &t, &k, &o) ? t : Py_HUGE_VAL;
        if (root_at < now)
            now = root_at;
        if (now == Py_HUGE_VAL)
            break;
        instants++;
        if (progress != Py_None && !(instants & 4095)) {
            PyObject *done = get(r->kernel, r->kslot[K_DONE], "done");
            PyObject *total = PyLong_FromSsize_t(Py_SIZE(r->state_column));
            if (done == NULL || total == NULL) {
                Py_XDECREF(total);
                goto out;
            }
            PyObject *args[2] = {done, total};
            PyObject *res = PyObject_Vectorcall(progress, args, 2, NULL);
            Py_DECREF(total);
            if (res == NULL)
                goto out;
            Py_DECREF(res);
            if (grown(r) < 0)
                goto out;
        }
        if (set_now(r, now) < 0)
            goto out;
        long long rounds = 0;
        for (;;) {
            if (++rounds > r->max_rounds) {
                call(r, F_LIVELOCK, &r->now_obj, 1); /* (raises) */
                goto out;
            }
            /* 1. completions and node releases, in job order */
            while (top_at(r, ENDS, &order)) {
                PyObject *item = pop_item(r, &kind, &j);
                int ok;
                if (kind == END) {
                    long long gen = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 2));
                    ok = gen == Q(r, C_GEN)[j] ? ck_complete(r, j) : 0; /* (else stale) */
                }
                else {
                    ok = call_job(r, F_RELEASE_NODES, j);
                }
                Py_DECREF(item);
                if (ok < 0)
                    goto out;
            }
            /* 2. releases, arrivals, admissions (job order, roots merged in), messages */
            for (;;) {
                if (!top_at(r, DELIVERIES, &order))
                    order = -1;
                if (root_at == now && (order < 0 || ROOT(ri) < order)) {
                    if (ck_deliver(r, ROOT(ri)) < 0)
                        goto out;
                    ri++;
                    root_at = ri < nroots ? D(r, C_RELEASE_AT)[ROOT(ri)] : Py_HUGE_VAL;
                    continue;
                }
                if (order < 0)
                    break;
                PyObject *item = pop_item(r, &kind, &j);
                PyObject *a = PyTuple_GET_ITEM(item, 2), *b = PyTuple_GET_ITEM(item, 3);
                int ok;
                if (kind == RELEASE) {
                    ok = ck_deliver(r, j);
                }
                else if (kind == ARRIVE) {
                    PyObject *args[3] = {PyTuple_GET_ITEM(item, 1), a, r->now_obj};
                    ok = call(r, F_ARRIVE, args, 3);
                }
                else if (kind == ADMIT) {
                    PyObject *pool = pool_at(r, PyLong_AsLongLong(a));
                    ok = (pool == NULL || slot_add(pool, r->pslot[P_RECEIVED], -1) < 0)
                             ? -1
                             : ck_enter(r, pool, j);
                }
                else {
                    PyObject *args[2] = {a, b};
                    ok = call(r, F_MESSAGE, args, 2);
                }
                Py_DECREF(item);
                if (ok < 0)
                    goto out;
            }
            /* 3. wake-ups */
            while (top_at(r, WAKES, &order)) {
                PyObject *item = pop_item(r, &kind, &j);
                PyObject *a = PyTuple_GET_ITEM(item, 2);
                int ok;
                if (kind == WAKE_POOL) {
                    PyObject *pool = pool_at(r, PyLong_AsLongLong(a));
                    ok = pool == NULL ? -1 : mark(r, pool);
                }
                else {
                    ok = call(r, F_MARK_ACTOR, &a, 1);
                }
                Py_DECREF(item);
                if (ok < 0)
                    goto out;
            }
            /* 4. actors, then 5. pools, that had an event, in index order */
            Py_ssize_t actors = list_size(r, K_DIRTY_ACTORS);
            if (actors < 0 || (actors && call(r, F_ACTORS_PASS, &r->now_obj, 1) < 0))
                goto out;
            if (pools_pass(r) < 0)
                goto out;
            Py_ssize_t pools = list_size(r, K_DIRTY_POOLS);
            actors = list_size(r, K_DIRTY_ACTORS);
            if (pools < 0 || actors < 0)
                goto out;
            if (!pools && !actors && root_at != now &&
                !(queue_api->peek(r->queue, &t, &k, &o) && t == now))
                break;
        }
        rounds_total += rounds;
        if (after != Py_None && call(r, F_AFTER_INSTANT, &r->now_obj, 1) < 0)
            goto out;
    }
    *instants_out = instants;
    *rounds_out = rounds_total;
    rc = 0;
out:
    if (root_ids != NULL)
        PyBuffer_Release(&roots_view);
    return rc;
#undef ROOT
}

/* run(kernel, parts): the loop of ``Kernel._loop``; returns (instants, rounds) */
static PyObject *
run(PyObject *module, PyObject *args)
{
    PyObject *kernel, *parts;
    if (!PyArg_ParseTuple(args, "OO!:run", &kernel, &PyDict_Type, &parts))
        return NULL;
    if (queue_api == NULL) {
        PyObject *api = PyCapsule_Import("schedlab.engine._cevents._C_API", 0);
        if (api == NULL)
            return NULL;
        queue_api = (EventQueueCAPI *)api;
    }
    Run r = {0};
    r.kernel = kernel;
    PyObject *result = NULL, *roots;
#define PART(name) PyDict_GetItemString(parts, name)
    r.queue = PART("events");
    r.table = PART("table");
    r.pools = PART("pools");
    r.clock = PART("clock");
    r.rigid = PART("rigid");
    r.started = PART("started");
    r.start_type = PART("start_type");
    roots = PART("roots");
    PyObject *max_rounds = PART("max_rounds");
    if (!r.queue || !r.table || !r.pools || !r.clock || !r.rigid || !r.started || !roots ||
        !r.start_type || !PyType_Check(r.start_type) ||
        !max_rounds || !PART("kill_on_overrun") || !PART("heard") || !PART("traced")) {
        PyErr_SetString(PyExc_KeyError, "_ckernel.run: a part is missing");
        return NULL;
    }
    if (!PyObject_TypeCheck(r.queue, queue_api->type) || !PyList_Check(r.pools)) {
        PyErr_SetString(PyExc_TypeError, "_ckernel.run: the C event queue and a pool list");
        return NULL;
    }
    r.kill_on_overrun = PART("kill_on_overrun") == Py_True;
    r.heard = PART("heard") == Py_True;
    r.traced = PART("traced") == Py_True;
    r.max_rounds = PyLong_AsLongLong(max_rounds);
    if (r.max_rounds == -1 && PyErr_Occurred())
        return NULL;
    for (int f = 0; f < F_COUNT; f++) {
        r.call[f] = PART(callback_names[f]);
        if (r.call[f] == NULL) {
            PyErr_Format(PyExc_KeyError, "_ckernel.run: no %s", callback_names[f]);
            return NULL;
        }
    }
#undef PART
    PyObject *kernel_type = (PyObject *)Py_TYPE(kernel);
    for (int s = 0; s < K_SLOTS; s++)
        if (slot_offset(kernel_type, kernel_slots[s], &r.kslot[s]) < 0)
            return NULL;
    Py_ssize_t npools = PyList_GET_SIZE(r.pools);
    if (!npools) {
        PyErr_SetString(PyExc_ValueError, "_ckernel.run: no pool");
        return NULL;
    }
    PyTypeObject *pool_type = Py_TYPE(PyList_GET_ITEM(r.pools, 0));
    for (Py_ssize_t i = 0; i < npools; i++)
        if (Py_TYPE(PyList_GET_ITEM(r.pools, i)) != pool_type) {
            PyErr_SetString(PyExc_TypeError, "_ckernel.run: pools of one type");
            return NULL;
        }
    for (int s = 0; s < P_SLOTS; s++)
        if (slot_offset((PyObject *)pool_type, pool_slots[s], &r.pslot[s]) < 0)
            return NULL;
    if (slot_offset((PyObject *)Py_TYPE(r.clock), "now", &r.clock_now) < 0)
        return NULL;
    PyObject *preemptive = PyObject_GetAttrString(r.table, "preemptive");
    PyObject *nroots = PyObject_GetAttrString(r.table, "roots");
    r.model = PyObject_GetAttrString(r.table, "model");
    r.children = PyObject_GetAttrString(r.table, "children");
    r.groups = PyObject_GetAttrString(r.table, "groups");
    r.state_column = PyObject_GetAttrString(r.table, "state");
    long long instants = 0, rounds = 0;
    if (!preemptive || !nroots || !r.model || !r.children || !r.groups || !r.state_column)
        goto out;
    if (!PyList_CheckExact(r.model) || !PyList_CheckExact(r.children) ||
        !PyList_CheckExact(r.groups)) {
        PyErr_SetString(PyExc_TypeError, "_ckernel.run: model, children, groups are lists");
        goto out;
    }
    r.preemptive = PyObject_IsTrue(preemptive);
    r.nroots_table = PyLong_AsLongLong(nroots);
    if (r.preemptive < 0 || (r.nroots_table == -1 && PyErr_Occurred()))
        goto out;
    PyObject *now = get(kernel, r.kslot[K_NOW], "now");
    if (now == NULL)
        goto out;
    r.now = PyFloat_AsDouble(now);
    r.now_obj = PyFloat_FromDouble(r.now);
    if (r.now_obj == NULL || ck_fetch_columns(&r) < 0)
        goto out;
    if (loop(&r, roots, &instants, &rounds) == 0)
        result = Py_BuildValue("(LL)", instants, rounds);
out:
    Py_XDECREF(preemptive);
    Py_XDECREF(nroots);
    Py_XDECREF(r.model);
    Py_XDECREF(r.children);
    Py_XDECREF(r.groups);
    Py_XDECREF(r.state_column);
    Py_XDECREF(r.now_obj);
    return result;
}

static PyMethodDef ckernel_methods[] = {
    {"run", run, METH_VARARGS,
     "run(kernel, parts): the kernel's loop in C (engine/compiled_loop.py); "
     "returns (instants, rounds)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ckernel_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "schedlab.engine._ckernel",
    .m_doc = "The general kernel's loop in C (engine/kernel.py's Kernel._loop is its twin).",
    .m_size = -1,
    .m_methods = ckernel_methods,
};

PyMODINIT_FUNC
PyInit__ckernel(void)
{
    nan_value = PyOS_string_to_double("nan", NULL, NULL);
    if (nan_value == -1.0 && PyErr_Occurred())
        return NULL;
    if (!(s_segment_start_at = PyUnicode_InternFromString("segment_start_at")) ||
        !(s_free_procs = PyUnicode_InternFromString("free_procs")) ||
        !(s_on_submit = PyUnicode_InternFromString("on_submit")) ||
        !(s_on_finish = PyUnicode_InternFromString("on_finish")) ||
        !(s_time_factor = PyUnicode_InternFromString("time_factor")) ||
        !(s_allocate = PyUnicode_InternFromString("allocate")) ||
        !(s_schedule = PyUnicode_InternFromString("schedule")))
        return NULL;
    return PyModule_Create(&ckernel_module);
}
