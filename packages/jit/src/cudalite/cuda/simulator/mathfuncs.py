"""Bit and maths intrinsics (``cuda.popc``, ``cuda.fma`` ...), ``cuda.fp16``,
``cuda.libdevice`` (mapped onto :mod:`math`), the cache-operator loads and
stores, and the vector types (``cuda.float32x4`` ...) as small Python objects."""

from __future__ import annotations

import math
import operator

import numpy as np

from cudalite.core.types import VECTOR_ALIASES, vector_types

from .namespaces import Namespace
from .unsupported import UNSUPPORTED_LIBDEVICE, not_simulated

__all__ = [
    "popc", "brev", "clz", "ffs", "fma", "cbrt", "selp", "fp16", "libdevice", "vector_constructors",
    "ldca", "ldcg", "ldcs", "ldlu", "ldcv", "stcg", "stcs", "stwb", "stwt",
]


def _width(x) -> int:
    if isinstance(x, np.integer):
        return x.dtype.itemsize * 8
    x = int(x)
    return 32 if -(1 << 31) <= x < (1 << 32) else 64


def _bits(x):
    w = _width(x)
    return int(x) & ((1 << w) - 1), w


def popc(x):
    v, _ = _bits(x)
    return bin(v).count("1")


def brev(x):
    v, w = _bits(x)
    out = int(format(v, f"0{w}b")[::-1], 2)
    return np.uint32(out) if w == 32 else np.uint64(out)


def clz(x):
    v, w = _bits(x)
    return w - v.bit_length()


def ffs(x):
    """The 1-based position of the least significant set bit (0 for 0), as CUDA's ``__ffs``."""
    v, _ = _bits(x)
    return (v & -v).bit_length()


def fma(a, b, c):
    return a * b + c


def cbrt(x):
    return type(x)(np.cbrt(x)) if isinstance(x, np.floating) else float(np.cbrt(x))


def selp(predicate, a, b):
    return a if predicate else b


def _h(f):
    return lambda *args: np.float16(f(*(np.float16(a) for a in args)))


_FP16 = {
    "hadd": _h(lambda a, b: a + b), "hsub": _h(lambda a, b: a - b), "hmul": _h(lambda a, b: a * b),
    "hdiv": _h(lambda a, b: a / b), "hneg": _h(lambda a: -a), "habs": _h(abs),
    "hfma": _h(lambda a, b, c: a * b + c), "hmax": _h(max), "hmin": _h(min),
    "heq": lambda a, b: np.float16(a) == np.float16(b), "hne": lambda a, b: np.float16(a) != np.float16(b),
    "hgt": lambda a, b: np.float16(a) > np.float16(b), "hge": lambda a, b: np.float16(a) >= np.float16(b),
    "hlt": lambda a, b: np.float16(a) < np.float16(b), "hle": lambda a, b: np.float16(a) <= np.float16(b),
    "hsin": _h(np.sin), "hcos": _h(np.cos), "hlog": _h(np.log), "hlog10": _h(np.log10), "hlog2": _h(np.log2),
    "hexp": _h(np.exp), "hexp10": _h(lambda a: np.power(np.float16(10), a)), "hexp2": _h(np.exp2),
    "hsqrt": _h(np.sqrt), "hrsqrt": _h(lambda a: 1 / np.sqrt(a)), "hceil": _h(np.ceil), "hfloor": _h(np.floor),
    "hrint": _h(np.rint), "htrunc": _h(np.trunc), "hrcp": _h(lambda a: 1 / a), "htanh": _h(np.tanh),
    "htanh_approx": _h(np.tanh),
}
fp16 = Namespace("fp16", _FP16)


def _signed_brev(x):
    """libdevice's ``brev``/``brevll``: the reversed bits as a signed integer of the same width."""
    r = brev(x)
    return r.view(np.int32) if r.dtype == np.uint32 else r.view(np.int64)


def _remquo(x, y):
    """libdevice's ``remquo``: ``(IEEE remainder, the quotient it rounded to)``."""
    r = math.remainder(x, y)
    return r, int(round((x - r) / y))


