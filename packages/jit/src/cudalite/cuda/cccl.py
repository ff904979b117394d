"""cuda.compute operators compiled by cudalite: ``cccl.op(fn)``.

NVIDIA's ``cuda.compute`` (the ``cuda-cccl`` wheel) runs device-wide algorithms with
user operators.  Its public extension point for operators is ``OpAdapter`` (documented
next to ``RawOp``): ``compile(input_types, output_type)`` returns the ``Op`` its C++
side links, ``get_return_type(input_types)`` types a call.  ``op(fn)`` is such an
adapter for a Python function written the way cuda.compute's documentation writes
operators (``def add(a, b): return a + b``, ``def pred(x): return x > 0``)::

    import cuda.compute as cc
    from cudalite.cuda import cccl

    cc.reduce_into(d_in, d_out, cccl.op(add), n, h_init)

For each tuple of value types a call needs, the adapter compiles a C-ABI wrapper
``void name(T0* a0, ..., R* result)`` that loads the inputs, calls ``fn`` (a device
function: it may call ``@cuda.jit(device=True)`` functions) and stores the result --
cuda.compute's stateless operator ABI (``void name(void*, ..., void*)``) -- to LTO-IR
with ``cudalite.cuda.compile``, and hands it over as a ``RawOp`` of the same ABI.  The
LTO-IR targets cuda.compute's build target when one is set (the lowest compute
capability of a multi-architecture build, which links into every result), else the
current device.  Compiled operators are cached per (function content, value types,
target): the function's code, constants, closure values and the globals it reads (not
its identity: closures from one factory share a build, as with cuda.compute's own
compiler), so a second call with the same operator compiles nothing, and an edited or
re-captured one recompiles.

A function that reads device arrays (anything with ``__cuda_array_interface__``) as
globals or closure variables is a *stateful* operator: it is recompiled with those arrays
as leading parameters, and the wrapper (``void name(void* state, T0* a0, ..., R*
result)``) rebuilds them from cuda.compute's state bytes (each array's data pointer,
then its extents, as int64s), which ``get_state()`` packs at every call -- so a new
array of the same dtype and rank needs no recompile.

cuda.compute's own Python-callable path (``make_op_adapter(callable)``) is hard-wired
to numba-cuda-mlir; docs/guide/cccl.md says what it would need to accept another
compiler.  Values are numbers, booleans, bfloat16 (with ml_dtypes) and structs of
them: a struct is a named tuple inside the operator, and a struct class the operator
calls builds one (``_cccl.records``).  The adapter is callable (the function, on the
host) and shows the function's signature and annotations, so ``@cccl.op`` can decorate
an operator and cuda.compute reads annotated value types through it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import linecache
import textwrap
import types
import weakref

import numpy as np

from cudalite.core.registry import registry
from cudalite.core.types import Array, CPointer, Tuple, from_dtype, int64, void, voidptr
from cudalite.core.typing import TypingContext, infer
from cudalite.types import as_dtype

from . import carray
from ._cccl import records
from ._compiler.api import jit_compile
from ._memory import layout as L
from ._runtime.api import get_current_device

__all__ = ["op"]

# cuda.compute's POD value types that cudalite compiles (its TypeEnum kinds; bool: uint8 storage)
_KINDS = frozenset("biufc")


def op(fn):
    """A cuda.compute operator (an ``OpAdapter``) compiled by cudalite from ``fn``.

    Parameters
    ----------
    fn : function
        A Python function of the operator's arguments (values, not pointers) returning
        the result, compiled as a cudalite device function; or a ``@cuda.jit(device=True)``
        function.

    Returns
    -------
    cuda.compute.op.OpAdapter

    Raises
    ------
    ImportError
        cuda.compute (the ``cuda-cccl`` package) is not installed.
    TypeError
        ``fn`` is not a Python function.
    """
    if type(fn) is types.FunctionType:  # the common case, without attribute probes (every call)
        return _adapter_class()(fn)
    py_func = getattr(fn, "py_func", fn)
    if not callable(py_func) or not hasattr(py_func, "__code__"):
        raise TypeError(f"cccl.op() takes a Python function, not {type(fn).__name__}")
    return _adapter_class()(py_func)


@functools.lru_cache(maxsize=1)
def _adapter_class():
    try:
        from cuda.compute.op import OpAdapter
    except ImportError as e:
        raise ImportError("cudalite.cuda.cccl needs cuda.compute: pip install cuda-cccl") from e

    class CudaliteOp(OpAdapter):
        """A Python operator compiled by cudalite for each call's value types."""

        __slots__ = ("func",)

        def __init__(self, func):
            self.func = func

        @property
        def py_func(self):
            """The Python function (``cccl.op`` of an adapter makes an equal one)."""
            return self.func

        @property
        def is_stateful(self):
            return bool(_state_arrays(self.func))

        def get_state(self):
            func = self.func
            if func.__closure__ is None and not func.__code__.co_names:  # stateless: every call asks
                return b""
            return _state_bytes(_state_arrays(func))

        @property
        def state_alignment(self):
            return 8

        def get_return_type(self, input_types):
            from cuda.compute import types as cccl_types

            func, arrays = _stateless_form(self.func)
            rt = _return_type(func, tuple(array_type(a) for a in arrays) + tuple(_value_type(t) for t in input_types))
            return cccl_types.from_numpy_dtype(_numpy_dtype(rt))

        def compile(self, input_types, output_type=None):
            from cuda.compute.op import RawOp

            if output_type is None:
                output_type = self.get_return_type(input_types)
            args = tuple(_value_type(t) for t in input_types)
            name, ltoir = _compiled(self.func, args, _value_type(output_type), _target_cc())
            state = self.get_state()
            return RawOp(ltoir=ltoir, name=name, state=state, state_alignment=8 if state else 1).compile(
                input_types, output_type)

        def __eq__(self, other):
            if other is self:
                return True
            return type(other) is type(self) and _FunctionKey(self.func) == _FunctionKey(other.func)

        def __hash__(self):
            return hash(_FunctionKey(self.func))

        def __repr__(self):
            return f"cccl.op({getattr(self.func, '__qualname__', self.func)!r})"

        def __call__(self, *args, **kwargs):
            """The Python function itself, run on the host."""
            return self.func(*args, **kwargs)

        # the function's signature and annotations, where cuda.compute reads a
        # callable's (TransformOutputIterator's value type from ``x: np.float32``)
        @property
        def __signature__(self):
            return inspect.signature(self.func)

        @property
        def __annotations__(self):
            return getattr(self.func, "__annotations__", {})

        @property
        def __wrapped__(self):
            return self.func

    return CudaliteOp


