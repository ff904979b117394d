"""Build of cudalite-driver with its compiled launch shim.

The metadata is in pyproject.toml; this file only adds the extension
``cudalite.driver._launch_shim``: the cffi API-mode module of
``src/cudalite/driver/_shim_source.py`` (the same source the run-time fallback
compiles), built against the stable ABI so one ``cp310-abi3`` wheel serves every
CPython >= 3.10.  The extension is optional: without a C compiler or the Python
headers the build prints why and produces a package without it, which then
compiles the shim at run time into the cache (or launches through
``cuda.bindings``), saying so once per process (docs/driver.md).
"""

import os
import runpy
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = runpy.run_path(os.path.join(HERE, "src", "cudalite", "driver", "_shim_source.py"))


class OptionalBuildExt(build_ext):
    """build_ext that leaves the shim out, with a message, when it cannot be compiled."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # no compiler at all (DistutilsPlatformError ...)
            self._skip(exc)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # CompileError, LinkError, missing Python.h ...
            self._skip(exc)

    @staticmethod
    def _skip(exc):
        print(f"cudalite-driver: the compiled launch shim was not built ({type(exc).__name__}: {exc}); "
              "the package will build it at run time or launch through cuda.bindings", file=sys.stderr)


def _extensions():
    try:
        import cffi
    except ImportError:  # a build without the declared build requirement: no shim
        print("cudalite-driver: cffi is not installed in the build environment; no compiled launch shim",
              file=sys.stderr)
        return []
    ffi = cffi.FFI()
    ffi.cdef(SOURCE["CDEF"])
    # libc is named explicitly: the shim calls no libc function, and a toolchain linking
    # with --as-needed (Debian's) would leave no libc dependency at all, which
    # auditwheel cannot classify for a manylinux tag.
    link = ["-Wl,--no-as-needed", "-lc"] if sys.platform.startswith("linux") else []
    ffi.set_source(SOURCE["PREBUILT_MODULE"], SOURCE["C_SOURCE"], py_limited_api=True, extra_link_args=link)
    return [ffi.distutils_extension(tmpdir=os.path.join("build", "cffi-src"))]


limited = {"bdist_wheel": {"py_limited_api": "cp310"}} if sys.implementation.name == "cpython" else {}
setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt}, options=limited)
