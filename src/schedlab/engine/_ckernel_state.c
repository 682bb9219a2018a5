/*
 * schedlab.engine._ckernel, the state of a run (_ckernel_state.h): the names every part
 * reads, and the job table's columns, whose pointers are taken here.
 */

#include "_ckernel_state.h"

/* set by the module's init (_ckernel.c), or its first run for the queue's API */
EventQueueCAPI *queue_api;
double nan_value;
PyObject *s_segment_start_at, *s_free_procs, *s_on_submit, *s_on_finish, *s_time_factor,
    *s_allocate, *s_schedule;

/* -- the job table's columns ---------------------------------------------------------- */

static const char *column_names[C_COLUMNS] = {
    "release_at", "work", "requested_work", "requested_s", "seg_start", "factor",
    "done_work", "node_power", "submitted_at", "admitted_at", "started_at", "finished_at",
    "pool_time", "overhead", "seg_over", "suspended_since", "suspended_time",
    "procs", "user", "parent", "local", "host", "host_used", "gen", "alloc_procs",
    "target_actor", "target_pool", "where",
    "open_ended", "state", "will_kill", "killed",
};

static char
column_code(int c)
{
    if (c < C_PROCS)
        return 'd';
    if (c < C_TARGET_ACTOR)
        return 'q';
    if (c < C_OPEN_ENDED)
        return 'i';
    return 'b';
}

/* take the columns' pointers again (at the start, and whenever the table has grown) */
int
ck_fetch_columns(Run *r)
{
    for (int c = 0; c < C_COLUMNS; c++) {
        r->col[c] = NULL;
        if (!r->preemptive && c >= FIRST_PREEMPTION && c <= LAST_PREEMPTION)
            continue; /* (a run without preemptions has no such column) */
        PyObject *column = PyObject_GetAttrString(r->table, column_names[c]);
        if (column == NULL)
            return -1;
        Py_buffer view;
        if (PyObject_GetBuffer(column, &view, PyBUF_FORMAT) < 0) {
            Py_DECREF(column);
            return -1;
        }
        int ok = view.format != NULL && view.format[0] == column_code(c) &&
                 view.format[1] == '\0';
        r->col[c] = view.buf;
        PyBuffer_Release(&view);
        Py_DECREF(column);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "_ckernel: column %s is not of type '%c'",
                         column_names[c], column_code(c));
            return -1;
        }
    }
    r->jobs = Py_SIZE(r->state_column);
    return 0;
}