class _FunctionKey:
    """What a compiled operator depends on -- its content, not the function object: the
    code object (bytecode, constants, names), defaults, what its closure cells hold and
    what the globals it and its nested functions name hold (``_digest_value``).  Two
    closures made by one factory over arrays of the same dtype and rank are one key
    (their pointers travel in the state bytes), so cuda.compute builds once for all of
    them, as its own compiler does; an edited function or a re-captured constant is
    another key.  The function is held weakly: a cached key keeps neither the function
    nor the device arrays it captured alive (captured objects that change the code --
    functions, classes -- are held, so their identity cannot be reused).  Made at every
    algorithm call (cuda.compute hashes operators to find its builds), so it is a tuple
    hashed in C; the text digest naming a compiled symbol is made only when one is
    compiled."""

    __slots__ = ("_ref", "parts", "_hash", "__weakref__")

    def __init__(self, func):
        self._ref = weakref.ref(func)
        code = func.__code__
        cells = tuple(_digest_value(_cell_value(c)) for c in (func.__closure__ or ()))
        g = func.__globals__
        globs = tuple((n, _digest_value(g[n])) for n in _global_names(code) if n in g)
        self.parts = (code, repr(func.__defaults__), repr(func.__kwdefaults__), cells, globs)
        self._hash = hash(self.parts)

    @property
    def func(self):
        """The function this key was made from (None once it is gone)."""
        return self._ref()

    @property
    def digest(self) -> str:
        """16 hex digits of the parts, as text (unique among live keys of a process:
        a captured object's part names its id, and a key holds that object)."""
        code, defaults, kwdefaults, cells, globs = self.parts
        text = repr((code.co_code, code.co_consts, code.co_names, defaults, kwdefaults, cells, globs))
        return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]

    def __eq__(self, other):
        return isinstance(other, _FunctionKey) and self.parts == other.parts

    def __hash__(self):
        return self._hash


def _global_names(code):
    """The global names ``code`` and the functions defined inside it read."""
    names = code.co_names
    nested = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    if not nested:
        return names
    out = dict.fromkeys(names)
    for c in nested:
        out.update(dict.fromkeys(_global_names(c)))
    return tuple(out)


