/*
 * The life of a job in schedlab.engine._ckernel (_ckernel_jobs.c), as the loop (_ckernel.c)
 * calls it: each returns 0, or -1 with a Python exception set.
 */

#ifndef SCHEDLAB_CKERNEL_JOBS_H
#define SCHEDLAB_CKERNEL_JOBS_H

#include "_ckernel_state.h"

/* job j is released now (`KernelCore._deliver_release`) */
int ck_deliver(Run *r, long long j);
/* job j enters ``pool``'s queue now (`KernelCore.enter`, `Pool.admit`) */
int ck_enter(Run *r, PyObject *pool, long long j);
/* local job ``local_obj`` of ``pool`` starts now on its own size (`Decisions.start_local`) */
int ck_start_local(Run *r, PyObject *pool, PyObject *local_obj);
/* job j reaches its end now (`Lifecycle.complete`) */
int ck_complete(Run *r, long long j);

#endif
