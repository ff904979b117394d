"""The fuzzer's child process: run cases, report each outcome as one JSON line.

    python -m fuzzing.child < cases      (one base64 pickled case per line)

Before each case it writes ``{"start": i}``, after it ``{"i": i, "outcome": ...}``
to the protocol stream (the original stdout; the cases' own output goes
elsewhere), so the parent can attribute a crash or a hang to the case that was
running.  Outcomes: ``ok``; ``invalid`` (Python itself rejects the generated
module, or the case asks for nothing); ``raised`` with the exception's type, its
MRO, message, and the innermost traceback frame (file, function).
"""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import pickle
import sys
import tempfile
import traceback


def _describe(exc: BaseException) -> dict:
    tb = traceback.extract_tb(exc.__traceback__)
    inner = tb[-1] if tb else None
    return {
        "outcome": "raised",
        "type": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "mro": [f"{c.__module__}.{c.__qualname__}" for c in type(exc).__mro__],
        "msg": str(exc)[:2000],
        "where": f"{inner.filename}:{inner.lineno} {inner.name}" if inner else "",
        "frames": [f"{f.filename}:{f.lineno} {f.name}" for f in tb[-6:]],
    }


def _load(source: str, path: str, modname: str):
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    spec.loader.exec_module(module)
    return module


def _run_compile(case, scratch, i):
    from cudalite import nvvm
    from cudalite.nvvm.api import compile_stages

    try:
        module = _load(case["source"], os.path.join(scratch, f"case_{i}.py"), f"fuzzcase_{i}")
        fn = getattr(module, case["name"])
    except BaseException:  # noqa: BLE001 - Python rejects the mutated program: nothing to compile
        return {"outcome": "invalid"}
    opts = dict(case["options"])
    if case["api"] == "compile_stages":
        stages = compile_stages(fn, case["sig"], **opts)
        for art in stages.values():
            art.data  # the lazily made texts too
    else:
        getattr(nvvm, case["api"])(fn, case["sig"], **opts)
    return {"outcome": "ok"}


def _run_cli(case, scratch, i):
    from cudalite.nvvm.cli import main

    path = os.path.join(scratch, f"cli_{i}.py")
    with open(path, "w") as f:
        f.write(case["source"])
    repl = {"OUT": os.path.join(scratch, f"out_{i}"), "OUTDIR": os.path.join(scratch, f"dir_{i}")}
    argv = [a.replace("FILE", path, 1) if a.startswith("FILE:") else repl.get(a, a) for a in case["argv"]]
    saved = sys.stdout, sys.stderr
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stderr = io.StringIO()
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse: a usage error
        rc = e.code
    finally:
        err = sys.stderr.getvalue()
        sys.stdout, sys.stderr = saved
    if rc not in (0, 1, 2):
        return {"outcome": "raised", "type": "cli.exit-status", "mro": [], "msg": f"exit {rc!r}: {err[-500:]}",
                "where": "", "frames": []}
    if rc == 1 and "Traceback" in err:
        return {"outcome": "raised", "type": "cli.traceback", "mro": [], "msg": err[-2000:], "where": "",
                "frames": []}
    return {"outcome": "ok", "rc": rc}


def _run_link(case, scratch, i):
    from cudalite import linker

    classes = {"ptx": linker.PTXSource, "cubin": linker.Cubin, "fatbin": linker.Fatbin, "ltoir": linker.LTOIR,
               "object": linker.Object, "archive": linker.Archive, "cu": linker.CUSource}
    suffixes = {"ptx": ".ptx", "cubin": ".cubin", "fatbin": ".fatbin", "ltoir": ".ltoir", "object": ".o",
                "archive": ".a", "cu": ".cu"}
    codes = []
    for n, (kind, data) in enumerate(case["inputs"]):
        if case["op"] == "from_path":
            path = os.path.join(scratch, f"in_{i}_{n}{suffixes[kind]}")
            with open(path, "wb") as f:
                f.write(data)
            codes.append(linker.LinkableCode.from_path(path))
        else:
            codes.append(classes[kind](data, name=f"in{n}"))
    if case["op"] == "inspect":
        for code in codes:
            code.content_hash, repr(code), len(code)
            if isinstance(code, linker.Cubin):
                code.arch, code.symbol_names(), code.symbol_names(defined_only=False)
        return {"outcome": "ok"}
    lk = linker.Linker(case["arch"], options=linker.LinkerOptions(**case["options"]))
    lk.add(*codes)
    lk.link_ptx() if case["op"] == "link_ptx" else lk.link()
    return {"outcome": "ok"}


_RUNNERS = {"compile": _run_compile, "cli": _run_cli, "link": _run_link}


def main() -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # what the cases (and native libraries) print goes nowhere
    cases = [pickle.loads(base64.b64decode(line)) for line in sys.stdin.read().split()]
    sys.path[:] = [os.path.abspath(p) for p in sys.path]
    with tempfile.TemporaryDirectory(prefix="cudalite-fuzz-") as scratch:
        os.chdir(scratch)  # relative output paths of CLI cases land here, not in the checkout
        for i, case in cases:
            proto.write(json.dumps({"start": i}) + "\n")
            try:
                result = _RUNNERS[case["kind"]](case, scratch, i)
            except BaseException as e:  # noqa: BLE001 - the outcome to classify
                result = _describe(e)
            result["i"] = i
            proto.write(json.dumps(result) + "\n")
    proto.close()


if __name__ == "__main__":
    main()
