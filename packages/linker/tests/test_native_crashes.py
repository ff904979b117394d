"""Native crashes contained: corrupt inputs that crash nvJitLink are rejected first, and a
native fault during nvJitLink's stderr capture still reports to the real stderr.

Each case runs in a subprocess: on a regression the child dies of a signal and
the test fails instead of killing pytest.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest


def _run(code: str, *options: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("PYTHONFAULTHANDLER", None)
    return subprocess.run([sys.executable, *options, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=300)


def _exited_normally(run: subprocess.CompletedProcess):
    assert run.returncode >= 0, (f"killed by {signal.Signals(-run.returncode).name}; "
                                 f"stdout={run.stdout!r} stderr={run.stderr[-2000:]!r}")
    assert run.returncode == 0, run.stderr[-2000:]


def test_corrupt_ltoir_header_is_a_linker_error_not_sigsegv():
    # One flipped bit in the container's header-size field (40 -> 524328) made nvJitLink
    # read past the input and die of SIGSEGV (tools/mutation_crashes.py found 13 such flips).
    run = _run("""
        from cudalite.linker import LTOIR, Linker, LinkerError, compile_cuda
        src = 'extern "C" __device__ int g(int x) { return x * 3; }'
        data = bytearray(compile_cuda(src, name="g.cu", arch="sm_90", lto=True).data)
        assert int.from_bytes(data[16:20], "little") == 40
        data[18] ^= 0x08
        try:
            Linker("sm_90").add(LTOIR(bytes(data), name="g.ltoir")).link()
        except LinkerError as e:
            print(type(e).__name__, e)
        else:
            print("linked")
    """)
    _exited_normally(run)
    assert run.stdout.strip() == (
        f"InvalidInputError invalid LTO-IR input 'g.ltoir': container header size 524328 is not within "
        f"the {run.stdout.split('the ')[-1].split('-byte')[0]}-byte input (corrupt header or truncated)")


# Inputs found by tools/mutation_crashes.py to kill nvJitLink 13.x (SIGSEGV), as
# (kind, offset, xor mask) on the sample inputs built by linker_testlib.crash_samples.
CRASHING_MUTATIONS = [
    ("ltoir", 18, 0x08), ("ltoir", 19, 0x01), ("ltoir", 19, 0x80),
]


def test_known_crashing_mutations_are_rejected_before_nvjitlink():
    run = _run(f"""
        from linker_testlib import crash_samples
        from cudalite.linker import Linker, InvalidInputError
        samples = crash_samples()
        for kind, offset, mask in {CRASHING_MUTATIONS!r}:
            code = samples[kind]
            data = bytearray(code.data)
            data[offset] ^= mask
            try:
                Linker("sm_90").add(type(code)(bytes(data), name=code.name)).link()
            except InvalidInputError as e:
                print("rejected", kind, offset, mask)
            except Exception as e:
                print("LINK ERROR", kind, offset, mask, type(e).__name__, e)
            else:
                print("LINKED", kind, offset, mask)
    """)
    _exited_normally(run)
    lines = run.stdout.splitlines()
    assert lines == [f"rejected {k} {o} {m}" for k, o, m in CRASHING_MUTATIONS]


_FAULT = """
    import ctypes, faulthandler
    from cudalite.linker._nvjitlink import _captured_stderr

    def fault_inside_capture():
        with _captured_stderr([]):
            ctypes.string_at(0)   # a real SIGSEGV while fd 2 is captured

    print("enabled before:", faulthandler.is_enabled(), flush=True)
    fault_inside_capture()
"""


@pytest.mark.parametrize("options", [(), ("-X", "faulthandler")], ids=["faulthandler-off", "faulthandler-on"])
def test_native_fault_during_capture_reaches_stderr(options):
    run = _run(_FAULT, *options)
    assert run.returncode == -signal.SIGSEGV, run
    assert "Fatal Python error: Segmentation fault" in run.stderr
    assert "in fault_inside_capture" in run.stderr


def test_capture_restores_faulthandler_state():
    run = _run("""
        import faulthandler, os
        from cudalite.linker._nvjitlink import _captured_stderr
        before = faulthandler.is_enabled()
        with _captured_stderr([]):
            inside = faulthandler.is_enabled()
        print(before, inside, faulthandler.is_enabled())
        faulthandler.enable()
        with _captured_stderr([]):
            pass
        print(faulthandler.is_enabled())
    """)
    _exited_normally(run)
    assert run.stdout.split() == ["False", "True", "False", "True"]