def _float_result(f):
    """A libdevice rounding function (``floor``, ``ceilf`` ...): a float result, as its
    signature says (Python's ``math.floor`` returns an int, losing ``-0.0``, inf and NaN)."""
    return lambda x: f(x if isinstance(x, np.floating) else np.float64(x))


_LIBDEVICE = {
    "sincos": lambda x: (math.sin(x), math.cos(x)), "remquo": _remquo,
    "floor": _float_result(np.floor), "ceil": _float_result(np.ceil), "trunc": _float_result(np.trunc),
    "nextafterf": lambda x, y: np.nextafter(np.float32(x), np.float32(y)),  # the next float32, not float64
    "ldexp": lambda x, n: math.ldexp(x, operator.index(n)),  # an int32 exponent (math.ldexp takes only int)
    "popc": popc, "popcll": popc, "brev": _signed_brev, "brevll": _signed_brev, "clz": clz, "clzll": clz,
    "ffs": ffs, "ffsll": ffs, "abs": abs, "llabs": abs,
    # math.cbrt and math.exp2 are Python 3.11+; libdevice has them on every Python
    "cbrt": lambda x: float(np.cbrt(x)), "exp2": lambda x: float(np.exp2(x)),
}


class _Libdevice:
    """``cuda.libdevice.<name>``: the bit functions (``popc``, ``brev``, ``clz``, ``ffs``,
    ``abs`` and their ``ll`` forms), ``sincos`` and ``remquo`` (tuples, as in numba), else
    the :mod:`math` function of the same name, with a trailing ``f`` (the float32 variant)
    and a leading ``fast_`` (the approximate variant) dropped.  A libdevice function of
    the one not-simulated table (:data:`.unsupported.UNSUPPORTED_LIBDEVICE`) raises
    NotImplementedError with its reason; a name libdevice does not have, AttributeError."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        reason = UNSUPPORTED_LIBDEVICE.get(name)
        if reason is not None:
            not_simulated(f"cuda.libdevice.{name}", reason)
        base = name[len("fast_"):] if name.startswith("fast_") else name
        for candidate in (base, base[:-1] if base.endswith("f") else None):
            if candidate in _LIBDEVICE:
                return _LIBDEVICE[candidate]
            if candidate and hasattr(math, candidate):
                return getattr(math, candidate)
        raise AttributeError(f"cuda.libdevice has no function {name!r} (see cudalite.core.libdevice_table)")

    def __repr__(self):
        return "<cudalite simulator namespace cuda.libdevice>"


libdevice = _Libdevice()


def _load(array, i):
    return array[i]


def _store(array, i, value):
    array[i] = value


ldca = ldcg = ldcs = ldlu = ldcv = _load
stcg = stcs = stwb = stwt = _store


class _Vector:
    """A CUDA vector value: components ``x``, ``y``, ``z``, ``w``."""

    __slots__ = ("x", "y", "z", "w", "_n")

    def __init__(self, values):
        self._n = len(values)
        for name, v in zip("xyzw", values):
            setattr(self, name, v)

    def __repr__(self):
        return f"vector({', '.join(repr(getattr(self, c)) for c in 'xyzw'[:self._n])})"


def _components(args):
    out = []
    for a in args:
        if isinstance(a, _Vector):
            out.extend(getattr(a, c) for c in "xyzw"[:a._n])
        else:
            out.append(a)
    return out


def vector_constructors():
    """``{name: constructor}`` for every vector type name and alias of cudalite."""
    def make(name):
        vt = vector_types[name]
        scalar = np.dtype(str(vt.base_type)).type if str(vt.base_type) != "bool" else bool

        def construct(*args):
            values = _components(args)
            if len(values) != vt.count:
                raise TypeError(f"{name} takes {vt.count} components, got {len(values)}")
            return _Vector([scalar(v) for v in values])

        construct.__name__ = name
        construct.vector_type = vt  # as the compiler's constructors: the type and its CUDA C aliases
        construct.aliases = tuple(alias for alias, target in VECTOR_ALIASES.items() if target == name)
        return construct

    out = {name: make(name) for name in vector_types}
    out.update({alias: out[name] for alias, name in VECTOR_ALIASES.items()})
    return out
