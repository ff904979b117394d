"""Find the corrupt inputs that crash nvJitLink, and check the linker rejects them first.

Each mutation of a real input (every single-bit flip, every truncation) is
linked in a forked child process that calls ``cuda.bindings.nvjitlink``
directly; a child killed by a signal is a crashing mutation.  The parent
loads nvJitLink once and forks per mutation (a few ms each).

    python tools/mutation_crashes.py --make DIR            # build sample inputs into DIR
    python tools/mutation_crashes.py DIR --out crashes.jsonl
    python tools/mutation_crashes.py DIR --check crashes.jsonl   # does validation reject each?

``--check`` runs ``cudalite.linker.validate_input`` on every recorded crashing
mutation (it must raise ``InvalidInputError``) and on every original (it must pass).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time

KINDS = {  # file name -> (nvJitLink InputType, LinkableCode class name, flags)
    "g_nvrtc.ltoir": ("LTOIR", "LTOIR", ["-arch=sm_90", "-lto"]),
    "f_nvvm.ltoir": ("LTOIR", "LTOIR", ["-arch=sm_90", "-lto"]),
    "g.cubin": ("CUBIN", "Cubin", ["-arch=sm_90"]),
    "g.fatbin": ("FATBIN", "Fatbin", ["-arch=sm_90"]),
    "g.o": ("OBJECT", "Object", ["-arch=sm_90"]),
    "libg.a": ("LIBRARY", "Archive", ["-arch=sm_90"]),
    "g.ptx": ("PTX", "PTXSource", ["-arch=sm_90"]),
}
SOURCE = 'extern "C" __device__ int g(int x) { return x * 3; }\n'
NVVM_UDF = "def f(x):\n    return x * 3\n"


def make(folder):
    """Sample inputs: NVRTC LTO-IR/cubin/PTX, libNVVM LTO-IR, nvcc object/archive/fatbin."""
    from cudalite.linker import compile_cuda
    os.makedirs(folder, exist_ok=True)
    path = lambda name: os.path.join(folder, name)  # noqa: E731
    open(path("g_nvrtc.ltoir"), "wb").write(compile_cuda(SOURCE, name="g.cu", arch="sm_90", lto=True).data)
    open(path("g.cubin"), "wb").write(compile_cuda(SOURCE, name="g.cu", arch="sm_90", cubin=True).data)
    open(path("g.ptx"), "wb").write(compile_cuda(SOURCE, name="g.cu", arch="sm_90").data)
    open(path("udf.py"), "w").write(NVVM_UDF)
    subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from udf import f; "
                    "from cudalite import nvvm; "
                    "open(sys.argv[2], 'wb').write(nvvm.compile(f, 'int32(int32)', output='ltoir', cc=(9, 0))[0])",
                    folder, path("f_nvvm.ltoir")], check=True)
    open(path("g.cu"), "w").write(SOURCE)
    for args in (["-dc", "-arch=sm_90", "g.cu", "-o", "g.o"], ["-lib", "g.o", "-o", "libg.a"],
                 ["-fatbin", "-rdc=true", "-arch=sm_90", "g.cu", "-o", "g.fatbin"]):
        subprocess.run(["nvcc", *args], cwd=folder, check=True)


def mutations(data):
    for offset in range(len(data)):
        for bit in range(8):
            yield ("flip", offset, bit)
    for length in range(len(data)):
        yield ("trunc", length, None)


def mutate(data, mutation):
    what, offset, bit = mutation
    if what == "flip":
        out = bytearray(data)
        out[offset] ^= 1 << bit
        return bytes(out)
    return data[:offset]


def _link(nvjitlink, itype, data, flags):
    handle = nvjitlink.create(len(flags), flags)
    try:
        nvjitlink.add_data(handle, getattr(nvjitlink.InputType, itype), data, len(data), "input")
        nvjitlink.complete(handle)
    finally:
        nvjitlink.destroy(handle)


def scan(folder, out, workers, timeout, memory, only=None):
    from cuda.bindings import nvjitlink
    nvjitlink.version()  # load the library before forking
    devnull = os.open(os.devnull, os.O_WRONLY)
    with open(out, "w") as sink:
        for fname, (itype, _cls, flags) in KINDS.items():
            if only and fname not in only:
                continue
            full = os.path.join(folder, fname)
            if not os.path.exists(full):
                print(f"{fname}: missing, skipped", flush=True)
                continue
            data = open(full, "rb").read()
            counts = {"ok": 0, "error": 0, "crash": 0, "hang": 0}
            running = {}
            started = time.time()

            def reap(block):
                pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
                if pid == 0:
                    return False
                mutation = running.pop(pid)
                if os.WIFSIGNALED(status):
                    sig = os.WTERMSIG(status)
                    kind = "hang" if sig == signal.SIGALRM else "crash"
                    counts[kind] += 1
                    sink.write(json.dumps({"file": fname, "mutation": list(mutation), "outcome": kind,
                                           "signal": signal.Signals(sig).name}) + "\n")
                else:
                    counts["ok" if os.WEXITSTATUS(status) == 0 else "error"] += 1
                return True

            for mutation in mutations(data):
                while len(running) >= workers:
                    reap(True)
                mutated = mutate(data, mutation)
                pid = os.fork()
                if pid == 0:
                    os.dup2(devnull, 1)
                    os.dup2(devnull, 2)
                    signal.alarm(timeout)
                    resource.setrlimit(resource.RLIMIT_AS, (memory << 30, memory << 30))
                    try:
                        _link(nvjitlink, itype, mutated, flags)
                        os._exit(0)
                    except BaseException:
                        os._exit(1)
                running[pid] = mutation
            while running:
                reap(True)
            sink.flush()
            print(f"{fname} ({itype}, {len(data)} bytes): {counts} in {time.time() - started:.0f}s", flush=True)


def check(folder, crashes):
    from cudalite import linker
    from cudalite.linker import InvalidInputError, validate_input
    bad = 0
    for fname, (_itype, cls, _flags) in KINDS.items():
        full = os.path.join(folder, fname)
        if os.path.exists(full):
            validate_input(getattr(linker, cls)(open(full, "rb").read(), name=fname))  # must pass
    per_file = {}
    with open(crashes) as f:
        for line in f:
            rec = json.loads(line)
            fname = rec["file"]
            data = open(os.path.join(folder, fname), "rb").read()
            code = getattr(linker, KINDS[fname][1])(mutate(data, tuple(rec["mutation"])), name=fname)
            total, rejected = per_file.get(fname, (0, 0))
            try:
                validate_input(code)
            except InvalidInputError:
                rejected += 1
            else:
                bad += 1
                print("NOT REJECTED:", rec, flush=True)
            per_file[fname] = (total + 1, rejected)
    for fname, (total, rejected) in per_file.items():
        print(f"{fname}: {rejected}/{total} crashing mutations rejected before nvJitLink")
    return bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--make", action="store_true", help="build the sample inputs into FOLDER")
    parser.add_argument("--out", default="crashes.jsonl")
    parser.add_argument("--check", metavar="CRASHES")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=30, help="seconds before a child counts as hung")
    parser.add_argument("--memory", type=int, default=3, help="GiB of address space per child "
                        "(an allocation past it aborts the child: counted as a crash)")
    parser.add_argument("--only", nargs="*", help="file names to scan (default: all)")
    args = parser.parse_args(argv)
    if args.make:
        make(args.folder)
        return 0
    if args.check:
        return 1 if check(args.folder, args.check) else 0
    scan(args.folder, args.out, args.workers, args.timeout, args.memory, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
