"""numba's host-side names, messages and warnings that numba-cuda's own tests assert
(GPU-less): ``cudadrv.driver`` (``CudaAPIError(code, msg)``, the overridable
``driver`` object, ``Stream``/``Event``/``Device``), ``Stream.external``, IPC handle
``.reserved``, ``CompiledKernel.inspect_asm``, the low-occupancy and debug/opt
warnings, and numba's phrases in cudalite's messages."""

from __future__ import annotations

import pickle
import warnings

import pytest

from cudalite import cuda
from cudalite import types as T
from cudalite.core.errors import NumbaInvalidConfigWarning, NumbaPerformanceWarning, TypingError
from cudalite.cuda.cudadrv import driver as drvmod
from cudalite.driver import CudaDriverError


def test_cuda_api_error_takes_numbas_two_arguments():
    e = drvmod.CudaAPIError(999, "Transfer not allowed")
    assert isinstance(e, CudaDriverError)
    assert str(e) == "[999] Transfer not allowed"
    assert (e.code, e.msg) == (999, "Transfer not allowed")
    back = pickle.loads(pickle.dumps(e))
    assert str(back) == str(e) and back.code == 999
    full = CudaDriverError(2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory", "cuMemAlloc")
    assert str(full) == "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"


def test_cudadrv_driver_object_is_the_drivers_api():
    from cudalite.driver import driver_api

    assert drvmod.driver is driver_api  # its overrides: packages/driver/tests/test_driver_api_override.py


def test_cudadrv_driver_names_are_the_runtime_classes():
    from cudalite.cuda._runtime import api as _runtime

    assert drvmod.Stream is _runtime.Stream and drvmod.Event is _runtime.Event
    assert drvmod.Device is _runtime.Device
    assert cuda.cudadrv.driver.CudaDriverError is CudaDriverError


def test_external_stream_says_so():
    s = cuda.external_stream(0x1234)
    assert s.external is True
    assert isinstance(s, drvmod.Stream)


def test_masked_cai_message_is_numbas():
    desc = {"version": 3, "shape": (1,), "typestr": "<f4", "data": (0, False), "mask": object()}
    with pytest.raises(NotImplementedError, match="^Masked arrays are not supported$"):
        cuda.from_cuda_array_interface(desc)


def test_ipc_handle_exposes_reserved_bytes_and_pickles():
    from cudalite.cuda import IpcHandle

    raw = bytes(range(64))
    h = IpcHandle(None, raw, 80)
    assert h.handle.reserved == raw and type(h.handle.reserved) is bytes
    back = pickle.loads(pickle.dumps(h))
    assert back.handle.reserved == raw and back.size == 80 and back.base is None


def _write(x):
    x[0] = 1.0


def test_compiled_kernel_inspect_asm_and_llvm():
    from cudalite.cuda._compiler.kernel import CompiledKernel
    from cudalite.cuda._compiler.options import JitOptions

    ck = CompiledKernel(_write, (T.float32[::1],), JitOptions(), (8, 0), load=False)
    assert ck.inspect_asm() == ck.ptx and ".target sm_80" in ck.inspect_asm((8, 0))
    assert ".target sm_90" in ck.inspect_asm((9, 0))
    assert "define" in ck.inspect_llvm()
    assert callable(ck.max_cooperative_grid_blocks)


def test_low_occupancy_warning_once_per_configuration(monkeypatch):
    monkeypatch.delenv("CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS", raising=False)
    monkeypatch.delenv("CUDALITE_DISABLE_PERFORMANCE_WARNINGS", raising=False)
    k = cuda.jit(_write)
    with pytest.warns(NumbaPerformanceWarning, match=r"^Grid size 2 will likely result in GPU under-utilization "
                                                      r"due to low occupancy\.$") as rec:
        k[2, 32]
    assert rec[0].filename == __file__  # attributed to the launch line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[2, 32]  # a kept configuration: the hot path does not warn again
        k[128, 32]  # 128 blocks: enough
        k[(8, 4, 4), 32]
    monkeypatch.setenv("CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[3, 32]
    monkeypatch.setenv("CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS", "1")
    monkeypatch.setenv("CUDALITE_DISABLE_PERFORMANCE_WARNINGS", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[4, 32]


def test_debug_with_default_opt_warns_as_numba():
    with pytest.warns(NumbaInvalidConfigWarning, match="not supported by CUDA"):
        cuda.jit(debug=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuda.jit(debug=True, opt=False)
        cuda.jit()


def test_forall_negative_message_is_numbas():
    k = cuda.jit(_write)
    with pytest.raises(ValueError, match="^Can't create ForAll with negative task count: -1$"):
        k.forall(-1)


@cuda.jit(device=True)
def _runaway_self(x):
    return _runaway_self(x)


def _make_growing(jit):
    @jit
    def make_list(n):
        if n <= 0:
            return None
        return (n, make_list(n - 1))

    return make_list


_growing = _make_growing(cuda.jit(device=True))


def _calls_runaway():
    _runaway_self(1)


def _calls_growing():
    _growing(100)


def test_recursion_messages_carry_numbas_phrases():
    with pytest.raises(TypingError) as ei:
        cuda.compile_ptx(_calls_runaway, "void()")
    assert "cannot type infer runaway recursion" in str(ei.value)
    with pytest.raises(TypingError) as ei:
        cuda.compile_ptx(_calls_growing, "void()")
    msg = str(ei.value)
    assert "Return type of recursive function does not converge" in msg
    assert "returns None on a path that does not recurse" in msg and __file__ in msg


@cuda.guvectorize([T.void(T.int32[:], T.int32[:])], "(n)->(n)", target="cuda")
def gufunc_copy(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


def _calls_gufunc(a, b):
    gufunc_copy(a, b)


def test_untyped_global_wording():
    with pytest.raises(TypingError, match="Untyped global name 'gufunc_copy'") as ei:
        cuda.compile_ptx(_calls_gufunc, "void(int32[:], int32[:])")
    assert "_calls_gufunc" in str(ei.value) or __file__ in str(ei.value)


def test_command_text_reads_the_python_dash_c_program():
    from cudalite.core.exec_sources import command_text

    assert command_text(["-c"], ["python", "-c", "X = 1\n"]) == "X = 1\n"
    assert command_text(["-c"], ["python", "-W", "ignore", "-X", "dev", "-Bc", "Y = 2"]) == "Y = 2"
    assert command_text(["prog.py"], ["python", "prog.py"]) is None
    assert command_text(["-c"], ["python", "-m", "x"]) is None


def test_kernel_given_with_python_dash_c_compiles(tmp_path):
    import os
    import subprocess
    import sys

    program = ("from cudalite import cuda\n\n@cuda.jit\ndef printempty(x):\n    print(x, 999)\n\n"
               "ptx, _ = cuda.compile_ptx(printempty.py_func, 'void(int32)')\nprint('vprintf' in ptx)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    cp = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120,
                        cwd=tmp_path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip() == "True"
