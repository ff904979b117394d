"""Loading the NVIDIA libraries the linker runs (nvJitLink, NVRTC) from their pip
wheels through cuda-pathfinder, so a missing one is a :class:`ToolNotFoundError` (a
``LinkerError`` naming the wheel to install), not cuda-pathfinder's own exception
surfacing from the first call into cuda.bindings."""

from __future__ import annotations

from ._errors import ToolNotFoundError

__all__ = ["load_tool"]


def load_tool(libname: str, wheel: str) -> None:
    """Make sure ``libname`` (cuda-pathfinder's name: ``"nvJitLink"``, ``"nvrtc"``) is
    loaded; cuda-pathfinder caches the handle, so a later call costs a lookup."""
    from cuda import pathfinder  # lazy: the linker imports nothing of CUDA until it links

    try:
        pathfinder.load_nvidia_dynamic_lib(libname)
    except Exception as e:  # noqa: BLE001 - pathfinder's not-found/not-available errors, by class name below
        if type(e).__name__ not in ("DynamicLibNotFoundError", "DynamicLibNotAvailableError", "RuntimeError",
                                    "OSError"):
            raise
        raise ToolNotFoundError(f"{libname} was not found: install it with 'pip install {wheel}' (cudalite-linker "
                                f"depends on it; a CUDA toolkit is not used) -- {type(e).__name__}: {e}") from None
