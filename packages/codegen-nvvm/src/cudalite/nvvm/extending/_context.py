"""The ``context`` an extension's lowering code receives (numba's target context).

``@lower_builtin`` implementations, ``@intrinsic`` code generators, ``lower_cast``,
``lower_constant`` and ``lower_getattr`` functions are called as
``impl(context, builder, sig, args)`` (or the variant each decorator documents), where
``builder`` is the llvmlite ``IRBuilder`` positioned in the function being lowered
and ``context`` is a :class:`LoweringContext`: the subset of numba's ``BaseContext``
that extension code uses -- LLVM types of cudalite types, constants, casts, tuples,
struct helpers and ``compile_internal`` (compile a Python function for a signature
and call it).
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.datamodel import data_models
from cudalite.core.errors import LoweringError
from cudalite.core.types import Signature, Tuple

__all__ = ["LoweringContext"]


class LoweringContext:
    """What lowering code may ask of the compiler; ``lc`` is the function lowerer
    (None where none is at hand: a cast outside a function body)."""

    __slots__ = ("_lc",)

    def __init__(self, lc=None):
        self._lc = lc

    # -- types -----------------------------------------------------------------------------
    @property
    def data_model_manager(self):
        return data_models

    def get_value_type(self, ty):
        """The LLVM type of a value of cudalite type ``ty``."""
        from ..lower._irtypes import value_type

        return value_type(ty)

    def get_data_type(self, ty):
        """The LLVM type of ``ty`` in memory (booleans as ``i8``)."""
        from ..lower._irtypes import memory_type

        return memory_type(ty)

    get_argument_type = get_value_type
    get_return_type = get_value_type

    def get_abi_sizeof(self, lty):
        """The size in bytes of LLVM type ``lty`` in the NVVM data layout."""
        return _sizeof(lty)

    def get_abi_alignment(self, lty):
        return _alignof(lty)

    # -- constants -------------------------------------------------------------------------
    def get_constant(self, ty, val):
        """The constant ``val`` of scalar type ``ty``."""
        from ..lower._constants import _scalar_const

        c = _scalar_const(val, ty)
        if c is None:
            raise LoweringError(f"get_constant(): {ty} is not a scalar type; use get_constant_generic")
        return c

    def get_constant_generic(self, builder, ty, val):
        """The constant ``val`` of any type cudalite can freeze (numbers, tuples,
        arrays, an extension's ``lower_constant``)."""
        from ..lower._constants import lower_constant

        return lower_constant(self._need_lc("get_constant_generic"), val, ty)

    def get_constant_null(self, ty):
        return ir.Constant(self.get_value_type(ty), None)

    def get_constant_undef(self, ty):
        return ir.Constant(self.get_value_type(ty), ir.Undefined)

    def get_dummy_value(self):
        return ir.Constant(ir.LiteralStructType([]), None)

    def get_dummy_type(self):
        return ir.LiteralStructType([])

    # -- values ----------------------------------------------------------------------------
    def cast(self, builder, val, fromty, toty):
        """``val`` of type ``fromty`` converted to ``toty`` (cudalite's conversions and
        the extensions' ``lower_cast``)."""
        from ..lower._casts import cast

        return cast(builder, val, fromty, toty)

    def make_tuple(self, builder, typ, values):
        """The tuple of type ``typ`` holding ``values``."""
        if not isinstance(typ, Tuple):
            raise LoweringError(f"make_tuple(): {typ} is not a tuple type")
        out = ir.Constant(self.get_value_type(typ), ir.Undefined)
        for i, v in enumerate(values):
            out = builder.insert_value(out, v, i)
        return out

    def make_helper(self, builder, typ, value=None, ref=None):
        """A struct proxy (``cgutils.create_struct_proxy(typ)``) of ``value`` or ``ref``."""
        from .cgutils import create_struct_proxy

        return create_struct_proxy(typ)(self, builder, value=value, ref=ref)

    def make_data_helper(self, builder, typ, ref=None):
        from .cgutils import create_struct_proxy

        return create_struct_proxy(typ)(self, builder, ref=ref)

    def is_true(self, builder, typ, val):
        from ..lower._casts import truth

        return truth(builder, val, typ)

    def compile_internal(self, builder, impl, sig, args, locals=None):
        """Compile the Python function ``impl`` for ``sig.args``, call it with ``args``
        and return its result converted to ``sig.return_type``."""
        from cudalite.core.registry import registry
        from cudalite.core.typing import TypingContext

        lc = self._need_lc("compile_internal")
        if not isinstance(sig, Signature):
            raise LoweringError(f"compile_internal() takes a signature, not {sig!r}")
        tctx = TypingContext(registry, lc.module.options)
        tf = tctx.type_function(impl, tuple(sig.args))
        fn = lc.module.function_for(tf)
        res = builder.call(fn, list(args))
        from cudalite.core.types import NoneType, Void

        if isinstance(tf.return_type, (Void, NoneType)):
            return self.get_dummy_value() if sig.return_type is None else self.get_constant_null(sig.return_type)
        if sig.return_type is not None and tf.return_type != sig.return_type:
            return self.cast(builder, res, tf.return_type, sig.return_type)
        return res

    @property
    def active_code_library(self):
        """numba's code library of the kernel being compiled: ``add_linking_file(code)``
        links a file or linkable code object (``cuda.CUSource``, ``cuda.PTXSource``...)."""
        return _CodeLibrary(self._need_lc("active_code_library").module)

    def add_linking_libs(self, libs):
        """Link these files (paths or linkable code) into the kernel."""
        self._need_lc("add_linking_libs").module.add_links(tuple(libs))

    def _need_lc(self, what):
        if self._lc is None:
            raise LoweringError(f"context.{what}() is not available here (no function is being lowered)")
        return self._lc

    @property
    def enable_debuginfo(self):
        return bool(self._lc is not None and getattr(self._lc.module.options, "debug", False))


def _sizeof(lty) -> int:
    if isinstance(lty, ir.IntType):
        return max(1, lty.width // 8)
    if isinstance(lty, ir.HalfType):
        return 2
    if isinstance(lty, ir.FloatType):
        return 4
    if isinstance(lty, (ir.DoubleType, ir.PointerType)):
        return 8
    if isinstance(lty, ir.ArrayType):
        return lty.count * _sizeof(lty.element)
    if isinstance(lty, ir.BaseStructType):
        size = 0
        for e in lty.elements:
            a = _alignof(e)
            size = (size + a - 1) // a * a + _sizeof(e)
        a = _alignof(lty)
        return (size + a - 1) // a * a
    raise LoweringError(f"no size for LLVM type {lty}")


def _alignof(lty) -> int:
    if isinstance(lty, ir.ArrayType):
        return _alignof(lty.element)
    if isinstance(lty, ir.BaseStructType):
        return max((_alignof(e) for e in lty.elements), default=1)
    return _sizeof(lty)


class _CodeLibrary:
    """What ``context.active_code_library`` gives: the module's link list."""

    __slots__ = ("_module",)

    def __init__(self, module):
        self._module = module

    def add_linking_file(self, item):
        self._module.add_links((item,))

    def add_linking_library(self, item):
        self._module.add_links((item,))
