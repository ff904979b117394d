"""The typed records typing hands to lowering (frozen, slotted dataclasses).

For every call, operator, attribute access, index, store and ``for`` loop it
resolves, inference records one :class:`CallInfo` in ``TypedFunction.calls``
(keyed by the IR node).  Lowering reads only these fields; it never re-runs a
typing rule.  What a typing rule decided beyond the signature (which atomic
operation, the constant shape of a shared array, the record field...) travels
in ``CallInfo.payload`` as one of the small payload records below; a typer
returns it with its signature as ``Resolved(sig, payload)``.  Extensions may
define their own frozen payload dataclasses the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..types import Array, Signature, Tuple, Type

__all__ = [
    "CallKind", "CallInfo", "Resolved", "Implementation", "Comparison",
    "IterPlan", "ArrayIter", "TupleIter", "RangeIter", "EnumerateIter", "ZipIter",
    "AtomicOp", "GridDims", "Fp16Op", "ArrayView", "TupleIndex", "TupleSlice", "RecordField", "ArraySpec", "ConstArray",
    "UfuncLoop",
]


class CallKind(Enum):
    """What a :class:`CallInfo` resolved, and so which fields it fills."""

    REGISTRY = "registry"  # a call of a registered object; key: the object (a lowering-table call key)
    METHOD = "method"  # value.name(...), value[i], value[i] = v, value.attr = v; key: (type class, name)
    FUNCTION = "function"  # a call of a Python function compiled as a device function; key: it
    CAST = "cast"  # int32(x), float(x) ...; key: the target type
    VALUE = "value"  # a registered device value (cuda.threadIdx.x); key: the object
    ATTR = "attr"  # value.name; key: (type class, name) ("*": any name, see CallInfo.name)
    BINOP = "binop"  # a + b on numbers
    UNARY = "unary"  # -a, +a, ~a, not a
    COMPARE = "compare"  # a < b <= c; payload: tuple of Comparison, one per link
    ITER = "iter"  # for x in ...; payload: an IterPlan; sig.return_type: the element type
    TUPLE_CONCAT = "tuple_concat"  # tuple + tuple


@dataclass(frozen=True, slots=True)
class CallInfo:
    """How typing resolved one node: what lowering needs, and nothing to recompute.

    ``sig`` gives the types the operands are converted to and the result type.
    ``key`` is the lowering-table key for the kinds that dispatch through it (see
    :class:`CallKind`); ``name`` is the name shown in messages and ``inspect_types``
    (for ATTR: the attribute's name); ``recv`` is the receiver type of a METHOD;
    ``payload`` a typing rule's decision (a payload record, an :class:`IterPlan`
    or the :class:`Comparison` links); ``callee`` the typed device function of a
    FUNCTION call; ``arg_nodes`` the argument expressions in parameter order when
    keywords or defaults were folded (else None: the call's positional arguments);
    ``links`` code the callee needs linked; ``inline`` the callee dispatcher's
    ``(inline, forceinline)`` choice (:class:`~cudalite.core.types.PyFunction`)."""

    kind: CallKind
    sig: Signature
    key: object = None
    name: str = ""
    recv: Type | None = None
    payload: object = None
    callee: object = None  # TypedFunction | None
    arg_nodes: tuple | None = None
    links: tuple = ()
    inline: tuple = ("never", False)


@dataclass(frozen=True, slots=True)
class Resolved:
    """A typer's answer with a payload for the lowering: ``Resolved(sig, AtomicOp("add"))``.
    A typer with nothing to pass on returns the bare :class:`Signature`."""

    sig: Signature
    payload: object = None


@dataclass(frozen=True, slots=True)
class Implementation:
    """A typer's answer that is Python code: compile ``pyfunc`` as a device function for
    the call's argument types (the receiver first for a method or an attribute) and
    call it.  What ``overload``, ``overload_method`` and ``overload_attribute`` of the
    extension API return; the call is then recorded as a :attr:`CallKind.FUNCTION` call
    of ``pyfunc``, so it is typed, inlined and located like any device function."""

    pyfunc: object
    name: str = ""
    inline: tuple = ("never", False)  # as CallInfo.inline: ``overload(..., inline="always")``


@dataclass(frozen=True, slots=True)
class Comparison:
    """One link ``a op b`` of a comparison chain.

    ``sig.args`` are the types both operands convert to.  ``constant`` is the
    result when typing already knows it (``is``/``is not`` with None, tuples of
    different lengths, tuple items that never compare equal).  For tuple ``==``/
    ``!=``, ``items`` holds the per-item equality links (nested for nested tuples)."""

    op: str
    sig: Signature
    constant: bool | None = None
    items: tuple = ()

    @property
    def is_tuple(self) -> bool:
        return isinstance(self.sig.args[0], Tuple) if self.sig.args else False


# -- iteration plans (CallKind.ITER) ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class IterPlan:
    """How a ``for`` loop walks its iterable (one subclass per form)."""


@dataclass(frozen=True, slots=True)
class ArrayIter(IterPlan):
    """Elements (1-d) or rows (n-d) of the array expression ``node`` of type ``type``."""

    node: object
    type: Array


@dataclass(frozen=True, slots=True)
class TupleIter(IterPlan):
    """Items of the tuple expression ``node`` of type ``type``, each converted to ``elem``."""

    node: object
    type: Tuple
    elem: Type


@dataclass(frozen=True, slots=True)
class RangeIter(IterPlan):
    """``range(*args)`` as an iterable (inside ``enumerate``/``zip``): int64 values."""

    args: tuple


@dataclass(frozen=True, slots=True)
class EnumerateIter(IterPlan):
    """``enumerate(inner, start)``; ``start`` is an expression or None (0)."""

    start: object
    inner: IterPlan


@dataclass(frozen=True, slots=True)
class ZipIter(IterPlan):
    """``zip(*parts)``: as many iterations as the shortest part."""

    parts: tuple


# -- payloads of the built-in typing rules ----------------------------------------------------
@dataclass(frozen=True, slots=True)
class AtomicOp:
    """``cuda.atomic.<op>`` read-modify-write: which operation (``"add"``, ``"and_"``...)."""

    op: str


@dataclass(frozen=True, slots=True)
class GridDims:
    """``cuda.grid(ndim)`` / ``cuda.gridsize(ndim)``: the constant number of dimensions."""

    ndim: int


@dataclass(frozen=True, slots=True)
class Fp16Op:
    """``cuda.fp16.<op>``: which half-precision operation (``"hadd"``, ``"hfma"``...)."""

    op: str


@dataclass(frozen=True, slots=True)
class ArrayView:
    """``a[slices or a partial index] = value``: the view stored into elementwise."""

    view: Array


@dataclass(frozen=True, slots=True)
class TupleIndex:
    """``t[i]`` with a constant ``i``: the item's index, already wrapped (0 <= index < len)."""

    index: int


@dataclass(frozen=True, slots=True)
class TupleSlice:
    """``t[a:b:c]`` with constant bounds: the indices of the items kept, in order."""

    indices: tuple


@dataclass(frozen=True, slots=True)
class RecordField:
    """``rec["name"]`` / ``rec["name"] = v`` / ``rec.name = v``: the field."""

    name: str


@dataclass(frozen=True, slots=True)
class ArraySpec:
    """``cuda.shared.array`` / ``cuda.local.array``: the constant shape (``()``: the
    dynamic shared array), element type and the requested ``alignment`` in bytes
    (None: the default)."""

    shape: tuple
    dtype: Type
    alignment: int | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ConstArray:
    """``cuda.const.array_like(a)``: the NumPy array copied into constant memory
    (compared by identity: arrays have no truth-valued ``==``)."""

    value: object


@dataclass(frozen=True, slots=True)
class UfuncLoop:
    """``np.sin(x, out)`` / ``np.add(a, b, out)`` on arrays: the scalar ufunc (its
    signature ``inner`` and payload ``inner_payload``) applied to every element of
    the output array, the ``nin`` inputs broadcast onto it (NumPy's rules)."""

    inner: Signature
    inner_payload: object
    nin: int
