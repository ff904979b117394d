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
current device.  Compiled operators are cached per (function, value types, target):
the function's identity and its code, constants and closure values, so a second call
with the same operator compiles nothing, and an edited or re-captured one recompiles.

cuda.compute's own Python-callable path (``make_op_adapter(callable)``) is hard-wired
to numba-cuda-mlir; docs/guide/cccl.md says what it would need to accept another
compiler.  Values are numbers and booleans (cuda.compute's POD types; bfloat16 and
structs are refused with a clear error for now).
"""

from __future__ import annotations

import functools
import hashlib
import linecache
import pickle

import numpy as np

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

        def get_return_type(self, input_types):
            from cuda.compute import types as cccl_types

            rt = _return_type(self.func, tuple(_value_type(t) for t in input_types))
            return cccl_types.from_numpy_dtype(_numpy_dtype(rt))

        def compile(self, input_types, output_type=None):
            from cuda.compute.op import RawOp

            if output_type is None:
                output_type = self.get_return_type(input_types)
            args = tuple(_value_type(t) for t in input_types)
            name, ltoir = _compiled(_FunctionKey(self.func), args, _value_type(output_type), _target_cc())
            return RawOp(ltoir=ltoir, name=name).compile(input_types, output_type)

        def __eq__(self, other):
            return type(other) is type(self) and _FunctionKey(self.func) == _FunctionKey(other.func)

        def __hash__(self):
            return hash(_FunctionKey(self.func))

        def __repr__(self):
            return f"cccl.op({getattr(self.func, '__qualname__', self.func)!r})"

    return CudaliteOp


class _FunctionKey:
    """What a compiled operator depends on: the function object and, so that an edited
    function or a re-captured closure recompiles, a digest of its code, constants,
    defaults and closure values (their ``repr``: numbers and tuples of them)."""

    __slots__ = ("func", "digest")

    def __init__(self, func):
        self.func = func
        code = func.__code__
        cells = tuple(repr(c.cell_contents) for c in (func.__closure__ or ()))
        parts = (code.co_code, repr(code.co_consts), repr(func.__defaults__), cells)
        self.digest = hashlib.sha256(pickle.dumps(parts)).hexdigest()[:16]

    def __eq__(self, other):
        return isinstance(other, _FunctionKey) and self.func is other.func and self.digest == other.digest

    def __hash__(self):
        return hash((id(self.func), self.digest))


def _value_type(td):
    """The cudalite type of a cuda.compute TypeDescriptor (numbers and booleans)."""
    from cudalite.core.types import from_dtype

    dtype = getattr(td, "dtype", None)
    if dtype is None or np.dtype(dtype).kind not in _KINDS or np.dtype(dtype).names is not None:
        raise TypeError(f"cccl.op(): values of type {td!r} are not supported yet (numbers and booleans are)")
    return from_dtype(np.dtype(dtype))


def _numpy_dtype(t):
    from cudalite.core.types import as_dtype

    try:
        return as_dtype(t)
    except Exception as e:  # noqa: BLE001 - any type without a NumPy dtype
        raise TypeError(f"cccl.op(): the operator returns {t}, which cuda.compute cannot hold") from e


def _return_type(func, args):
    from cudalite.core.registry import registry
    from cudalite.core.typing import TypingContext, infer

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
        from ._runtime.api import get_current_device

        cc = get_current_device().compute_capability
    return tuple(cc)


@functools.lru_cache(maxsize=512)
def _compiled(key, args, result, cc):
    """(symbol, LTO-IR) of the C-ABI wrapper of ``key.func`` for value types ``args``."""
    from cudalite.core.types import CPointer, void

    from ._compiler.api import jit_compile

    tag = hashlib.sha256(repr((key.digest, args, result, cc)).encode()).hexdigest()[:16]
    name = f"cudalite_op_{getattr(key.func, '__name__', 'op')}_{tag}"
    name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    wrapper = _wrapper(key.func, len(args), name)
    sig = void(*(CPointer(a) for a in args), CPointer(result))
    ltoir, _ = jit_compile(wrapper, sig, device=True, abi="c", abi_info={"abi_name": name}, output="ltoir",
                           cc=cc)
    return name, ltoir


def _wrapper(func, n, name):
    """``def name(a0, ..., result): result[0] = func(a0[0], ...)`` with its text in
    linecache (the frontend compiles functions from their source)."""
    params = ", ".join(f"a{i}" for i in range(n))
    loads = ", ".join(f"a{i}[0]" for i in range(n))
    text = f"def {name}({params}{', ' if n else ''}result):\n    result[0] = func({loads})\n"
    filename = f"<cudalite.cccl {name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"func": func}
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - generated from integers and a checked name
    return namespace[name]
