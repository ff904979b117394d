"""Alias the ``numba`` import to cudalite at run time (the compatibility harness's core).

``install(tests_root)`` puts one meta-path finder first on ``sys.meta_path``; from then
on every ``numba`` / ``numba.*`` import in the process is answered here and real numba
is never imported.  The mapping (docs/compat.md states it for readers):

- ``numba.cuda``                       -> a proxy of ``cudalite.cuda`` (every attribute is
  cudalite's; only ``config`` and ``HAS_NUMBA`` are the harness's)
- ``numba.types``, ``numba.core.types``, ``numba.cuda.types`` -> ``cudalite.types``
- ``numba[.cuda][.core].errors``       -> numba's exception names bound to cudalite's classes
- ``numba[.cuda][.core].config``       -> numba's configuration defaults (no simulator)
- ``numba.cuda.testing``, ``numba.cuda.tests.support`` -> the shims in ``numba_shims/``
- ``numba.cuda.tests[.X]``             -> the installed test files, run from their own path
- public numba.cuda submodules (``random``, ``libdevice``, ``fp16``, ``bf16``, ``cg``) ->
  the same-named ``cudalite.cuda`` module, or a missing-API failure if cudalite lacks it
- numba's public extension modules (:data:`PUBLIC_MODULES`: ``numba[.cuda|.core].extending``,
  ``cgutils``, the data ``models``, ``numba.cuda.kernels.transpose``) -> the cudalite module
  of the same job; a name it lacks is a missing-API failure (when used, see below)
- a few internal paths that merely re-export a public name (``numba.cuda.compiler.
  compile_ptx`` ...) -> that public name of ``cudalite.cuda``
- ``numba.njit`` and numba's other CPU-target names -> :class:`NumbaInternal` (rule
  ``cpu-target``)
- anything else of numba (``numba.cuda.core.ir``, ``numba.cuda.cudadrv.driver``...) imports
  as a module whose every name is an inert :class:`Standin` (rule ``internal-import``),
  except the few flags of :data:`TRUTHFUL`, which have cudalite's true value.

Stand-ins make a test module that imports numba internals load, so each of its tests is
judged on its own.  A stand-in is inert where a module or class body uses it (calling,
decorating or subclassing with it gives another stand-in; a loop over it runs zero
times) and raises :class:`NumbaInternal` -- or :class:`MissingApi` for a missing public
name -- wherever a function uses it (a test, or cudalite compiling the test's kernel):
that test is then "not applicable" or failed with the name.

Every :class:`NumbaInternal` raised is also appended to ``EVENTS`` (per-process record read
by the pytest plugin), so a test whose failure follows an internal access is classed
"not applicable" even when the test caught or transformed the exception.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import dis
import inspect
import os
import struct
import sys
import types as _pytypes

SHIMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numba_shims")

# numba's CPU-target (and CPU-typing) top-level names: cudalite has no CPU target.
CPU_NAMES = frozenset({
    "njit", "jit", "objmode", "prange", "generated_jit", "cfunc",
    "jit_module", "stencil", "typed", "np", "experimental", "gdb", "parfors",
})
# numba's public extension modules -> the cudalite module of the same job.  Used while
# importable; a name that module lacks (or every name, if it does not import) is a
# missing-API failure where a test uses it.
PUBLIC_MODULES = {
    **dict.fromkeys(("numba.cuda.extending", "numba.extending", "numba.core.extending"), "cudalite.cuda.extending"),
    **dict.fromkeys(("numba.cuda.cgutils", "numba.core.cgutils"), "cudalite.cuda.cgutils"),
    **dict.fromkeys(("numba.cuda.models", "numba.cuda.datamodel", "numba.cuda.datamodel.models",
                     "numba.core.datamodel", "numba.core.datamodel.models"), "cudalite.cuda.models"),
    "numba.cuda.kernels.transpose": "cudalite.cuda.kernels.transpose",  # documented (cuda.kernels.transpose)
}
# The numba version the alias stands for: the oldest numba-cuda 0.30.4 accepts (numba>=0.60);
# its tests compare it (`numba.version_info[:2] < (0, 60)`) to choose an expected message.
NUMBA_VERSION = {"version_info": (0, 60, 0), "__version__": "0.60.0"}
# Internal names that gate test modules and whose *value* matters (a skip condition, a
# version): cudalite's true answer, made when the name is read.  Every other internal
# name is a Standin.
TRUTHFUL = {
    # cudalite links with nvJitLink always (CUDA 13 toolchain: libNVVM, NVRTC, nvJitLink)
    "numba.cuda.cudadrv.driver._have_nvjitlink": lambda: (lambda: True),
    "numba.cuda.utils.PYVERSION": lambda: sys.version_info[:2],
    "numba.core.utils.PYVERSION": lambda: sys.version_info[:2],
    "numba.cuda.utils.MACHINE_BITS": lambda: struct.calcsize("P") * 8,
    "numba.cuda.cudadrv.nvvm.is_available": lambda: _nvvm_available,
    # the NVRTC version cudalite's linker loads (tests choose the arch-specific targets it knows)
    "numba.cuda.cudadrv.nvrtc._get_nvrtc_version": lambda: (
        lambda: tuple(importlib.import_module("cudalite.linker").nvrtc_version())),
    # the installed NumPy's (major, minor): tests choose the cases NumPy's version defines
    "numba.cuda.np.numpy_support.numpy_version": lambda: _numpy_version(),
}
# numba.cuda submodules that are public API: aliased to cudalite.cuda.<name> or missing-API.
PUBLIC_CUDA_SUBMODULES = frozenset({"random", "libdevice", "fp16", "bf16", "fp8", "cg", "args"})
# Internal module paths whose listed names are re-exports of public numba.cuda names.
REEXPORTS = {
    "numba.cuda.compiler": {"compile_ptx": "compile_ptx",
                            "compile_ptx_for_current_device": "compile_ptx_for_current_device",
                            "compile": "compile", "compile_for_current_device": "compile_for_current_device"},
    "numba.cuda.misc.special": {"literal_unroll": "literal_unroll"},
    "numba.cuda.api": {"is_fp8_supported": "is_fp8_supported", "is_float16_supported": "is_float16_supported",
                       "is_bfloat16_supported": "is_bfloat16_supported"},
    "numba.cuda.np.numpy_support": {"from_dtype": "from_dtype", "carray": "carray", "farray": "farray",
                                    "as_dtype": "cudalite.types:as_dtype"},
    "numba.cuda.typing": {"signature": "cudalite.types:signature"},
    # numba-cuda's generated cuda_fp8.h bindings: the names user code imports (cudalite.cuda.fp8's)
    "numba.cuda._internal.cuda_fp8": {n: f"fp8:{n}" for n in (
        "fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "saturation_t", "fp8_interpretation_t", "cvt_float_to_fp8",
        "cvt_double_to_fp8", "cvt_bfloat16raw_to_fp8", "cvt_float2_to_fp8x2", "cvt_double2_to_fp8x2",
        "cvt_float_to_e8m0", "cvt_double_to_e8m0", "cvt_bfloat16raw_to_e8m0", "cvt_float2_to_e8m0x2",
        "cvt_double2_to_e8m0x2", "cvt_e8m0_to_bf16raw")},
    "numba.cuda.typing.typeof": {"typeof": "typeof"},
    "numba.core.typing.typeof": {"typeof": "typeof"},
    # numba-cuda's generated cuda_bf16.h bindings: cudalite.cuda.bf16's names (nv_bfloat16 is its bfloat16)
    "numba.cuda._internal.cuda_bf16": {"nv_bfloat16": "bf16:bfloat16", **{n: f"bf16:{n}" for n in (
        "hceil", "hcos", "hexp", "hexp10", "hexp2", "hfloor", "hlog", "hlog10", "hlog2", "hrcp", "hrint",
        "hrsqrt", "hsin", "hsqrt", "htanh", "htanh_approx", "htrunc")}},
    # the lowering registry of numba-cuda's imputils is the extension API's (cudalite.cuda.extending)
    "numba.cuda.core.imputils": {n: f"cudalite.cuda.extending:{n}" for n in (
        "Registry", "lower_builtin", "lower_cast", "lower_constant", "lower_getattr", "lower_getattr_generic")},
    # numba's typing templates (extension code types with them) and numba-cuda's CUDA typing registry
    **dict.fromkeys(("numba.cuda.typing.templates", "numba.core.typing.templates"), {
        n: f"cudalite.cuda.extending:{n}" for n in (
            "AbstractTemplate", "AttributeTemplate", "CallableTemplate", "ConcreteTemplate", "signature", "infer",
            "infer_global", "infer_getattr")}),
    "numba.cuda.cudadecl": {"registry": "cudalite.cuda.extending:typing_registry",
                            "register": "cudalite.cuda.extending:infer",
                            "register_global": "cudalite.cuda.extending:register_global",
                            "register_attr": "cudalite.cuda.extending:register_attr"},
    # the table of CUDA vector types (name -> type): cudalite's own table of the same job
    "numba.cuda.vector_types": {"vector_types": "cudalite.core.types:vector_types"},
    # numba-cuda's CUDA lowering registry's decorators (extension code imports them from cudaimpl)
    "numba.cuda.cudaimpl": {"lower": "cudalite.cuda.extending:lower_builtin",
                            "lower_attr": "cudalite.cuda.extending:lower_getattr",
                            **{n: f"cudalite.cuda.extending:{n}" for n in (
                                "lower_constant", "lower_getattr_generic", "lower_cast")}},
    # numba's driver-module names user code imports: cudalite.cuda.cudadrv.<module>'s ("module:name";
    # a module named from "cudalite." is that module, not one under cudalite.cuda)
    "numba.cuda.cudadrv.driver": {n: f"cudadrv.driver:{n}" for n in (
        "CudaAPIError", "CudaDriverError", "CudaSupportError", "driver", "Stream", "Event", "Device", "Context",
        "MemoryPointer", "IpcHandle", "get_version", "device_pointer", "device_extents", "device_memory_size")},
    "numba.cuda.cudadrv.error": {n: f"cudadrv.error:{n}" for n in (
        "CudaSupportError", "CudaDriverError", "NvvmError", "NvrtcError", "LinkerError")},
}
# numba.cuda submodules the finder answers itself (an attribute miss on the proxy is then a
# missing-API failure, and ``from numba.cuda import <name>`` still imports the submodule).
_ALIASED_CUDA_SUBMODULES = PUBLIC_CUDA_SUBMODULES | {"types", "errors", "config", "testing", "tests"}
EVENTS: list[tuple[str, str]] = []  # (rule, detail) of every NumbaInternal raised in this process
INERT_USES: list[str] = []  # every stand-in used where a module or class body defines (import_sweep --uses)
# True while pytest (and its plugins: hypothesis, anyio, ...) looks over the loaded test
# module's names: an attribute probe then is a miss, never a use of the numba internal
COLLECTING: list[bool] = [False]


class NumbaInternal(ImportError):
    """A numba internal (or a numba CPU-target name) was used: the test is not applicable."""

    def __init__(self, rule: str, detail: str):
        super().__init__(f"not applicable [{rule}]: {detail} is numba-internal; cudalite does not provide it")
        self.rule, self.detail = rule, detail
        EVENTS.append((rule, detail))


class MissingApi(AttributeError):
    """A public numba.cuda name that cudalite does not provide (a real failure)."""

    def __init__(self, name: str, why: str = ""):
        super().__init__(f"missing API numba.cuda.{name} (cudalite.cuda has no {name!r})" + (f": {why}" if why else ""))
        self.api_name = name


class MissingApiImport(ImportError):
    """Import form of :class:`MissingApi` (``import numba.cuda.<name>``)."""

    def __init__(self, name: str):
        super().__init__(f"missing API numba.cuda.{name} (cudalite.cuda has no module {name!r})")
        self.api_name = name


def _at_definition(depth: int) -> bool:
    """Is the Python code *depth* frames above the caller a module or class body (where
    a test module defines its tests), rather than a function (a test, or cudalite)?"""
    frame = sys._getframe(depth + 1)
    return not frame.f_code.co_flags & inspect.CO_OPTIMIZED


_IMPORT_FROM = dis.opmap["IMPORT_FROM"]
# modules whose attribute probes are the test framework looking at a collected object, not a use
_FRAMEWORK_MODULES = ("_pytest.", "pytest", "pluggy.", "inspect")


def _framework_caller(depth: int) -> bool:
    name = sys._getframe(depth + 1).f_globals.get("__name__", "")
    return name.startswith(_FRAMEWORK_MODULES)


def _from_import(depth: int) -> bool:
    """Is the code *depth* frames above the caller a module or class body executing
    ``from <module> import <name>`` (not ``getattr``/``hasattr``, whose misses must stay
    misses)?"""
    frame = sys._getframe(depth + 1)
    if frame.f_code.co_name == "_handle_fromlist" and frame.f_back is not None:
        # importlib asks hasattr(package, name) first for `from <package> import <name>`
        return not frame.f_back.f_code.co_flags & inspect.CO_OPTIMIZED
    return (not frame.f_code.co_flags & inspect.CO_OPTIMIZED) and \
        frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM


def _numpy_version() -> tuple[int, int]:
    import numpy

    return tuple(int(p) for p in numpy.__version__.split(".")[:2])


def _nvvm_available() -> bool:
    try:
        importlib.import_module("cudalite.nvvm.libnvvm").nvvm_version()
        return True
    except Exception:  # noqa: BLE001 - any failure to load libNVVM means "not available"
        return False


class Standin:
    """An inert stand-in for a numba name cudalite does not provide (``path``).

    Where a module or class body uses it (``@register_pass(...)``, ``class P(FunctionPass)``,
    ``ir.Var(...)`` as a class attribute) the use gives another stand-in, so the test module
    loads; a ``for`` loop over it runs zero times.  Used by a function -- a test, or
    cudalite compiling a test's kernel -- it raises :class:`NumbaInternal` (rule ``rule``;
    also recorded in ``EVENTS``) or, with rule ``missing-api``, :class:`MissingApi`."""

    __slots__ = ("_path", "_rule", "_api")

    def __init__(self, path: str, rule: str = "internal-import", api: str = ""):
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_rule", rule)
        object.__setattr__(self, "_api", api)

    def _error(self):
        if self._rule == "missing-api":
            return MissingApi(self._api, f"{self._path} is numba's public API; cudalite has no equivalent")
        return NumbaInternal(self._rule, self._path)

    def _derive(self, suffix: str):
        INERT_USES.append(self._path + suffix)
        api = self._api + suffix if self._api else ""
        return Standin(self._path + suffix, self._rule, api)

    def __getattr__(self, name):
        if name.startswith("__") or COLLECTING[0] or _framework_caller(1):  # pytest probing a collected name
            raise AttributeError(name)
        if _at_definition(1):
            return self._derive(f".{name}")
        raise self._error()

    def __setattr__(self, name, value):
        if not _at_definition(1):  # `flags = Flags(); flags.x = True` at module level: inert
            raise self._error()

    def __call__(self, *args, **kwargs):
        if _at_definition(1):
            return self._derive("(...)")
        raise self._error()

    def __getitem__(self, key):
        if _at_definition(1):
            return self._derive("[...]")
        raise self._error()

    def __iter__(self):
        if _at_definition(1):
            INERT_USES.append(f"for ... in {self._path}")
            return iter(())
        raise self._error()

    def __mro_entries__(self, bases):
        if not _at_definition(1):
            raise self._error()
        standin = self

        def __new__(cls, *args, **kwargs):
            raise standin._error()

        INERT_USES.append(f"class (...{self._path})")
        name = self._path.rsplit(".", 1)[-1]
        return (type(name, (), {"__new__": __new__, "__module__": __name__, "__qualname__": f"Standin:{self._path}"}),)

    def _refuse(self, *args):
        raise self._error()

    def __eq__(self, other):
        if _at_definition(1):
            return self is other
        raise self._error()

    def __ne__(self, other):
        if _at_definition(1):
            return self is not other
        raise self._error()

    def __hash__(self):
        return id(self)

    __bool__ = __len__ = __int__ = __index__ = __float__ = __contains__ = _refuse
    __enter__ = __exit__ = __instancecheck__ = __subclasscheck__ = _refuse

    def __repr__(self):
        return f"<stand-in for {self._path} ({self._rule})>"


def _cudalite_cuda():
    return importlib.import_module("cudalite.cuda")


class _CudaProxy(_pytypes.ModuleType):
    """``numba.cuda``: every attribute is cudalite.cuda's, except the harness's config/HAS_NUMBA."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if f"numba.cuda.{name}" in PUBLIC_MODULES:
            return importlib.import_module(f"numba.cuda.{name}")
        real = _cudalite_cuda()
        try:
            return getattr(real, name)
        except AttributeError as exc:
            if name in _NUMBA_CUDA_INTERNAL_MODULES and name not in _ALIASED_CUDA_SUBMODULES:
                # `cuda.cudadrv`, `from numba.cuda import launchconfig`...: the internal module
                # itself imports (a placeholder); touching any of its names is not applicable.
                return importlib.import_module(f"numba.cuda.{name}")
            if _from_import(1):  # `from numba.cuda import <missing>` in a test module: fails where used
                return Standin(f"numba.cuda.{name}", "missing-api", name)
            raise MissingApi(name, str(exc)) from None

    def __dir__(self):
        return sorted(set(dir(_cudalite_cuda())) | {"config", "HAS_NUMBA"})


