"""``@cuda.jit(device=True)``: the device-function dispatcher (numba.cuda semantics).

A :class:`DeviceDispatcher` is compiled into the kernels and device functions that
call it (the core compiler sees its ``__cudalite_pyfunc__``); calling it from Python
or launching it is an error.  Signatures given to the decorator are type-checked
eagerly and become the conversions calls use; ``compile`` / ``compile_ptx`` emit
it alone, without a GPU, for CUDA C/C++ programs.
"""

from __future__ import annotations

import functools
from typing import Any, NoReturn

from cudalite.core.types import parse_signature

from .._compiler.compile_code import compile_code
from .._compiler.options import JitOptions
from ..errors import DeviceFunctionLaunchError
from .inspect import DeviceInspectMixin
from .pickling import dispatcher_reduction, reduce_dispatcher

__all__ = ["DeviceDispatcher"]


def _nvvm():
    """``cudalite.nvvm``, loaded when a device function is first compiled alone."""
    import cudalite.nvvm  # lazy: the compiler loads when a device function is compiled alone

    return cudalite.nvvm


class DeviceDispatcher(DeviceInspectMixin):
    """A ``device=True`` function: compiled into the kernels (and device functions)
    that call it; calling it from Python is an error.  Not constructed directly: see :func:`jit`."""

    def __init__(self, py_func: Any, sigs: Any = None, options: JitOptions = JitOptions()) -> None:
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.__cudalite_pyfunc__ = py_func
        self.__cudalite_links__ = tuple(options.link)  # linked into every kernel calling it
        self.options = options
        self.overloads = {}
        self._sigs = tuple(sigs) if sigs is not None else None
        eager = []
        for sig in sigs or ():  # type-check eagerly: errors at decoration time
            ret, argtypes = parse_signature(sig)
            argtypes = tuple(argtypes)
            res = compile_code(py_func, argtypes, options, None, device=True, until="typed-ir")
            self.overloads[argtypes] = res
            eager.append((argtypes, ret))
        self.__cudalite_sigs__ = tuple(eager)  # calls convert to these (cudalite.core typing)

    def __reduce__(self) -> Any:
        return reduce_dispatcher(self)

    __cudalite_by_value__ = dispatcher_reduction  # inside a by-value pickle (_dispatch.pickling)

    @property
    def signatures(self) -> Any:
        """list: the argument types of the signatures compiled so far (tuples of ``cudalite.types``)."""
        return list(self.overloads)

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"{self.py_func.__qualname__} is a CUDA device function (@cuda.jit(device=True)): "
                        "call it from a kernel or another device function, not from Python")

    def __getitem__(self, config: Any) -> None:
        """Refused (DeviceFunctionLaunchError): a device function cannot be launched as a kernel."""
        name = self.py_func.__qualname__
        raise DeviceFunctionLaunchError(
            f"Cannot compile a device function as a kernel: {name} is a CUDA device function "
            f"(@cuda.jit(device=True)) and cannot be launched ({name}[...]): call it from a kernel, or drop "
            "device=True to make it a kernel")

    def compile_ptx(self, sig: Any, cc: Any = None, abi: str = "numba", **kws: Any) -> Any:
        """The PTX of this device function, compiled without a GPU
        (``cudalite.nvvm.compile_ptx(py_func, sig, device=True, ...)``).

        Parameters
        ----------
        sig : str or Signature
            The signature with its return type, e.g. ``"float32(float32, float32)"``.
        cc : tuple of int, optional
            The target compute capability.  Default: the compiler's default target
            (``CUDALITE_DEFAULT_CC``, else ``(7, 5)``).
        abi : {"numba", "c"}, optional
            The calling convention of the emitted function: numba's (the default:
            the result through a pointer, a status code returned) or C's (the
            result returned; callable from CUDA C/C++).
        **kws
            Further options of ``cudalite.nvvm.compile_ptx``: ``debug``,
            ``lineinfo``, ``fastmath``, ``opt``, ``abi_info`` (``{"abi_name": ...}``,
            the symbol name), ``launch_bounds``.

        Returns
        -------
        tuple
            ``(ptx, resty)``: the PTX text (str) and the return type.

        Raises
        ------
        cudalite.core.errors.CompilerError
            The signature does not parse or the function does not compile for it.
        NotImplementedError
            ``abi`` is neither ``"numba"`` nor ``"c"``.
        ValueError
            An invalid option value (``abi_info`` key, ``launch_bounds``,
            ``forceinline=True``, which needs :meth:`compile` with LTO-IR output).
        """
        return _nvvm().compile_ptx(self.py_func, sig, device=True, cc=cc, abi=abi, **kws)

    def compile(self, sig: Any, cc: Any = None, abi: str = "c", output: str = "ptx", **kws: Any) -> Any:
        """This device function compiled to PTX or LTO-IR without a GPU, for CUDA
        C/C++ programs (``cudalite.nvvm.compile(py_func, sig, device=True, ...)``).

        Parameters
        ----------
        sig : str or Signature
            The signature with its return type, e.g. ``"float32(float32, float32)"``.
        cc : tuple of int, optional
            The target compute capability.  Default: the compiler's default target
            (``CUDALITE_DEFAULT_CC``, else ``(7, 5)``).
        abi : {"c", "numba"}, optional
            The calling convention of the emitted function: C's (the default) or
            numba's.
        output : {"ptx", "ltoir"}, optional
            PTX text or LTO-IR (for an LTO link with nvJitLink).
        **kws
            Further options of ``cudalite.nvvm.compile``: ``debug``, ``lineinfo``,
            ``fastmath``, ``opt``, ``abi_info`` (``{"abi_name": ...}``),
            ``forceinline`` (LTO-IR only), ``launch_bounds``.

        Returns
        -------
        tuple
            ``(code, resty)``: the PTX (str) or LTO-IR (bytes), and the return type.

        Raises
        ------
        cudalite.core.errors.CompilerError
            The signature does not parse or the function does not compile for it.
        NotImplementedError
            ``abi`` is neither ``"c"`` nor ``"numba"``.
        ValueError
            An invalid option value (``output``, ``abi_info`` key,
            ``launch_bounds``, ``forceinline`` without ``output="ltoir"``).
        """
        return _nvvm().compile(self.py_func, sig, device=True, cc=cc, abi=abi, output=output, **kws)

    def __repr__(self) -> str:
        return f"<DeviceDispatcher {self.py_func.__qualname__}>"
