"""A minimal test-only launcher: compile a Python kernel with cudalite.nvvm, link
it for the current device with nvJitLink, load and launch it with
``cuda.bindings.driver``, and copy NumPy arrays back.

It encodes the kernel parameter ABI documented in docs/abi.md (arrays as data
pointer + extents [+ byte strides for layout 'A']).  The real runtime
(cudalite.cuda) replaces this in a later issue; the GPU suite for the compiler
uses it so that compiler semantics are checked on hardware now.
"""

from __future__ import annotations

import ctypes
import re

import numpy as np

from cudalite.core.types import Array, Boolean, Complex, Float, Integer, Tuple, type_from_dtype, typeof_constant


def _check(res):
    err = res[0] if isinstance(res, tuple) else res
    if int(err) != 0:
        from cuda.bindings import driver

        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {name.decode() if name else err}")
    return res[1:] if isinstance(res, tuple) and len(res) > 2 else (res[1] if isinstance(res, tuple) and len(res) == 2 else None)


class Gpu:
    """One device, its primary context, and helpers to run kernels."""

    def __init__(self):
        from cuda.bindings import driver

        self.drv = driver
        _check(driver.cuInit(0))
        self.dev = _check(driver.cuDeviceGet(0))
        self.ctx = _check(driver.cuDevicePrimaryCtxRetain(self.dev))
        _check(driver.cuCtxSetCurrent(self.ctx))
        A = driver.CUdevice_attribute
        major = _check(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev))
        minor = _check(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev))
        self.cc = (major, minor)

    # -- building -------------------------------------------------------------------------
    def link(self, ptx: str) -> bytes:
        from cuda.bindings import nvjitlink

        arch = f"-arch=sm_{self.cc[0]}{self.cc[1]}"
        h = nvjitlink.create(1, [arch])
        try:
            data = ptx.encode()
            try:
                nvjitlink.add_data(h, nvjitlink.InputType.PTX, data, len(data), "k.ptx")
                nvjitlink.complete(h)
            except nvjitlink.nvJitLinkError:
                log = bytearray(nvjitlink.get_error_log_size(h))
                nvjitlink.get_error_log(h, log)
                raise RuntimeError(log.decode(errors="replace")) from None
            cubin = bytearray(nvjitlink.get_linked_cubin_size(h))
            nvjitlink.get_linked_cubin(h, cubin)
            return bytes(cubin)
        finally:
            nvjitlink.destroy(h)

    def load(self, pyfunc, sig, **opts):
        from cudalite.nvvm import compile_ptx

        ptx, _ = compile_ptx(pyfunc, sig, device=False, cc=self.cc, **opts)
        name = re.search(r"\.entry\s+([\w$]+)\s*\(", ptx).group(1)
        module = _check(self.drv.cuModuleLoadData(self.link(ptx)))
        fn = _check(self.drv.cuModuleGetFunction(module, name.encode()))
        return fn, ptx

    # -- running --------------------------------------------------------------------------
    def run(self, pyfunc, args, grid=1, block=1, sig=None, shared=0, cooperative=False, **opts):
        """Launch ``pyfunc`` on ``args`` (NumPy arrays are copied in and back)."""
        argtypes = [typeof_arg(a) for a in args] if sig is None else None
        fn, ptx = self.load(pyfunc, tuple(argtypes) if sig is None else sig, **opts)
        if sig is not None:
            from cudalite.core.types import parse_signature

            argtypes = list(parse_signature(sig)[1])
        keep, params, copies = [], [], []
        for a, t in zip(args, argtypes):
            self._flatten(a, t, params, keep, copies)
        arr = (ctypes.c_void_p * len(params))(*[ctypes.addressof(p) for p in params])
        g = _dim3(grid)
        b = _dim3(block)
        if cooperative:
            _check(self.drv.cuLaunchCooperativeKernel(fn, *g, *b, shared, 0, ctypes.addressof(arr)))
        else:
            _check(self.drv.cuLaunchKernel(fn, *g, *b, shared, 0, ctypes.addressof(arr), 0))
        _check(self.drv.cuCtxSynchronize())
        for haddr, span, dptr in copies:
            if span:
                _check(self.drv.cuMemcpyDtoH(haddr, dptr, span))
            self.drv.cuMemFree(dptr)
        return ptx

    def _flatten(self, a, t, params, keep, copies):
        if isinstance(t, Array):
            host = a
            # the byte span the view touches (strided views are copied with their gaps)
            lo = sum(min(0, (n - 1) * s) for n, s in zip(host.shape, host.strides)) if host.size else 0
            hi = sum(max(0, (n - 1) * s) for n, s in zip(host.shape, host.strides)) + host.itemsize
            span = hi - lo if host.size else 0
            dbase = _check(self.drv.cuMemAlloc(max(span, 1)))
            if span:
                _check(self.drv.cuMemcpyHtoD(dbase, host.ctypes.data + lo, span))
            copies.append((host.ctypes.data + lo, span, dbase))
            params.append(ctypes.c_uint64(int(dbase) - lo))
            params.extend(ctypes.c_int64(n) for n in host.shape)
            if t.layout == "A":
                params.extend(ctypes.c_int64(s) for s in host.strides)
        elif isinstance(t, Tuple):
            for x, xt in zip(a, t.types):
                self._flatten(x, xt, params, keep, copies)
        elif isinstance(t, Complex):
            c = _CTYPES[t.underlying.name]
            params.extend([c(complex(a).real), c(complex(a).imag)])
        elif isinstance(t, Boolean):
            params.append(ctypes.c_uint8(bool(a)))
        elif isinstance(t, (Integer, Float)):
            if t.name == "float16":
                params.append(ctypes.c_uint16(int(np.float16(a).view(np.uint16))))
            else:
                params.append(_CTYPES[t.name](a))
        else:
            raise TypeError(f"cannot pass {t}")


_CTYPES = {
    "int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64, "float32": ctypes.c_float, "float64": ctypes.c_double,
}


def _dim3(d):
    d = (d,) if isinstance(d, int) else tuple(d)
    return tuple(d) + (1,) * (3 - len(d))


def typeof_arg(a):
    if isinstance(a, np.ndarray):
        layout = "C" if a.flags.c_contiguous else ("F" if a.flags.f_contiguous else "A")
        return Array(type_from_dtype(a.dtype), a.ndim, layout)
    t = typeof_constant(a)
    if t is None:
        raise TypeError(f"cannot pass {a!r}")
    return t
