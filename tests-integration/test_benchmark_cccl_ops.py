"""benchmarks/cccl_ops.py, GPU-less: it imports without cuda.compute, skips cleanly, its
child program and operators are valid Python with distinct operator bodies, its children
see no disk cache, and its table rows carry the cudalite / numba-cuda-mlir ratio."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import cccl_ops  # noqa: E402


def test_child_program_and_operators_are_valid():
    ast.parse(cccl_ops.CHILD)
    ns = {}
    exec(compile(cccl_ops.OPS, "bench_cccl_ops.py", "exec"), ns)
    assert ns["add"](2, 3) == 5
    warm = ns["WARM"]
    assert len(warm) == cccl_ops.WARM_OPS
    # a new function body each (no compiler cache can serve one from another)
    assert len({f.__code__.co_consts for f in warm} | {ns["add"].__code__.co_consts}) == cccl_ops.WARM_OPS + 1
    assert [f(3, 4) for f in warm] == [3 * (i + 2) + 4 - i for i in range(cccl_ops.WARM_OPS)]


def test_children_get_no_disk_cache(tmp_path):
    env = cccl_ops.child_env({"PYTHONPATH": "/p", "CUDALITE_CACHE": "1"}, str(tmp_path))
    assert env["PYTHONPATH"] == "/p"
    assert env["CUDALITE_CACHE"] == "0" and env["CCCL_ENABLE_PCH"] == "0" and env["CUDA_CACHE_DISABLE"] == "1"
    assert env["CUDALITE_CACHE_DIR"].startswith(str(tmp_path)) and env["NUMBA_CACHE_DIR"].startswith(str(tmp_path))


def test_rows_ratio_and_missing_peer():
    results = {"cudalite": {"cold_s": 0.05, "warm_s": 0.004, "process_s": 2.5, "call_s": 1.2,
                            "object_s": 20e-6, "oneshot_s": 60e-6},
               "numba-cuda-mlir": {"cold_s": 0.5, "warm_s": 0.02, "process_s": 3.0, "call_s": 1.5,
                                   "object_s": 25e-6, "oneshot_s": 150e-6}}
    rows = cccl_ops.rows(results)
    assert rows[0] == ["(a) operator compile, cold (import + first compile)", "50.0 ms", "500 ms", "0.10"]
    assert rows[1][1:] == ["4.0 ms", "20.0 ms", "0.20"]
    assert rows[2][1:] == ["2500 ms", "3000 ms", "0.83"]
    assert rows[4][1:] == ["20.0 us", "25.0 us", "0.80"]
    assert rows[5][1:] == ["60.0 us", "150 us", "0.40"]
    alone = cccl_ops.rows({"cudalite": results["cudalite"]})
    assert [r[2:] for r in alone] == [["-", "-"]] * len(cccl_ops.ROWS)


def test_floor_rows_subtract_and_refuse_ratio_of_negatives():
    got = cccl_ops.over_floor({"call_s": 3.0, "floor_call_s": 2.5, "object_s": 14e-6, "object_floor_s": 15e-6,
                               "oneshot_s": 50e-6})
    assert got == {"call_over_floor_s": 0.5, "object_over_floor_s": got["object_over_floor_s"]}
    assert abs(got["object_over_floor_s"] + 1e-6) < 1e-12
    keys = [r[0] for r in cccl_ops.ROWS]
    rows = cccl_ops.rows({"cudalite": {"object_over_floor_s": -1e-6, "call_over_floor_s": 0.5},
                          "numba-cuda-mlir": {"object_over_floor_s": 2e-6, "call_over_floor_s": 1.0}})
    by_key = dict(zip(keys, rows))
    assert by_key["object_over_floor_s"][1:] == ["-1.0 us", "2.0 us", "-"]  # no ratio of a negative
    assert by_key["call_over_floor_s"][1:] == ["500 ms", "1000 ms", "0.50"]


def test_backend_and_skip_decisions():
    have = {"cuda.compute", "cupy", "cudalite.cuda"}
    find = lambda name: object() if name in have else None
    assert cccl_ops.skip_reason(find) is None
    assert cccl_ops.available_backends(find) == (["cudalite"], ["numba-cuda-mlir not importable: skipped"])
    have.add("numba_cuda_mlir")
    assert cccl_ops.available_backends(find) == (["cudalite", "numba-cuda-mlir"], [])
    have.discard("cupy")
    assert cccl_ops.skip_reason(find) == "CuPy not importable (the arrays)"


def test_script_without_cuda_compute_says_skipped():
    if cccl_ops.skip_reason() != "cuda.compute (cuda-cccl) not importable":
        pytest.skip("cuda.compute is importable here: the skip path is not reachable")
    proc = subprocess.run([sys.executable, str(BENCH / "cccl_ops.py")], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "cccl_ops benchmark skipped: cuda.compute (cuda-cccl) not importable"


def test_measure_interleaves_backends_and_reports_an_error_per_backend():
    calls = []

    def child(backend, mode, ops_dir, reps, environ):
        calls.append((backend, mode))
        if backend == "b" and mode == "first-reduce":
            return {"error": "exit 1: boom"}
        return {"call_s": 2.0, "floor_call_s": 1.5} if mode != "compile" else {"cold_s": 0.1}

    got = cccl_ops.measure(["a", "b"], 2, 10, "/ops", {}, child=child)
    assert calls[:4] == [("a", "compile"), ("b", "compile"), ("a", "compile"), ("b", "compile")]
    assert got["b"] == {"error": "first-reduce: exit 1: boom"}
    assert got["a"]["cold_s"] == 0.1 and got["a"]["call_over_floor_s"] == 0.5
