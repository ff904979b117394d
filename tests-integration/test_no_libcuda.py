"""The compiler works where libcuda cannot load, and never tries to load it.

A child process blocks every route to the driver -- a broken ``libcuda.so*``
first on ``LD_LIBRARY_PATH`` (so a C-level dlopen fails), an audit hook that
refuses ``ctypes`` loads of libcuda, and an import hook that refuses the driver
bindings -- with ``CUDA_HOME``/``CUDA_PATH`` unset.  It then compiles a kernel
and a device function to PTX and to LTO-IR and reports what was attempted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    r"""
    import json, re, sys

    BLOCKED_MODULES = ("cuda.bindings.driver", "cuda.bindings.cydriver", "cuda.bindings._bindings.cydriver",
                       "cuda.bindings.runtime", "cuda.bindings.cyruntime", "cuda.core",
                       "cudalite.driver", "cudalite.linker", "cudalite.cuda")
    LIBCUDA = re.compile(r"(^|/)(lib)?(cuda|nvcuda)(\.so|\.dll|$)")
    attempts = {"modules": [], "dlopen": [], "loaded": []}

    class Block:
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED_MODULES):
                attempts["modules"].append(name)
                raise ImportError(f"blocked in this test: {name}")
            return None

    def audit(event, args):
        if event == "ctypes.dlopen" and args and args[0]:
            name = str(args[0])
            attempts["loaded"].append(name)
            if LIBCUDA.search(name.split("/")[-1].split(".so")[0] + ".so"):
                attempts["dlopen"].append(name)
                raise OSError(f"blocked in this test: {name}")

    sys.meta_path.insert(0, Block())
    sys.addaudithook(audit)
    sys.path.insert(0, sys.argv[1])

    from cudalite.nvvm import compile, compile_ptx
    import udfs

    ptx, _ = compile_ptx(udfs.scale, "void(float32[:], float32)", cc=(9, 0))
    dptx, resty = compile_ptx(udfs.add, "float32(float32, float32)", device=True, abi="c")
    lto, _ = compile(udfs.add, "float32(float32, float32)", device=True, output="ltoir")
    klto, _ = compile(udfs.scale, "void(float32[:], float32)", device=False, abi="numba", output="ltoir")

    with open("/proc/self/maps") as f:
        maps = sorted({line.split()[-1] for line in f if ".so" in line})
    print(json.dumps({
        **attempts,
        "ptx_entry": ".visible .entry" in ptx,
        "dptx": ".visible .func" in dptx and "add_param_1" in dptx,
        "resty": str(resty),
        "ltoir_bytes": len(lto) if isinstance(lto, bytes) else -1,
        "kernel_ltoir_bytes": len(klto) if isinstance(klto, bytes) else -1,
        "driver_modules": sorted(m for m in sys.modules
                                 if "driver" in m and (m.startswith("cuda") or m.startswith("cudalite"))),
        "libcuda_mapped": [m for m in maps if re.search(r"/libcuda\.so", m)],
        "nvvm_mapped": any("libnvvm" in m for m in maps),
    }))
    """
)

UDFS = textwrap.dedent(
    """
    def add(x, y):
        return x + y

    def scale(a, s):
        a[0] = a[0] * s
    """
)


def test_compiles_without_libcuda(tmp_path):
    (tmp_path / "udfs.py").write_text(UDFS)
    broken = tmp_path / "broken-libcuda"
    broken.mkdir()
    for name in ("libcuda.so", "libcuda.so.1"):
        (broken / name).write_bytes(b"not an ELF file: libcuda is unavailable here\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(broken), env.get("LD_LIBRARY_PATH")]))
    if env.get("PYTHONPATH"):  # the child runs elsewhere: keep source-tree paths valid
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    r = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["modules"] == [], f"driver modules were imported: {res['modules']}"
    assert res["dlopen"] == [], f"libcuda load attempted: {res['dlopen']}"
    assert res["driver_modules"] == []
    assert res["libcuda_mapped"] == []
    assert res["nvvm_mapped"], "libNVVM should have been loaded"
    assert res["ptx_entry"] and res["dptx"] and res["resty"] == "float32"
    assert res["ltoir_bytes"] > 0 and res["kernel_ltoir_bytes"] > 0


def test_child_guard_detects_a_driver_import(tmp_path):
    """The guard is not vacuous: importing the driver bindings is caught."""
    script = CHILD.split("sys.path.insert(0, sys.argv[1])")[0] + textwrap.dedent(
        """
        try:
            from cuda.bindings import driver  # noqa: F401
        except ImportError:
            pass
        import ctypes
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError:
            pass
        print(json.dumps(attempts))
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    attempts = json.loads(r.stdout)
    assert "cuda.bindings.driver" in attempts["modules"]
    assert attempts["dlopen"] == ["libcuda.so.1"]
