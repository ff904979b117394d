"""The dispatchers' inspection API (numba's): ``inspect_types``, ``inspect_llvm``,
``inspect_asm``, ``inspect_sass`` and the compiled function's resource usage
(``get_regs_per_thread``, ``get_shared_mem_per_block``, ...).

Each takes an optional ``signature`` (argument types as a tuple, a ``Signature``
or a signature string); without it the answer is a dict keyed by argument types,
over every compiled overload.  The resource getters of a *specialized* kernel (one
signature given to ``@cuda.jit``, or a dispatcher made by ``specialize``) return its one
value without a signature, as numba's; the ``inspect_*`` methods always give the dict.
``inspect_sass`` disassembles the cubin with ``nvdisasm`` (or ``cuobjdump -sass``),
found through cuda-pathfinder or ``PATH``.
"""

from __future__ import annotations

import os
import sys

from cudalite.core.types import parse_signature

__all__ = ["InspectMixin", "DeviceInspectMixin", "find_binary_utility", "disassemble_cubin"]


def find_binary_utility(name):
    """The path of an NVIDIA binary utility (nvdisasm, cuobjdump), or None."""
    try:
        from cuda import pathfinder

        finder = getattr(pathfinder, "find_nvidia_binary_utility", None)
        if finder is not None:
            path = finder(name)
            if path:
                return str(path)
    except Exception:  # no cuda-pathfinder, or an older one
        pass
    import shutil  # lazy: only the SASS tools need it

    return shutil.which(name) or next(
        (p for p in (f"/usr/local/cuda/bin/{name}",) if os.path.exists(p)), None)


def disassemble_cubin(data: bytes) -> str:
    """SASS text of a cubin (nvdisasm, else cuobjdump); RuntimeError if neither exists."""
    tool = find_binary_utility("nvdisasm")
    args = [] if tool is None else [tool, "-c"]
    if tool is None:
        tool = find_binary_utility("cuobjdump")
        args = [] if tool is None else [tool, "-sass"]
    if tool is None:
        raise RuntimeError("inspect_sass needs nvdisasm or cuobjdump (CUDA toolkit binary utilities); "
                           "neither was found through cuda-pathfinder or on PATH")
    import subprocess  # lazy: only disassembly runs a tool
    import tempfile  # lazy: as above

    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(data)
    try:
        out = subprocess.run([*args, f.name], capture_output=True, text=True, check=False)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        raise RuntimeError(f"{os.path.basename(tool)} failed: {out.stderr.strip()}")
    return out.stdout


def _argtypes_of(signature):
    if isinstance(signature, tuple) and all(hasattr(t, "name") for t in signature):
        return signature
    return tuple(parse_signature(signature)[1])


def _stage(entry, name):
    """A stage's text of an overload (a CompiledKernel or a device function's
    PipelineResult: both answer ``stage(name)``).  A device function's overloads are
    compiled only as far as typing (they are compiled into their callers): the later
    stages (``nvvm-ir``, ``ptx``) are run on demand, as numba's ``inspect_asm`` does."""
    text = entry.stage(name)
    if text is None and hasattr(entry, "job"):
        from cudalite.nvvm.pipeline import resume  # lazy: inspection runs the compiler's later stages

        text = resume(entry, name).stage(name)
    if text is None:
        raise KeyError(f"stage {name!r} was not compiled for this overload")
    return text


