/*
 * schedlab.engine._ckernel, the life of a job: its release straight to a pool, its admission
 * to the pool's view, its start on its own size and its plain end, with the operations of
 * engine/core.py, engine/pools.py, engine/apply.py and engine/lifecycle.py in the same order
 * on the same doubles. A case that is not plain goes, whole, to the kernel's Python method,
 * decided before any state is touched (_ckernel.c says which).
 */

#include "_ckernel_jobs.h"

/* -- the life of a job ------------------------------------------------------------------ */

/* ``model.time_factor(q)`` (a new reference) */
static PyObject *
time_factor(PyObject *model, long long q)
{
    PyObject *qo = PyLong_FromLongLong(q);
    if (qo == NULL)
        return NULL;
    PyObject *f = PyObject_CallMethodOneArg(model, s_time_factor, qo);
    Py_DECREF(qo);
    return f;
}

/* -- admission (`Pool.admit` and `KernelCore.enter`) ------------------------------------- */

int
ck_enter(Run *r, PyObject *pool, long long j)
{
    PyObject *appends = get_seq(pool, r->pslot[P_APPENDS], "_appends", 1);
    PyObject *gids = get(pool, r->pslot[P_GIDS], "gids");
    if (appends == NULL || gids == NULL)
        return -1;
    if (PyTuple_GET_SIZE(appends) != 9) {
        PyErr_SetString(PyExc_TypeError, "_ckernel: a pool's _appends must be 9 methods");
        return -1;
    }
#define APPEND(i, value) call1(r, PyTuple_GET_ITEM(appends, i), (value))
    Py_ssize_t local = PyObject_Length(gids);
    if (local < 0 || APPEND(0, PyLong_FromLongLong(j)) < 0)
        return -1;
    Q(r, C_LOCAL)[j] = local;
    D(r, C_ADMITTED_AT)[j] = r->now;
    B(r, C_STATE)[j] = D(r, C_DONE_WORK)[j] == 0.0 ? WAITING : SUSPENDED;
    if (r->preemptive)
        D(r, C_POOL_TIME)[j] = 0.0;
    Py_INCREF(r->now_obj);
    if (APPEND(1, r->now_obj) < 0)
        return -1;
    PyObject *model = PyList_GET_ITEM(r->model, j);
    Py_INCREF(model); /* (held across the calls below) */
    double req, t_max, env_upper;
    int rc = -1;
    if (B(r, C_OPEN_ENDED)[j]) {
        req = D(r, C_REQUESTED_S)[j];
    }
    else {
        double factor = 1.0, slowest;
        if (model != r->rigid) {
            PyObject *f = time_factor(model, Q(r, C_PROCS)[j]);
            if (f == NULL)
                goto done;
            factor = PyFloat_AsDouble(f);
            Py_DECREF(f);
            if ((factor == -1.0 && PyErr_Occurred()) || grown(r) < 0)
                goto done;
        }
        if (get_d(pool, r->pslot[P_SLOWEST], &slowest) < 0)
            goto done;
        req = D(r, C_REQUESTED_WORK)[j] * (factor / slowest);
    }
    if (get_d(pool, r->pslot[P_T_MAX], &t_max) < 0 ||
        get_d(pool, r->pslot[P_ENV_UPPER], &env_upper) < 0)
        goto done;
    if (req > t_max)
        req = t_max;
    if (APPEND(2, PyFloat_FromDouble(env_upper != 0.0 ? req + env_upper : req)) < 0 ||
        APPEND(3, PyLong_FromLongLong(Q(r, C_PROCS)[j])) < 0 ||
        APPEND(4, PyLong_FromLongLong(Q(r, C_USER)[j])) < 0 ||
        APPEND(5, PyFloat_FromDouble(nan_value)) < 0 || APPEND(6, PyFloat_FromDouble(0.0)) < 0)
        goto done;
    Py_INCREF(model);
    if (APPEND(7, model) < 0)
        goto done;
    long long parent = Q(r, C_PARENT)[j], index;
    if (get_ll(pool, r->pslot[P_INDEX], &index) < 0)
        goto done;
    long long parent_local =
        (parent >= 0 && I(r, C_WHERE)[parent] == index) ? Q(r, C_LOCAL)[parent] : -1;
    if (APPEND(8, PyLong_FromLongLong(parent_local)) < 0)
        goto done;
    PyObject *attribute_appends =
        get_seq(pool, r->pslot[P_ATTRIBUTE_APPENDS], "_attribute_appends", 1);
    if (attribute_appends == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(attribute_appends); i++) {
        PyObject *pair = PyTuple_GET_ITEM(attribute_appends, i); /* (append, values) */
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "_ckernel: an attribute is (append, values)");
            goto done;
        }
        PyObject *value = PySequence_GetItem(PyTuple_GET_ITEM(pair, 1), (Py_ssize_t)j);
        if (call1(r, PyTuple_GET_ITEM(pair, 0), value) < 0)
            goto done;
    }
    if (slot_add(pool, r->pslot[P_QUEUED], 1) < 0 || pool_changed(r, pool) < 0)
        goto done;
    if (SLOT(pool, r->pslot[P_STEP]) == Py_None) { /* a classic policy hears it now */
        PyObject *policy = get(pool, r->pslot[P_POLICY], "policy");
        PyObject *hook = policy ? PyObject_GetAttr(policy, s_on_submit) : NULL;
        if (hook == NULL)
            goto done;
        int called = call1(r, hook, PyLong_FromSsize_t(local));
        Py_DECREF(hook);
        if (called < 0)
            goto done;
    }
    rc = mark(r, pool);
