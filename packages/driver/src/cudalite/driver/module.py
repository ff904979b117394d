"""Modules loaded from cubin bytes, their functions and global variables.

``load_module(cubin)`` loads into the current device's primary context; the module
is unloaded when the :class:`Module` dies (its functions keep it alive).
``module.get_function(name)`` gives a :class:`Function` with its attributes
(registers, shared/const/local memory, max threads per block, ...), occupancy
queries, and ``launcher(param_format)`` for the fast launch path.
"""

from __future__ import annotations

import weakref

from ._cu import call, cu
from ._state import get_driver, peek_driver

__all__ = ["Module", "Function", "load_module"]


def _unload(handle, device_id):
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
    """A loaded CUDA module (cuModuleLoadData)."""

    __slots__ = ("_cu", "device_id", "_finalizer", "__weakref__")

    def __init__(self, image):
        self.device_id = get_driver().current()
        data = bytes(image)
        self._cu = call("cuModuleLoadData", data)
        self._finalizer = weakref.finalize(self, _unload, self._cu, self.device_id)

    @property
    def handle(self) -> int:
        return int(self._cu)

    def get_function(self, name) -> "Function":
        """The kernel ``name`` (its mangled name for C++ kernels)."""
        return Function(self, call("cuModuleGetFunction", self._cu, name.encode()), name)

    def get_global(self, name):
        """(device pointer int, size in bytes) of the ``__device__``/``__constant__``
        variable ``name``."""
        ptr, size = call("cuModuleGetGlobal", self._cu, name.encode())
        return int(ptr), size

    def unload(self):
        self._finalizer()


def load_module(image) -> Module:
    """Load a cubin (bytes-like; a fatbin or PTX image works too) on the current device."""
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
    """A kernel of a loaded :class:`Module`."""

    def __init__(self, module, cufunc, name):
        self.module = module
        self.name = name
        self._cu = cufunc
        self.handle = int(cufunc)
        self.device_id = module.device_id
        self._launchers = {}

    def __repr__(self):
        return f"<cudalite.driver.Function {self.name!r}>"

    def attribute(self, name):
        """A ``CUfunction_attribute`` by short name (``"num_regs"``) or suffix
        (``"NUM_REGS"``)."""
        key = _ATTRS.get(name) or "CU_FUNC_ATTRIBUTE_" + name.upper().removeprefix("CU_FUNC_ATTRIBUTE_")
        try:
            attr = getattr(cu().CUfunction_attribute, key)
        except AttributeError:
            raise ValueError(f"unknown function attribute {name!r}") from None
        return call("cuFuncGetAttribute", attr, self._cu)

    def attributes(self) -> dict:
        """All the common attributes as a dict."""
        return {key: self.attribute(key) for key in _ATTRS}

    def set_max_dynamic_shared_memory(self, nbytes):
        """Allow up to ``nbytes`` of dynamic shared memory per block (needed above 48 KiB)."""
        attr = cu().CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        call("cuFuncSetAttribute", self._cu, attr, int(nbytes))

    def max_active_blocks_per_multiprocessor(self, block_size, dynamic_smem=0) -> int:
        """Occupancy: resident blocks per SM for ``block_size`` threads."""
        return call("cuOccupancyMaxActiveBlocksPerMultiprocessor", self._cu, block_size, dynamic_smem)

    def max_potential_block_size(self, dynamic_smem=0, block_size_limit=0):
        """(min_grid_size, block_size) maximizing occupancy."""
        return tuple(call("cuOccupancyMaxPotentialBlockSize", self._cu, None, dynamic_smem, block_size_limit))

    def launcher(self, param_format, backend=None):
        """A cached :class:`~cudalite.driver.Launcher` for ``param_format``."""
        key = (param_format, backend)
        lau = self._launchers.get(key)
        if lau is None:
            from .launch import Launcher

            lau = self._launchers[key] = Launcher(self, param_format, backend=backend)
        return lau


for _key in _ATTRS:
    setattr(Function, _key, _attr_property(_key))
del _key
