"""CUDA vector types: constructors, component reads, and their foreign-call ABI.

In registers a ``float32x4`` is the literal struct ``{float, float, float, float}``
(:func:`._irtypes.value_type`).  Foreign device functions (``cuda.declare_device``)
see CUDA C's ``float4`` instead: a *named* struct of the same fields, passed and
returned by value (what NVCC's NVVM IR uses, so LTO-IR links and inlines across the
two), with CUDA C's alignment given to the PTX parameter list by an ``"align"``
annotation (``.param .align 16 .b8 p[16]``, as NVCC declares it).
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.device_api import VectorConstructor
from cudalite.core.types import VectorType, cuda_alignment

from ._irtypes import I32, value_type
from ._registry import lowerings

__all__ = ["abi_type", "to_abi", "from_abi", "annotate_alignment"]


@lowerings.call_class(VectorConstructor)
def _construct(lc, node, args, info):
    b = lc.builder
    parts = []
    for v, t in zip(args, info.sig.args):
        if isinstance(t, VectorType):
            parts.extend(b.extract_value(v, k) for k in range(t.count))
        else:
            parts.append(v)  # already converted to the base type
    out = ir.Constant(value_type(info.sig.return_type), ir.Undefined)
    for k, part in enumerate(parts):
        out = b.insert_value(out, part, k)
    return out


@lowerings.attr(VectorType, "*")
def _component(lc, v, info):
    return lc.builder.extract_value(v, info.sig.args[0].attr_names.index(info.name))


# -- the foreign-call ABI ----------------------------------------------------------------------
def abi_type(module: ir.Module, t: VectorType):
    """The named struct ``%"cudalite.float32x4"`` of ``module`` (its own context)."""
    ty = module.context.get_identified_type(f"cudalite.{t}")
    if ty.is_opaque:
        ty.set_body(*([value_type(t.base_type)] * t.count))
    return ty


def _convert(b, v, src_ty, dst_ty, count):
    out = ir.Constant(dst_ty, ir.Undefined)
    for k in range(count):
        out = b.insert_value(out, b.extract_value(v, k), k)
    return out


def to_abi(b, module, v, t: VectorType):
    """A vector value as CUDA C's struct (same fields, named type)."""
    return _convert(b, v, v.type, abi_type(module, t), t.count)


def from_abi(b, v, t: VectorType):
    """CUDA C's struct back to the register form."""
    return _convert(b, v, v.type, value_type(t), t.count)


def annotate_alignment(module: ir.Module, fn, index: int, t: VectorType) -> None:
    """Give parameter ``index`` (1-based; 0: the return value) of ``fn`` CUDA C's
    alignment of ``t`` when it exceeds the component's (NVVM's ``"align"`` annotation:
    the index in the high 16 bits, the alignment in the low 16)."""
    align = cuda_alignment(t)
    if align > t.base_type.bitwidth // 8:
        md = module.add_metadata([fn, ir.MetaDataString(module, "align"), ir.Constant(I32, (index << 16) | align)])
        module.add_named_metadata("nvvm.annotations", md)