done:
    Py_DECREF(model);
    return rc;
#undef APPEND
}

/* `KernelCore._deliver_release`: job j is released now */
int
ck_deliver(Run *r, long long j)
{
    if (I(r, C_TARGET_ACTOR)[j] >= 0)
        return call_job(r, F_DELIVER, j);
    PyObject *pool = pool_at(r, I(r, C_TARGET_POOL)[j]);
    double mu_rec;
    if (pool == NULL || get_d(pool, r->pslot[P_MU_REC], &mu_rec) < 0)
        return -1;
    if (mu_rec > 0)
        return call_job(r, F_DELIVER, j);
    D(r, C_SUBMITTED_AT)[j] = r->now;
    if (slot_add(r->kernel, r->kslot[K_RELEASED], 1) < 0)
        return -1;
    I(r, C_WHERE)[j] = I(r, C_TARGET_POOL)[j];
    return ck_enter(r, pool, j);
}

/* -- start (`Decisions.start_local`, `Pool.allocate`, `Lifecycle.begin`) ---------------- */

static int
push_end(Run *r, long long j, double at)
{
    PyObject *kind = PyLong_FromLong(END), *jo = PyLong_FromLongLong(j),
             *gen = PyLong_FromLongLong(Q(r, C_GEN)[j]);
    PyObject *item = (kind && jo && gen) ? PyTuple_Pack(4, kind, jo, gen, Py_None) : NULL;
    Py_XDECREF(kind);
    Py_XDECREF(jo);
    Py_XDECREF(gen);
    if (item == NULL)
        return -1;
    return queue_api->push(r->queue, at, ENDS, j, item);
}