class _NumbaTop(_pytypes.ModuleType):
    """``numba``: ``cuda``/``types``/``errors``/``config`` and the public numba.cuda names."""

    def __init__(self, name):
        super().__init__(name)
        for k, v in NUMBA_VERSION.items():
            setattr(self, k, v)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in CPU_NAMES:
            if _from_import(1):  # `from numba import njit` in a test module: n/a where used
                return Standin(f"numba.{name}", "cpu-target")
            raise NumbaInternal("cpu-target", f"numba.{name}")
        if name in ("cuda", "types", "errors", "config", "core") or f"numba.{name}" in PUBLIC_MODULES:
            return importlib.import_module(f"numba.{name}")
        try:
            return getattr(_cudalite_cuda(), name)
        except AttributeError:
            raise MissingApi(name, f"numba.{name}") from None


class _Internal(_pytypes.ModuleType):
    """An internal numba module: importable; its names are :class:`Standin` objects, except
    the public names it re-exports (:data:`REEXPORTS`) and the flags of :data:`TRUTHFUL`."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        if full in TRUTHFUL:
            return TRUTHFUL[full]()
        public = REEXPORTS.get(self.__name__, {}).get(name)
        if public is None and (full in REEXPORTS or full in PUBLIC_MODULES or _real_module_exists(full)):
            return importlib.import_module(full)
        if public is not None:
            where, _, attr = public.rpartition(":")
            try:
                module = where if where.startswith("cudalite.") else f"cudalite.cuda.{where}"
                home = importlib.import_module(module) if where else _cudalite_cuda()
                return getattr(home, attr)
            except (ImportError, AttributeError):
                raise MissingApi(public.replace(":", "."), f"re-exported by {self.__name__}") from None
        return Standin(full)


class _PublicAlias(_pytypes.ModuleType):
    """A public numba module (:data:`PUBLIC_MODULES`): the names of the cudalite module of
    the same job; a name it lacks is a ``missing-api`` :class:`Standin`, so the tests that
    use it fail with the name (and the module's other tests still run)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        target = PUBLIC_MODULES[self.__name__]
        full = f"{self.__name__}.{name}"
        if full in PUBLIC_MODULES:
            return importlib.import_module(full)
        try:
            return getattr(importlib.import_module(target), name)
        except (ImportError, AttributeError):
            api = full.removeprefix("numba.cuda.").removeprefix("numba.")
            return Standin(f"{full} ({target} has no {name!r})", "missing-api", api)


class _Errors(_pytypes.ModuleType):
    """numba's exception/warning names bound to cudalite's classes."""

    # numba name -> candidates, first found wins: (module, attribute)
    NAMES = {
        "TypingError": [("cudalite.cuda.errors", "TypingError"), ("cudalite.core.errors", "TypingError")],
        "NumbaTypeError": [("cudalite.cuda.errors", "NumbaTypeError"), ("cudalite.core.errors", "TypingError")],
        "LoweringError": [("cudalite.cuda.errors", "LoweringError"), ("cudalite.core.errors", "LoweringError")],
        "UnsupportedError": [("cudalite.cuda.errors", "UnsupportedError"),
                             ("cudalite.core.errors", "UnsupportedError")],
        "NumbaError": [("cudalite.cuda.errors", "NumbaError"), ("cudalite.core.errors", "CudaliteError")],
        "CompilerError": [("cudalite.cuda.errors", "CompilerError"), ("cudalite.core.errors", "CompilerError")],
        "NumbaPerformanceWarning": [("cudalite.cuda", "NumbaPerformanceWarning")],
        "NumbaWarning": [("cudalite.cuda.errors", "NumbaWarning"), ("cudalite.core.errors", "SourceWarning")],
    }

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        for mod, attr in self.NAMES.get(name, []) + [("cudalite.cuda.errors", name)]:
            try:
                return getattr(importlib.import_module(mod), attr)
            except (ImportError, AttributeError):
                continue
        raise MissingApi(f"errors.{name}")


class _Config(_pytypes.ModuleType):
    """numba's configuration variables at their defaults on real hardware (never the simulator).

    Tests read and override these.  The few that cudalite has an equivalent of
    (:data:`CUDALITE_ENV`: its documented environment variables, read by
    ``cudalite.cuda.config`` when used) are passed on: setting one here sets that
    variable, as setting numba's config changes numba.  Every other override changes
    nothing in cudalite (a test that depends on one fails and is reported as it fails)."""

    # numba config name -> the cudalite environment variable of the same meaning (a flag)
    CUDALITE_ENV = {
        "CUDA_LOW_OCCUPANCY_WARNINGS": "CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS",
        "CUDA_WARN_ON_IMPLICIT_COPY": "CUDALITE_CUDA_WARN_ON_IMPLICIT_COPY",
        "DISABLE_PERFORMANCE_WARNINGS": "CUDALITE_DISABLE_PERFORMANCE_WARNINGS",
        "CUDA_ARRAY_INTERFACE_SYNC": "CUDALITE_CUDA_ARRAY_INTERFACE_SYNC",
        "CUDA_DEBUGINFO_DEFAULT": "CUDALITE_CUDA_DEBUGINFO",
    }

    DEFAULTS = {
        "ENABLE_CUDASIM": False, "CUDA_LOW_OCCUPANCY_WARNINGS": 1, "CUDA_WARN_ON_IMPLICIT_COPY": 1,
        "DISABLE_PERFORMANCE_WARNINGS": 0, "CUDA_ENABLE_NRT": False, "CUDA_DEBUGINFO_DEFAULT": 0,
        "DEBUGINFO_DEFAULT": 0, "CUDA_MEMORY_MANAGER": "default", "CUDA_ARRAY_INTERFACE_SYNC": 1,
        "CUDA_NVRTC_EXTRA_SEARCH_PATHS": "", "CUDA_DEBUG_POLY": 0, "CUDA_DEBUG_POLY_USE_TYPED_CONST": 0,
        "ALWAYS_WARN_UNINIT_VAR": 0, "DUMP_ASSEMBLY": 0, "DUMP_BYTECODE": 0, "DUMP_CFG": 0, "DUMP_IR": 0,
        "DUMP_LLVM": 0, "OPT": 3, "_O": 3, "HTML": None, "CUDA_ENABLE_PYNVJITLINK": 1,
        "CUDA_PER_THREAD_DEFAULT_STREAM": 0, "CUDA_DEFAULT_PTX_CC": (5, 0), "CUDA_LOG_LEVEL": "",
        "CUDA_USE_NVIDIA_BINDING": 1, "NUMBA_NUM_THREADS": 1, "DEVELOPER_MODE": 0, "FULL_TRACEBACKS": 0,
        "COLOR_SCHEME": "no_color", "BOUNDSCHECK": None, "CUDA_ENABLE_MINOR_VERSION_COMPATIBILITY": 0,
        "IS_WIN32": sys.platform.startswith("win"), "IS_OSX": sys.platform == "darwin",
        "MACHINE_BITS": struct.calcsize("P") * 8,
    }

    def __init__(self, name):
        super().__init__(name)
        for k, v in self.DEFAULTS.items():
            setattr(self, k, v)

    # numba config name -> the cudalite environment variable of the same meaning (a string)
    CUDALITE_ENV_STR = {
        "CUDA_NVRTC_EXTRA_SEARCH_PATHS": "CUDALITE_NVRTC_EXTRA_SEARCH_PATHS",
    }

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        env = self.CUDALITE_ENV.get(name)
        if env is not None:
            os.environ[env] = "1" if value else "0"
        env = self.CUDALITE_ENV_STR.get(name)
        if env is not None:
            os.environ[env] = str(value or "")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if _at_definition(1):  # `from numba.cuda.core.config import X` of a test module
            return Standin(f"numba config {name}", "internal-config")
        raise NumbaInternal("internal-config", f"numba config {name}")


def _package(name: str, cls=_pytypes.ModuleType, path=None):
    mod = cls(name)
    mod.__path__ = list(path or [])
    mod.__package__ = name
    return mod


# numba.core's subpackages (numba 0.60): a name inside one of them may be a module
_NUMBA_CORE_PACKAGES = frozenset({"typing", "datamodel", "types", "rewrites", "runtime", "unsafe", "annotations",
                                  "typeconv"})
_NUMBA_CUDA_INTERNAL_MODULES: set[str] = set()  # filled by install() from the installed tree
_CUDA_DIR: list[str] = []  # the installed numba/cuda folder, set by install()


def _real_module_exists(fullname: str) -> bool:
    """Is numba.cuda.<a>.<b> a module or package of the installed numba-cuda?  (numba.core.*
    lives in the base numba package, which need not be installed: ``numba.core.<a>`` is
    taken as a module, and ``numba.core.<p>.<b>`` for its packages :data:`_NUMBA_CORE_PACKAGES`.)"""
    parts = fullname.split(".")
    if parts[:2] != ["numba", "cuda"]:
        return parts[:2] == ["numba", "core"] and (
            len(parts) == 3 or (len(parts) == 4 and parts[2] in _NUMBA_CORE_PACKAGES))
    if not _CUDA_DIR:
        return False
    base = os.path.join(_CUDA_DIR[0], *parts[2:])
    return os.path.isdir(base) or os.path.isfile(base + ".py")


class _Loader(importlib.abc.Loader):
    def __init__(self, factory, init=None):
        self._factory, self._init = factory, init

    def create_module(self, spec):
        return self._factory(spec.name)

    def exec_module(self, module):
        if self._init is not None:  # runs once the module is in sys.modules
            self._init(module)


class AliasFinder(importlib.abc.MetaPathFinder):
    """Answers every ``numba`` / ``numba.*`` import (see the module docstring)."""

    def __init__(self, tests_root: str):
        self.tests_root = os.path.abspath(tests_root)

    def _spec(self, name, factory, is_package=True, init=None):
        return importlib.machinery.ModuleSpec(name, _Loader(factory, init), is_package=is_package)

    def _fixed(self, module):
        return lambda name: module

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "numba" and not fullname.startswith("numba."):
            return None
        parts = fullname.split(".")
        if fullname == "numba":
            return self._spec(fullname, lambda n: _package(n, _NumbaTop))
        if fullname == "numba.cuda":
            def init_cuda(mod):
                mod.config = importlib.import_module("numba.cuda.config")
                # numba-cuda 0.30.4 requires numba>=0.60 (its Requires-Dist), so its installed suite
                # always runs with HAS_NUMBA true (test_extending.py cannot load without it); the
                # alias answers every numba import, and numba's CPU target is `cpu-target` n/a
                mod.HAS_NUMBA = True
            return self._spec(fullname, lambda n: _package(n, _CudaProxy), init=init_cuda)
        if fullname in ("numba.types", "numba.core.types", "numba.cuda.types"):
            return self._spec(fullname, self._fixed(importlib.import_module("cudalite.types")), False)
        if parts[-1] == "errors" and fullname in ("numba.errors", "numba.core.errors", "numba.cuda.errors",
                                                  "numba.cuda.core.errors"):
            return self._spec(fullname, lambda n: _Errors(n), False)
        if parts[-1] == "config" and fullname in ("numba.config", "numba.core.config", "numba.cuda.config",
                                                  "numba.cuda.core.config"):
            if fullname != "numba.cuda.config":  # one config object for all spellings
                cfg = importlib.import_module("numba.cuda.config")
                return self._spec(fullname, self._fixed(cfg), False)
            return self._spec(fullname, lambda n: _Config(n), False)
        if fullname in PUBLIC_MODULES:
            return self._spec(fullname, lambda n: _package(n, _PublicAlias))
        if fullname == "numba.cuda.testing":
            return importlib.util.spec_from_file_location(fullname, os.path.join(SHIMS, "testing.py"))
        if fullname == "numba.cuda.tests.support":
            return importlib.util.spec_from_file_location(fullname, os.path.join(SHIMS, "support.py"))
        if fullname == "numba.cuda.tests" or fullname.startswith("numba.cuda.tests."):
            return self._test_file(fullname, parts[3:])
        if fullname in ("numba.core", "numba.cuda.core"):
            return self._spec(fullname, lambda n: _package(n, _Internal))
        if len(parts) >= 3 and parts[:2] == ["numba", "cuda"]:
            sub = parts[2]
            if sub in PUBLIC_CUDA_SUBMODULES and len(parts) == 3:
                try:
                    mod = getattr(_cudalite_cuda(), sub)
                except AttributeError:
                    try:
                        mod = importlib.import_module(f"cudalite.cuda.{sub}")
                    except ImportError:
                        raise MissingApiImport(sub) from None
                return self._spec(fullname, self._fixed(mod), False)
            if sub not in _NUMBA_CUDA_INTERNAL_MODULES:
                raise MissingApiImport(sub)
        if parts[1] in CPU_NAMES:
            raise NumbaInternal("cpu-target", fullname)
        parent, last = fullname.rsplit(".", 1)
        if last in REEXPORTS.get(parent, {}):  # `from <internal> import <public name>` that cudalite lacks
            raise MissingApiImport(REEXPORTS[parent][last].replace(":", "."))
        if len(parts) > 2 and not _real_module_exists(fullname):  # a name inside an internal module
            raise NumbaInternal("internal-import", fullname)
        return self._spec(fullname, lambda n: _package(n, _Internal))

    def _test_file(self, fullname, rel):
        """numba.cuda.tests[.a.b]: a folder is an empty package on the real path (its
        __init__ is not run: numba's imports numba internals); a file runs from its path."""
        base = os.path.join(self.tests_root, *rel)
        if os.path.isdir(base):
            return self._spec(fullname, lambda n: _package(n, path=[base]))
        if os.path.isfile(base + ".py"):
            return importlib.util.spec_from_file_location(fullname, base + ".py")
        return None


def find_tests_root(explicit: str | None = None, search_path=None) -> str | None:
    """The installed numba-cuda ``numba/cuda/tests`` folder, found on disk (numba not imported)."""
    if explicit:
        return explicit if os.path.isdir(os.path.join(explicit, "cudapy")) else None
    for entry in search_path if search_path is not None else sys.path:
        for layout in (("numba_cuda", "numba", "cuda", "tests"), ("numba", "cuda", "tests")):
            cand = os.path.join(entry or ".", *layout)
            if os.path.isdir(os.path.join(cand, "cudapy")):
                return os.path.abspath(cand)
    return None


def install(tests_root: str) -> AliasFinder:
    """Install the alias (idempotent); drops any real numba already imported."""
    for f in list(sys.meta_path):
        if isinstance(f, AliasFinder):  # already there: keep it first (pytest adds finders of its own)
            sys.meta_path.remove(f)
            sys.meta_path.insert(0, f)
            return f
    _NUMBA_CUDA_INTERNAL_MODULES.clear()
    cuda_dir = os.path.dirname(os.path.abspath(tests_root))
    _CUDA_DIR[:] = [cuda_dir]
    for entry in os.listdir(cuda_dir):
        stem = entry[:-3] if entry.endswith(".py") else entry
        if entry.endswith(".py") or os.path.isdir(os.path.join(cuda_dir, entry)):
            _NUMBA_CUDA_INTERNAL_MODULES.add(stem)
    for name in [n for n in sys.modules if n == "numba" or n.startswith("numba.")]:
        del sys.modules[name]
    finder = AliasFinder(tests_root)
    sys.meta_path.insert(0, finder)
    return finder
