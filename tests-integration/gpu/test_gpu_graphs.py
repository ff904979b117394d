"""CUDA graphs captured from a stream (``with stream.capture() as graph``): nothing runs
while capturing, replays give NumPy's results, kernel arguments change in place
(``kernel_nodes()[i].set_args``) and by a second capture into the same graph, and the
errors: default streams, a synchronizing call inside the capture, wrong argument types."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda
from cudalite.driver import CudaDriverError

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("CUDA graphs")]


@cuda.jit
def axpy(out, a, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + out[i]


@cuda.jit
def bump(a):
    a[0] += 1


def test_capture_runs_nothing_then_replays():
    n = 1000
    x = np.random.rand(n)
    s = cuda.stream()
    dx, dout = cuda.to_device(x), cuda.to_device(np.zeros(n))
    axpy[4, 256, s](dout, 2.0, dx)  # compile outside the capture
    s.synchronize()
    dout.copy_to_device(np.zeros(n))
    with s.capture() as graph:
        assert graph.capturing
        axpy[4, 256, s](dout, 2.0, dx)
        axpy[4, 256, s](dout, 0.5, dx)
    s.synchronize()
    np.testing.assert_array_equal(dout.copy_to_host(), np.zeros(n))  # captured, not run
    assert graph.node_count == 2 and len(graph.kernel_nodes()) == 2
    graph.launch()
    graph.launch()
    s.synchronize()
    np.testing.assert_allclose(dout.copy_to_host(), 2 * 2.5 * x)
    graph.launch(cuda.default_stream())  # another stream
    cuda.synchronize()
    np.testing.assert_allclose(dout.copy_to_host(), 3 * 2.5 * x)


def test_dependent_launches_and_copies_in_one_graph():
    s = cuda.stream()
    a = cuda.to_device(np.zeros(1, np.int64))
    b = cuda.device_array(1, np.int64)
    bump[1, 1, s](a)
    s.synchronize()
    a.copy_to_device(np.zeros(1, np.int64))
    with s.capture() as graph:
        for _ in range(100):
            bump[1, 1, s](a)
        b.copy_to_device(a, stream=s)  # a device-to-device copy node after the launches
    assert graph.node_count == 101
    for _ in range(3):
        graph.launch()
    s.synchronize()
    assert a.copy_to_host()[0] == 300 and b.copy_to_host()[0] == 300


def test_set_args_changes_one_node_in_place():
    n = 512
    x, y = np.random.rand(n), np.random.rand(n)
    s = cuda.stream()
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    out1, out2 = cuda.to_device(np.zeros(n)), cuda.to_device(np.zeros(n))
    axpy[2, 256, s](out1, 1.0, dx)
    s.synchronize()
    out1.copy_to_device(np.zeros(n))
    with s.capture() as graph:
        axpy[2, 256, s](out1, 1.0, dx)
        axpy[2, 256, s](out1, 3.0, dy)
    nodes = graph.kernel_nodes()
    assert [nd.kernel.py_func.__name__ for nd in nodes] == ["axpy", "axpy"]
    assert nodes[0].grid == (2, 1, 1) and nodes[0].block == (256, 1, 1)
    nodes[1].set_args(out2, 4.0, dy)  # the second launch writes elsewhere now
    graph.launch()
    s.synchronize()
    np.testing.assert_allclose(out1.copy_to_host(), x)
    np.testing.assert_allclose(out2.copy_to_host(), 4.0 * y)
    with pytest.raises(TypeError, match=r"captured for arguments of types \(array\(float64, 1d, C\), float64, "
                                        r"array\(float64, 1d, C\)\); got \(array\(float32"):
        nodes[0].set_args(cuda.device_array(n, np.float32), 1.0, dx)
    with pytest.raises(TypeError, match=r"takes 3 arguments \(2 given\)"):
        nodes[0].set_args(out1, 1.0)


def test_capture_again_updates_the_instantiated_graph():
    n = 256
    x = np.random.rand(n)
    s = cuda.stream()
    dx, out = cuda.to_device(x), cuda.to_device(np.zeros(n))
    axpy[1, 256, s](out, 1.0, dx)
    s.synchronize()
    out.copy_to_device(np.zeros(n))
    with s.capture() as graph:
        axpy[1, 256, s](out, 1.0, dx)
    executable = graph._exec
    with s.capture(graph=graph):
        axpy[1, 256, s](out, 7.0, dx)  # same shape: updated in place
    assert graph._exec is executable
    graph.launch()
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 7.0 * x)
    with s.capture(graph=graph):  # another shape: instantiated again
        axpy[1, 256, s](out, 1.0, dx)
        axpy[1, 256, s](out, 1.0, dx)
    assert graph._exec is not executable and graph.node_count == 2
    graph.launch()
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 9.0 * x)


def test_capture_errors():
    s = cuda.stream()
    with pytest.raises(ValueError, match="default streams cannot be captured"):
        cuda.default_stream().capture()
    with pytest.raises(ValueError, match="capture mode must be one of"):
        s.capture(mode="eager")
    g = s.capture()
    with pytest.raises(RuntimeError, match="not been captured yet"):
        g.launch()
    a = cuda.to_device(np.zeros(1, np.int64))
    bump[1, 1, s](a)
    s.synchronize()
    # a synchronizing call inside a global-mode capture: refused by the driver
    with pytest.raises(CudaDriverError):
        with s.capture() as graph:
            bump[1, 1, s](a)
            a.copy_to_host()
    with pytest.raises(RuntimeError, match="not been captured yet"):
        graph.launch()
    # the stream and the context stay usable
    bump[1, 1, s](a)
    s.synchronize()
    assert a.copy_to_host()[0] == 2