static int
begin(Run *r, long long j, long long q, double power, double cap)
{
    double now = r->now;
    double started = D(r, C_STARTED_AT)[j];
    if (started != started) {
        D(r, C_STARTED_AT)[j] = now;
    }
    else if (r->preemptive) {
        double since = D(r, C_SUSPENDED_SINCE)[j];
        if (since == since) {
            D(r, C_SUSPENDED_TIME)[j] += now - since;
            D(r, C_SUSPENDED_SINCE)[j] = nan_value;
        }
    }
    B(r, C_STATE)[j] = RUNNING;
    Q(r, C_ALLOC_PROCS)[j] = q;
    D(r, C_NODE_POWER)[j] = power;
    D(r, C_SEG_START)[j] = now;
    if (slot_add(r->kernel, r->kslot[K_RUNNING], 1) < 0)
        return -1;
    if (B(r, C_OPEN_ENDED)[j]) {
        double limit = D(r, C_REQUESTED_S)[j] - (r->preemptive ? D(r, C_POOL_TIME)[j] : 0.0);
        B(r, C_WILL_KILL)[j] = 1;
        return push_end(r, j, now + (limit < cap ? limit : cap));
    }
    PyObject *model = PyList_GET_ITEM(r->model, j);
    double factor;
    if (model == r->rigid) {
        factor = 1.0 / power;
    }
    else {
        PyObject *f = time_factor(model, q);
        if (f == NULL)
            return -1;
        double tf = PyFloat_AsDouble(f);
        Py_DECREF(f);
        if ((tf == -1.0 && PyErr_Occurred()) || grown(r) < 0)
            return -1;
        factor = tf / power;
    }
    D(r, C_FACTOR)[j] = factor;
    double done = D(r, C_DONE_WORK)[j];
    double remaining = (D(r, C_WORK)[j] - done) * factor;
    double stop = remaining;
    if (r->kill_on_overrun) {
        double budget = (D(r, C_REQUESTED_WORK)[j] - done) * factor;
        if (budget < stop)
            stop = budget;
    }
    if (r->preemptive) {
        double over = D(r, C_OVERHEAD)[j];
        if (over != 0.0) { /* restarting from a checkpoint: the first seconds do no work */
            D(r, C_OVERHEAD)[j] = 0.0;
            D(r, C_SEG_OVER)[j] = over;
            stop += over;
            remaining += over;
        }
    }
    if (cap < stop)
        stop = cap;
    B(r, C_WILL_KILL)[j] = stop < remaining;
    return push_end(r, j, now + stop);
}

/* the start of local job ``local_obj`` of ``pool`` on its own size (a `Steps` policy's, or a
   classic policy's `Start(job)`) */
