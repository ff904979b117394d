"""Typing of the math functions of ``cuda.fp16`` (numba.cuda.fp16): ``hsin``,
``hcos``, ``hlog``, ``hlog10``, ``hlog2``, ``hexp``, ``hexp10``, ``hexp2``,
``hsqrt``, ``hrsqrt``, ``hceil``, ``hfloor``, ``hrint``, ``htrunc``, ``hrcp``,
``htanh``, ``htanh_approx``: each takes one float16 (numbers convert) and
returns a float16.
"""

from __future__ import annotations

from ... import device_api as api
from ..._compat import numeric_kind
from ...registry import registry
from ...types import Signature, float16
from .._records import Fp16Op, Resolved
from .intrinsics import check_arity

__all__ = []


def _typer(name):
    def typer(site):
        check_arity(site, 1)
        if numeric_kind(site.args[0]) not in ("b", "i", "f"):
            raise site.error(f"expects a float16 argument, not {site.args[0]}")
        return Resolved(Signature(float16, (float16,)), Fp16Op(name))

    return typer


for _name in api.FP16_MATH_OPS:
    registry.call(getattr(api.fp16, _name), params=("x",), name=f"cuda.fp16.{_name}")(_typer(_name))
