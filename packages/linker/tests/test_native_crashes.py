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
    # One flipped bit in the container's header-size field (40 -> 16777256) made nvJitLink
    # read past the input and die of SIGSEGV (tools/mutation_crashes.py found 13 such flips).
    run = _run("""
        from cudalite.linker import LTOIR, Linker, LinkerError, compile_cuda
        src = 'extern "C" __device__ int g(int x) { return x * 3; }'
        data = bytearray(compile_cuda(src, name="g.cu", arch="sm_90", lto=True).data)
        assert int.from_bytes(data[16:20], "little") == 40
        data[19] ^= 0x01
        try:
            Linker("sm_90").add(LTOIR(bytes(data), name="g.ltoir")).link()
        except LinkerError as e:
            print(type(e).__name__, e)
        else:
            print("linked")
    """)
    _exited_normally(run)
    size = run.stdout.split("within the ")[-1].split("-byte")[0]
    assert size.isdigit()
    assert run.stdout.strip() == (
        f"InvalidInputError invalid LTO-IR input 'g.ltoir': container header size 16777256 is not within "
        f"the {size}-byte input (corrupt header or truncated)")


def _word_offset(image, section_name: str, offset: int) -> int:
    return next(s for s in image.sections if s.name == section_name).offset + offset


def _crashing_mutations(samples) -> list:
    """(kind, label, mutated bytes): one-bit flips of real inputs that kill nvJitLink
    13.5 with SIGSEGV in every run tried, found by tools/mutation_crashes.py; offsets
    of fields inside the inputs are located by parsing the valid sample."""
    from cudalite.linker._elf import read_elf

    def flip(kind, offset, mask):
        data = bytearray(samples[kind].data)
        data[offset] ^= mask
        return kind, f"{kind} byte {offset} ^ {mask:#x}", bytes(data)

    cubin = read_elf(samples["cubin"].data)
    symtab = next(s for s in cubin.sections if s.name == ".symtab")
    cases = [
        flip("ltoir", 19, 0x01),                    # container header size 40 -> 16777256
        flip("ltoir", 19, 0x80),
        flip("cubin", _word_offset(cubin, ".nv.info", 7), 0x01),        # REGCOUNT's symbol index
        flip("cubin", _word_offset(cubin, ".nv.callgraph", 8), 0x01),   # caller: not a function
        flip("cubin", _word_offset(cubin, ".nv.prototype", 2), 0x01),   # prototype's symbol index
        flip("cubin", symtab.offset + (symtab.size // 24 - 1) * 24 + 4, 0x01),  # g: FUNC -> SECTION
    ]
    if "fatbin" in samples:
        cases += [flip("fatbin", 6, 0x08),           # fatbin header size
                  flip("fatbin", 23, 0x01)]          # entry header size
    if "object" in samples:
        obj = read_elf(samples["object"].data)
        fatbin = _word_offset(obj, "__nv_relfatbin", 0)
        cases += [flip("object", 43, 0x01),          # e_shoff
                  flip("object", fatbin + 23, 0x01)]  # embedded fatbin's entry header size
    if "archive" in samples:
        data = samples["archive"].data
        member = data.index(b"\x7fELF")
        cases += [flip("archive", member + 43, 0x01)]   # the member object's e_shoff
    return cases


def test_known_crashing_mutations_are_rejected_before_nvjitlink(tmp_path):
    from linker_testlib import crash_samples

    samples = crash_samples()
    cases = _crashing_mutations(samples)
    suffix = {"ltoir": ".ltoir", "cubin": ".cubin", "fatbin": ".fatbin", "object": ".o", "archive": ".a"}
    paths = []
    for n, (kind, label, data) in enumerate(cases):
        path = tmp_path / f"case{n}{suffix[kind]}"
        path.write_bytes(data)
        paths.append((str(path), label))
    run = _run(f"""
        from cudalite.linker import Linker, InvalidInputError
        for path, label in {paths!r}:
            try:
                Linker("sm_90").add(path).link()
            except InvalidInputError as e:
                print("rejected", label)
            except Exception as e:
                print("LINK ERROR", label, type(e).__name__, e)
            else:
                print("LINKED", label)
    """)
    _exited_normally(run)
    assert run.stdout.splitlines() == [f"rejected {label}" for _, label in paths]
    assert len(paths) >= 6


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


# -- untrusted binary inputs are linked in a child process ---------------------------

_INJECTED_CRASH = """
    import cudalite.linker._isolated as iso
    # The child runs a run_link that dies of a real SIGSEGV while adding an input named
    # crash.ltoir, as nvJitLink does on some corrupt payloads; other links are real.
    iso._BOOTSTRAP = iso._BOOTSTRAP.replace("_child_main()", '''(
        __import__("cudalite.linker._nvjitlink").linker._nvjitlink.__dict__.__setitem__("run_link", (
            lambda real: lambda flags, inputs, output="cubin", progress=None: (
                [progress("add " + n) for _, _, n in inputs if n == "crash.ltoir"]
                and __import__("ctypes").string_at(0)) or real(flags, inputs, output=output, progress=progress)
        )(__import__("cudalite.linker._nvjitlink").linker._nvjitlink.run_link)), _child_main())''')
    from cudalite.linker import LTOIR, Linker, InvalidInputError, compile_cuda
    from cudalite.linker._isolated import link_server
    lto = compile_cuda('extern "C" __global__ void k(int *p) { *p = 7; }', name="k.cu", arch="sm_90", lto=True)
    try:
        Linker("sm_90").add(LTOIR(lto.data, name="crash.ltoir")).link()
    except InvalidInputError as e:
        print("error:", e)
    again = Linker("sm_90").add(LTOIR(lto.data, name="ok.ltoir")).link()
    direct = Linker("sm_90", isolate=False).add(LTOIR(lto.data, name="ok.ltoir")).link()
    print("relinked:", again.data == direct.data, "k" in again.symbol_names())
"""


def test_a_crash_in_the_link_process_is_an_error_naming_the_input():
    run = _run(_INJECTED_CRASH)
    _exited_normally(run)
    assert run.stdout.splitlines() == [
        "error: invalid LTOIR input 'crash.ltoir': nvJitLink crashed (SIGSEGV) decoding it in the isolated "
        "link process; the input is corrupt or not what its kind says",
        "relinked: True True",   # the next link starts a new child and gives nvJitLink's own result
    ]


def test_only_untrusted_binaries_are_isolated():
    run = _run("""
        from cudalite.linker import LTOIR, Linker, PTXSource, compile_cuda, LinkFailure
        from cudalite.linker._isolated import link_server
        src = 'extern "C" __device__ int g(int); extern "C" __global__ void k(int *p) { *p = g(*p); }'
        ptx = compile_cuda(src, name="k.cu", arch="sm_90")
        lto = compile_cuda(src, name="k.cu", arch="sm_90", lto=True)
        mine = Linker("sm_90").add(LTOIR(lto.data, name="mine.ltoir"), trusted=True)
        mixed = Linker("sm_90").add(PTXSource(ptx.data, name="k.ptx")).add(LTOIR(lto.data, name="u.ltoir"))
        print(mine.untrusted_binaries(), mixed.untrusted_binaries(), link_server()._proc is None)
        theirs = Linker("sm_90").add(LTOIR(lto.data, name="u.ltoir"))
        for linker in (mine, theirs, Linker("sm_90", isolate=False).add(LTOIR(lto.data, name="u.ltoir"))):
            try:
                linker.link()
            except LinkFailure as e:   # g is undefined: the same failure in and out of process
                print(e.status, e.stage, "g" in e.error_log)
    """)
    _exited_normally(run)
    lines = run.stdout.splitlines()
    assert lines[0] == "() ('u.ltoir',) False"   # adding u.ltoir started the link process early
    assert len(lines) == 4 and lines[1] == lines[2] == lines[3], lines
    assert lines[1].endswith("complete True")