int
ck_start_local(Run *r, PyObject *pool, PyObject *local_obj)
{
    PyObject *gids = get(pool, r->pslot[P_GIDS], "gids");
    long long index, free_total;
    if (gids == NULL || get_ll(pool, r->pslot[P_INDEX], &index) < 0 ||
        get_ll(pool, r->pslot[P_FREE_TOTAL], &free_total) < 0)
        return -1;
    long long local = PyLong_Check(local_obj) ? PyLong_AsLongLong(local_obj) : -1;
    if (local == -1 && PyErr_Occurred())
        PyErr_Clear(); /* (too large: the Python method names the error) */
    Py_ssize_t n = PyObject_Length(gids);
    if (n < 0)
        return -1;
    long long j = -1, q = 0;
    int st = -1;
    if (local >= 0 && local < n) {
        PyObject *g = PySequence_GetItem(gids, (Py_ssize_t)local);
        if (g == NULL)
            return -1;
        j = PyLong_AsLongLong(g);
        Py_DECREF(g);
        if (j == -1 && PyErr_Occurred())
            return -1;
        st = B(r, C_STATE)[j];
        q = Q(r, C_PROCS)[j];
    }
    if (j < 0 || (st != WAITING && st != SUSPENDED) || I(r, C_WHERE)[j] != index || q <= 0 ||
        q > free_total || r->traced) {
        /* an error to name, or a traced run: the Python method, whole */
        PyObject *args[4] = {pool, local_obj, Py_None, r->now_obj};
        return call(r, F_START_LOCAL, args, 4);
    }
    /* `Pool.allocate` */
    PyObject *groups;
    double power;
    PyObject *rng = get(pool, r->pslot[P_RNG], "rng");
    PyObject *single = get(pool, r->pslot[P_SINGLE], "single");
    if (rng == NULL || single == NULL)
        return -1;
    if (single == Py_True && rng == Py_None) {
        PyObject *free = get_seq(pool, r->pslot[P_FREE], "free", 0);
        PyObject *powers = get_seq(pool, r->pslot[P_POWERS], "powers", 0);
        if (free == NULL || powers == NULL)
            return -1;
        if (!PyList_GET_SIZE(free) || !PyList_GET_SIZE(powers)) {
            PyErr_SetString(PyExc_ValueError, "_ckernel: a pool without a node group");
            return -1;
        }
        if (put(pool, r->pslot[P_FREE_TOTAL], PyLong_FromLongLong(free_total - q)) < 0 ||
            pool_changed(r, pool) < 0)
            return -1;
        long long f0 = PyLong_AsLongLong(PyList_GET_ITEM(free, 0));
        if (f0 == -1 && PyErr_Occurred())
            return -1;
        PyObject *left = PyLong_FromLongLong(f0 - q);
        if (left == NULL || PyList_SetItem(free, 0, left) < 0)
            return -1;
        power = PyFloat_AsDouble(PyList_GET_ITEM(powers, 0));
        if (power == -1.0 && PyErr_Occurred())
            return -1;
        groups = Py_BuildValue("[(iL)]", 0, q);
        if (groups == NULL)
            return -1;
    }
    else {
        PyObject *qo = PyLong_FromLongLong(q);
        PyObject *taken = qo ? PyObject_CallMethodOneArg(pool, s_allocate, qo) : NULL;
        Py_XDECREF(qo);
        if (taken == NULL)
            return -1;
        if (!PyTuple_Check(taken) || PyTuple_GET_SIZE(taken) != 2) {
            Py_DECREF(taken);
            PyErr_SetString(PyExc_TypeError, "_ckernel: Pool.allocate must give a pair");
            return -1;
        }
        groups = PyTuple_GET_ITEM(taken, 0);
        Py_INCREF(groups);
        power = PyFloat_AsDouble(PyTuple_GET_ITEM(taken, 1));
        Py_DECREF(taken);
        if ((power == -1.0 && PyErr_Occurred()) || grown(r) < 0) {
            Py_DECREF(groups);
            return -1;
        }
    }
    if (PyList_SetItem(r->groups, (Py_ssize_t)j, groups) < 0) /* (stolen) */
        return -1;
    if (slot_add(pool, r->pslot[P_QUEUED], -1) < 0 || pool_changed(r, pool) < 0 ||
        slot_add(pool, r->pslot[P_RUNNING], 1) < 0)
        return -1;
    PyObject *view = get(pool, r->pslot[P_VIEW], "view");
    PyObject *seg = view ? PyObject_GetAttr(view, s_segment_start_at) : NULL;
    if (seg == NULL)
        return -1;
    int rc = PySequence_SetItem(seg, (Py_ssize_t)local, r->now_obj);
    Py_DECREF(seg);
    double t_max;
    if (rc < 0 || get_d(pool, r->pslot[P_T_MAX], &t_max) < 0)
        return -1;
    double cap = r->preemptive ? t_max - D(r, C_POOL_TIME)[j] : t_max;
    if (begin(r, j, q, power, cap) < 0)
        return -1;
    if (r->heard) {
        PyObject *jo = PyLong_FromLongLong(j);
        if (jo == NULL)
            return -1;
        PyObject *args[2] = {jo, r->started};
        rc = call(r, F_NOTIFY, args, 2);
        Py_DECREF(jo);
        return rc;
    }
    return 0;
}

/* -- end (`Lifecycle.complete`, `nodes_freed`, `free_nodes`, `Pool.release`) ------------- */

