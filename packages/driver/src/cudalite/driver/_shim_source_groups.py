"""The C source of the direct launch's argument groups (docs/driver.md, "The direct
launch"): how one argument fills its parameter slots -- a checked value, an object carrying
its values, an identity-cache entry.  Part of the launch shim's source (:mod:`._shim_source`
joins the parts, after the checked launch's source, whose conversions it uses, and before
the direct launch's).  Standard library only, no imports.
"""

__all__ = ["GROUPS_SOURCE"]

GROUPS_SOURCE = r"""
/* ---- The direct launch's argument groups: how each argument fills its slots ---- */
#define CL_GROUP_VALUE 0  /* one argument, one parameter (its slot's class check) */
#define CL_GROUP_ATTRS 1  /* getattr(arg, key_attr) is/== key; getattr(arg, values_attr): n values */
#define CL_GROUP_CACHED 2 /* holder[name] = (arg, fields..., n values), its checks hold: those values */
#define CL_VISIT(o) do { if ((o) != NULL) { int r_ = visit((PyObject *)(o), arg); if (r_) return r_; } } while (0)

typedef struct {
    int kind;
    Py_ssize_t first, n;
    /* ATTRS: key_attr, key, values_attr; CACHED: holder (a dict), name, checks (a tuple of
       (attribute, call, index): getattr(arg, attribute), called if call -- or, when attribute
       is a callable and call is true, attribute(arg) -- == entry[index]) */
    PyObject *key_attr, *key, *values_attr;
    /* ATTRS: the class (or NULL) whose objects' key and values never change: for them, weak
       references to the last two objects seen and their values' bytes as converted.
       CACHED: seen[0], the entry whose values are in the kept buffer (a strong reference) */
    PyObject *stable, *seen[2];
    char *bytes;
    Py_ssize_t span, next;
} cl_group;

/* 1: the n items of tuple vals from index at converted into the group's slots; 0: not */
static int cl_fill_values(const cl_state *st, const cl_group *g, PyObject *vals, Py_ssize_t at, char *buf,
                          void **ptrs)
{
    Py_ssize_t j;
    for (j = 0; j < g->n; j++) {
        const cl_slot *s = &st->slots[g->first + j];
        if (cl_convert(s, PyTuple_GetItem(vals, at + j), buf + s->offset) < 0) {
            PyErr_Clear();
            return 0;
        }
        ptrs[g->first + j] = buf + s->offset;
    }
    return 1;
}

/* CACHED: 1 when holder[name] is (a, fields..., values...) and every check holds.  ``kept``:
   buf is the direct launch's kept buffer, where the values of the entry g->seen[0] (a strong
   reference) already are: that entry's values are not converted again */
static int cl_fill_cached(const cl_state *st, cl_group *g, PyObject *a, char *buf, void **ptrs, int kept)
{
    PyObject *entry = PyDict_GetItem(g->key_attr, g->key);  /* borrowed; no exception */
    Py_ssize_t j, size, nchecks = PyTuple_Size(g->values_attr);
    int ok = 1;
    if (entry == NULL || !PyTuple_Check(entry) || (size = PyTuple_Size(entry)) < 1 + g->n
            || PyTuple_GetItem(entry, 0) != a)
        return 0;
    Py_INCREF(entry);  /* a check may run Python code that replaces holder[name] */
    for (j = 0; ok && j < nchecks; j++) {
        PyObject *check = PyTuple_GetItem(g->values_attr, j), *what = PyTuple_GetItem(check, 0), *v;
        Py_ssize_t index = PyLong_AsSsize_t(PyTuple_GetItem(check, 2));
        if (!PyUnicode_Check(what)) {  /* a function of the object: what(a), no bound method made */
            v = PyObject_CallFunctionObjArgs(what, a, NULL);
        } else {
            v = PyObject_GetAttr(a, what);
            if (v != NULL && PyTuple_GetItem(check, 1) == Py_True) {
                PyObject *r = PyObject_CallObject(v, NULL);
                Py_DECREF(v);
                v = r;
            }
        }
        ok = v != NULL && index > 0 && index < size
             && PyObject_RichCompareBool(v, PyTuple_GetItem(entry, index), Py_EQ) == 1;
        Py_XDECREF(v);
    }
    if (!ok) {
        PyErr_Clear();
    } else if (!kept) {
        ok = cl_fill_values(st, g, entry, size - g->n, buf, ptrs);
    } else if (g->seen[0] != entry) {
        PyObject *old = g->seen[0];
        g->seen[0] = NULL;  /* the bytes are no entry's until all are written */
        ok = cl_fill_values(st, g, entry, size - g->n, buf, ptrs);
        if (ok) { Py_INCREF(entry); g->seen[0] = entry; }
        Py_XDECREF(old);
    }
    Py_DECREF(entry);
    return ok;
}

/* 1: the group's values are in the buffer; 0: it does not match (no exception set); ``kept``:
   buf is the direct launch's kept buffer */
static int cl_fill_group(const cl_state *st, cl_group *g, PyObject *a, char *buf, void **ptrs, int kept)
{
    Py_ssize_t j;
    if (g->kind == CL_GROUP_CACHED) return cl_fill_cached(st, g, a, buf, ptrs, kept);
    if (g->kind == CL_GROUP_VALUE) {
        const cl_slot *s = &st->slots[g->first];
        if (s->cls != NULL && (PyObject *)Py_TYPE(a) != s->cls) return 0;
        if (cl_convert(s, a, buf + s->offset) < 0) { PyErr_Clear(); return 0; }
        ptrs[g->first] = buf + s->offset;
        return 1;
    } else {
        PyObject *k, *vals;
        int same, stable = g->stable != NULL && (PyObject *)Py_TYPE(a) == g->stable;
        char *region = buf + st->slots[g->first].offset;
        if (stable) {
            int e = g->seen[0] != NULL && PyWeakref_GetObject(g->seen[0]) == a ? 0
                    : g->seen[1] != NULL && PyWeakref_GetObject(g->seen[1]) == a ? 1 : -1;
            if (e >= 0) {  /* an object seen before: its values' bytes */
                memcpy(region, g->bytes + e * g->span, (size_t)g->span);
                for (j = 0; j < g->n; j++) ptrs[g->first + j] = buf + st->slots[g->first + j].offset;
                return 1;
            }
        }
        k = PyObject_GetAttr(a, g->key_attr);
        if (k == NULL) { PyErr_Clear(); return 0; }
        same = k == g->key ? 1 : PyObject_RichCompareBool(k, g->key, Py_EQ);
        Py_DECREF(k);
        if (same != 1) { PyErr_Clear(); return 0; }
        vals = PyObject_GetAttr(a, g->values_attr);
        if (vals == NULL) { PyErr_Clear(); return 0; }
        same = PyTuple_Check(vals) && PyTuple_Size(vals) == g->n && cl_fill_values(st, g, vals, 0, buf, ptrs);
        Py_DECREF(vals);
        if (same && stable) {  /* remember it, in place of the older of the two */
            PyObject *ref = PyWeakref_NewRef(a, NULL);
            if (ref == NULL) {
                PyErr_Clear();
            } else {
                Py_XDECREF(g->seen[g->next]);
                g->seen[g->next] = ref;
                memcpy(g->bytes + g->next * g->span, region, (size_t)g->span);
                g->next = 1 - g->next;
            }
        }
        return same;
    }
}
"""
