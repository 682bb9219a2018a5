/*
 * schedlab.workload._cswf: the fast path of schedlab.workload.swf's reader, in C.
 *
 * ``parse_jobs(body)`` turns the job lines of an SWF file (header lines already removed)
 * into the float64 values of an (n, 18) array, row after row, in native byte order, as a
 * ``bytearray`` (the Python side wraps it with ``np.frombuffer``: no numpy headers here).
 * It returns None for anything the reader's ``np.loadtxt`` fast path would not turn into
 * an array of 18 finite columns, and the Python side then runs its validating slow path,
 * which names the bad line and field. The two paths must agree bit for bit (tested):
 *
 * - bytes: only digits, ``eE.+-``, space, tab, ``\n``, and ``\r`` right before ``\n``
 *   (the reader's byte filter: no nan/inf, no other whitespace, no comments);
 * - lines: split on ``\n``, fields on runs of spaces and tabs; lines with no field are
 *   skipped, every other line has exactly 18 fields;
 * - a field is ``[+-]?(digits[.digits?]|.digits)([eE][+-]?digits)?`` (what Python's float
 *   accepts among those bytes), its value finite (``1e400`` is rejected).
 *
 * Values: numpy converts every field with ``PyOS_string_to_double`` (correctly rounded,
 * locale-independent). Here a field whose digits form an integer m <= 2**53 and whose
 * decimal exponent e has |e| <= 22 is m * 10**e or m / 10**-e in one IEEE operation on two
 * exact doubles, hence correctly rounded too (Clinger's fast path; used only where doubles
 * are evaluated in double precision, FLT_EVAL_METHOD == 0). Every other field goes to
 * ``PyOS_string_to_double`` itself. The GIL is held throughout, as that function needs it.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define N_FIELDS 18
/* A valid line has 18 one-byte fields and 17 separators at least, plus its '\n'. */
#define MIN_LINE_BYTES (2 * N_FIELDS)
/* 2**53: every integer up to it is exact in a double. */
#define MAX_EXACT_MANTISSA 9007199254740992ULL
/* Digits stop being accumulated beyond this (the value then takes the slow conversion). */
#define MANTISSA_GUARD 100000000000000000ULL
#define EXPONENT_GUARD 100000

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define USE_FAST_DECIMALS 1
#else
#define USE_FAST_DECIMALS 0
#endif

/* 10**0 .. 10**22, all exact in a double. */
static const double POW10[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Outcome of a step: go on, give the body to the slow path, or a Python error is set. */
enum { PARSED = 0, REJECTED = 1, FAILED = -1 };

static int
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The slow conversion: numpy's own, on a NUL-terminated copy of the field. */
static int
convert_slow(const char *start, const char *end, double *out)
{
    char stack_buf[64];
    size_t size = (size_t)(end - start);
    char *buf = stack_buf;
    if (size >= sizeof(stack_buf)) {
        buf = PyMem_Malloc(size + 1);
        if (buf == NULL) {
            PyErr_NoMemory();
            return FAILED;
        }
    }
    memcpy(buf, start, size);
    buf[size] = '\0';
    char *stop = NULL;
    double value = PyOS_string_to_double(buf, &stop, NULL);
    int status = PARSED;
    if (value == -1.0 && PyErr_Occurred()) {
        /* The grammar was checked, so only an allocation failure is expected here. */
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            status = REJECTED;
        }
        else {
            status = FAILED;
        }
    }
    else if (stop != buf + size) {
        status = REJECTED;
    }
    if (buf != stack_buf) {
        PyMem_Free(buf);
    }
    *out = value;
    return status;
}

/* One field, the bytes [start, end) (none of them a separator). */
static int
parse_field(const char *start, const char *end, double *out)
{
    const char *p = start;
    int negative = 0;
    if (*p == '+' || *p == '-') {
        negative = *p == '-';
        p++;
    }
    uint64_t mantissa = 0;
    int slow = 0;
    long shift = 0; /* decimal exponent from the fraction digits taken into the mantissa */
    int digits = 0; /* whether the mantissa has a digit */
    for (; p < end && is_digit(*p); p++) {
        digits = 1;
        if (mantissa < MANTISSA_GUARD) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        }
        else {
            slow = 1;
        }
    }
    if (p < end && *p == '.') {
        p++;
        for (; p < end && is_digit(*p); p++) {
            digits = 1;
            if (mantissa < MANTISSA_GUARD && shift > -EXPONENT_GUARD) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                shift--;
            }
            else {
                slow = 1;
            }
        }
    }
    if (digits == 0) {
        return REJECTED; /* "", "+", ".", "-.", "e5" */
    }
    long exponent = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int exponent_negative = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            exponent_negative = *p == '-';
            p++;
        }
        if (p == end || !is_digit(*p)) {
            return REJECTED; /* "1e", "1e+" */
        }
        for (; p < end && is_digit(*p); p++) {
            if (exponent < EXPONENT_GUARD) {
                exponent = exponent * 10 + (*p - '0');
            }
            else {
                slow = 1;
            }
        }
        if (exponent_negative) {
            exponent = -exponent;
        }
    }
    if (p != end) {
        return REJECTED; /* "1.2.3", "1e5.", "1-2" */
    }
    if (!slow && mantissa <= MAX_EXACT_MANTISSA) {
        long e10 = exponent + shift;
        double value;
        int exact = 1;
        if (mantissa == 0 || e10 == 0) {
            value = (double)mantissa;
        }
        else if (USE_FAST_DECIMALS && e10 < 0 && e10 >= -22) {
            value = (double)mantissa / POW10[-e10];
        }
        else if (USE_FAST_DECIMALS && e10 > 0 && e10 <= 22) {
            value = (double)mantissa * POW10[e10];
        }
        else {
            exact = 0;
        }
        if (exact) {
            *out = negative ? -value : value; /* "-0" is -0.0, as PyOS_string_to_double says */
            return PARSED;
        }
    }
    int status = convert_slow(start, end, out);
    if (status != PARSED) {
        return status;
    }
    return isfinite(*out) ? PARSED : REJECTED; /* "1e400" overflows to inf */
}