class _Same:
    """A captured object compared by identity, and held, so that its id is not reused
    while a cached key names it."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Same) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)

    def __repr__(self):
        return f"<object {id(self.obj):#x}>"


_EMPTY_CELL = ("empty cell",)


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a closure variable not assigned yet
        return _EMPTY_CELL


def _digest_value(v):
    """What a captured value contributes to the compiled code: a device array its
    dtype, rank and layout (its pointer and shape travel in the state bytes), a
    constant its type and repr, anything else (functions, modules) its identity."""
    cai = getattr(v, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return ("array", cai["typestr"], len(cai["shape"]))
    if isinstance(v, (bool, int, float, complex, str, bytes, tuple, np.generic)):
        return ("const", type(v).__name__, repr(v))
    return ("object", _Same(v))


# values that are never device arrays, skipped without probing for an array interface
_NOT_ARRAYS = frozenset({types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, int, float, bool,
                         complex, str, bytes, type(None)})


def _state_arrays(func):
    """``[(name, array)]``: the device arrays (objects with a CUDA array interface)
    ``func`` reads as globals or closure variables, in a fixed order.  Asked at every
    algorithm call (``get_state``), so plain values are skipped by type."""
    code = func.__code__
    closure = func.__closure__
    names = code.co_names
    if closure is None and not names:
        return []
    found = []
    for name, cell in zip(code.co_freevars, closure or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if type(value) not in _NOT_ARRAYS and isinstance(getattr(value, "__cuda_array_interface__", None), dict):
            found.append((name, value))
    g = func.__globals__
    for name in names:
        value = g.get(name)
        if type(value) in _NOT_ARRAYS:
            continue
        if isinstance(getattr(value, "__cuda_array_interface__", None), dict) and all(n != name for n, _ in found):
            found.append((name, value))
    return found


def _array_layout(name, arr):
    """(cudalite dtype, shape) of captured array ``arr``; TypeError unless C-contiguous."""
    cai = arr.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is not None and tuple(strides) != tuple(L.c_strides(shape, dtype.itemsize)) and L.extent(
            shape, tuple(strides), dtype.itemsize)[1] != 0:
        raise TypeError(f"cccl.op(): the captured array {name!r} is not C-contiguous (strides {tuple(strides)}); "
                        "capture a contiguous copy")
    return from_dtype(dtype), shape


def _state_bytes(arrays) -> bytes:
    """Each captured array's data pointer then its extents, as int64s (the wrapper reads
    them back with ``carray``); nothing for a stateless operator (every call asks)."""
    if not arrays:
        return b""
    words = []
    for _name, arr in arrays:
        cai = arr.__cuda_array_interface__
        words.append(int(cai["data"][0]))
        words.extend(int(n) for n in cai["shape"])
    return np.array(words, dtype=np.int64).tobytes()


def _value_type(td):
    """The cudalite type of a cuda.compute TypeDescriptor's values: numbers, booleans,
    bfloat16 (with ml_dtypes) and structs (named tuples, ``_cccl.records``)."""
    dtype = getattr(td, "dtype", None)
    dtype = None if dtype is None else np.dtype(dtype)
    if dtype is None or not _supported(dtype):
        raise TypeError(f"cccl.op(): values of type {td!r} are not supported (numbers, booleans, bfloat16 and "
                        "structs of them are)")
    return records.value_type(dtype)


def _supported(dtype) -> bool:
    if dtype.names is not None:
        return all(_supported(dtype.fields[n][0]) for n in dtype.names)
    return dtype.kind in _KINDS or dtype.name == "bfloat16"


def _numpy_dtype(t):
    struct = records.record_dtype(t)
    if struct is not None:
        return struct
    if isinstance(t, Tuple):
        raise TypeError(f"cccl.op(): the operator returns a tuple ({t}); cuda.compute needs the output type to "
                        "store it as a struct: return the struct class's value (Pair(a, b)) or give the output "
                        "type")
    try:
        return as_dtype(t)
    except Exception as e:  # noqa: BLE001 - any type without a NumPy dtype
        raise TypeError(f"cccl.op(): the operator returns {t}, which cuda.compute cannot hold") from e


def _return_type(func, args):
    return infer(TypingContext(registry), func, args).return_type


def _target_cc():
    """cuda.compute's build target (the lowest cc of a multi-architecture build) when
    it sets one, else the current device's compute capability."""
    try:
        from cuda.compute._target_cc import get_target_cc  # read only: cuda.compute's build target
    except ImportError:
        get_target_cc = None
    cc = get_target_cc() if get_target_cc is not None else None
    if cc is None:
        cc = get_current_device().compute_capability
    return tuple(cc)


def _compiled(func, args, result, cc):
    """(symbol, LTO-IR) of the C-ABI wrapper of ``func`` for value types ``args``,
    cached by ``func``'s content (``_FunctionKey``; ``func`` stays alive while a miss
    compiles it)."""
    return _compiled_key(_FunctionKey(func), args, result, cc)


