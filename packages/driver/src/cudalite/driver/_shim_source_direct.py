"""The C source of the direct launch (docs/driver.md, "The direct launch"): a whole
configured launch in C in front of a fallback, part of the launch shim's source
(:mod:`._shim_source` joins the parts; it follows the checked launch's source, whose
state and conversions it uses, and the argument groups' :mod:`._shim_source_groups`).
Standard library only, no imports.
"""

__all__ = ["DIRECT_SOURCE"]

DIRECT_SOURCE = r"""
/* ---- The direct launch: a whole configured launch in C, in front of a fallback ---- */
typedef struct {
    PyObject_HEAD
    PyObject *capsule;   /* the checked launch's state: configuration, slots */
    cl_state *st;        /* the capsule's pointer (valid while capsule is set) */
    PyObject *fallback;  /* called with the call's own arguments whenever this cannot launch */
    PyObject *rec_map, *rec_key, *rec_val;  /* rec_map[rec_key] = rec_val after each launch */
    PyObject *pre_call, *pre_value;  /* when set: launch only if pre_call() is pre_value */
    Py_ssize_t ngroups;
    cl_group *groups;
    /* The kept buffer: parameter values left in place between launches, with their slot
       pointers (fixed); last[i]: the int, float or bool whose bytes fill argument i's slot
       there (a strong reference), else NULL.  busy: a launch is using it (another call --
       another thread while the driver runs, or Python code run by a check -- takes the
       stack buffer instead). */
    char *kept_mem, *kept;
    void **kept_ptrs;
    PyObject **last;
    int busy;
} cl_direct_obj;

static int cl_direct_traverse(PyObject *self, visitproc visit, void *arg)
{
    cl_direct_obj *d = (cl_direct_obj *)self;
    Py_ssize_t i;
    CL_VISIT(d->capsule); CL_VISIT(d->fallback); CL_VISIT(d->rec_map); CL_VISIT(d->rec_key); CL_VISIT(d->rec_val);
    CL_VISIT(d->pre_call); CL_VISIT(d->pre_value);
    for (i = 0; i < d->ngroups; i++) {
        CL_VISIT(d->groups[i].key_attr); CL_VISIT(d->groups[i].key); CL_VISIT(d->groups[i].values_attr);
        CL_VISIT(d->groups[i].stable); CL_VISIT(d->groups[i].seen[0]); CL_VISIT(d->groups[i].seen[1]);
        if (d->last != NULL) CL_VISIT(d->last[i]);
    }
    CL_VISIT(Py_TYPE(self));
    return 0;
}

static int cl_direct_clear(PyObject *self)
{
    cl_direct_obj *d = (cl_direct_obj *)self;
    Py_ssize_t i;
    Py_CLEAR(d->capsule); Py_CLEAR(d->fallback); Py_CLEAR(d->rec_map); Py_CLEAR(d->rec_key); Py_CLEAR(d->rec_val);
    Py_CLEAR(d->pre_call); Py_CLEAR(d->pre_value);
    for (i = 0; i < d->ngroups; i++) {
        Py_CLEAR(d->groups[i].key_attr); Py_CLEAR(d->groups[i].key); Py_CLEAR(d->groups[i].values_attr);
        Py_CLEAR(d->groups[i].stable); Py_CLEAR(d->groups[i].seen[0]); Py_CLEAR(d->groups[i].seen[1]);
        if (d->last != NULL) Py_CLEAR(d->last[i]);
    }
    return 0;
}

static void cl_direct_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    cl_direct_obj *d = (cl_direct_obj *)self;
    Py_ssize_t i;
    PyObject_GC_UnTrack(self);
    cl_direct_clear(self);
    for (i = 0; d->groups != NULL && i < d->ngroups; i++) PyMem_Free(d->groups[i].bytes);
    PyMem_Free(d->groups);
    PyMem_Free(d->kept_mem);
    PyMem_Free(d->last);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyType_Slot cl_direct_slots[] = {
    {Py_tp_dealloc, (void *)cl_direct_dealloc},
    {Py_tp_traverse, (void *)cl_direct_traverse},
    {Py_tp_clear, (void *)cl_direct_clear},
    {0, NULL},
};
static PyType_Spec cl_direct_spec = {"cudalite.driver.DirectLaunchState", sizeof(cl_direct_obj), 0,
                                     Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, cl_direct_slots};

static PyObject *cl_direct_fallback(cl_direct_obj *d, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *tuple, *kwargs = NULL, *out;
    Py_ssize_t i, nkw = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
    if (d->fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "this launch was cleared (its kernel is being collected)");
        return NULL;
    }
    tuple = PyTuple_New(nargs);
    if (tuple == NULL) return NULL;
    for (i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SetItem(tuple, i, args[i]);
    }
    if (nkw) {
        kwargs = PyDict_New();
        if (kwargs == NULL) { Py_DECREF(tuple); return NULL; }
        for (i = 0; i < nkw; i++)
            if (PyDict_SetItem(kwargs, PyTuple_GetItem(kwnames, i), args[nargs + i]) < 0) {
                Py_DECREF(tuple); Py_DECREF(kwargs); return NULL;
            }
    }
    out = PyObject_Call(d->fallback, tuple, kwargs);
    Py_DECREF(tuple);
    Py_XDECREF(kwargs);
    return out;
}

static PyObject *cl_direct_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    uint64_t stack_buf[CL_STACK_BYTES / 8];
    void *stack_ptrs[CL_STACK_SLOTS];
    char *heap, *buf;
    void **ptrs;
    int rc;
    Py_ssize_t i;
    cl_direct_obj *d = (cl_direct_obj *)self;
    cl_state *st;
    if ((kwnames != NULL && PyTuple_Size(kwnames) > 0) || nargs != d->ngroups || d->capsule == NULL)
        return cl_direct_fallback(d, args, nargs, kwnames);
    if (d->pre_call != NULL) {
        PyObject *r = PyObject_CallObject(d->pre_call, NULL);
        Py_XDECREF(r);  /* only its identity is compared */
        if (r != d->pre_value) {
            PyErr_Clear();
            return cl_direct_fallback(d, args, nargs, kwnames);
        }
    }
    if (!d->busy && d->kept != NULL) {
        /* the kept buffer: an int, float or bool that is the very object whose bytes are
           there needs nothing (immutable, its conversion a function of its value) */
        st = d->st;
        d->busy = 1;
        for (i = 0; i < nargs; i++) {
            PyObject *a = args[i];
            if (a == d->last[i]) continue;
            if (!cl_fill_group(st, &d->groups[i], a, d->kept, d->kept_ptrs, 1)) {
                d->busy = 0;
                return cl_direct_fallback(d, args, nargs, kwnames);
            }
            if (d->groups[i].kind == CL_GROUP_VALUE) {  /* its bytes are a's now */
                PyObject *old = d->last[i];
                if (PyFloat_CheckExact(a) || PyLong_CheckExact(a) || PyBool_Check(a)) {
                    Py_INCREF(a);
                    d->last[i] = a;
                } else {
                    d->last[i] = NULL;
                }
                Py_XDECREF(old);  /* a number: no Python code runs */
            }
        }
        rc = cl_driver_launch(st, d->kept_ptrs);
        d->busy = 0;
    } else {
        st = cl_get(d->capsule, &heap, &buf, &ptrs, stack_buf, stack_ptrs);
        if (st == NULL) return NULL;
        memset(buf, 0, (size_t)st->size);
        for (i = 0; i < nargs; i++)
            if (!cl_fill_group(st, &d->groups[i], args[i], buf, ptrs, 0)) {
                PyMem_Free(heap);
                return cl_direct_fallback(d, args, nargs, kwnames);
            }
        rc = cl_driver_launch(st, ptrs);
        PyMem_Free(heap);
    }
    if (rc != 0)  /* nothing was launched: the fallback launches again, and reports */
        return cl_direct_fallback(d, args, nargs, kwnames);
    if (d->rec_map != NULL && PyObject_SetItem(d->rec_map, d->rec_key, d->rec_val) < 0) return NULL;
    Py_INCREF(Py_None);
    return Py_None;
}

static PyMethodDef cl_direct_def = {"direct_launch", (PyCFunction)(void (*)(void))cl_direct_call,
                                    METH_FASTCALL | METH_KEYWORDS,
                                    "Launch with these arguments, or call the fallback with them."};

/* A CACHED group's (holder, name, checks): a dict, a str, and (str, bool, int > 0) triples
   (or (callable, True, int > 0)) */
static int cl_cached_ok(PyObject *holder, PyObject *name, PyObject *checks)
{
    Py_ssize_t j;
    if (!PyDict_Check(holder) || !PyUnicode_Check(name) || !PyTuple_Check(checks)) return 0;
    for (j = 0; j < PyTuple_Size(checks); j++) {
        PyObject *c = PyTuple_GetItem(checks, j);
        if (!PyTuple_Check(c) || PyTuple_Size(c) != 3 || !PyBool_Check(PyTuple_GetItem(c, 1))
                || !(PyUnicode_Check(PyTuple_GetItem(c, 0))
                     || (PyCallable_Check(PyTuple_GetItem(c, 0)) && PyTuple_GetItem(c, 1) == Py_True))
                || !PyLong_Check(PyTuple_GetItem(c, 2))
                || PyLong_AsSsize_t(PyTuple_GetItem(c, 2)) < 1) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* make_direct(launch, groups, fallback, rec_map, rec_key, rec_val, pre_call, pre_value) -> function;
   ``launch`` a checked launch of make(); groups: one (kind, first, n, a, b, c) per argument (see
   cl_group); pre_call None: no precondition */
static PyObject *cl_make_direct(PyObject *unused, PyObject *args)
{
    static PyObject *type = NULL;  /* made once, under the GIL */
    PyObject *launch, *groups, *fallback, *rec_map, *rec_key, *rec_val, *pre_call, *pre_value, *capsule, *fn;
    cl_direct_obj *d;
    cl_state *st;
    Py_ssize_t i, n, expect = 0;
    if (!PyArg_ParseTuple(args, "OO!OOOOOO", &launch, &PyTuple_Type, &groups, &fallback, &rec_map, &rec_key,
                          &rec_val, &pre_call, &pre_value))
        return NULL;
    capsule = PyObject_GetAttrString(launch, "__self__");
    if (capsule == NULL) return NULL;
    st = (cl_state *)PyCapsule_GetPointer(capsule, CL_CAPSULE);
    if (st == NULL) { Py_DECREF(capsule); return NULL; }
    if (type == NULL && (type = PyType_FromSpec(&cl_direct_spec)) == NULL) { Py_DECREF(capsule); return NULL; }
    n = PyTuple_Size(groups);
    d = (cl_direct_obj *)PyType_GenericAlloc((PyTypeObject *)type, 0);
    if (d == NULL) { Py_DECREF(capsule); return NULL; }
    d->capsule = capsule;
    d->st = st;
    d->groups = (cl_group *)PyMem_Malloc(sizeof(cl_group) * (size_t)(n ? n : 1));
    if (d->groups == NULL) { Py_DECREF(d); return PyErr_NoMemory(); }
    memset(d->groups, 0, sizeof(cl_group) * (size_t)(n ? n : 1));
    for (i = 0; i < n; i++) {
        cl_group *g = &d->groups[i];
        PyObject *ka, *k, *va, *stable;
        if (!PyArg_ParseTuple(PyTuple_GetItem(groups, i), "innOOOO", &g->kind, &g->first, &g->n, &ka, &k, &va,
                              &stable)) {
            Py_DECREF(d); return NULL;
        }
        d->ngroups = i + 1;
        if (g->first != expect || g->n < 0 || g->first + g->n > st->count
                || (g->kind == CL_GROUP_VALUE && g->n != 1)
                || (g->kind == CL_GROUP_ATTRS && (!PyUnicode_Check(ka) || !PyUnicode_Check(va)))
                || (g->kind == CL_GROUP_CACHED && !cl_cached_ok(ka, k, va))
                || (stable != Py_None && (g->kind != CL_GROUP_ATTRS || g->n < 1 || !PyType_Check(stable)))
                || (g->kind != CL_GROUP_VALUE && g->kind != CL_GROUP_ATTRS && g->kind != CL_GROUP_CACHED)) {
            PyErr_Format(PyExc_ValueError, "direct launch: bad argument group %zd", i);
            Py_DECREF(d); return NULL;
        }
        expect += g->n;
        if (g->kind != CL_GROUP_VALUE) {
            Py_INCREF(ka); g->key_attr = ka; Py_INCREF(k); g->key = k; Py_INCREF(va); g->values_attr = va;
        }
        if (stable != Py_None) {
            const cl_slot *last = &st->slots[g->first + g->n - 1];
            g->span = (Py_ssize_t)(last->offset + last->size - st->slots[g->first].offset);
            g->bytes = (char *)PyMem_Malloc((size_t)(2 * g->span));
            if (g->bytes == NULL) { Py_DECREF(d); return PyErr_NoMemory(); }
            Py_INCREF(stable); g->stable = stable;
        }
    }
    if (expect != st->count) {
        PyErr_SetString(PyExc_ValueError, "direct launch: the groups do not cover the parameters");
        Py_DECREF(d); return NULL;
    }
    {   /* the kept buffer, zeroed (padding stays zero), its slot pointers fixed */
        size_t nptr = (size_t)(st->count ? st->count : 1);
        d->kept_mem = (char *)PyMem_Malloc(sizeof(void *) * nptr + (size_t)st->size + 16);
        d->last = (PyObject **)PyMem_Malloc(sizeof(PyObject *) * (size_t)(n ? n : 1));
        if (d->kept_mem == NULL || d->last == NULL) { Py_DECREF(d); return PyErr_NoMemory(); }
        memset(d->kept_mem, 0, sizeof(void *) * nptr + (size_t)st->size + 16);
        memset(d->last, 0, sizeof(PyObject *) * (size_t)(n ? n : 1));
        d->kept_ptrs = (void **)d->kept_mem;
        d->kept = d->kept_mem + sizeof(void *) * nptr;
        d->kept += (16 - ((uintptr_t)d->kept & 15)) & 15;
        for (i = 0; i < st->count; i++) d->kept_ptrs[i] = d->kept + st->slots[i].offset;
    }
    Py_INCREF(fallback); d->fallback = fallback;
    if (rec_map != Py_None) {
        Py_INCREF(rec_map); d->rec_map = rec_map; Py_INCREF(rec_key); d->rec_key = rec_key;
        Py_INCREF(rec_val); d->rec_val = rec_val;
    }
    if (pre_call != Py_None) {
        Py_INCREF(pre_call); d->pre_call = pre_call; Py_INCREF(pre_value); d->pre_value = pre_value;
    }
    fn = PyCFunction_NewEx(&cl_direct_def, (PyObject *)d, NULL);
    Py_DECREF(d);
    return fn;
}

static PyMethodDef cl_make_direct_def = {"make_direct_launch", cl_make_direct, METH_VARARGS,
                                         "make_direct(launch, groups, fallback, rec_map, rec_key, rec_val, "
                                         "pre_call, pre_value)"};

/* The address of a new tuple (make, make_direct) -- a new reference: the caller takes it
   over -- made with the GIL held whatever cffi did with it. */
static uintptr_t cl_checked_maker(void)
{
    PyObject *make, *direct, *pair = NULL;
    PyGILState_STATE g = PyGILState_Ensure();
    make = PyCFunction_NewEx(&cl_make_def, NULL, NULL);
    direct = PyCFunction_NewEx(&cl_make_direct_def, NULL, NULL);
    if (make != NULL && direct != NULL) pair = PyTuple_Pack(2, make, direct);
    Py_XDECREF(make);
    Py_XDECREF(direct);
    if (pair == NULL) PyErr_Clear();
    PyGILState_Release(g);
    return (uintptr_t)pair;
}
"""
