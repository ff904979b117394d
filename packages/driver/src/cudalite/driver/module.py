"""Modules loaded from cubin bytes, their functions and global variables.

``load_module(cubin)`` loads into the current device's primary context; the module
is unloaded when the :class:`Module` dies (its functions keep it alive).
``module.get_function(name)`` gives a :class:`Function` with its attributes
(registers, shared/const/local memory, max threads per block, ...), occupancy
queries, and ``launcher(param_format)`` for the fast launch path.
"""

from __future__ import annotations

import weakref
from typing import Any

from ._cu import call, cu
from ._state import get_driver, peek_driver

__all__ = ["Module", "Function", "load_module"]


def _unload(handle, device_id) -> None:
    d = peek_driver()
    if d is None:
        return
    try:
        d.push(device_id)
        try:
            cu().cuModuleUnload(handle)
        finally:
            d.pop()
    except Exception:
        pass


class Module:
    """A loaded CUDA module (cuModuleLoadData), unloaded when the object dies.

    Made by :func:`load_module`; loads into the current device's primary context.

    Parameters
    ----------
    image : bytes-like
        A cubin, fatbin or PTX image.

    Raises
    ------
    CudaDriverError
        If the driver rejects the image (e.g. ``CUDA_ERROR_NO_BINARY_FOR_GPU``).
    """

    __slots__ = ("_cu", "device_id", "_finalizer", "__weakref__")

    def __init__(self, image: Any) -> None:
        self.device_id = get_driver().current()
        data = bytes(image)
        self._cu = call("cuModuleLoadData", data)
        self._finalizer = weakref.finalize(self, _unload, self._cu, self.device_id)

    @property
    def handle(self) -> int:
        """The ``CUmodule`` handle as an int."""
        return int(self._cu)

    def get_function(self, name: Any) -> "Function":
        """Look up a kernel of the module (cuModuleGetFunction).

        Parameters
        ----------
        name : str
            The kernel's symbol name (its mangled name for C++ kernels).

        Returns
        -------
        Function

        Raises
        ------
        CudaDriverError
            If the module has no such kernel (``CUDA_ERROR_NOT_FOUND``).
        """
        return Function(self, call("cuModuleGetFunction", self._cu, name.encode()), name)

    def get_global(self, name: Any) -> Any:
        """Address and size of a ``__device__``/``__constant__`` variable (cuModuleGetGlobal).

        Parameters
        ----------
        name : str
            The variable's symbol name.

        Returns
        -------
        tuple
            ``(device pointer int, size in bytes)``.

        Raises
        ------
        CudaDriverError
            If the module has no such variable.
        """
        ptr, size = call("cuModuleGetGlobal", self._cu, name.encode())
        return int(ptr), size

    def function_names(self) -> list:
        """The names of the module's kernels (cuModuleEnumerateFunctions, CUDA 12.4+).

        Returns
        -------
        list of str
            In the driver's order.

        Raises
        ------
        CudaDriverError
            The driver cannot enumerate a module's functions.
        """
        count = call("cuModuleGetFunctionCount", self._cu)
        functions = call("cuModuleEnumerateFunctions", int(count), self._cu)
        names = []
        for f in functions:
            name = call("cuFuncGetName", f)
            names.append(name.decode() if isinstance(name, bytes) else str(name))
        return names

    def unload(self) -> None:
        """Unload the module now (idempotent); its functions become unusable."""
        self._finalizer()


def load_module(image: Any) -> Module:
    """Load a cubin (bytes-like; a fatbin or PTX image works too) on the current device.

    Parameters
    ----------
    image : bytes-like
        The module image.

    Returns
    -------
    Module

    Raises
    ------
    CudaDriverError
        If the driver rejects the image.
    """
    return Module(image)


_ATTRS = {
    "max_threads_per_block": "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
    "shared_size_bytes": "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES",
    "const_size_bytes": "CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES",
    "local_size_bytes": "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES",
    "num_regs": "CU_FUNC_ATTRIBUTE_NUM_REGS",
    "ptx_version": "CU_FUNC_ATTRIBUTE_PTX_VERSION",
    "binary_version": "CU_FUNC_ATTRIBUTE_BINARY_VERSION",
    "max_dynamic_shared_size_bytes": "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
}


def _attr_property(key):
    def get(self):
        return self.attribute(key)

    get.__name__ = key
    get.__doc__ = f"``{_ATTRS[key]}``"
    return property(get)


