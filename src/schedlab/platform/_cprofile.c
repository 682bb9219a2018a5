/*
 * schedlab.platform._cprofile: the availability profile of profile.py, in C.
 *
 * A line-by-line translation of the pure-Python ``Profile`` (which stays the fallback and
 * the oracle of the differential tests): same public API, same algorithms, same results bit
 * for bit. Times are C doubles (as Python floats are), processor counts ``long long``. One
 * addition: ``compress`` finds each job's earliest start through run memos (see "compress's
 * run memos"), a faster way to the same answers on long queues.
 *
 * Layout: three parallel dynamic arrays sharing one capacity (amortised doubling, never
 * shrunk): ``times`` (breakpoints), ``free`` (free processors from each breakpoint to the
 * next, the last segment extending to infinity) and ``best`` (the lazily extended running
 * maximum of ``free``; ``best[0..valid)`` is up to date). Insertions and deletions are
 * memmoves; searches are the bisections of CPython's ``bisect`` module, with the same
 * comparisons, so that even unsorted input (NaN times) gives the same indices.
 *
 * Where the Python code indexes a list with an index that may be -1 (``free[i - 1]`` with
 * i == 0, possible only with times before the origin or NaN), Python's wrap-around is
 * reproduced. No internal routine calls back into Python; only ``compress`` interleaves
 * Python calls (reading its list arguments) with profile updates, and it never keeps a
 * pointer into the arrays across such a call.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <limits.h>
#include <float.h>
#include <math.h>
#include <string.h>

struct RunMemo;
struct Change;

typedef struct {
    PyObject_HEAD
    long long total;
    Py_ssize_t n;   /* number of segments, >= 1 */
    Py_ssize_t cap; /* capacity of the three arrays */
    Py_ssize_t valid; /* best[0..valid) is up to date; valid <= n */
    double *times;
    long long *free;
    long long *best;
    /* compress's run memos (see "compress's run memos" below): kept between calls so that a
       compression allocates nothing in the steady state */
    unsigned long long version; /* bumped by every change to the profile */
    int unordered;              /* a NaN time was ever added: no memos, the plain search */
    struct RunMemo *memo;       /* open-addressing table by threshold */
    Py_ssize_t memo_cap;        /* a power of two, or 0 */
    Py_ssize_t memo_used;
    unsigned long long memo_gen; /* entries of other generations are empty */
    struct Change *log;         /* the changes made by the current compression */
    Py_ssize_t log_len, log_cap;
    /* compress's level bounds: levels max-Fenwick trees of lv_buckets time buckets each
       (levels 0 when not in use) */
    int levels;
    int lv_low; /* levels below it are unbounded from bucket 0 on: no longer measured */
    Py_ssize_t lv_buckets;
    double lv_origin, lv_scale; /* see level_bucket */
    double *lv_tree;
    Py_ssize_t lv_tree_cap;
} ProfileObject;

static PyObject *policy_error = NULL; /* schedlab.errors.PolicyError, imported on first use */

/* -- helpers -------------------------------------------------------------------------- */

static PyObject *
get_policy_error(void)
{
    if (policy_error == NULL) {
        PyObject *mod = PyImport_ImportModule("schedlab.errors");
        if (mod == NULL) {
            return NULL;
        }
        PyObject *exc = PyObject_GetAttrString(mod, "PolicyError");
        Py_DECREF(mod);
        if (exc == NULL) {
            return NULL;
        }
        if (policy_error == NULL) {
            policy_error = exc; /* kept for the life of the process */
        }
        else {
            Py_DECREF(exc);
        }
    }
    return policy_error;
}

/* bisect.bisect_right / bisect_left, as CPython implements them */
static inline Py_ssize_t
bisect_right_d(const double *a, Py_ssize_t lo, Py_ssize_t hi, double x)
{
    while (lo < hi) {
        Py_ssize_t mid = (Py_ssize_t)(((size_t)lo + (size_t)hi) / 2);
        if (x < a[mid]) {
            hi = mid;
        }
        else {
            lo = mid + 1;
        }
    }
    return lo;
}

