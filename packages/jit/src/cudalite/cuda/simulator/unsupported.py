"""What the simulator cannot do: each such name raises a NotImplementedError that
names the feature.  :data:`UNSUPPORTED` maps the ``cudalite.cuda`` name to the
feature; :data:`UNSUPPORTED_NAMESPACES` the device-side namespaces (any member);
:data:`UNSUPPORTED_CLASSES` the classes: they can be named and subclassed (a module that
defines an EMM plugin imports), but creating an instance raises."""

from __future__ import annotations

__all__ = ["not_simulated", "UNSUPPORTED", "UNSUPPORTED_CLASSES", "UNSUPPORTED_NAMESPACES", "unsupported_objects"]

UNSUPPORTED = {
    "inline_ptx": "inline PTX",
    "declare_device": "foreign device functions (declare_device)",
    "compile": "compiling to PTX/LTO-IR", "compile_ptx": "compiling to PTX/LTO-IR",
    "compile_for_current_device": "compiling to PTX/LTO-IR",
    "compile_ptx_for_current_device": "compiling to PTX/LTO-IR", "compile_all": "compiling to PTX/LTO-IR",
    "make_tensor_map": "TMA tensor maps",
    "open_ipc_array": "CUDA IPC",
    "set_memory_manager": "external memory managers (EMM plugins)",
    "carray": "arrays over raw pointers (carray/farray)", "farray": "arrays over raw pointers (carray/farray)",
    "from_cuda_array_interface": "foreign device arrays (__cuda_array_interface__)",
    "guvectorize": "generalized CUDA ufuncs (guvectorize)",
    "cuda_error": "CUDA driver error codes",
}
UNSUPPORTED_CLASSES = {
    "IpcHandle": "CUDA IPC", "GetIpcHandleMixin": "CUDA IPC",
    "BaseCUDAMemoryManager": "external memory managers (EMM plugins)",
    "HostOnlyCUDAMemoryManager": "external memory managers (EMM plugins)",
    "MemoryPointer": "raw device memory pointers", "MappedMemory": "raw device memory pointers",
    "PinnedMemory": "raw device memory pointers", "MemoryInfo": "raw device memory pointers",
}
UNSUPPORTED_NAMESPACES = {
    "mma": "tensor-core matrix multiply-accumulate (cuda.mma)",
    "pipeline": "asynchronous copies (cuda.pipeline, cp.async)",
    "tma": "TMA bulk tensor copies (cuda.tma)",
    "mbarrier": "shared-memory transaction barriers (cuda.mbarrier)",
    "bf16": "bfloat16 arithmetic (cuda.bf16)",
    "fp8": "8-bit float conversions (cuda.fp8)",
    "cache": "the on-disk kernel cache (cuda.cache)",
}


def not_simulated(name: str, feature: str):
    """Raise the NotImplementedError for ``name``, which needs ``feature``."""
    raise NotImplementedError(
        f"{name}: {feature} cannot be simulated by the cudalite CUDA simulator (CUDALITE_ENABLE_CUDASIM=1); "
        "run this program on a GPU")


def _raiser(name, feature):
    def unsupported(*args, **kwargs):
        not_simulated(f"cuda.{name}", feature)

    unsupported.__name__ = name
    unsupported.__qualname__ = name
    unsupported.__doc__ = f"Not available in the simulator: {feature}."
    return unsupported


def _unsupported_class(name, feature):
    def __init__(self, *args, **kwargs):
        not_simulated(f"cuda.{name}", feature)

    return type(name, (), {"__init__": __init__, "__module__": "cudalite.cuda",
                           "__doc__": f"Not available in the simulator: {feature}."})


class _UnsupportedNamespace:
    def __init__(self, name, feature):
        self._name = name
        self._feature = feature

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _raiser(f"{self._name}.{attr}", self._feature)

    def __repr__(self):
        return f"<cudalite simulator: cuda.{self._name} is not simulated>"


def unsupported_objects() -> dict:
    """``{name: object}`` of every unsupported name of the simulator namespace."""
    out = {name: _raiser(name, feature) for name, feature in UNSUPPORTED.items()}
    out.update({name: _unsupported_class(name, feature) for name, feature in UNSUPPORTED_CLASSES.items()})
    out.update({name: _UnsupportedNamespace(name, feature) for name, feature in UNSUPPORTED_NAMESPACES.items()})
    return out