int
ck_complete(Run *r, long long j)
{
    int plain = !B(r, C_OPEN_ENDED)[j] && !r->traced &&
                !(r->preemptive && D(r, C_SEG_OVER)[j] != 0.0) && Q(r, C_HOST)[j] < 0 &&
                !Q(r, C_HOST_USED)[j] && I(r, C_WHERE)[j] >= 0 && !r->heard;
    PyObject *pool = NULL;
    if (plain) {
        double mu_env;
        pool = pool_at(r, I(r, C_WHERE)[j]);
        if (pool == NULL || get_d(pool, r->pslot[P_MU_ENV], &mu_env) < 0)
            return -1;
        plain = !(mu_env > 0);
    }
    if (plain && j < r->nroots_table) {
        PyObject *kids = PyList_GET_ITEM(r->children, (Py_ssize_t)j);
        int some = PyObject_IsTrue(kids);
        if (some < 0)
            return -1;
        plain = !some;
    }
    if (!plain)
        return call_job(r, F_COMPLETE, j);
    double now = r->now;
    D(r, C_DONE_WORK)[j] += (now - D(r, C_SEG_START)[j]) / D(r, C_FACTOR)[j];
    B(r, C_STATE)[j] = DONE;
    D(r, C_FINISHED_AT)[j] = now;
    B(r, C_KILLED)[j] = B(r, C_WILL_KILL)[j];
    Q(r, C_GEN)[j] += 1;
    if (slot_add(r->kernel, r->kslot[K_RUNNING], -1) < 0 ||
        slot_add(r->kernel, r->kslot[K_DONE], 1) < 0 ||
        slot_add(pool, r->pslot[P_RUNNING], -1) < 0)
        return -1;
    PyObject *groups = PyList_GET_ITEM(r->groups, (Py_ssize_t)j);
    if (groups != Py_None) { /* `Pool.release` */
        PyObject *free = get_seq(pool, r->pslot[P_FREE], "free", 0);
        long long free_total;
        if (free == NULL || get_ll(pool, r->pslot[P_FREE_TOTAL], &free_total) < 0)
            return -1;
        PyObject *seq = PySequence_Fast(groups, "_ckernel: a job's groups must be a list");
        if (seq == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
            PyObject *pair = PySequence_Fast_GET_ITEM(seq, i); /* (group, processors) */
            long long g = -1, k = 0;
            if (PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 2) {
                g = PyLong_AsLongLong(PyTuple_GET_ITEM(pair, 0));
                k = PyLong_AsLongLong(PyTuple_GET_ITEM(pair, 1));
            }
            if (PyErr_Occurred() || g < 0 || g >= PyList_GET_SIZE(free)) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "_ckernel: a group is (index, processors)");
                Py_DECREF(seq);
                return -1;
            }
            long long f = PyLong_AsLongLong(PyList_GET_ITEM(free, g));
            PyObject *more = (f == -1 && PyErr_Occurred()) ? NULL : PyLong_FromLongLong(f + k);
            if (more == NULL || PyList_SetItem(free, g, more) < 0) {
                Py_DECREF(seq);
                return -1;
            }
            free_total += k;
        }
        Py_DECREF(seq);
        if (put(pool, r->pslot[P_FREE_TOTAL], PyLong_FromLongLong(free_total)) < 0 ||
            pool_changed(r, pool) < 0)
            return -1;
        Py_INCREF(Py_None);
        if (PyList_SetItem(r->groups, (Py_ssize_t)j, Py_None) < 0)
            return -1;
    }
    PyObject *local = PyLong_FromLongLong(Q(r, C_LOCAL)[j]);
    if (local == NULL)
        return -1;
    if (SLOT(pool, r->pslot[P_STEP]) == Py_None) {
        PyObject *policy = get(pool, r->pslot[P_POLICY], "policy");
        PyObject *hook = policy ? PyObject_GetAttr(policy, s_on_finish) : NULL;
        if (hook == NULL) {
            Py_DECREF(local);
            return -1;
        }
        int called = call1(r, hook, local);
        Py_DECREF(hook);
        if (called < 0)
            return -1;
    }
    else {
        PyObject *ended = get(pool, r->pslot[P_ENDED], "ended");
        int rc = ended == NULL ? -1 : PyList_Append(ended, local);
        Py_DECREF(local);
        if (rc < 0)
            return -1;
    }
    return mark(r, pool);
}
