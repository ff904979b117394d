"""numba-cuda parity on the GPU for foreign-array stream sync, negative-stride copies
and ``IpcHandle`` opening (numba-cuda's test_cuda_array_interface ``test_launch_sync*``
/ ``test_negative_strided_copy_to_host`` and test_ipc ``test_ipc_handle_serialization``
/ ``TestIpcStaged.test_staged``, reproduced without the compat harness).

* a kernel launched with ``__cuda_array_interface__`` arguments whose producer named a
  stream synchronizes each such stream through ``cuda.cudadrv.driver.Stream.synchronize``
  (and nothing with ``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0``), and computes right;
* ``copy_to_host`` of ``d[::-1]`` raises numba's NotImplementedError; ``out[:] = d[::-1]``
  works;
* a pickled ``IpcHandle`` opened in a ``spawn`` child with ``open_array`` and with
  ``open_staged`` gives the exporter's data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from unittest.mock import patch

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("CUDA array interface streams and CUDA IPC")]


class _Foreign:
    """A foreign array: only ``__cuda_array_interface__`` (numba's ForeignArray)."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_launch_synchronizes_each_producer_stream(gpu, monkeypatch):
    from cudalite import cuda

    monkeypatch.delenv("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", raising=False)

    @cuda.jit
    def add(x, y):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += y[i]

    s1, s2 = cuda.stream(), cuda.stream()
    a = _Foreign(cuda.to_device(np.arange(10.0), stream=s1))
    b = _Foreign(cuda.to_device(np.ones(10), stream=s2))
    s1.synchronize()
    s2.synchronize()
    assert a.__cuda_array_interface__["stream"] == int(s1.handle)
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", autospec=True) as sync:
        add[1, 32](a, b)
    assert [int(c.args[0].handle) for c in sync.call_args_list] == [int(s1.handle), int(s2.handle)]
    cuda.synchronize()
    np.testing.assert_array_equal(cuda.as_cuda_array(a).copy_to_host(), np.arange(10.0) + 1)

    monkeypatch.setenv("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", "0")
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", autospec=True) as sync:
        add[1, 32](a, b)
    sync.assert_not_called()
    cuda.synchronize()


def test_negative_strided_copy_to_host_raises(gpu):
    from cudalite import cuda

    h = np.random.random(10)
    d = cuda.to_device(h)
    with pytest.raises(NotImplementedError, match=r"D->H copy not implemented for negative strides: \(-8,\)"):
        d[::-1].copy_to_host()
    out = cuda.device_array(10)
    out[:] = d[::-1]
    np.testing.assert_array_equal(out.copy_to_host(), h[::-1])


IPC_CHILD = """
    import json, multiprocessing as mp, pickle, sys
    import numpy as np
    from cudalite import cuda

    def by_array(handle, q):
        arr = handle.open_array(cuda.current_context(), shape=handle.size // 8, dtype=np.dtype(np.intp))
        q.put(arr.copy_to_host().tolist())
        handle.close()

    def staged(handle, q):
        ptr = handle.open_staged(cuda.current_context())
        host = np.zeros(handle.size // 8, dtype=np.intp)
        import cudalite.driver as drv
        drv.copy_device_to_host(host, ptr.ptr, handle.size)
        handle.close()
        q.put(host.tolist())

    if __name__ == "__main__":
        d = cuda.to_device(np.arange(3, 8, dtype=np.intp))  # a whole allocation, as numba's test_ipc
        ipch = cuda.current_context().get_ipc_handle(d.gpu_data)
        again = pickle.loads(pickle.dumps(ipch))
        assert again.base is None and again.size == ipch.size and again.handle.reserved == ipch.handle.reserved
        ctx = mp.get_context("spawn")
        got = {}
        for fn in (by_array, staged):
            q = ctx.Queue()
            p = ctx.Process(target=fn, args=(ipch, q))
            p.start()
            got[fn.__name__] = q.get(timeout=240)
            p.join(60)
        print(json.dumps(got))
"""


def test_ipc_handle_open_array_and_staged_in_a_child(gpu, tmp_path):
    path = tmp_path / "ipc_child.py"
    path.write_text(textwrap.dedent(IPC_CHILD))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=400,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"by_array": [3, 4, 5, 6, 7], "staged": [3, 4, 5, 6, 7]}