class Function:
    """A kernel of a loaded :class:`Module`; obtain one with :meth:`Module.get_function`.

    The common ``CUfunction_attribute`` values are properties too: ``num_regs``,
    ``max_threads_per_block``, ``shared_size_bytes``, ``const_size_bytes``,
    ``local_size_bytes``, ``ptx_version``, ``binary_version``,
    ``max_dynamic_shared_size_bytes``.

    Parameters
    ----------
    module : Module
        The module that holds the kernel (kept alive by the function).
    cufunc : CUfunction
        The driver handle of the kernel.
    name : str
        The kernel's symbol name.
    """

    def __init__(self, module: Any, cufunc: Any, name: Any) -> None:
        self.module = module
        self.name = name
        self._cu = cufunc
        self.handle = int(cufunc)
        self.device_id = module.device_id
        self._launchers: dict = {}

    def __repr__(self) -> str:
        return f"<cudalite.driver.Function {self.name!r}>"

    def attribute(self, name: Any) -> Any:
        """Query a kernel attribute (cuFuncGetAttribute).

        Parameters
        ----------
        name : str
            A short name (``"num_regs"``) or a ``CUfunction_attribute`` name with or
            without its ``CU_FUNC_ATTRIBUTE_`` prefix (``"NUM_REGS"``).

        Returns
        -------
        int

        Raises
        ------
        ValueError
            If ``name`` is not a function attribute.
        """
        key = _ATTRS.get(name) or "CU_FUNC_ATTRIBUTE_" + name.upper().removeprefix("CU_FUNC_ATTRIBUTE_")
        try:
            attr = getattr(cu().CUfunction_attribute, key)
        except AttributeError:
            raise ValueError(f"unknown function attribute {name!r}") from None
        return call("cuFuncGetAttribute", attr, self._cu)

    def attributes(self) -> dict:
        """All the common attributes as a dict."""
        return {key: self.attribute(key) for key in _ATTRS}

    def set_max_dynamic_shared_memory(self, nbytes: Any) -> None:
        """Allow up to ``nbytes`` of dynamic shared memory per block (needed above 48 KiB).

        Parameters
        ----------
        nbytes : int
            The maximum dynamic shared memory per block, in bytes.

        Raises
        ------
        CudaDriverError
            If ``nbytes`` exceeds what the device allows.
        """
        attr = cu().CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        call("cuFuncSetAttribute", self._cu, attr, int(nbytes))

    def max_active_blocks_per_multiprocessor(self, block_size: Any, dynamic_smem: int = 0) -> int:
        """Occupancy: resident blocks per SM for ``block_size`` threads.

        Parameters
        ----------
        block_size : int
            Threads per block.
        dynamic_smem : int, optional
            Dynamic shared memory per block, in bytes (default 0).

        Returns
        -------
        int
            How many blocks of this kernel one multiprocessor can hold at once.
        """
        return call("cuOccupancyMaxActiveBlocksPerMultiprocessor", self._cu, block_size, dynamic_smem)

    def max_potential_block_size(self, dynamic_smem: int = 0, block_size_limit: int = 0) -> Any:
        """The block size that maximizes occupancy (cuOccupancyMaxPotentialBlockSize).

        Parameters
        ----------
        dynamic_smem : int, optional
            Dynamic shared memory per block, in bytes (default 0).
        block_size_limit : int, optional
            The largest block size to consider; 0 (default) means no limit.

        Returns
        -------
        tuple of int
            ``(min_grid_size, block_size)``.
        """
        return tuple(call("cuOccupancyMaxPotentialBlockSize", self._cu, None, dynamic_smem, block_size_limit))

    def launcher(self, param_format: Any, backend: Any = None) -> Any:
        """A cached :class:`~cudalite.driver.Launcher` for ``param_format``.

        Parameters
        ----------
        param_format : str
            The kernel's parameter format (see :func:`param_layout`).
        backend : str, optional
            The launch backend (see :class:`Launcher`); ``None`` picks the default.

        Returns
        -------
        Launcher
            One launcher per ``(param_format, backend)``, made on first request.
        """
        key = (param_format, backend)
        lau = self._launchers.get(key)
        if lau is None:
            from .launch import Launcher

            lau = self._launchers[key] = Launcher(self, param_format, backend=backend)
        return lau


for _key in _ATTRS:
    setattr(Function, _key, _attr_property(_key))
del _key
