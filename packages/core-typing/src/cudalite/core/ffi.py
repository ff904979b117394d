"""Foreign device functions: ``cuda.declare_device`` and the extension protocol.

``declare_device(name, sig, link=None, use_cooperative=False, abi="numba")``
describes a device function defined elsewhere (CUDA C/C++, PTX, a cubin,
LTO-IR...).  Calling the descriptor in a kernel emits a call to ``name``
(``use_cooperative``: the foreign code uses grid-wide sync, so a kernel calling
it is launched cooperatively, as numba's):

* ``abi="numba"``: ``extern "C" __device__ int name(RET* ret, args...)`` -- the
  value comes back through ``ret``, the int is a status code;
* ``abi="c"``: ``extern "C" __device__ RET name(args...)``.

``link`` lists the code that defines it (paths or cudalite.linker objects); the
compiler collects it into every kernel that calls the function, transitively.

Extension protocol (library objects callable in kernels with no ``link=``):
an object used as a callable in device code may define

* ``__cudalite_declare__(self, *argtypes) -> ForeignFunction`` -- the foreign
  function (name, signature, ABI) to call for these argument types, and
* ``__cudalite_link__(self, *argtypes) -> list`` -- the code to link for them,
  produced at compile time if it wants (e.g. CUDA C specialised for float32).

``__numba_cuda_link__`` is accepted as an alias of ``__cudalite_link__``.
Importing this module needs no GPU library: link items are opaque here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

from .errors import SignatureError
from .types import Signature, Type, Void, parse_signature

__all__ = ["ForeignFunction", "declare_device", "resolve_extension", "LINK_HOOKS"]

LINK_HOOKS = ("__cudalite_link__", "__numba_cuda_link__")


@dataclass(frozen=True, eq=False, repr=False, init=False)
class ForeignFunction:
    """A device function implemented outside Python (immutable; compared by identity)."""

    __slots__ = ("name", "return_type", "argtypes", "abi", "link", "use_cooperative", "__weakref__")
    name: str
    return_type: Type
    argtypes: tuple
    abi: str
    link: tuple
    use_cooperative: bool

    def __init__(self, name: str, sig: Any, link: Any = None, abi: str = "numba",
                 use_cooperative: bool = False) -> None:
        if abi not in ("numba", "c"):
            raise SignatureError(f"declare_device: abi must be 'numba' or 'c', not {abi!r}")
        if not isinstance(name, str) or not name.isidentifier():
            raise SignatureError(f"declare_device: {name!r} is not a valid C symbol name")
        ret, args = parse_signature(sig)
        if ret is None:
            raise SignatureError(f"declare_device: Return type missing: the signature of {name!r} must give a "
                                 "return type, e.g. 'float32(float32, float32)'")
        if link is None:
            link = ()
        elif isinstance(link, (set, frozenset)):  # numba accepts a set: in a stable order (cache keys)
            link = tuple(sorted(link, key=repr))
        elif isinstance(link, (str, bytes)) or not isinstance(link, (list, tuple)):
            link = (link,)
        for key, value in (("name", name), ("return_type", ret), ("argtypes", tuple(args)), ("abi", abi),
                           ("link", tuple(link)), ("use_cooperative", bool(use_cooperative))):
            object.__setattr__(self, key, value)

    @property
    def signature(self) -> Signature:
        return Signature(self.return_type, self.argtypes)

    @property
    def sig(self) -> Signature:
        """numba's name for :attr:`signature`."""
        return self.signature

    @property
    def returns_value(self) -> bool:
        return not isinstance(self.return_type, Void)

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(f"the foreign device function {self.name!r} can only be called from device code")

    def __repr__(self) -> str:
        return f"<declared device function {self.name}{self.signature} abi={self.abi}>"


def declare_device(name: Any, sig: Any, link: Any = None, use_cooperative: bool = False,
                   abi: str = "numba") -> ForeignFunction:
    """Declare a device function written elsewhere (CUDA C++, PTX, LTO-IR), callable
    from kernels and device functions (docs/ffi.md).

    Parameters
    ----------
    name : str
        The function's symbol.
    sig : str or Signature
        Its signature, e.g. ``"float32(float32, float32)"``.
    link : str, LinkableCode or sequence of them, optional
        Code to link into every kernel that calls it (a ``.cu``/``.ptx``/``.o``/
        ``.a``/``.ltoir`` path or a ``cuda.CUSource``...).
    use_cooperative : bool, optional
        The function uses grid synchronization: kernels calling it are launched
        cooperatively.
    abi : {"numba", "c"}, optional
        ``"numba"`` (default): the result through a pointer and an int status;
        ``"c"``: a plain C function returning its result.

    Returns
    -------
    ForeignFunction
        Call it in device code like a device function.
    """
    return ForeignFunction(name, sig, link=link, abi=abi, use_cooperative=use_cooperative)


def resolve_extension(obj: Any, argtypes: Any) -> Any:
    """The ForeignFunction an extension object stands for with these argument
    types (with its link list filled in), or None if ``obj`` is no extension."""
    declare = getattr(obj, "__cudalite_declare__", None)
    if declare is None:
        return None
    decl = declare(*argtypes)
    if not isinstance(decl, ForeignFunction):
        raise SignatureError(f"{type(obj).__name__}.__cudalite_declare__ must return cuda.declare_device(...), "
                             f"not {decl!r}")
    for hook in LINK_HOOKS:
        fn = getattr(obj, hook, None)
        if fn is not None:
            extra = fn(*argtypes) or ()
            if isinstance(extra, (str, bytes)) or not isinstance(extra, (list, tuple)):
                extra = (extra,)
            return ForeignFunction(decl.name, decl.signature, link=decl.link + tuple(extra), abi=decl.abi,
                                   use_cooperative=decl.use_cooperative)
    return decl
