"""``cudalite-compile``: compile a function from a Python file to PTX / LTO-IR.

    cudalite-compile mymod.py:add "float32(float32, float32)" --abi c --output ltoir -o add.ltoir
    cudalite-compile mymod.py:Ops.add "int32(int32, int32)" --emit nvvm-ir
    cudalite-compile mymod.py:add "float32(float32, float32)" --emit all -o build/add

:func:`parse_args` is the one pure function that turns ``argv`` into a
:class:`Request`; :func:`run` does the work; :func:`main` maps errors to a
message on stderr and exit status 1 (no traceback unless
``CUDALITE_FULL_TRACEBACK=1``, read by :mod:`cudalite.nvvm.config`).  Usage
errors -- a bad option such as ``--cc nine``, or an unparsable ``CUDALITE_*``
variable -- exit with status 2 and one message, no traceback.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from dataclasses import dataclass

__all__ = ["Request", "CliError", "parse_args", "run", "main"]

PROG = "cudalite-compile"
OUTPUTS = ("ptx", "ltoir")
EMITS = ("source", "ast", "typed-ir", "nvvm-ir", "ptx", "ltoir", "all")
# File suffix of each stage when ``--emit all`` writes a directory.
SUFFIXES = {
    "source": ".source.py", "ast": ".ast.txt", "typed-ir": ".typed-ir.txt",
    "nvvm-ir": ".ll", "ptx": ".ptx", "ltoir": ".ltoir",
}


class CliError(Exception):
    """A usage error: bad function spec, missing file, bad option value."""


@dataclass(frozen=True)
class Request:
    """Everything one invocation asks for (the parsed command line)."""

    path: str
    qualname: str
    signature: str
    emit: str  # a stage name or 'all'
    output_path: str | None  # None or '-' means stdout; a directory for emit='all'
    output: str = "ptx"  # the code libNVVM is asked for: 'ptx' | 'ltoir'
    device: bool = True
    abi: str = "c"
    abi_name: str | None = None
    cc: object = None  # a cudalite.core.target.ComputeCapability; None: CUDALITE_DEFAULT_CC
    opt: int = 3
    fastmath: bool = False
    lineinfo: bool = False
    debug: bool = False
    forceinline: bool = False


def _parse_cc(text: str):
    """``--cc``: :func:`cudalite.core.target.parse_cc`, its error as a usage error."""
    from cudalite.core.target import parse_cc

    try:
        return parse_cc(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Compile a Python function to PTX or LTO-IR (no GPU needed).",
    )
    p.add_argument("function", metavar="FILE.py:FUNC", help="Python file and function (qualified name allowed)")
    p.add_argument("signature", help='signature, e.g. "float32(float32, float32)" or "void(float32[:])"')
    p.add_argument("--output", choices=OUTPUTS, default=None, help="code to produce (default ptx)")
    p.add_argument("--emit", choices=EMITS, default=None,
                   help="stage to write (default: the --output code); 'all' writes every stage into -o DIR")
    p.add_argument("-o", dest="output_path", metavar="PATH", default=None,
                   help="output file ('-' or omitted: stdout), or directory for --emit all")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--device", dest="device", action="store_true", default=True,
                      help="compile a device function (default)")
    kind.add_argument("--kernel", dest="device", action="store_false", help="compile a kernel (.entry)")
    p.add_argument("--abi", choices=("c", "numba"), default=None,
                   help="calling convention of a device function (default c; kernels use numba)")
    p.add_argument("--abi-name", default=None, metavar="NAME", help="symbol name of the C-ABI function")
    p.add_argument("--cc", type=_parse_cc, default=None, metavar="CC",
                   help="target compute capability: 90, 9.0, sm_90, sm_90a or compute_90 "
                        "(default: CUDALITE_DEFAULT_CC, else 7.5)")
    p.add_argument("--opt", type=int, choices=(0, 1, 2, 3), default=3, help="libNVVM optimisation level")
    p.add_argument("--fastmath", action="store_true", help="ftz, fma, approximate division and sqrt")
    p.add_argument("--lineinfo", action="store_true", help="emit .loc line information")
    p.add_argument("--debug", action="store_true", help="emit debug information (implies -opt=0)")
    p.add_argument("--forceinline", action="store_true", help="mark the function alwaysinline (LTO-IR only)")
    return p


def parse_args(argv) -> Request:
    """Turn the argument list into a :class:`Request` (pure; argparse exits on usage errors)."""
    p = _parser()
    ns = p.parse_args(list(argv))
    path, sep, qualname = ns.function.rpartition(":")
    if not sep or not path or not qualname:
        p.error(f"expected FILE.py:FUNC, got {ns.function!r}")
    if ns.output and ns.emit and ns.emit in OUTPUTS and ns.emit != ns.output:
        p.error(f"--emit {ns.emit} contradicts --output {ns.output}")
    emit = ns.emit or ns.output or "ptx"
    if emit == "all" and ns.output_path in (None, "-"):
        p.error("--emit all writes one file per stage: give a directory with -o DIR")
    abi = ns.abi or ("c" if ns.device else "numba")
    if not ns.device and abi == "c":
        p.error("the C ABI is for device functions only; kernels use --abi numba")
    if ns.abi_name is not None and not ns.device:
        p.error("--abi-name applies to device functions only")
    output = ns.output or ("ltoir" if emit == "ltoir" else "ptx")
    if ns.forceinline and output != "ltoir" and emit != "all":
        p.error("--forceinline needs --output ltoir")
    return Request(
        path=path, qualname=qualname, signature=ns.signature, emit=emit, output_path=ns.output_path,
        output=output,
        device=ns.device, abi=abi, abi_name=ns.abi_name, cc=ns.cc, opt=ns.opt, fastmath=ns.fastmath,
        lineinfo=ns.lineinfo, debug=ns.debug, forceinline=ns.forceinline,
    )


def load_function(path: str, qualname: str):
    """Import ``path`` as a module named after its stem and return ``qualname`` from it."""
    if not os.path.isfile(path):
        raise CliError(f"{path}: no such file")
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    if spec is None or spec.loader is None:
        raise CliError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    registered = name not in sys.modules
    if registered:
        sys.modules[name] = module  # so the module can be found by name while it runs
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)  # sibling imports of the user's module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise CliError(f"{e.filename}:{e.lineno}:{e.offset or 0}: SyntaxError: {e.msg}") from None
    except Exception as e:
        raise CliError(f"{path}: importing the module failed: {type(e).__name__}: {e}") from None
    finally:
        sys.path.remove(folder)
    obj = module
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise CliError(f"{path}: no function {qualname!r} (no attribute {part!r})") from None
    obj = getattr(obj, "py_func", obj)  # a jit-decorated function
    if not callable(obj) or not hasattr(obj, "__code__"):
        raise CliError(f"{path}:{qualname} is not a Python function ({type(obj).__name__})")
    return obj


def compile_request(req: Request) -> dict:
    """Run the pipeline for ``req``: ``{stage: Artifact}`` for the stages asked for."""
    from .api import compile_stages

    pyfunc = load_function(req.path, req.qualname)
    kwargs = dict(
        device=req.device, abi=req.abi, abi_info={"abi_name": req.abi_name} if req.abi_name else None,
        cc=req.cc, opt=req.opt, fastmath=req.fastmath, lineinfo=req.lineinfo, debug=req.debug,
    )
    if req.emit != "all":
        stages = compile_stages(pyfunc, req.signature, output=req.output,
                                forceinline=req.forceinline, **kwargs)
        return {req.emit: stages[req.emit]}
    stages = compile_stages(pyfunc, req.signature, output="ptx", **kwargs)
    lto = compile_stages(pyfunc, req.signature, output="ltoir", forceinline=req.forceinline, **kwargs)
    stages["ltoir"] = lto["ltoir"]
    return stages


def _write(path: str, data) -> None:
    mode = "w" if isinstance(data, str) else "wb"
    with open(path, mode) as f:
        f.write(data)


def run(req: Request, stdout) -> None:
    """Compile and write the result to ``req.output_path`` (a file, a directory, or ``stdout``)."""
    stages = compile_request(req)
    if req.emit == "all":
        os.makedirs(req.output_path, exist_ok=True)
        base = req.abi_name or req.qualname.rsplit(".", 1)[-1]
        for stage, art in stages.items():
            _write(os.path.join(req.output_path, base + SUFFIXES[stage]), art.data)
        return
    data = stages[req.emit].data
    if req.output_path not in (None, "-"):
        parent = os.path.dirname(os.path.abspath(req.output_path))
        if not os.path.isdir(parent):
            raise CliError(f"{req.output_path}: directory {parent} does not exist")
        _write(req.output_path, data)
    elif isinstance(data, str):
        stdout.write(data if data.endswith("\n") else data + "\n")
        stdout.flush()
    else:
        if stdout.isatty():
            raise CliError(f"{req.emit} is binary; write it to a file with -o FILE")
        stdout.buffer.write(data)
        stdout.flush()


def format_error(exc: BaseException) -> str:
    """One line ``file:line:col: Kind: message``, then the source line and a caret."""
    from cudalite.core.errors import CompilerError

    if isinstance(exc, CliError):
        return f"{PROG}: error: {exc}"
    if isinstance(exc, CompilerError) and exc.loc is not None:
        head, *rest = exc.loc.render().split("\n")
        lines = [f"{head}: {exc.kind}: {exc.msg}", *rest, *exc.notes]
        return "\n".join(lines)
    kind = getattr(exc, "kind", None) or type(exc).__name__
    return f"{PROG}: error: {kind}: {exc}"


def main(argv=None) -> int:
    """Entry point of ``cudalite-compile``; returns the exit status."""
    from cudalite.core.errors import CudaliteError

    from .config import load_config

    req = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        config = load_config()
    except ValueError as e:  # a bad CUDALITE_* variable: reported like a usage error
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    try:
        run(req, sys.stdout)
    except (CudaliteError, CliError, OSError, ValueError) as e:
        if config.full_traceback:
            raise
        print(format_error(e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
