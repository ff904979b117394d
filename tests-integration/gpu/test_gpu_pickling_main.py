"""On the GPU: kernels of a script's ``__main__`` that read ``__main__`` classes, an
enum, a dataclass, helpers and device functions, pickled by value to files; the
script is removed and a second process loads them, launches each and writes its
results, which must equal NumPy's.  ``kern`` was launched before pickling (its cubin
travels with it and is loaded, not compiled); the others compile in the second
process from the carried source text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("pickling kernels by value (the compiled dispatcher's own pickling)")]

SENDER = textwrap.dedent('''
    import dataclasses, enum, pickle, sys
    import numpy as np
    from cudalite import cuda


    class Cfg:
        N = 3
        SCALE = 2.5


    def helper(x):
        return x * Cfg.SCALE + Cfg.N


    class Color(enum.IntEnum):
        RED = 1
        BLUE = 4


    @dataclasses.dataclass(frozen=True)
    class Params:
        a: int = 7
        b: float = 0.5


    PARAMS = Params()


    @cuda.jit(device=True)
    def inner(x):
        return x + Cfg.N


    @cuda.jit(device=True)
    def dev(x):
        return helper(inner(x))


    @cuda.jit
    def kern(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = dev(r[i]) - PARAMS.a * PARAMS.b + Color.BLUE


    def make_closure(offset):
        @cuda.jit
        def shifted(r):
            i = cuda.grid(1)
            if i < r.size:
                r[i] = helper(r[i]) + offset

        return shifted


    @cuda.vectorize(["float64(float64)"])
    def scaled(x):
        return helper(x) - Color.RED


    if __name__ == "__main__":
        out = sys.argv[1]
        warm = np.arange(4, dtype=np.float64)
        kern[1, 32](warm)  # compiled here: the pickle carries its cubin
        for name, obj in {"kern": kern, "closure": make_closure(0.25), "ufunc": scaled}.items():
            with open(f"{out}/{name}.pkl", "wb") as f:
                pickle.dump(obj, f)
''')

RECEIVER = textwrap.dedent('''
    import json, pickle, sys
    import numpy as np

    out = sys.argv[1]
    x = np.linspace(-4.0, 4.0, 1000)
    loaded = {}
    for name in ("kern", "closure", "ufunc"):
        with open(f"{out}/{name}.pkl", "rb") as f:
            loaded[name] = pickle.load(f)
    results = {}
    for name in ("kern", "closure"):
        r = x.copy()
        loaded[name][(r.size + 127) // 128, 128](r)
        results[name] = r
    results["ufunc"] = loaded["ufunc"](x)
    np.savez(f"{out}/results.npz", x=x, **results)
    print(json.dumps({"pickle_loads": sum(loaded["kern"].stats.pickle_loads.values())}))
''')


def _python(script, *args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def assert_close_to_rounding(got, expected, magnitude):
    """``got`` equals ``expected`` up to rounding: within rtol 1e-15 plus 4 ulp of
    ``magnitude`` (elementwise, the size of the terms summed).  The GPU contracts
    ``a * b + c`` into one fma (rounded once) where NumPy rounds the product first, so a
    result near 0 (where terms of ~10 cancel) may differ from NumPy's by an ulp of the
    terms, far beyond its own rtol; a wrong constant or formula differs by much more."""
    bound = 1e-15 * np.abs(expected) + 4 * np.finfo(np.float64).eps * magnitude
    err = np.abs(got - expected)
    bad = np.flatnonzero(~(err <= bound))
    assert bad.size == 0, (f"{bad.size} of {got.size} elements differ by more than rounding; first at {bad[0]}: "
                           f"got {got[bad[0]]!r}, expected {expected[bad[0]]!r} (bound {bound[bad[0]]:.3g})")


def test_main_kernels_unpickled_in_another_process_compute_like_numpy(tmp_path):
    app, out, other = tmp_path / "app", tmp_path / "out", tmp_path / "elsewhere"
    for d in (app, out, other):
        d.mkdir()
    (app / "app.py").write_text(SENDER)
    (other / "receiver.py").write_text(RECEIVER)
    _python(app / "app.py", str(out), cwd=app)
    (app / "app.py").unlink()
    report = json.loads(_python(other / "receiver.py", str(out), cwd=other).strip().splitlines()[-1])
    res = np.load(out / "results.npz")
    x = res["x"]

    def helper(v):
        return v * 2.5 + 3

    def size(v):  # the magnitude of helper(v)'s terms
        return np.abs(v) * 2.5 + 3

    assert_close_to_rounding(res["kern"], helper(x + 3) - 7 * 0.5 + 4, size(x + 3) + 3.5 + 4)
    assert_close_to_rounding(res["closure"], helper(x) + 0.25, size(x) + 0.25)
    assert_close_to_rounding(res["ufunc"], helper(x) - 1, size(x) + 1)
    assert report["pickle_loads"] == 1  # the carried cubin was loaded, not compiled again