@functools.lru_cache(maxsize=512)
def _compiled_key(key, args, result, cc):
    tag = hashlib.sha256(repr((key.digest, args, result, cc)).encode()).hexdigest()[:16]
    name = f"cudalite_op_{getattr(key.func, '__name__', 'op')}_{tag}"
    name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    func, arrays = _stateless_form(key.func)
    wrapper = _wrapper(func, args, name, arrays, result)
    state = (voidptr,) if arrays else ()
    sig = void(*state, *(CPointer(records.storage_type(a)) for a in args), CPointer(records.storage_type(result)))
    ltoir, _ = jit_compile(wrapper, sig, device=True, abi="c", abi_info={"abi_name": name}, output="ltoir",
                           cc=cc)
    return name, ltoir


def _wrapper(func, args, name, arrays=(), result=None):
    """``def name([state, ]a0, ..., result): result[0] = func([s0, ...,] a0[0], ...)``
    with its text in linecache (the frontend compiles functions from their source).
    ``args``: the value types (or their number, for numbers); a struct argument is
    loaded into its named tuple and a struct result stored field by field.
    ``arrays`` (``[(dtype, ndim)]``): the captured arrays ``func`` takes first, rebuilt
    from the state: each one's data pointer then its extents, as int64s."""
    args = (None,) * args if isinstance(args, int) else tuple(args)
    n = len(args)
    params = ["state"] if arrays else []
    params += [f"a{i}" for i in range(n)] + ["result"]
    lines = []
    namespace = {"func": func, "carray": carray, "int64": int64, "voidptr": voidptr}
    if arrays:
        words = sum(1 + ndim for _dtype, ndim in arrays)
        lines += [f"    words = carray(state, {words}, int64)", f"    pointers = carray(state, {words}, voidptr)"]
    state_args, at = [], 0
    for k, (dtype, ndim) in enumerate(arrays):
        namespace[f"dtype{k}"] = dtype
        shape = ", ".join(f"words[{at + 1 + d}]" for d in range(ndim))
        lines.append(f"    s{k} = carray(pointers[{at}], ({shape},), dtype{k})")
        state_args.append(f"s{k}")
        at += 1 + ndim
    structs = {}
    call = ", ".join(state_args + [records.load_expression(f"a{i}[0]", t, structs) for i, t in enumerate(args)])
    if records.record_dtype(result) is None:
        lines.append(f"    result[0] = func({call})")
    else:
        lines.append(f"    value = func({call})")
        lines += [f"    {line}" for line in records.store_lines("result[0]", "value", result)]
    namespace.update({n: cls for cls, n in structs.items()})
    text = f"def {name}({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    filename = f"<cudalite.cccl {name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - generated from integers and a checked name
    return namespace[name]


def _stateless_form(func):
    """``(func', [(dtype, ndim)])``: ``func`` itself when it captures no device array,
    else ``func`` rewritten to take the captured arrays as leading parameters of the
    same names (its other closure variables become globals of the same values, which
    cudalite freezes as constants either way), as cuda.compute's own stateful path does."""
    arrays = _state_arrays(func)
    if not arrays:
        return records.with_record_constructors(func), []
    layouts = [(_array_layout(n, a)[0], len(a.__cuda_array_interface__["shape"])) for n, a in arrays]
    return records.with_record_constructors(_with_state_parameters(func, tuple(n for n, _ in arrays))), layouts


def array_type(arr):
    """The cudalite type a captured array has inside the operator (C-contiguous)."""
    dtype, shape = _array_layout("array", arr)
    return Array(dtype, len(shape), "C")


@functools.lru_cache(maxsize=256)
def _rewritten(key, names):
    """``key.func`` re-parameterized with its captured arrays ``names`` first (cached
    by content: the arrays are not held, the new function reads them as parameters)."""
    func = key.func
    digest = key.digest
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError) as e:
        raise TypeError(f"cccl.op(): {func.__qualname__} captures device arrays ({', '.join(names)}); passing them "
                        "as the operator's state needs its source code, which Python does not have") from e
    tree = ast.parse(source)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise TypeError(f"cccl.op(): {func.__qualname__} captures device arrays ({', '.join(names)}): define it "
                        "with def (a lambda cannot take them as parameters)")
    fdef.decorator_list = []
    fdef.args.args = [ast.arg(arg=n) for n in names] + fdef.args.posonlyargs + fdef.args.args
    fdef.args.posonlyargs = []
    text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    filename = f"<cudalite.cccl state {func.__qualname__} {digest}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {n: v for n, v in func.__globals__.items() if n not in names}
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        if name not in names:
            namespace[name] = cell.cell_contents
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the user's own function, re-parameterized
    return namespace[fdef.name]


def _with_state_parameters(func, names):
    return _rewritten(_FunctionKey(func), names)