class InspectMixin:
    """Inspection over ``self.overloads`` (argtypes -> compiled kernel)."""

    def _select(self, signature, fn, loaded=False, single=False):
        """``fn(overload)`` for one signature (with ``single``, also without one for a
        specialized dispatcher -- one eager signature, or made by ``specialize`` -- as
        numba's resource getters; its ``inspect_*`` always give a dict), or a dict over
        every overload.  Eager
        signatures still pending (no usable device at decoration) are compiled for
        the default target, unloaded, unless ``loaded`` (``fn`` needs the loaded
        function: resource usage), which then names the missing device."""
        pending = getattr(self, "_pending", ())
        if single and signature is None and getattr(self, "_eager", False):  # a specialized kernel's one value
            sigs = list(self.overloads) + [a for a in pending if a not in self.overloads]
            if len(sigs) == 1:
                signature = sigs[0]
        if signature is not None:
            argtypes = _argtypes_of(signature)
            entry = self.overloads.get(argtypes)
            if entry is None and argtypes in pending:
                entry = self._deviceless(argtypes, loaded)
            if entry is None:
                raise KeyError(f"{self.py_func.__qualname__} has no compiled overload for {argtypes}; "
                               f"compiled: {list(self.overloads)}")
            return fn(entry)
        out = {argtypes: fn(entry) for argtypes, entry in self.overloads.items()}
        for argtypes in pending:
            if argtypes not in out:
                out[argtypes] = fn(self._deviceless(argtypes, loaded))
        return out

    def _deviceless(self, argtypes, loaded):
        """An eager signature compiled where no device is usable: built for the
        default target (``CUDALITE_DEFAULT_CC``) and not loaded, so the compile
        stages (typed IR, NVVM IR, PTX, LTO PTX, SASS) can be inspected without a
        GPU; the first launch on a device compiles it for that device."""
        from cudalite.nvvm.config import load_config  # lazy: as above

        from .._compiler.kernel import CompiledKernel  # lazy: as above

        if loaded:
            raise RuntimeError(f"{self.py_func.__qualname__}{argtypes} is not loaded on a device (no usable "
                               "device when it was compiled): its resource usage needs a GPU")
        return CompiledKernel(self.py_func, argtypes, self.options, load_config().default_cc.cc, load=False)

    def inspect_types(self, file=None, signature=None):
        """Print the typed IR of the compiled overloads: each source line with the
        types of its variables and calls.

        Parameters
        ----------
        file : file-like, optional
            Where to print (default: ``sys.stdout``).
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        dict
            Argument types (a tuple) -> typed IR text, for the overloads printed.

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        """
        texts = self._select(signature, lambda e: str(_stage(e, "typed-ir")))
        if signature is not None:
            texts = {_argtypes_of(signature): texts}
        out = file or sys.stdout
        for argtypes, text in texts.items():
            print(f"{self.py_func.__qualname__} ({', '.join(map(str, argtypes))})", file=out)
            print("-" * 80, file=out)
            print(text, file=out)
            print("=" * 80, file=out)
        return texts

    def inspect_llvm(self, signature=None):
        """The NVVM IR (LLVM 7 text) given to libNVVM.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        str or dict
            The NVVM IR of the overload for ``signature``; without it, a dict of
            argument types (a tuple) -> NVVM IR over every compiled overload.

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).

        Notes
        -----
        Kernels loaded from the on-disk cache answer from the stage texts stored with them.
        """
        return self._select(signature, lambda e: _stage(e, "nvvm-ir"))

    def inspect_asm(self, signature=None):
        """The PTX (the assembly libNVVM emits).

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        str or dict
            The PTX of the overload for ``signature``; without it, a dict of
            argument types (a tuple) -> PTX over every compiled overload.

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        """
        return self._select(signature, lambda e: _stage(e, "ptx"))

    def inspect_lto_ptx(self, signature=None):
        """The PTX after link-time optimization (nvJitLink ``-lto -ptx``) of the
        kernel's LTO-IR with the LTO-IR and CUDA C++ code it links: what the
        device runs, with foreign functions inlined across the link.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload.  Default: every compiled
            overload.

        Returns
        -------
        str or dict
            The PTX of the overload for ``signature``; without it, a dict of
            argument types (a tuple) -> PTX over every compiled overload.

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        RuntimeError
            Called on a device function (it has no linked code of its own).
        """
        return self._select(signature, lambda e: e.lto_ptx)

    def inspect_sass(self, signature=None):
        """The SASS (the device's machine code) of the linked cubin.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        str or dict
            The disassembly of the overload for ``signature``; without it, a dict
            of argument types (a tuple) -> SASS over every compiled overload.

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        RuntimeError
            Neither ``nvdisasm`` nor ``cuobjdump`` is found (cuda-pathfinder,
            ``PATH``), or the disassembler fails.
        """
        return self._select(signature, lambda e: disassemble_cubin(e.artifact.cubin))

    def get_regs_per_thread(self, signature=None):
        """The number of registers each thread uses.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        int or dict
            The value for the overload of ``signature``; without it (and not
            specialized), a dict of
            argument types (a tuple) -> value over every compiled overload
            (loaded kernels only).

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        """
        return self._select(signature, lambda e: e.function.num_regs, loaded=True, single=True)

    def get_shared_mem_per_block(self, signature=None):
        """The static shared memory per block, in bytes.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        int or dict
            The value for the overload of ``signature``; without it (and not
            specialized), a dict of
            argument types (a tuple) -> value over every compiled overload
            (loaded kernels only).

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        """
        return self._select(signature, lambda e: e.function.shared_size_bytes, loaded=True, single=True)

    def get_local_mem_per_thread(self, signature=None):
        """The local memory per thread, in bytes.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        int or dict
            The value for the overload of ``signature``; without it (and not
            specialized), a dict of
            argument types (a tuple) -> value over every compiled overload
            (loaded kernels only).

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        """
        return self._select(signature, lambda e: e.function.local_size_bytes, loaded=True, single=True)

    def get_const_mem_size(self, signature=None):
        """The constant memory the kernel uses, in bytes.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        int or dict
            The value for the overload of ``signature``; without it (and not
            specialized), a dict of
            argument types (a tuple) -> value over every compiled overload
            (loaded kernels only).

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        """
        return self._select(signature, lambda e: e.function.const_size_bytes, loaded=True, single=True)

    def get_max_threads_per_block(self, signature=None):
        """The most threads per block the compiled kernel can be launched with.

        Parameters
        ----------
        signature : tuple or Signature or str, optional
            The argument types of one compiled overload (a tuple of types, a
            ``Signature`` or a signature string such as ``"void(float32[::1])"``).
            Default: every compiled overload.

        Returns
        -------
        int or dict
            The value for the overload of ``signature``; without it (and not
            specialized), a dict of
            argument types (a tuple) -> value over every compiled overload
            (loaded kernels only).

        Raises
        ------
        KeyError
            ``signature`` names no compiled overload (the message lists them).
        """
        return self._select(signature, lambda e: e.function.max_threads_per_block, loaded=True, single=True)


class DeviceInspectMixin(InspectMixin):
    """A device function's inspection: no SASS or linked code of its own (numba's errors)."""

    def inspect_sass(self, signature=None):
        """Refused (RuntimeError): a device function is compiled into the kernels calling it.

        Parameters
        ----------
        signature : signature, optional
            Ignored.

        Raises
        ------
        RuntimeError
            Always: inspect a kernel that calls the device function instead.
        """
        raise RuntimeError(f"Cannot inspect SASS of a device function ({self.py_func.__qualname__}): it is "
                           "compiled into the kernels that call it; inspect one of them")

    def inspect_lto_ptx(self, signature=None):
        """Refused (RuntimeError): a device function is linked into the kernels calling it.

        Parameters
        ----------
        signature : signature, optional
            Ignored.

        Raises
        ------
        RuntimeError
            Always: inspect a kernel that calls the device function instead.
        """
        raise RuntimeError(f"Cannot inspect the LTO PTX of a device function ({self.py_func.__qualname__}): "
                           "it is compiled into the kernels that call it; inspect one of them")