static inline Py_ssize_t
bisect_left_d(const double *a, Py_ssize_t lo, Py_ssize_t hi, double x)
{
    while (lo < hi) {
        Py_ssize_t mid = (Py_ssize_t)(((size_t)lo + (size_t)hi) / 2);
        if (a[mid] < x) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

static inline Py_ssize_t
bisect_left_ll(const long long *a, Py_ssize_t lo, Py_ssize_t hi, long long x)
{
    while (lo < hi) {
        Py_ssize_t mid = (Py_ssize_t)(((size_t)lo + (size_t)hi) / 2);
        if (a[mid] < x) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

/* a + b; on overflow, wraps around and sets *overflow (Python ints never overflow: counts
   beyond 64 bits are outside what this type supports, and reported as OverflowError) */
static inline long long
add_ll(long long a, long long b, int *overflow)
{
#if defined(__GNUC__) || defined(__clang__)
    long long r;
    if (__builtin_add_overflow(a, b, &r)) {
        *overflow = 1;
    }
    return r;
#else
    if ((b > 0 && a > LLONG_MAX - b) || (b < 0 && a < LLONG_MIN - b)) {
        *overflow = 1;
    }
    return (long long)((unsigned long long)a + (unsigned long long)b);
#endif
}

/* Room for ``extra`` more segments. Fails (MemoryError) before changing anything visible. */
static int
ensure_room(ProfileObject *self, Py_ssize_t extra)
{
    Py_ssize_t need = self->n + extra;
    if (need <= self->cap) {
        return 0;
    }
    Py_ssize_t cap = self->cap < 8 ? 8 : self->cap;
    while (cap < need) {
        if (cap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(double)) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    /* each array is replaced as soon as it is grown: a failure leaves larger but valid
       arrays behind and the old capacity recorded */
    double *t = PyMem_Realloc(self->times, (size_t)cap * sizeof(double));
    if (t == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->times = t;
    long long *f = PyMem_Realloc(self->free, (size_t)cap * sizeof(long long));
    if (f == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->free = f;
    long long *b = PyMem_Realloc(self->best, (size_t)cap * sizeof(long long));
    if (b == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->best = b;
    self->cap = cap;
    return 0;
}

/* -- core operations (no Python calls, no allocation except in _add) ------------------ */

static void
p_advance(ProfileObject *self, double now)
{
    double *times = self->times;
    Py_ssize_t n = self->n;
    Py_ssize_t k = bisect_right_d(times, 0, n, now) - 1;
    self->version++;
    if (k > 0) {
        memmove(times, times + k, (size_t)(n - k) * sizeof(double));
        memmove(self->free, self->free + k, (size_t)(n - k) * sizeof(long long));
        self->n = n - k;
        self->valid = 0;
    }
    if (times[0] < now) {
        times[0] = now;
    }
}

static long long
p_free_at(ProfileObject *self, double t)
{
    Py_ssize_t i = bisect_right_d(self->times, 0, self->n, t) - 1;
    if (i < 0) {
        i += self->n; /* free[-1], as in Python */
    }
    return self->free[i];
}

/* _best_upto: make the running maximum valid for segments 0..i (0 <= i < n) */
static const long long *
p_best_upto(ProfileObject *self, Py_ssize_t i)
{
    Py_ssize_t v = self->valid;
    long long *best = self->best;
    if (v <= i) {
        const long long *free = self->free;
        long long m = v ? best[v - 1] : -1;
        for (Py_ssize_t q = v; q <= i; q++) {
            if (free[q] > m) {
                m = free[q];
            }
            best[q] = m;
        }
        self->valid = i + 1;
    }
    return best;
}

static long long
p_max_free_before(ProfileObject *self, double t)
{
    Py_ssize_t i = bisect_left_d(self->times, 0, self->n, t);
    if (i == 0) {
        return -1;
    }
    return p_best_upto(self, i - 1)[i - 1];
}

/* earliest_start; returns 0 and sets *result, or -1 with PolicyError (or ImportError) set */
static int
p_earliest_start(ProfileObject *self, long long procs, double duration, double not_before,
                 double limit, double own_start, double *result)
{
    const double *times = self->times;
    const long long *free = self->free;
    Py_ssize_t last = self->n - 1;
    Py_ssize_t i = bisect_right_d(times, 0, self->n, not_before) - 1;
    if (i < 0) {
        i = 0;
    }
    if (limit != HUGE_VAL) {
        /* jump to the first segment where that many processors are ever free */
        Py_ssize_t end_index = bisect_left_d(times, 0, self->n, limit);
        if (end_index == 0) {
            *result = limit;
            return 0;
        }
        const long long *best = p_best_upto(self, end_index - 1);
        Py_ssize_t first = bisect_left_ll(best, 0, end_index, procs);
        if (first == end_index) {
            *result = limit;
            return 0;
        }
        if (first > i) {
            i = first;
        }
    }
    for (;;) {
        while (free[i] < procs) {
            i += 1;
            if (i > last) { /* only if procs > total: callers validate sizes */
                PyObject *exc = get_policy_error();
                if (exc != NULL) {
                    PyErr_Format(exc, "a job of %lld processors never fits on %lld", procs,
                                 self->total);
                }
                return -1;
            }
        }
        double start = times[i];
        if (start < not_before) {
            start = not_before;
        }
        if (start >= limit) {
            *result = limit;
            return 0;
        }
        double end = start + duration;
        Py_ssize_t k = i + 1;
        int blocked = 0;
        for (; k <= last && times[k] < end; k++) {
            /* Python: f = free[k] (+ procs if times[k] >= own_start); break if f < procs.
               f + procs < procs is f < 0, without the overflow. */
            long long f = free[k];
            if (times[k] >= own_start ? f < 0 : f < procs) {
                blocked = 1;
                break;
            }
        }
        if (!blocked) {
            *result = start;
            return 0;
        }
        i = k;
    }
}

/* _split: index of the segment starting exactly at t, inserting a breakpoint.
   The caller made room for one more segment. */
static Py_ssize_t
p_split(ProfileObject *self, double t, Py_ssize_t lo)
{
    double *times = self->times;
    long long *free = self->free;
    Py_ssize_t n = self->n;
    Py_ssize_t i = bisect_left_d(times, lo, n, t);
    if (i < n && times[i] == t) {
        return i;
    }
    long long value = free[i > 0 ? i - 1 : n - 1]; /* free[i - 1], -1 wrapping as in Python */
    memmove(times + i + 1, times + i, (size_t)(n - i) * sizeof(double));
    memmove(free + i + 1, free + i, (size_t)(n - i) * sizeof(long long));
    times[i] = t;
    free[i] = value;
    self->n = n + 1;
    return i;
}

static void
p_delete(ProfileObject *self, Py_ssize_t i)
{
    Py_ssize_t n = self->n;
    memmove(self->times + i, self->times + i + 1, (size_t)(n - i - 1) * sizeof(double));
    memmove(self->free + i, self->free + i + 1, (size_t)(n - i - 1) * sizeof(long long));
    self->n = n - 1;
}

/* _add: 0, or -1 with MemoryError (profile untouched) or OverflowError (profile updated
   with wrapped-around counts, still a valid structure). If least is not NULL and the
   interval is not empty, *least is the lowest count in it before the change. */
static int
p_add(ProfileObject *self, double start, double end, long long delta, long long *least)
{
    if (end <= start) {
        return 0;
    }
    if (ensure_room(self, 2) < 0) {
        return -1;
    }
    self->version++;
    if (isnan(start) || isnan(end)) {
        self->unordered = 1;
    }
    Py_ssize_t i = p_split(self, start, 0);
    /* with sorted times end's index is past start's (bisect from there); with NaN, the
       full bisection Python does */
    Py_ssize_t k = p_split(self, end, self->unordered ? 0 : i);
    long long *free = self->free;
    int overflow = 0;
    long long low = LLONG_MAX;
    for (Py_ssize_t m = i; m < k; m++) {
        if (free[m] < low) {
            low = free[m];
        }
        free[m] = add_ll(free[m], delta, &overflow);
    }
    if (least != NULL) {
        *least = low;
    }
    /* restore canonical form at the two edges (k first: deleting it keeps i valid) */
    if (free[k] == free[k > 0 ? k - 1 : self->n - 1]) {
        p_delete(self, k);
    }
    /* with sorted times, i < k <= n here; only unsorted times (NaN) can make the first
       split's index stale, and then Python's free[i] raises IndexError: so do we */
    if (i > 0 && i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1;
    }
    if (i > 0 && free[i] == free[i - 1]) {
        p_delete(self, i);
        i -= 1;
    }
    if (i < self->valid) {
        self->valid = i;
    }
    if (overflow) {
        PyErr_SetString(PyExc_OverflowError, "processor count out of the 64-bit range");
        return -1;
    }
    return 0;
}

/* -- compress's run memos -------------------------------------------------------------
 *
 * Under overload a compression looks at thousands of waiting jobs, and earliest_start
 * walks the profile from `now` for nearly each of them, mostly to find that the job cannot
 * move. For a threshold p, the profile is a sequence of *runs*: maximal stretches of
 * segments with at least p free. Job j (p processors, r long, reserved at s) can start at t
 * < s iff [t, min(t + r, s)) lies in one run: its own reservation gives the processors
 * back after s. So its earliest start is the start of the first run that ends before s and
 * is at least r long, else the start of the run still open at s, else it cannot move.
 *
 * Most jobs are settled by the level bounds below (no run before them is long enough).
 * For the others, a memo per threshold keeps how far a previous job's search got: x
 * (everything before it scanned), g (an upper bound of the runs that ended before x) and a
 * (the start of the run open at x). The next job of the same size goes on from x instead
 * of from `now` when g < r says that no run before x fits it. The compression's own moves
 * change the profile: each is logged (where processors were given back, where taken) and
 * applied to a memo when it is next used. Taking processors only shortens runs, so g stays
 * an upper bound, which is all the test needs; the runs that meet processors given back
 * are measured again, in place (memo_replay). Any other change to the profile (Python
 * code run from inside the loop) drops them all, and an overbooked profile (see
 * p_overbooked) gets none. Searches that could not use a memo are exactly
 * earliest_start's. */

typedef struct RunMemo {
    long long p;
    double x;
    double g;
    double a; /* NaN: no run open at x */
    Py_ssize_t seen; /* log entries already applied */
    unsigned long long gen;
} RunMemo;

typedef struct Change {
    double u, v; /* [u, v) */
    int gives;   /* 1: processors given back, 0: taken */
} Change;

static void
memo_clear(RunMemo *m, double now)
{
    m->x = now;
    m->g = 0.0;
    m->a = NAN;
}

/* where the run of threshold p open at t (just before t) starts, as the profile is now;
   NaN if none is open there (the runs' starts are breakpoints, or now) */
static double
run_open_at(const ProfileObject *self, long long p, double t, double now)
{
    const double *times = self->times;
    const long long *free = self->free;
    Py_ssize_t i = bisect_left_d(times, 0, self->n, t) - 1;
    if (i < 0 || free[i] < p) {
        return NAN;
    }
    while (i > 0 && times[i] > now && free[i - 1] >= p) {
        i--;
    }
    return times[i] > now ? times[i] : now;
}

/* g takes the length of every run of threshold p, as the profile is now, that meets
   [lo, hi) (hi <= x) and ends before x; a run still open at x is left to run_open_at */
static void
memo_measure(const ProfileObject *self, RunMemo *m, double lo, double hi, double now)
{
    const double *times = self->times;
    const long long *free = self->free;
    Py_ssize_t last = self->n - 1;
    long long p = m->p;
    double x = m->x;
    Py_ssize_t k = bisect_right_d(times, 0, self->n, lo) - 1;
    if (k < 0) {
        k = 0;
    }
    double a = NAN;
    if (free[k] >= p) { /* back to where the run that holds lo starts */
        while (k > 0 && times[k] > now && free[k - 1] >= p) {
            k--;
        }
        a = times[k] > now ? times[k] : now;
    }
    double g = m->g;
    for (;;) {
        if (k >= last || times[k + 1] >= x) {
            break; /* a run open here is open at x */
        }
        k++;
        double pos = times[k];
        if (free[k] >= p) {
            if (isnan(a)) {
                a = pos;
            }
        }
        else if (!isnan(a)) {
            if (pos - a > g) {
                g = pos - a;
            }
            a = NAN;
            if (pos >= hi) {
                break;
            }
        }
        else if (pos >= hi) {
            break;
        }
    }
    m->g = g;
}

/* A run's length is a float difference of two times: this margin covers its rounding
   against the search's own test (a + r <= end) for runs between x and s. */
static inline double
fit_margin(double x, double s, double r)
{
    return 8.0 * DBL_EPSILON * (fabs(x) + fabs(s) + fabs(r));
}

/* -- compress's level bounds ----------------------------------------------------------
 *
 * Most jobs a compression looks at cannot move, and for nearly all of them no run that
 * starts before their start is long enough: they could only move to where the run open
 * at their start begins. The level bounds say so without a memo. The runs of threshold
 * 2^L (level L) hold every run of a threshold p >= 2^L, so for each level a max-Fenwick
 * tree over time buckets (fixed at the start of the compression) bounds the length of the
 * level's runs by where they start (a run that reaches the last segment counted up to its
 * start). They are measured once per compression; afterwards a move can only lengthen the
 * runs that meet the processors it gave back (or those at the end of the profile, if it
 * pushed the end further), and only those are measured again: the bounds only rise.
 * A move's measure starts at the lowest level whose threshold it crossed (see
 * levels_after_move). A level whose bound is infinite from the first bucket on excludes
 * nothing any more: it is no longer measured, and once every level is, the compression
 * goes on without bounds. */

#define LEVEL_BUCKETS_MAX 1024
/* a queue (a list) shorter than this or than the profile searches through the memos
   alone: measuring the whole profile costs more than it saves on a few jobs (a queue
   longer than the profile is a crowded one, where most jobs share breakpoints) */
static Py_ssize_t levels_min_queue = 64; /* 0 (tests): always, whatever the length */
/* how far a measure walks past the change before it takes a run as unbounded (a profile
   with processors free nearly everywhere has runs as long as the profile) */
static Py_ssize_t level_walk = 64; /* tests set it lower, to reach the unbounded cases */

/* the highest level L with 2^L <= f (capped at the top level), or -1 if f < 1 */
static inline int
level_of(long long f, int levels)
{
    if (f < 1) {
        return -1;
    }
    int L = 63 - __builtin_clzll((unsigned long long)f);
    return L < levels ? L : levels - 1;
}

/* the time bucket of t: equal widths from lv_origin, the last one open-ended (a
   nondecreasing function of t) */
static inline Py_ssize_t
level_bucket(const ProfileObject *self, double t)
{
    double b = (t - self->lv_origin) * self->lv_scale;
    if (!(b > 0.0)) {
        return 0;
    }
    if (b >= (double)(self->lv_buckets - 1)) {
        return self->lv_buckets - 1;
    }
    return (Py_ssize_t)b;
}

/* a run of level L that starts in bucket b is len long */
static inline void
level_raise(ProfileObject *self, int L, Py_ssize_t b, double len)
{
    Py_ssize_t buckets = self->lv_buckets;
    double *tree = self->lv_tree + (Py_ssize_t)L * buckets;
    for (; b < buckets; b |= b + 1) {
        if (!(tree[b] < len)) {
            break; /* a node covers its children's ranges: the rest hold at least len */
        }
        tree[b] = len;
    }
}

/* the longest run of level L that starts in buckets 0..b */
static inline double
level_longest(const ProfileObject *self, int L, Py_ssize_t b)
{
    const double *tree = self->lv_tree + (Py_ssize_t)L * self->lv_buckets;
    double m = 0.0;
    for (; b >= 0; b = (b & (b + 1)) - 1) {
        if (tree[b] > m) {
            m = tree[b];
        }
    }
    return m;
}

/* raise the bounds to the length of every run of a level from `from` (and lv_low) on that
   meets [lo, hi); then lv_low passes the levels that became unbounded from bucket 0 */
static void
levels_measure(ProfileObject *self, double lo, double hi, int from, double now)
{
    const double *times = self->times;
    const long long *free = self->free;
    Py_ssize_t last = self->n - 1;
    int levels = self->levels;
    int low = self->lv_low > from ? self->lv_low : from;
    double run_start[64];
    Py_ssize_t run_bucket[64];
    if (low >= levels) {
        return; /* no bounds, or none that can change */
    }
    long long need = 1LL << low; /* the lowest threshold measured */
    Py_ssize_t k = bisect_right_d(times, 0, self->n, lo) - 1;
    if (k < 0) {
        k = 0;
    }
    /* back to where the widest run that holds lo starts, or level_walk segments back
       (then the runs open there may start anywhere before: bound at once, as infinite) */
    int far = 0;
    for (Py_ssize_t back = 0;
         free[k] >= need && k > 0 && times[k] > now && free[k - 1] >= need; back++) {
        if (back == level_walk) {
            far = 1;
            break;
        }
        k--;
    }
    double pos = times[k] > now ? times[k] : now;
    int top = low - 1; /* the levels low..top have a run open */
    Py_ssize_t beyond = 0; /* segments walked from hi on */
    for (;;) {
        int t = level_of(free[k], levels);
        if (t < low - 1) {
            t = low - 1;
        }
        for (; top > t; top--) {
            level_raise(self, top, run_bucket[top], pos - run_start[top]);
        }
        if (far) {
            far = 0;
            for (int L = low; L <= t; L++) {
                level_raise(self, L, 0, HUGE_VAL);
            }
        }
        if (pos >= hi && (top < low || ++beyond > level_walk)) {
            for (; top >= low; top--) { /* the runs still open may go on far: unbounded */
                level_raise(self, top, run_bucket[top], HUGE_VAL);
            }
            break;
        }
        if (top < t) {
            Py_ssize_t b = level_bucket(self, pos);
            for (; top < t; top++) {
                run_start[top + 1] = pos;
                run_bucket[top + 1] = b;
            }
        }
        if (k == last) { /* runs open in the last segment: counted up to its start */
            for (; top >= low; top--) {
                level_raise(self, top, run_bucket[top], pos - run_start[top]);
            }
            break;
        }
        k++;
        pos = times[k];
    }
    /* the Fenwick node of bucket 0 is in every prefix: infinite there, infinite for all */
    low = self->lv_low;
    while (low < levels && self->lv_tree[(Py_ssize_t)low * self->lv_buckets] == HUGE_VAL) {
        low++;
    }
    self->lv_low = low;
    if (low == levels) {
        self->levels = 0; /* no level can exclude a job any more */
    }
}

/* buckets from the profile as it is, every level run measured; no bounds (levels 0) if
   out of memory */
static void
levels_reset(ProfileObject *self, double now)
{
    int levels = self->total >= 1 ? level_of(self->total, 64) + 1 : 0;
    Py_ssize_t n = self->n;
    Py_ssize_t buckets = n < LEVEL_BUCKETS_MAX ? n : LEVEL_BUCKETS_MAX;
    self->levels = 0;
    if (levels == 0) {
        return;
    }
    Py_ssize_t cells = buckets * levels;
    if (cells > self->lv_tree_cap) {
        double *tree = PyMem_Realloc(self->lv_tree, (size_t)cells * sizeof(double));
        if (tree == NULL) {
            return;
        }
        self->lv_tree = tree;
        self->lv_tree_cap = cells;
    }
    /* the buckets share the profile's span (as it is now) equally */
    double origin = self->times[0] > now ? self->times[0] : now;
    double span = self->times[n - 1] - origin;
    self->lv_origin = origin;
    self->lv_scale = span > 0.0 && isfinite(span) ? (double)buckets / span : 0.0;
    for (Py_ssize_t c = 0; c < cells; c++) {
        self->lv_tree[c] = 0.0;
    }
    self->lv_buckets = buckets;
    self->levels = levels;
    self->lv_low = 0;
    levels_measure(self, self->times[0], HUGE_VAL, 0, now);
}

/* a job moved: it gave back [gu, gv), where least processors were free at the least
   before, and took [tu, tv); last_time was the start of the last segment before the move.
   Only the levels whose threshold some segment of [gu, gv) crossed have new runs: up to
   least's level, the runs are as they were (on a profile rarely full, level 0's runs are
   long, and walking them was most of the measures' work). (A move's new reservation ends
   before its old one did, so it never pushes the end of the profile: the second measure
   is a guard.) */
static void
levels_after_move(ProfileObject *self, long long least, double gu, double gv, double tu,
                  double tv, double last_time, double now)
{
    if (gu < gv) {
        levels_measure(self, gu, gv, level_of(least, self->levels) + 1, now);
    }
    if (self->times[self->n - 1] > last_time) {
        levels_measure(self, tu, tv, 0, now);
    }
}

/* No run of threshold p that starts before s is r long (see fit_margin) */
static inline int
levels_exclude(const ProfileObject *self, long long p, double r, double s, double now)
{
    if (!self->levels) {
        return 0;
    }
    int L = level_of(p, self->levels);
    if (L < self->lv_low) {
        return 0; /* unbounded (or p < 1) */
    }
    return level_longest(self, L, level_bucket(self, s)) + fit_margin(now, s, r) < r;
}

/* the memo of threshold p in this compression, new if needed; NULL if out of memory */
static RunMemo *
memo_get(ProfileObject *self, long long p, double now)
{
    if (self->memo_used * 2 >= self->memo_cap) {
        Py_ssize_t cap = self->memo_cap ? self->memo_cap * 2 : 64;
        if (cap > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(RunMemo)) {
            return NULL;
        }
        RunMemo *table = PyMem_Calloc((size_t)cap, sizeof(RunMemo));
        if (table == NULL) {
            return NULL;
        }
        /* generation 0 is never current: calloc'ed entries are empty */
        for (Py_ssize_t i = 0; i < self->memo_cap; i++) {
            RunMemo *old = &self->memo[i];
            if (old->gen == self->memo_gen) {
                size_t h = ((unsigned long long)old->p * 0x9E3779B97F4A7C15ULL) >> 17;
                while (table[h & (size_t)(cap - 1)].gen == self->memo_gen) {
                    h++;
                }
                table[h & (size_t)(cap - 1)] = *old;
            }
        }
        PyMem_Free(self->memo);
        self->memo = table;
        self->memo_cap = cap;
    }
    size_t mask = (size_t)(self->memo_cap - 1);
    size_t h = ((unsigned long long)p * 0x9E3779B97F4A7C15ULL) >> 17;
    for (;; h++) {
        RunMemo *m = &self->memo[h & mask];
        if (m->gen != self->memo_gen) {
            m->gen = self->memo_gen;
            m->p = p;
            m->seen = self->log_len;
            memo_clear(m, now);
            self->memo_used++;
            return m;
        }
        if (m->p == p) {
            return m;
        }
    }
}

/* The memos read a job's own reservation as giving back its processors, which holds only
   where no segment is overbooked (free < 0: possible through reserve(), never in a
   scheduler's profile). */
static int
p_overbooked(const ProfileObject *self)
{
    for (Py_ssize_t i = 0; i < self->n; i++) {
        if (self->free[i] < 0) {
            return 1;
        }
    }
    return 0;
}

/* a new compression (or a change the log missed): every memo is forgotten */
static void
memo_forget_all(ProfileObject *self)
{
    self->memo_gen++;
    self->memo_used = 0;
    self->log_len = 0;
}

static int
log_change(ProfileObject *self, double u, double v, int gives)
{
    if (!(u < v)) {
        return 0; /* nothing changed */
    }
    if (self->log_len == self->log_cap) {
        Py_ssize_t cap = self->log_cap ? self->log_cap * 2 : 64;
        if (cap > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(Change)) {
            PyErr_NoMemory();
            return -1;
        }
        Change *log = PyMem_Realloc(self->log, (size_t)cap * sizeof(Change));
        if (log == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->log = log;
        self->log_cap = cap;
    }
    self->log[self->log_len++] = (Change){u, v, gives};
    return 0;
}

/* Bring a memo up to date with the changes logged since it was last used, in place: the
   runs that met processors given back are measured as the profile is now (g only needs to
   stay an upper bound, and a run no change gave to lies inside a run the memo saw), and so
   are the pieces of the open run if processors were taken from it. The open run's start
   is then found again. Changes after x leave the memo as it is. */
static void
memo_replay(ProfileObject *self, RunMemo *m, double now)
{
    double x = m->x;
    double a = m->a;
    int touched = 0, cut_open = 0;
    for (Py_ssize_t e = m->seen; e < self->log_len; e++) {
        const Change *c = &self->log[e];
        if (!(c->u < x)) {
            continue; /* after everything scanned */
        }
        touched = 1;
        if (c->gives) {
            memo_measure(self, m, c->u, c->v < x ? c->v : x, now);
        }
        else if (!isnan(a) && c->v > a) {
            cut_open = 1;
        }
    }
    m->seen = self->log_len;
    if (touched) {
        if (cut_open) {
            memo_measure(self, m, a, x, now);
        }
        m->a = run_open_at(self, m->p, x, now);
    }
}

/* No run ended before the memo's x is at least r long (see fit_margin). */
static inline int
memo_excludes(const RunMemo *m, double r, double s)
{
    return m->g + fit_margin(m->x, s, r) < r;
}

/* Scan runs of threshold p from the memo's x until s: the start of the first run that ends
   before s and fits r (the memo then stops at that run's end), or NaN with the memo at s.
   The memo's state at x only ever depends on the segments before x. */
static double
memo_scan(ProfileObject *self, RunMemo *m, long long p, double r, double s)
{
    const double *times = self->times;
    const long long *free = self->free;
    Py_ssize_t last = self->n - 1;
    double pos = m->x;
    Py_ssize_t q = bisect_right_d(times, 0, self->n, pos) - 1;
    if (q < 0) {
        q = 0;
        pos = times[0]; /* as earliest_start: nothing before the first breakpoint */
    }
    double a = m->a;
    double g = m->g;
    for (;;) {
        if (free[q] >= p) {
            if (isnan(a)) {
                a = pos;
            }
        }
        else if (!isnan(a)) {
            if (!(pos < a + r)) { /* earliest_start's test of the segment that blocks */
                /* the memo stops before that segment: the run stays open, as processors
                   given back from pos on would extend it */
                m->x = pos;
                m->g = g;
                m->a = a;
                return a;
            }
            double len = pos - a;
            if (len > g) {
                g = len;
            }
            a = NAN;
        }
        double next = q < last ? times[q + 1] : HUGE_VAL;
        if (next >= s) {
            break;
        }
        pos = next;
        q++;
    }
    m->x = s;
    m->g = g;
    m->a = a;
    return NAN;
}

/* earliest_start(p, r, now, limit=s, own_start=s) for compress, through the memo of p */
static double
memo_earliest_start(ProfileObject *self, RunMemo *m, long long p, double r, double s,
                    double now)
{
    memo_replay(self, m, now);
    if (!memo_excludes(m, r, s)) {
        memo_clear(m, now); /* a run before x might fit: search from the start */
    }
    if (s <= m->x) {
        /* scanned past s already, and no run ended before s fits: only the run open at s
           can take the job; find where it starts */
        double a = run_open_at(self, p, s, now);
        return isnan(a) ? s : a;
    }
    double found = memo_scan(self, m, p, r, s);
    if (!isnan(found)) {
        return found;
    }
    return isnan(m->a) ? s : m->a;
}

/* -- the type ------------------------------------------------------------------------- */

static void
p_reset(ProfileObject *self, long long total, double origin)
{
    /* tp_new gave the arrays a capacity >= 1, and it never shrinks */
    self->total = total;
    self->times[0] = origin;
    self->free[0] = total;
    self->n = 1;
    self->valid = 0;
    self->version++;
    self->unordered = isnan(origin); /* only a NaN makes the breakpoints unsorted */
}

static PyObject *
Profile_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    ProfileObject *self = (ProfileObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->total = 0;
    self->n = 0;
    self->cap = 0;
    self->valid = 0;
    self->times = NULL;
    self->free = NULL;
    self->best = NULL;
    self->version = 0;
    self->unordered = 0;
    self->memo = NULL;
    self->memo_cap = 0;
    self->memo_used = 0;
    self->memo_gen = 0;
    self->log = NULL;
    self->log_len = 0;
    self->log_cap = 0;
    self->levels = 0;
    self->lv_low = 0;
    self->lv_buckets = 0;
    self->lv_tree = NULL;
    self->lv_tree_cap = 0;
    /* a usable (empty, 0-processor) profile even if __init__ is never called */
    if (ensure_room(self, 1) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    self->times[0] = 0.0;
    self->free[0] = 0;
    self->n = 1;
    return (PyObject *)self;
}

static int
Profile_init(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"total", "origin", NULL};
    PyObject *total_obj;
    double origin = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|d:Profile", kwlist, &total_obj, &origin)) {
        return -1;
    }
    PyObject *as_int = PyNumber_Long(total_obj); /* int(total) */
    if (as_int == NULL) {
        return -1;
    }
    long long total = PyLong_AsLongLong(as_int);
    Py_DECREF(as_int);
    if (total == -1 && PyErr_Occurred()) {
        return -1;
    }
    p_reset(self, total, origin);
    return 0;
}

static void
Profile_dealloc(ProfileObject *self)
{
    PyMem_Free(self->times);
    PyMem_Free(self->free);
    PyMem_Free(self->best);
    PyMem_Free(self->memo);
    PyMem_Free(self->log);
    PyMem_Free(self->lv_tree);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t
Profile_len(ProfileObject *self)
{
    return self->n;
}

static PyObject *
Profile_repr(ProfileObject *self)
{
    PyObject *parts = PyList_New(self->n);
    if (parts == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->n; i++) {
        /* f"{t:g}" is PyOS_double_to_string(t, 'g', 6, 0) */
        char *t = PyOS_double_to_string(self->times[i], 'g', 6, 0, NULL);
        if (t == NULL) {
            Py_DECREF(parts);
            return NULL;
        }
        PyObject *s = PyUnicode_FromFormat("%s:%lld", t, self->free[i]);
        PyMem_Free(t);
        if (s == NULL) {
            Py_DECREF(parts);
            return NULL;
        }
        PyList_SET_ITEM(parts, i, s);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    if (sep == NULL) {
        Py_DECREF(parts);
        return NULL;
    }
    PyObject *steps = PyUnicode_Join(sep, parts);
    Py_DECREF(sep);
    Py_DECREF(parts);
    if (steps == NULL) {
        return NULL;
    }
    PyObject *out = PyUnicode_FromFormat("Profile(%U)", steps);
    Py_DECREF(steps);
    return out;
}

/* A new list of the profile's n step times (floats) or free counts (ints): the getters. */
static PyObject *
steps_list(ProfileObject *self, int free_counts)
{
    PyObject *out = PyList_New(self->n);
    if (out == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->n; i++) {
        PyObject *x = free_counts ? PyLong_FromLongLong(self->free[i])
                                  : PyFloat_FromDouble(self->times[i]);
        if (x == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, x);
    }
    return out;
}

static PyObject *
Profile_get_times(ProfileObject *self, void *closure)
{
    return steps_list(self, 0);
}

static PyObject *
Profile_get_free(ProfileObject *self, void *closure)
{
    return steps_list(self, 1);
}

static PyObject *
Profile_segments(ProfileObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *out = PyList_New(self->n);
    if (out == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->n; i++) {
        PyObject *x = Py_BuildValue("(dL)", self->times[i], self->free[i]);
        if (x == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, x);
    }
    return out;
}

/* The one float argument of a method (its keyword is ``name``); 0 with the error set. */
static int
one_time(PyObject *args, PyObject *kwds, const char *format, const char *name, double *t)
{
    char *kwlist[] = {(char *)name, NULL};
    return PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, t);
}

static PyObject *
Profile_advance(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    double now;
    if (!one_time(args, kwds, "d:advance", "now", &now)) {
        return NULL;
    }
    p_advance(self, now);
    Py_RETURN_NONE;
}

static PyObject *
Profile_free_at(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    double t;
    return one_time(args, kwds, "d:free_at", "t", &t) ? PyLong_FromLongLong(p_free_at(self, t))
                                                      : NULL;
}

static PyObject *
Profile_max_free_before(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    double t;
    if (!one_time(args, kwds, "d:max_free_before", "t", &t)) {
        return NULL;
    }
    return PyLong_FromLongLong(p_max_free_before(self, t));
}

static PyObject *
Profile_earliest_start(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"procs", "duration", "not_before", "limit", "own_start", NULL};
    long long procs;
    double duration, not_before;
    double limit = HUGE_VAL, own_start = HUGE_VAL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Ldd|dd:earliest_start", kwlist, &procs,
                                     &duration, &not_before, &limit, &own_start)) {
        return NULL;
    }
    double result;
    if (p_earliest_start(self, procs, duration, not_before, limit, own_start, &result) < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(result);
}

static PyObject *
Profile_reserve(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"start", "end", "procs", NULL};
    double start, end;
    long long procs;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ddL:reserve", kwlist, &start, &end, &procs)) {
        return NULL;
    }
    if (procs == LLONG_MIN) {
        PyErr_SetString(PyExc_OverflowError, "processor count out of the 64-bit range");
        return NULL;
    }
    if (p_add(self, start, end, -procs, NULL) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Profile_release(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"start", "end", "procs", NULL};
    double start, end;
    long long procs;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ddL:release", kwlist, &start, &end, &procs)) {
        return NULL;
    }
    if (start < self->times[0]) {
        start = self->times[0];
    }
    if (p_add(self, start, end, procs, NULL) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* seq[key] (new reference), with a fast path for a list indexed by an int */
static PyObject *
get_item(PyObject *seq, PyObject *key)
{
    if (PyList_CheckExact(seq) && PyLong_CheckExact(key)) {
        Py_ssize_t i = PyLong_AsSsize_t(key);
        if (i == -1 && PyErr_Occurred()) {
            PyErr_Clear(); /* let the generic path raise what Python raises */
        }
        else {
            Py_ssize_t n = PyList_GET_SIZE(seq);
            if (i < 0) {
                i += n;
            }
            if (i >= 0 && i < n) {
                PyObject *item = PyList_GET_ITEM(seq, i);
                Py_INCREF(item);
                return item;
            }
        }
    }
    return PyObject_GetItem(seq, key);
}

/* float(seq[key]); -1 with an exception set on failure */
static int
get_double(PyObject *seq, PyObject *key, double *out)
{
    PyObject *item = get_item(seq, key);
    if (item == NULL) {
        return -1;
    }
    double x;
    if (PyFloat_CheckExact(item)) {
        x = PyFloat_AS_DOUBLE(item);
    }
    else {
        x = PyFloat_AsDouble(item);
        if (x == -1.0 && PyErr_Occurred()) {
            Py_DECREF(item);
            return -1;
        }
    }
    Py_DECREF(item);
    *out = x;
    return 0;
}

/* seq[key] when reading it runs no Python code (a list, an int index in range, a float
   item): 1 and *out set, else 0 and nothing done */
static int
peek_double(PyObject *seq, PyObject *key, double *out)
{
    if (!PyList_CheckExact(seq) || !PyLong_CheckExact(key)) {
        return 0;
    }
    Py_ssize_t i = PyLong_AsSsize_t(key);
    if (i == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t n = PyList_GET_SIZE(seq);
    if (i < 0) {
        i += n;
    }
    if (i < 0 || i >= n || !PyFloat_CheckExact(PyList_GET_ITEM(seq, i))) {
        return 0;
    }
    *out = PyFloat_AS_DOUBLE(PyList_GET_ITEM(seq, i));
    return 1;
}

static int
get_longlong(PyObject *seq, PyObject *key, long long *out)
{
    PyObject *item = get_item(seq, key);
    if (item == NULL) {
        return -1;
    }
    long long x = PyLong_AsLongLong(item);
    Py_DECREF(item);
    if (x == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = x;
    return 0;
}

/* A sequence of floats read (and written) by index: through its buffer when it is a flat
   array of C doubles that is not a list (array.array('d'), numpy float64), which saves a
   Python float per access; else, and for any index that is not an int in range, through
   get_double / PyObject_SetItem as before. */
typedef struct {
    PyObject *obj;
    Py_buffer view;
    int has_view;
} DoubleSeq;

static void
doubles_open(DoubleSeq *d, PyObject *obj)
{
    d->obj = obj;
    d->has_view = 0;
    if (PyList_Check(obj) || !PyObject_CheckBuffer(obj)) {
        return;
    }
    if (PyObject_GetBuffer(obj, &d->view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_ND) < 0) {
        PyErr_Clear();
        return;
    }
    const char *f = d->view.format;
    if (d->view.ndim == 1 && d->view.itemsize == (Py_ssize_t)sizeof(double) && f != NULL &&
        (strcmp(f, "d") == 0 || strcmp(f, "=d") == 0 || strcmp(f, "@d") == 0)) {
        d->has_view = 1;
    }
    else {
        PyBuffer_Release(&d->view);
    }
}

static void
doubles_close(DoubleSeq *d)
{
    if (d->has_view) {
        PyBuffer_Release(&d->view);
        d->has_view = 0;
    }
}

/* the buffer slot of key, or NULL (then the generic path) */
static inline double *
doubles_slot(DoubleSeq *d, PyObject *key)
{
    if (!d->has_view || !PyLong_CheckExact(key)) {
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(key);
    if (i == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    Py_ssize_t n = d->view.len / (Py_ssize_t)sizeof(double);
    if (i < 0) {
        i += n;
    }
    return i >= 0 && i < n ? (double *)d->view.buf + i : NULL;
}

static inline int
doubles_get(DoubleSeq *d, PyObject *key, double *out)
{
    double *slot = doubles_slot(d, key);
    if (slot != NULL) {
        *out = *slot;
        return 0;
    }
    return get_double(d->obj, key, out);
}

static inline int
doubles_set(DoubleSeq *d, PyObject *key, double value)
{
    double *slot = doubles_slot(d, key);
    if (slot != NULL) {
        *slot = value;
        return 0;
    }
    PyObject *x = PyFloat_FromDouble(value);
    if (x == NULL) {
        return -1;
    }
    int rc = PyObject_SetItem(d->obj, key, x);
    Py_DECREF(x);
    return rc;
}

static PyObject *
Profile_compress(ProfileObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"jobs", "start_at", "procs", "duration", "now", NULL};
    PyObject *jobs, *start_at, *procs, *duration;
    double now;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOd:compress", kwlist, &jobs, &start_at,
                                     &procs, &duration, &now)) {
        return NULL;
    }
    PyObject *moved = PyList_New(0);
    if (moved == NULL) {
        return NULL;
    }
    PyObject *it = PyObject_GetIter(jobs);
    if (it == NULL) {
        Py_DECREF(moved);
        return NULL;
    }
    DoubleSeq starts;
    doubles_open(&starts, start_at);
    PyObject *j;
    /* Python code may run inside the loop (iterators, __index__, __float__, item
       destructors): nothing below keeps a pointer into the profile's arrays across it, and
       a change it makes to the profile is seen by the version check */
    memo_forget_all(self);
    int use_memo = !self->unordered && isfinite(now) && !p_overbooked(self);
    self->levels = 0;
    int long_queue = !PyList_Check(jobs) || levels_min_queue == 0 ||
                     (PyList_GET_SIZE(jobs) >= levels_min_queue && PyList_GET_SIZE(jobs) >= self->n);
    if (use_memo && long_queue) {
        levels_reset(self, now);
    }
    unsigned long long expected = self->version;
    while ((j = PyIter_Next(it)) != NULL) {
        double start, r, new_start;
        long long p;
        if (doubles_get(&starts, j, &start) < 0) {
            goto error;
        }
        if (start <= now) {
            Py_DECREF(j);
            continue;
        }
        if (get_longlong(procs, j, &p) < 0) {
            goto error;
        }
        if (self->version != expected) {
            memo_forget_all(self);
            expected = self->version;
            use_memo = use_memo && !p_overbooked(self);
            self->levels = 0;
            if (use_memo && long_queue) {
                levels_reset(self, now);
            }
        }
        /* With a memo, the search itself sees at once a job that cannot move: the test
           below (whose running maximum each move invalidates) is left out. Python reads
           the duration only after it, so it is read first only where that runs no code. */
        RunMemo *m = NULL;
        int have_r = use_memo && !self->unordered && p > 0 && isfinite(start) &&
                     peek_double(duration, j, &r);
        int settled = 0;
        if (have_r && r > 0 && isfinite(r)) {
            if (levels_exclude(self, p, r, start, now)) {
                /* no run before the job fits it: only the run open at its start can
                   take it */
                double a = run_open_at(self, p, start, now);
                new_start = isnan(a) ? start : a;
                settled = 1;
            }
            else {
                m = memo_get(self, p, now);
            }
        }
        if (m != NULL) {
            new_start = memo_earliest_start(self, m, p, r, start, now);
        }
        else if (!settled) { /* the plain search */
            if (p_max_free_before(self, start) < p) {
                Py_DECREF(j);
                continue; /* never enough processors free before it: cannot move */
            }
            if ((!have_r && get_double(duration, j, &r) < 0) ||
                p_earliest_start(self, p, r, now, start, start, &new_start) < 0) {
                goto error;
            }
        }
        if (new_start < start) {
            if (p == LLONG_MIN) {
                PyErr_SetString(PyExc_OverflowError, "processor count out of the 64-bit range");
                goto error;
            }
            /* processors given back over [gu, gv), taken over [tu, tv) */
            double gu = start, gv = start + r, tu = new_start, tv = new_start + r;
            if ((settled || m != NULL) && tv > gu) {
                /* the reservation slides (in a profile of finite, unoverflowed counts):
                   only the parts that do not overlap change, the same profile in the end */
                double overlap_end = tv;
                tv = gu;
                gu = overlap_end;
            }
            double last_time = self->times[self->n - 1];
            long long least = 0; /* the least count of [gu, gv) before the move */
            if (p_add(self, gu, gv, p, &least) < 0 || p_add(self, tu, tv, -p, NULL) < 0) {
                goto error;
            }
            expected = self->version;
            if (use_memo && (log_change(self, gu, gv, 1) < 0 || log_change(self, tu, tv, 0) < 0)) {
                PyErr_Clear(); /* out of memory for the log: go on without memos */
                use_memo = 0;
                self->levels = 0;
            }
            if (self->levels) {
                levels_after_move(self, least, gu, gv, tu, tv, last_time, now);
            }
            if (doubles_set(&starts, j, new_start) < 0 || PyList_Append(moved, j) < 0) {
                goto error;
            }
        }
        Py_DECREF(j);
    }
    Py_DECREF(it);
    doubles_close(&starts);
    if (PyErr_Occurred()) { /* the iterator failed */
        Py_DECREF(moved);
        return NULL;
    }
    return moved;

error:
    Py_DECREF(j);
    Py_DECREF(it);
    doubles_close(&starts);
    Py_DECREF(moved);
    return NULL;
}

/* split_due(jobs, start_at, now): see profile.py; ``jobs`` must be a list */
static PyObject *
split_due(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"jobs", "start_at", "now", NULL};
    PyObject *jobs, *start_at;
    double now;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!Od:split_due", kwlist, &PyList_Type, &jobs,
                                     &start_at, &now)) {
        return NULL;
    }
    DoubleSeq starts;
    doubles_open(&starts, start_at);
    PyObject *due = PyList_New(0);
    PyObject *kept = PyList_New(0);
    if (due == NULL || kept == NULL) {
        goto error;
    }
    double next = Py_HUGE_VAL;
    /* the size is read again at every step: Python code (a __float__) could shrink it */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(jobs); i++) {
        PyObject *j = PyList_GET_ITEM(jobs, i);
        Py_INCREF(j);
        double t;
        if (doubles_get(&starts, j, &t) < 0) {
            Py_DECREF(j);
            goto error;
        }
        int rc;
        if (t <= now) {
            rc = PyList_Append(due, j);
        }
        else {
            rc = PyList_Append(kept, j);
            if (t < next) {
                next = t;
            }
        }
        Py_DECREF(j);
        if (rc < 0) {
            goto error;
        }
    }
    doubles_close(&starts);
    if (PyList_GET_SIZE(due) > 0 &&
        PyList_SetSlice(jobs, 0, PyList_GET_SIZE(jobs), kept) < 0) {
        goto error;
    }
    Py_DECREF(kept);
    return Py_BuildValue("(Nd)", due, next);

error:
    doubles_close(&starts);
    Py_XDECREF(due);
    Py_XDECREF(kept);
    return NULL;
}

static PyMethodDef Profile_methods[] = {
    {"advance", (PyCFunction)(void (*)(void))Profile_advance, METH_VARARGS | METH_KEYWORDS,
     "advance(now)\n--\n\nForget the past: the profile starts at ``now`` from here on."},
    {"free_at", (PyCFunction)(void (*)(void))Profile_free_at, METH_VARARGS | METH_KEYWORDS,
     "free_at(t)\n--\n\nFree processors at instant ``t`` (t >= origin)."},
    {"max_free_before", (PyCFunction)(void (*)(void))Profile_max_free_before,
     METH_VARARGS | METH_KEYWORDS,
     "max_free_before(t)\n--\n\nMost processors free at any moment in [origin, t); -1 if t "
     "<= origin."},
    {"earliest_start", (PyCFunction)(void (*)(void))Profile_earliest_start,
     METH_VARARGS | METH_KEYWORDS,
     "earliest_start(procs, duration, not_before, limit=inf, own_start=inf)\n--\n\n"
     "Earliest t >= not_before with >= procs free throughout [t, t + duration).\n\n"
     "Returns ``limit`` if no such t is below it; ``own_start``: the job already holds "
     "``procs`` processors from ``own_start`` to ``own_start + duration``."},
    {"reserve", (PyCFunction)(void (*)(void))Profile_reserve, METH_VARARGS | METH_KEYWORDS,
     "reserve(start, end, procs)\n--\n\nTake ``procs`` processors over [start, end)."},
    {"release", (PyCFunction)(void (*)(void))Profile_release, METH_VARARGS | METH_KEYWORDS,
     "release(start, end, procs)\n--\n\nGive back ``procs`` processors over [start, end) "
     "(start clipped to the origin)."},
    {"compress", (PyCFunction)(void (*)(void))Profile_compress, METH_VARARGS | METH_KEYWORDS,
     "compress(jobs, start_at, procs, duration, now)\n--\n\n"
     "Move each reservation of ``jobs``, in order, to its earliest start (CBF). Updates "
     "``start_at`` and the profile in place; returns the jobs that moved."},
    {"segments", (PyCFunction)Profile_segments, METH_NOARGS,
     "segments()\n--\n\n(start, free) of each segment, for tests and plots."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Profile_members[] = {
    {"total", T_LONGLONG, offsetof(ProfileObject, total), 0, "processors of the cluster"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef Profile_getset[] = {
    {"times", (getter)Profile_get_times, NULL, "breakpoints (a new list)", NULL},
    {"free", (getter)Profile_get_free, NULL, "free processors of each segment (a new list)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Profile_as_sequence = {
    .sq_length = (lenfunc)Profile_len,
};

static PyTypeObject ProfileType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "schedlab.platform._cprofile.Profile",
    .tp_doc = "Profile(total, origin=0.0)\n--\n\n"
              "Free processors over [origin, +inf) on a cluster of ``total`` processors "
              "(C implementation of schedlab.platform.profile.Profile).",
    .tp_basicsize = sizeof(ProfileObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = Profile_new,
    .tp_init = (initproc)Profile_init,
    .tp_dealloc = (destructor)Profile_dealloc,
    .tp_repr = (reprfunc)Profile_repr,
    .tp_as_sequence = &Profile_as_sequence,
    .tp_methods = Profile_methods,
    .tp_members = Profile_members,
    .tp_getset = Profile_getset,
};

/* *slot = max(n, 0); the previous value (the test hooks below) */
static PyObject *
set_tunable(Py_ssize_t *slot, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t old = *slot;
    *slot = n < 0 ? 0 : n;
    return PyLong_FromSsize_t(old);
}

/* _set_levels_min_queue(n): the queue length from which compress uses its level bounds
   (0: always). For the tests, which drive short queues. */
static PyObject *
set_levels_min_queue(PyObject *module, PyObject *arg)
{
    return set_tunable(&levels_min_queue, arg);
}

/* _set_level_walk(n): how many segments a level measure walks past a change before it
   bounds the runs still open as infinite. For the tests. */
static PyObject *
set_level_walk(PyObject *module, PyObject *arg)
{
    return set_tunable(&level_walk, arg);
}

static PyMethodDef module_methods[] = {
    {"_set_levels_min_queue", (PyCFunction)set_levels_min_queue, METH_O,
     "_set_levels_min_queue(n)\n--\n\nFrom which queue length compress uses its level "
     "bounds (0: always); returns the previous value. For tests."},
    {"_set_level_walk", (PyCFunction)set_level_walk, METH_O,
     "_set_level_walk(n)\n--\n\nHow many segments a level measure walks before it bounds "
     "the runs still open as infinite (64); returns the previous value. For tests."},
    {"split_due", (PyCFunction)(void (*)(void))split_due, METH_VARARGS | METH_KEYWORDS,
     "split_due(jobs, start_at, now)\n--\n\n"
     "Take out of ``jobs`` (a list, in place, order kept) every job whose ``start_at`` is "
     "<= now; return them and the earliest ``start_at`` of the jobs left (inf if none)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cprofile_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "schedlab.platform._cprofile",
    .m_doc = "C implementation of the availability profile (schedlab.platform.profile).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__cprofile(void)
{
    if (PyType_Ready(&ProfileType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&cprofile_module);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&ProfileType);
    if (PyModule_AddObject(m, "Profile", (PyObject *)&ProfileType) < 0) {
        Py_DECREF(&ProfileType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
