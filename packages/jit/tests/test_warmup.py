"""The background warm-up a kernel definition starts (``_runtime.warmup``, issue 26).

GPU-less, each in a fresh interpreter: the first ``@cuda.jit`` starts the two
threads once; the import thread leaves the whole compile chain imported and
libNVVM/nvJitLink loaded, builds its probe without touching the kernel cache (even
with ``CUDALITE_CACHE=1``); a build waits for it and reports the wait; ``os.fork``
right after a definition does not leave the child stuck on an import lock.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


def _run(code: str, tmp_path, **env_extra) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    env["CUDALITE_CACHE_DIR"] = str(tmp_path / "cache")
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=120)


def test_definition_starts_two_threads_once_and_imports_the_compile_chain(tmp_path):
    r = _run("""
        import sys, threading
        from cudalite import cuda
        from cudalite.cuda._runtime.record import jit_runtime
        from cudalite.cuda._runtime.warmup import wait_for_warmup
        assert jit_runtime().warmup is None
        before = {t.name for t in threading.enumerate()}

        @cuda.jit
        def k(a):
            a[0] = 1

        @cuda.jit
        def k2(a):
            a[0] = 2

        compiler, driver = jit_runtime().warmup
        print(compiler.name, driver.name, compiler.daemon and driver.daemon)
        waited = wait_for_warmup(jit_runtime())
        print(waited > 0.0, compiler.is_alive(), wait_for_warmup(jit_runtime()))
        driver.join(60)
        print(sorted({t.name for t in threading.enumerate()} - before))
        print(all(m in sys.modules for m in ("cudalite.nvvm.lower", "cudalite.nvvm.lower._function",
              "cudalite.cuda._compiler.stages", "cudalite.cuda._compiler.kernel", "cudalite.core.frontend",
              "llvmlite.ir", "cuda.bindings.nvvm", "cuda.bindings.nvjitlink")))
    """, tmp_path, CUDALITE_CACHE="1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:4] == ["cudalite-warmup cudalite-warmup-driver True", "True False 0.0", "[]",
                                         "True"]
    cache = tmp_path / "cache" / "kernels"
    assert not cache.exists() or os.listdir(cache) == []  # the probe is never stored


def test_no_definition_no_threads(tmp_path):
    r = _run("""
        import sys, threading
        from cudalite import cuda
        cuda.compile_ptx(lambda x: x + 1, "int32(int32)", device=True, cc=(9, 0))
        print([t.name for t in threading.enumerate() if t.name.startswith("cudalite-warmup")])
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_fork_right_after_a_definition_waits_for_the_warmup(tmp_path):
    r = _run("""
        import os, sys, warnings
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (Python 3.12+)
        from cudalite import cuda

        @cuda.jit
        def k(a):
            a[0] = 1

        pid = os.fork()  # waits for the warm-up: no thread holds an import lock the child would need
        if pid == 0:
            done = all(m in sys.modules for m in ("cudalite.nvvm.lower", "cudalite.cuda._compiler.stages",
                                                   "cuda.bindings.nvjitlink"))
            import cudalite.nvvm.lower, cudalite.cuda._compiler.stages  # noqa: F401
            os._exit(0 if done else 3)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "child 0"


def test_exit_while_the_warmup_runs_is_clean(tmp_path):
    """A program that defines a kernel and exits at once -- while the warm-up thread is
    importing, in libNVVM or in nvJitLink -- exits with status 0 and prints nothing."""
    for delay in (0.0, 0.03, 0.06, 0.09, 0.12, 0.15, 0.2):
        r = _run(f"""
            import time
            from cudalite import cuda

            @cuda.jit
            def k(a):
                a[0] = 1

            time.sleep({delay})
        """, tmp_path)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), (delay, r.stderr[-2000:])
