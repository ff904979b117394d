"""``@intrinsic``: a device function whose body is LLVM IR the extension builds.

    @intrinsic
    def popc_twice(typingctx, x):
        sig = types.int32(x)
        def codegen(context, builder, signature, args):
            c = builder.ctpop(args[0])
            return builder.trunc(builder.add(c, c), ir.IntType(32))
        return sig, codegen

The decorated function is the typing half: called with the typing context and the
argument types at each call site, it returns ``(signature, codegen)`` or None (no
match).  ``codegen(context, builder, signature, args)`` receives the llvmlite
``IRBuilder`` positioned in the caller, the chosen signature and the LLVM argument
values (already converted to the signature's argument types), and returns the
result value (for a ``void`` result: anything, ignored).  Inline PTX goes through
``ir.InlineAsm`` as in numba.

Pickling (numba's ``_Intrinsic`` semantics): an intrinsic its module names pickles by
reference; any other (a local one, one in ``__main__``) by value, its typing function
as a ``cloudpickle`` stream nested in the pickle (so plain ``pickle.dumps`` works too;
:class:`~cudalite.core.nested_pickle.NestedStream`: the user's unpickler opens it),
with an id.  Unpickling in a process where the intrinsic of that id is alive gives
that object back; :attr:`Intrinsic._memo` (weak) finds it, and
:attr:`Intrinsic._recent` keeps the last 128 intrinsics pickled or unpickled alive, as
numba's ``_recent``.  ``cloudpickle`` is imported only when pickling by value.
"""

from __future__ import annotations

import collections
import functools
import pickle
import uuid
import weakref
from dataclasses import dataclass

from llvmlite import ir

from cudalite.core.errors import LoweringError, TypingError
from cudalite.core.nested_pickle import NestedStream
from cudalite.core.registry import registry
from cudalite.core.types import NoneType, Signature, Void
from cudalite.core.typing import Resolved

from ..lower._registry import lowerings
from ._context import LoweringContext
from ._typing import TypingContextView, _call_generator, _where

__all__ = ["intrinsic", "Intrinsic"]


class Intrinsic:
    """The object ``@intrinsic`` makes; calling it from Python (outside a kernel) is an
    error, as in numba.

    Pickled by value (a local intrinsic, alone or inside a kernel's pickle), it carries
    an id; :attr:`_memo` maps the ids of the intrinsics alive in this process to them
    (weakly), so unpickling in the process that pickled gives the same object back, and
    :attr:`_recent` holds the last ones given an id (numba's ``_Intrinsic._memo`` and
    ``_recent``: numba-cuda's own tests read both)."""

    # numba's process-wide memo of by-value intrinsics (its tests read them): id -> the live
    # intrinsic, and strong references to the last ones given an id
    _memo = weakref.WeakValueDictionary()
    _recent = collections.deque(maxlen=128)

    def __init__(self, name, defn, prefer_literal=False):
        self._name = name
        self._defn = defn
        self.prefer_literal = prefer_literal
        self._uuid = None  # given when first pickled by value
        functools.update_wrapper(self, defn)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self._name} is an @intrinsic: it can only be called from device code")

    def __repr__(self):
        return f"<intrinsic {self._name}>"

    def __reduce__(self):
        """By reference when its module names it (unpickling gives this very object),
        else by value: the typing function travels (cloudpickle, in a kernel's pickle)."""
        if _by_name(self.__module__, self.__qualname__) is self:
            return (_by_name, (self.__module__, self.__qualname__))
        if self._uuid is None:
            self._remember(uuid.uuid4().hex)
        import cloudpickle  # by value: the typing function (a local function, a lambda, ...) travels

        return (_rebuild, (self._uuid, self._name, NestedStream(cloudpickle.dumps(self._defn)), self.prefer_literal))

    def _remember(self, uid):
        self._uuid = uid
        Intrinsic._memo[uid] = self
        Intrinsic._recent.append(self)


def _malformed(detail):
    return pickle.UnpicklingError(f"this pickle of an @intrinsic is malformed ({detail}): the pickle was not made "
                                  "by cudalite, or was altered")


def _rebuild(uid, name, defn, prefer_literal):
    """An unpickled intrinsic: the live one of this id, else a new one (remembered).
    ``defn``: the typing function (the unpickler opened its nested stream)."""
    if not (isinstance(uid, str) and isinstance(name, str)):
        raise _malformed("its id and name are not strings")
    found = Intrinsic._memo.get(uid)
    if found is not None:
        return found
    if not callable(defn):
        raise _malformed(f"its typing function is a {type(defn).__name__}, not callable")
    made = Intrinsic(name, defn, bool(prefer_literal))
    made._remember(uid)
    return made


def _by_name(module, qualname):
    import importlib
    import sys

    obj = sys.modules.get(module)
    if obj is None:
        try:
            obj = importlib.import_module(module)
        except ImportError:
            return None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


@dataclass(frozen=True, slots=True)
class IntrinsicCall:
    """What typing decided for one intrinsic call: the code generator to run."""

    codegen: object
    name: str


def intrinsic(*args, **kwargs):
    """``@intrinsic`` / ``@intrinsic(prefer_literal=True)``: see the module docstring."""
    prefer_literal = kwargs.pop("prefer_literal", False)
    kwargs.pop("target", None)
    if kwargs:
        raise TypeError(f"intrinsic() got unexpected keyword arguments {sorted(kwargs)}")

    def wrap(fn):
        return Intrinsic(fn.__name__, fn, prefer_literal)

    if len(args) == 1 and callable(args[0]):
        return wrap(args[0])
    if args:
        raise TypeError("intrinsic() takes the function to decorate, or keyword options")
    return wrap


@registry.call_class(Intrinsic)
def _type_intrinsic(site):
    obj = site.callee
    answer = _call_generator(obj._defn, site, (TypingContextView(), *site.args), f"{obj._name}()")
    if answer is None:
        return None
    if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], Signature)
            and callable(answer[1])):
        raise TypingError(f"{obj._name}(): the intrinsic {_where(obj._defn)} must return (signature, codegen) "
                          f"or None, not {answer!r}", site.loc)
    sig, codegen = answer
    if len(sig.args) != len(site.args):
        raise TypingError(f"{obj._name}(): the intrinsic's signature {sig} takes {len(sig.args)} argument(s), "
                          f"the call gives {len(site.args)}", site.loc)
    return Resolved(sig, IntrinsicCall(codegen, obj._name))


@lowerings.call_class(Intrinsic)
def _lower_intrinsic(lc, node, args, info):
    call = info.payload
    try:
        out = call.codegen(LoweringContext(lc), lc.builder, info.sig, list(args))
    except LoweringError:
        raise
    except Exception as e:
        raise LoweringError(f"{call.name}(): the intrinsic's codegen {_where(call.codegen)} raised "
                            f"{type(e).__name__}: {e}", getattr(node, "loc", None)) from e
    rt = info.sig.return_type
    if rt is None or isinstance(rt, (Void, NoneType)):
        return ir.Constant(ir.LiteralStructType([]), None)
    if out is None:
        raise LoweringError(f"{call.name}(): non-void function returns None from implementation (the intrinsic's "
                            f"codegen {_where(call.codegen)} must return an LLVM value of type {rt})",
                            getattr(node, "loc", None))
    if not isinstance(out, ir.Value):
        raise LoweringError(f"{call.name}(): the intrinsic's codegen returned {out!r}, not an LLVM value of "
                            f"type {rt}", getattr(node, "loc", None))
    return out