static int
is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int
is_field_byte(char c)
{
    return is_digit(c) || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E';
}

/* Parse [data, data + size) into `out` (room for `cap` rows of doubles); sets *rows. */
static int
parse_body(const char *data, Py_ssize_t size, char *out, Py_ssize_t cap, Py_ssize_t *rows)
{
    const char *p = data;
    const char *end = data + size;
    Py_ssize_t n = 0;
    double row[N_FIELDS];
    while (p < end) {
        int fields = 0;
        while (p < end) { /* one line */
            while (p < end && is_blank(*p)) {
                p++;
            }
            if (p == end) {
                break;
            }
            if (*p == '\n') {
                p++;
                break;
            }
            if (*p == '\r') {
                if (p + 1 < end && p[1] == '\n') {
                    p += 2;
                    break;
                }
                return REJECTED; /* a lone '\r' */
            }
            const char *start = p;
            while (p < end && is_field_byte(*p)) {
                p++;
            }
            if (p == start || (p < end && !is_blank(*p) && *p != '\n' && *p != '\r')) {
                return REJECTED; /* a byte no number or separator has */
            }
            if (fields == N_FIELDS) {
                return REJECTED; /* more than 18 fields */
            }
            int status = parse_field(start, p, &row[fields]);
            if (status != PARSED) {
                return status;
            }
            fields++;
        }
        if (fields == 0) {
            continue; /* a blank line */
        }
        if (fields != N_FIELDS || n == cap) {
            return REJECTED; /* (n == cap cannot happen: see parse_jobs) */
        }
        memcpy(out + n * (Py_ssize_t)sizeof(row), row, sizeof(row));
        n++;
    }
    *rows = n;
    return PARSED;
}

/* An upper bound on the number of job lines: lines that can hold 18 fields. */
static Py_ssize_t
max_rows(const char *data, Py_ssize_t size)
{
    Py_ssize_t lines = 1;
    const char *p = data;
    const char *end = data + size;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        lines++;
        p++;
    }
    Py_ssize_t by_size = (size + 1) / MIN_LINE_BYTES + 1;
    return lines < by_size ? lines : by_size;
}

PyDoc_STRVAR(parse_jobs_doc,
"parse_jobs(body, /)\n--\n\n"
"The job lines of an SWF file (bytes, header lines removed) as the float64 values of an\n"
"(n, 18) array, row-major, native byte order, in a bytearray; None when a line is not 18\n"
"finite plain numbers separated by spaces or tabs (the caller then finds the bad line).");

static PyObject *
parse_jobs(PyObject *module, PyObject *arg)
{
    (void)module;
    if (!PyBytes_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "parse_jobs() expects bytes, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    const char *data = PyBytes_AS_STRING(arg);
    Py_ssize_t size = PyBytes_GET_SIZE(arg);
    Py_ssize_t cap = max_rows(data, size);
    if (cap > PY_SSIZE_T_MAX / (Py_ssize_t)(N_FIELDS * sizeof(double))) {
        return PyErr_NoMemory();
    }
    PyObject *result =
        PyByteArray_FromStringAndSize(NULL, cap * (Py_ssize_t)(N_FIELDS * sizeof(double)));
    if (result == NULL) {
        return NULL;
    }
    Py_ssize_t rows = 0;
    int status = parse_body(data, size, PyByteArray_AS_STRING(result), cap, &rows);
    if (status != PARSED) {
        Py_DECREF(result);
        if (status == FAILED) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    if (PyByteArray_Resize(result, rows * (Py_ssize_t)(N_FIELDS * sizeof(double))) < 0) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

static PyMethodDef cswf_methods[] = {
    {"parse_jobs", parse_jobs, METH_O, parse_jobs_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cswf_module = {
    PyModuleDef_HEAD_INIT,
    "schedlab.workload._cswf",
    "SWF job lines to float64 rows in one C pass (the fast path of schedlab.workload.swf).",
    0,
    cswf_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__cswf(void)
{
    return PyModuleDef_Init(&cswf_module);
}
