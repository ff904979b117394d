"""The C source of the checked launch (docs/driver.md, "The checked launch"), part of
the launch shim's source (:mod:`._shim_source` joins the parts).  Standard library
only, no imports: ``setup.py`` loads the shim's source by path inside the build backend.
"""

__all__ = ["CHECKED_SOURCE"]

# The checked launch (docs/driver.md, "Checked launches"): one METH_FASTCALL function
# per bound configuration that checks each value's class, converts the values into a
# parameter buffer on the C stack and calls the driver -- no Python frame, no
# per-thread buffer, no struct call on the way.  Written to the stable ABI of 3.10
# (the wheel is cp310-abi3; cffi defines Py_LIMITED_API without a version, so the
# 3.10 pieces used -- METH_FASTCALL -- are spelt out here).
CHECKED_SOURCE = r"""
#include <math.h>
#include <string.h>

#ifndef METH_FASTCALL
#define METH_FASTCALL 0x0080
#endif

#define CL_STRUCT 0   /* struct's conversion of the slot's code */
#define CL_WRAP 1     /* an integer modulo 2**bits (numba's conversion) */
#define CL_TRUTH 2    /* 1 if the value is true, else 0 */
#define CL_STACK_BYTES 4096
#define CL_STACK_SLOTS 512
#define CL_CAPSULE "cudalite.driver.checked_launch"

typedef struct {
    PyObject *cls;    /* the exact class the value must have, or NULL */
    PyObject *pack1;  /* struct.Struct("@<code>").pack: the conversion when not done here */
    unsigned int offset, size;
    int code, mode;
} cl_slot;

typedef struct {
    int ex;
    uintptr_t entry, f, stream, config;
    unsigned int gx, gy, gz, bx, by, bz, smem;
    Py_ssize_t count, size;
    PyObject *keep;
    cl_slot slots[1];
} cl_state;

static void cl_store_int(char *dst, unsigned int size, unsigned long long x)
{
    uint8_t b; uint16_t h; uint32_t w; uint64_t q;
    switch (size) {
    case 1: b = (uint8_t)x; memcpy(dst, &b, 1); break;
    case 2: h = (uint16_t)x; memcpy(dst, &h, 2); break;
    case 4: w = (uint32_t)x; memcpy(dst, &w, 4); break;
    default: q = (uint64_t)x; memcpy(dst, &q, 8); break;
    }
}

/* struct's conversion done here for exact ints, floats and bools in range; 1 when done,
   0 when the slot's own Struct must do it (it also raises struct's errors) */
static int cl_fast(const cl_slot *s, PyObject *v, char *dst)
{
    double d; float y; long long x; unsigned long long u;
    switch (s->code) {
    case 'd':
        if (!PyFloat_CheckExact(v)) return 0;
        d = PyFloat_AsDouble(v); memcpy(dst, &d, 8); return 1;
    case 'f':
        if (!PyFloat_CheckExact(v)) return 0;
        d = PyFloat_AsDouble(v);
        if (isnan(d)) return 0;
        y = (float)d;
        if (isinf(y) && !isinf(d)) return 0;
        memcpy(dst, &y, 4); return 1;
    case '?':
        if (v != Py_True && v != Py_False) return 0;
        dst[0] = (char)(v == Py_True); return 1;
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
        if (!PyLong_CheckExact(v)) return 0;
        x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        if (s->size < 8) {
            long long lim = 1LL << (8 * s->size - 1);
            if (x < -lim || x >= lim) return 0;
        }
        cl_store_int(dst, s->size, (unsigned long long)x); return 1;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': case 'P':
        if (!PyLong_CheckExact(v)) return 0;
        u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        if (s->size < 8 && u >> (8 * s->size)) return 0;
        cl_store_int(dst, s->size, u); return 1;
    }
    return 0;
}

static int cl_convert(const cl_slot *s, PyObject *v, char *dst)
{
    PyObject *out;
    char *p;
    Py_ssize_t n;
    unsigned long long u;
    int t;
    if (s->mode == CL_WRAP) {
        if (PyLong_Check(v)) {
            u = PyLong_AsUnsignedLongLongMask(v);
        } else {
            PyObject *i = PyNumber_Index(v);
            if (i == NULL) return -1;
            u = PyLong_AsUnsignedLongLongMask(i);
            Py_DECREF(i);
        }
        if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        cl_store_int(dst, s->size, u);
        return 0;
    }
    if (s->mode == CL_TRUTH) {
        t = PyObject_IsTrue(v);
        if (t < 0) return -1;
        cl_store_int(dst, s->size, (unsigned long long)t);
        return 0;
    }
    if (cl_fast(s, v, dst)) return 0;
    out = PyObject_CallFunctionObjArgs(s->pack1, v, NULL);
    if (out == NULL) return -1;
    if (PyBytes_AsStringAndSize(out, &p, &n) < 0 || n != (Py_ssize_t)s->size) {
        Py_DECREF(out);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "checked launch: a slot packed to the wrong size");
        return -1;
    }
    memcpy(dst, p, (size_t)n);
    Py_DECREF(out);
    return 0;
}

/* Fill ``buf``/``ptrs`` from the values: 1 done, 0 a value's class is not its slot's, -1 error */
static int cl_fill(const cl_state *st, PyObject *const *args, Py_ssize_t nargs, char *buf, void **ptrs)
{
    Py_ssize_t i;
    if (nargs != st->count) {
        PyErr_Format(PyExc_TypeError, "this launch takes %zd parameter values (%zd given)", st->count, nargs);
        return -1;
    }
    for (i = 0; i < nargs; i++)
        if (st->slots[i].cls != NULL && (PyObject *)Py_TYPE(args[i]) != st->slots[i].cls) return 0;
    memset(buf, 0, (size_t)st->size);
    for (i = 0; i < nargs; i++) {
        char *dst = buf + st->slots[i].offset;
        if (cl_convert(&st->slots[i], args[i], dst) < 0) return -1;
        ptrs[i] = dst;
    }
    return 1;
}

static cl_state *cl_get(PyObject *self, char **heap, char **buf, void ***ptrs, uint64_t *stack_buf,
                        void **stack_ptrs)
{
    cl_state *st = (cl_state *)PyCapsule_GetPointer(self, CL_CAPSULE);
    *heap = NULL; *buf = (char *)stack_buf; *ptrs = stack_ptrs;
    if (st != NULL && (st->size > CL_STACK_BYTES || st->count > CL_STACK_SLOTS)) {
        size_t need = (size_t)st->size + 16 + sizeof(void *) * (size_t)st->count;
        *heap = (char *)PyMem_Malloc(need);
        if (*heap == NULL) { PyErr_NoMemory(); return NULL; }
        *ptrs = (void **)*heap;
        *buf = *heap + sizeof(void *) * (size_t)st->count;
        *buf += (16 - ((uintptr_t)*buf & 15)) & 15;
    }
    return st;
}

/* The driver call, the GIL released: cuLaunchKernel, or cuLaunchKernelEx with the prepared config */
static int cl_driver_launch(const cl_state *st, void **ptrs)
{
    int rc;
    Py_BEGIN_ALLOW_THREADS
    if (st->ex)
        rc = ((cl_launch_ex_fn)st->entry)((const void *)st->config, (void *)st->f, st->count ? ptrs : NULL,
                                          (void **)0);
    else
        rc = ((cl_launch_fn)st->entry)((void *)st->f, st->gx, st->gy, st->gz, st->bx, st->by, st->bz, st->smem,
                                       (void *)st->stream, st->count ? ptrs : NULL, (void **)0);
    Py_END_ALLOW_THREADS
    return rc;
}

/* The values into a buffer, then the launch (``pack`` 0: None, or the CUresult) or the
   buffer itself (``pack`` 1: bytes); False when a value's class is not its slot's */
static PyObject *cl_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs, int pack)
{
    uint64_t stack_buf[CL_STACK_BYTES / 8];
    void *stack_ptrs[CL_STACK_SLOTS];
    char *heap, *buf;
    void **ptrs;
    int ok, rc;
    PyObject *out;
    cl_state *st = cl_get(self, &heap, &buf, &ptrs, stack_buf, stack_ptrs);
    if (st == NULL) return NULL;
    ok = cl_fill(st, args, nargs, buf, ptrs);
    if (ok <= 0) {
        PyMem_Free(heap);
        if (ok < 0) return NULL;
        Py_INCREF(Py_False);
        return Py_False;
    }
    if (pack) {
        out = PyBytes_FromStringAndSize(buf, st->size);
    } else {
        rc = cl_driver_launch(st, ptrs);
        if (rc == 0) { Py_INCREF(Py_None); out = Py_None; }
        else out = PyLong_FromLong((long)rc);
    }
    PyMem_Free(heap);
    return out;
}

static PyObject *cl_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return cl_run(self, args, nargs, 0);
}

static PyObject *cl_pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return cl_run(self, args, nargs, 1);
}

static void cl_free(PyObject *capsule)
{
    Py_ssize_t i;
    cl_state *st = (cl_state *)PyCapsule_GetPointer(capsule, CL_CAPSULE);
    if (st == NULL) { PyErr_Clear(); return; }
    for (i = 0; i < st->count; i++) {
        Py_XDECREF(st->slots[i].cls);
        Py_XDECREF(st->slots[i].pack1);
    }
    Py_XDECREF(st->keep);
    PyMem_Free(st);
}

static PyMethodDef cl_call_def = {"checked_launch", (PyCFunction)(void (*)(void))cl_call, METH_FASTCALL,
                                  "Launch with these parameter values: None, False, or the CUresult."};
static PyMethodDef cl_pack_def = {"checked_pack", (PyCFunction)(void (*)(void))cl_pack, METH_FASTCALL,
                                  "The parameter buffer of these values (bytes), or False."};

/* make(ex, entry, f, gx, gy, gz, bx, by, bz, smem, stream, config, size, slots, keep) ->
   (launch, pack); slots: one (code, offset, size, mode, cls or None, pack1) per parameter */
static PyObject *cl_make(PyObject *unused, PyObject *args)
{
    int ex;
    unsigned long long entry, f, stream, config;
    unsigned int gx, gy, gz, bx, by, bz, smem;
    Py_ssize_t size, count, i;
    PyObject *slots, *keep, *capsule, *launch, *pack, *result;
    cl_state *st;
    if (!PyArg_ParseTuple(args, "iKKIIIIIIIKKnO!O", &ex, &entry, &f, &gx, &gy, &gz, &bx, &by, &bz, &smem,
                          &stream, &config, &size, &PyTuple_Type, &slots, &keep))
        return NULL;
    count = PyTuple_Size(slots);
    if (size < 0 || size > (1 << 20) || count > (1 << 16)) {
        PyErr_SetString(PyExc_ValueError, "checked launch: parameter buffer too large");
        return NULL;
    }
    st = (cl_state *)PyMem_Malloc(sizeof(cl_state) + sizeof(cl_slot) * (size_t)(count ? count : 1));
    if (st == NULL) return PyErr_NoMemory();
    memset(st, 0, sizeof(cl_state) + sizeof(cl_slot) * (size_t)(count ? count : 1));
    st->ex = ex; st->entry = (uintptr_t)entry; st->f = (uintptr_t)f; st->stream = (uintptr_t)stream;
    st->config = (uintptr_t)config; st->gx = gx; st->gy = gy; st->gz = gz; st->bx = bx; st->by = by;
    st->bz = bz; st->smem = smem; st->size = size;
    for (i = 0; i < count; i++) {
        cl_slot *s = &st->slots[i];
        PyObject *cls, *pack1;
        if (!PyArg_ParseTuple(PyTuple_GetItem(slots, i), "iIIiOO", &s->code, &s->offset, &s->size, &s->mode,
                              &cls, &pack1))
            goto fail;
        if ((s->size != 1 && s->size != 2 && s->size != 4 && s->size != 8 && s->mode != CL_STRUCT)
                || s->offset + s->size > (unsigned int)size || s->mode < 0 || s->mode > CL_TRUTH) {
            PyErr_Format(PyExc_ValueError, "checked launch: bad slot %zd", i);
            goto fail;
        }
        if (cls != Py_None) { Py_INCREF(cls); s->cls = cls; }
        Py_INCREF(pack1); s->pack1 = pack1;
        st->count = i + 1;
    }
    capsule = PyCapsule_New(st, CL_CAPSULE, cl_free);
    if (capsule == NULL) goto fail;
    Py_INCREF(keep); st->keep = keep;  /* from here on the capsule owns every reference */
    launch = PyCFunction_NewEx(&cl_call_def, capsule, NULL);
    pack = PyCFunction_NewEx(&cl_pack_def, capsule, NULL);
    Py_DECREF(capsule);
    if (launch == NULL || pack == NULL) { Py_XDECREF(launch); Py_XDECREF(pack); return NULL; }
    result = PyTuple_Pack(2, launch, pack);
    Py_DECREF(launch); Py_DECREF(pack);
    return result;
fail:
    for (i = 0; i < st->count; i++) { Py_XDECREF(st->slots[i].cls); Py_XDECREF(st->slots[i].pack1); }
    PyMem_Free(st);
    return NULL;
}

static PyMethodDef cl_make_def = {"make_checked_launch", cl_make, METH_VARARGS,
                                  "make(ex, entry, f, gx, gy, gz, bx, by, bz, smem, stream, config, size, slots,"
                                  " keep) -> (launch, pack)"};

"""
