"""What a kernel's Python code may reach, found without running it: whether it
uses grid sync (``this_grid``: all blocks must run at once) and whether its
threads must run concurrently (barriers, warp intrinsics, lock-like atomics).

The code objects of the kernel and of every function, device function and
closure it names are scanned for attribute and global names.  Anything the scan
cannot see into (a module other than the CUDA API, maths and NumPy, a callable
object of another kind) counts as needing concurrent threads.
"""

from __future__ import annotations

import builtins
import types as _pytypes

__all__ = ["KernelTraits", "analyze"]

GRID_SYNC_NAMES = frozenset({"this_grid"})
CONCURRENT_NAMES = frozenset({
    "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp", "shfl_sync",
    "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync", "eq_sync", "ballot_sync",
    "match_any_sync", "match_all_sync", "this_grid", "cas", "compare_and_swap", "exch", "nanosleep",
    "threadfence", "threadfence_block", "threadfence_system",
})
_SAFE_MODULES = ("math", "cmath", "operator", "numpy", "cudalite.cuda", "cudalite.types", "cudalite.core")


class KernelTraits:
    """``grid_sync`` and ``concurrent`` (see the module docstring)."""

    def __init__(self, grid_sync: bool, concurrent: bool):
        self.grid_sync = grid_sync
        self.concurrent = concurrent


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, _pytypes.CodeType):
            yield from _code_objects(const)


def _safe_module(module) -> bool:
    name = getattr(module, "__name__", "")
    return any(name == m or name.startswith(m + ".") for m in _SAFE_MODULES)


def _unknown(value) -> bool:
    """Whether ``value`` is something the scan cannot see into."""
    if isinstance(value, _pytypes.ModuleType):
        return not _safe_module(value)
    if isinstance(value, (_pytypes.BuiltinFunctionType, int, float, complex, bool, str, bytes, tuple, type(None))):
        return False
    if isinstance(value, type):
        return not (value.__module__ in ("builtins",) or value.__module__.startswith("numpy"))
    if not callable(value):
        return False
    module = getattr(type(value), "__module__", "") or ""
    return not (module.startswith("numpy") or module.startswith("cudalite."))


def analyze(func) -> KernelTraits:
    names, seen, unknown = set(), set(), False
    stack = [func]
    while stack:
        f = stack.pop()
        if f in seen:
            continue
        seen.add(f)
        cells = [c.cell_contents for c in (f.__closure__ or ()) if _has_contents(c)]
        for code in _code_objects(f.__code__):
            names.update(code.co_names)
            values = [f.__globals__.get(n, getattr(builtins, n, None)) for n in code.co_names]
            for value in values + cells:
                sim_name = _simulator_name(value)
                if sim_name:  # the simulator's own device API (cuda.syncthreads bound to another name)
                    names.add(sim_name)
                elif isinstance(getattr(value, "py_func", None), _pytypes.FunctionType):  # a simulated kernel or
                    stack.append(value.py_func)  # device function
                elif isinstance(value, _pytypes.FunctionType):
                    stack.append(value)
                elif _unknown(value):
                    unknown = True
    grid_sync = bool(names & GRID_SYNC_NAMES)
    return KernelTraits(grid_sync, grid_sync or unknown or bool(names & CONCURRENT_NAMES))


def _simulator_name(value) -> str:
    """The name of a simulator device function (``syncthreads`` bound to another name), else ``""``."""
    if isinstance(value, _pytypes.ModuleType) or _has_py_func(value):  # modules, kernels, device functions
        return ""
    if (getattr(value, "__module__", "") or "").startswith(__name__.rsplit(".", 1)[0]):
        return (getattr(value, "__name__", "") or "").lstrip("_")
    return ""


def _has_py_func(value) -> bool:
    try:
        return hasattr(value, "py_func")
    except Exception:  # noqa: BLE001  (a namespace whose __getattr__ raises another error, as cuda.libdevice)
        return False


def _has_contents(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
