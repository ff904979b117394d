"""Kernels built ahead of time: ``cuda.load_kernel`` runs a fatbin (or cubin) without compiling.

A package builds its kernels at wheel time (``cudalite-compile mod.py:saxpy SIG --kernel
--emit fatbin --cc 80,90,100 -o saxpy.fatbin``, or ``cuda.compile(..., output="fatbin")``)
and ships the file; at run time :func:`load_kernel` reads it, loads it on the current
device (the driver picks the cubin of the device's architecture) and returns an
ordinary kernel dispatcher -- ``kernel[grid, block](args)``, the same argument kinds,
launch configurations and fast path -- whose one specialization is that code.  Nothing
of the compiler runs or is imported: the kernel ABI (how each argument becomes
parameters) is derived from the signature by ``cudalite.core.abi``, the build stages run
only ``load``.

The file is untrusted input: a regular file, read with a size bound, checked to be a
fatbin or an ELF cubin before the driver sees it.
"""

from __future__ import annotations

import keyword
import os
import stat
from typing import Any

from cudalite.core.abi import kernel_abi
from cudalite.core.types import parse_signature, void
from cudalite.driver import CudaDriverError, current_device, load_module
from cudalite.linker import fatbin_archs

from .._compiler.artifact import KernelArtifact
from .._compiler.kernel import CompiledKernel, KernelBuild
from .._compiler.options import JitOptions
from .kernel import CUDADispatcher

__all__ = ["load_kernel", "MAX_IMAGE_BYTES"]

MAX_IMAGE_BYTES = 1 << 30  # a fatbin larger than 1 GiB is refused
_FATBIN_MAGIC = b"\x50\xed\x55\xba"
_ELF_MAGIC = b"\x7fELF"


def _read_image(source) -> bytes:
    """The bytes of ``source`` (a path, or bytes-like): a regular file, at most
    :data:`MAX_IMAGE_BYTES`, that is a fatbin or an ELF cubin."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, where = bytes(source), "the image"
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        where = repr(path)
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            raise FileNotFoundError(f"cannot open kernel image {where}: {e.strerror}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ValueError(f"kernel image {where} is not a regular file")
            if st.st_size > MAX_IMAGE_BYTES:
                raise ValueError(f"kernel image {where} is {st.st_size} bytes; the limit is {MAX_IMAGE_BYTES}")
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(MAX_IMAGE_BYTES + 1)
        finally:
            os.close(fd)
    else:
        raise TypeError(f"load_kernel takes a path or the image's bytes, not {type(source).__name__}")
    if len(data) > MAX_IMAGE_BYTES:
        raise ValueError(f"kernel image {where} exceeds {MAX_IMAGE_BYTES} bytes")
    if data[:4] not in (_FATBIN_MAGIC, _ELF_MAGIC):
        raise ValueError(f"{where} is neither a fatbin nor a cubin (cudalite-compile --emit fatbin makes one)")
    return data


def _stand_in(name, nargs):
    """A Python function of ``nargs`` parameters named ``name``: what the dispatcher
    names in messages and the fast path's generated code takes its parameters from."""
    ident = name if name.isidentifier() and not keyword.iskeyword(name) else "kernel"
    params = ", ".join(f"a{i}" for i in range(nargs))
    ns = {}
    exec(compile(f"def {ident}({params}):\n    pass\n", f"<cudalite ahead-of-time kernel {name}>", "exec"), ns)
    fn = ns[ident]
    fn.__qualname__ = name
    return fn


def _entry(module, name, where):
    """The entry to load: ``name`` when the module has it (found directly, so a driver
    that cannot enumerate a module's kernels -- before CUDA 12.4 -- still loads a named
    one), else the module's only kernel; errors list what the module holds."""

    if name is not None:
        try:
            module.get_function(name)
            return name
        except CudaDriverError:
            pass  # not there: say what is
    names = module.function_names()
    if name is not None:
        raise ValueError(f"{where} has no kernel {name!r}; it holds: {', '.join(sorted(names)) or 'none'}")
    if len(names) != 1:
        raise ValueError(f"{where} holds {len(names)} kernels ({', '.join(sorted(names)) or 'none'}): "
                         "name the one to load with name=...")
    return names[0]


def _check_arch(data, arch, where):
    """A fatbin without a cubin for this device's architecture: a ValueError naming both
    (before the driver's 'no kernel image' error)."""
    if data[:4] != _FATBIN_MAGIC:
        return

    try:
        archs = fatbin_archs(data)
    except ValueError as e:
        raise ValueError(f"{where} is a malformed fatbin: {e}") from None
    if archs and arch not in archs:
        raise ValueError(f"{where} has no code for this device ({arch}): it holds {', '.join(archs)}; build it "
                         f"with --cc including {arch[3:]}")


def load_kernel(source: str | os.PathLike | bytes, signature: Any, name: str | None = None, *,
                cooperative: bool = False) -> CUDADispatcher:
    """A kernel built ahead of time, loaded from a fatbin (or cubin): nothing is compiled.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The fatbin (``cudalite-compile ... --kernel --emit fatbin``, or
        ``cuda.compile(..., output="fatbin")``) or a cubin for this device.
    signature : str or Signature or tuple
        The kernel's argument types, as it was compiled: ``"void(float32[::1], float32)"``.
        Arguments convert to them as for a kernel with an eager signature.
    name : str, optional
        The kernel's entry name; needed only when the image holds several kernels.
    cooperative : bool, optional
        Launch it cooperatively (a kernel that synchronizes its grid with
        ``cuda.cg.this_grid().sync()`` needs it; the image does not say).

    Returns
    -------
    CUDADispatcher
        ``kernel[griddim, blockdim, stream, sharedmem](*args)`` launches it.

    Raises
    ------
    TypeError
        ``signature`` does not parse, returns a value, or ``source`` is neither a path nor bytes.
    ValueError
        The image is not a fatbin/cubin, is too large, or does not hold ``name`` (or holds
        several kernels and no ``name`` was given).
    FileNotFoundError
        ``source`` cannot be opened.
    cudalite.driver.CudaDriverError
        The driver refuses the image (no cubin for this device's architecture, ...).
    """
    ret, argtypes = parse_signature(signature)
    argtypes = tuple(argtypes)
    if ret is not None and ret != void:
        raise TypeError(f"a kernel returns nothing: the signature {signature!r} declares {ret}")
    data = _read_image(source)
    where = repr(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else "the image"
    cc = tuple(current_device().compute_capability)
    _check_arch(data, f"sm_{cc[0]}{cc[1]}", where)
    entry = _entry(load_module(data), name, where)
    artifact = KernelArtifact(entry_name=entry, arch=f"sm_{cc[0]}{cc[1]}", cubin=data, abi=kernel_abi(argtypes),
                              uses_grid_sync=bool(cooperative))
    build = KernelBuild(artifact, {}, "ahead-of-time")

    def loaded(pyfunc, types, opts, cc):  # the dispatcher's "compiler": only the load stage runs
        return CompiledKernel(pyfunc, types, opts, cc, build=build)

    disp = CUDADispatcher(_stand_in(entry, len(argtypes)), None, JitOptions(), compiler=loaded, warm_up=False)
    disp._eager = True  # arguments convert to the one signature, as with @cuda.jit(sig)
    disp._build(argtypes, cc)  # the one specialization (its record): loaded now
    return disp
