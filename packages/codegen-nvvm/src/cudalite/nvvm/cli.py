"""``cudalite-compile``: compile a function from a Python file to PTX / LTO-IR.

    cudalite-compile mymod.py:add "float32(float32, float32)" --abi c --output ltoir -o add.ltoir
    cudalite-compile mymod.py:Ops.add "int32(int32, int32)" --emit nvvm-ir
    cudalite-compile mymod.py:add "float32(float32, float32)" --emit all -o build/add
    cudalite-compile mymod.py:saxpy "void(float32[::1], float32[::1], float32)" --kernel \
        --emit fatbin --cc 80,90,100 -o saxpy.fatbin      # ahead of time: one cubin per target

:func:`parse_args` is the one pure function that turns ``argv`` into a
:class:`Request`; :func:`run` does the work; :func:`main` maps errors to one
message on stderr (no traceback unless ``CUDALITE_FULL_TRACEBACK=1``, read by
:mod:`cudalite.nvvm.config`) and an exit status:

* 0 -- done;
* 1 -- the function could not be compiled (a compile error, a missing or failing
  input file, no such function) or the output could not be written (a full disk,
  a closed stdout, a reader that went away: ``| head``);
* 2 -- a usage error, found before anything is compiled: a bad option (``--cc
  nine``), an unparsable ``CUDALITE_*`` variable, ``-o`` naming the input file (also
  through a symlink or hard link) or a module it imports, ``-o`` naming a directory
  (a file for ``--emit all``) or a file in a missing directory, binary LTO-IR to a
  terminal;
* 130 -- interrupted (Ctrl-C).

Outputs are written all or nothing (:mod:`cudalite.nvvm._cli_output`).  The input
file is loaded under a private module name, its sibling modules found only after
stdlib and site-packages (:func:`load_module`).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.machinery
import importlib.util
import os
import stat
import sys
from dataclasses import dataclass

from ._cli_output import OutputError, missing_dirs, write_files, write_stdout

__all__ = ["Request", "CliError", "UsageError", "OutputPlan", "parse_args", "plan_outputs", "load_module",
           "load_function", "run", "main"]

PROG = "cudalite-compile"
OUTPUTS = ("ptx", "ltoir")
EMITS = ("source", "ast", "typed-ir", "nvvm-ir", "ptx", "ltoir", "fatbin", "all")
# File suffix of each stage when ``--emit all`` writes a directory.
SUFFIXES = {
    "source": ".source.py", "ast": ".ast.txt", "typed-ir": ".typed-ir.txt",
    "nvvm-ir": ".ll", "ptx": ".ptx", "ltoir": ".ltoir",
}


class CliError(Exception):
    """The input cannot be compiled: a missing or failing file, no such function (exit 1)."""


class UsageError(CliError):
    """The command line is wrong, found before compiling: ``-o`` names an input (exit 2)."""


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
    fatbin_ccs: tuple = ()  # --emit fatbin: every target (ComputeCapability), lowest first
    opt: int = 3
    fastmath: bool = False
    lineinfo: bool = False
    debug: bool = False
    forceinline: bool = False
    verbose: int = 0  # -v: INFO records of the cudalite loggers on stderr, -vv: DEBUG


def _parse_cc(text: str):
    """``--cc``: :func:`cudalite.core.target.parse_cc` of each comma-separated target (a
    tuple, lowest first; several only for ``--emit fatbin``), its error a usage error."""
    from cudalite.core.target import parse_cc

    parsed = {}
    try:
        for part in text.split(","):
            c = parse_cc(part.strip())
            parsed[c.arch] = c
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return tuple(sorted(parsed.values(), key=lambda c: (c.major, c.minor, c.arch_suffix)))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Compile a Python function to PTX or LTO-IR (no GPU needed).",
    )
    from . import __version__

    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("-v", "--verbose", action="count", default=0,
                   help="log on stderr: -v each stage that takes over 2 s, -vv every stage's time and "
                        "where each CUDA library was found")
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
                        "(default: CUDALITE_DEFAULT_CC, else 7.5); --emit fatbin takes a list: 80,90,100")
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
    ccs = ns.cc or ()
    if emit == "fatbin":
        if ns.device:
            p.error("--emit fatbin builds kernels: add --kernel (device functions are linked as PTX or LTO-IR)")
        if ns.output_path in (None, "-"):
            p.error("--emit fatbin is binary: give a file with -o FILE")
        if not ccs:
            p.error("--emit fatbin needs its targets: --cc 80,90,100")
    elif len(ccs) > 1:
        p.error(f"--cc lists {len(ccs)} targets: only --emit fatbin builds for several")
    return Request(
        path=path, qualname=qualname, signature=ns.signature, emit=emit, output_path=ns.output_path,
        output=output, fatbin_ccs=ccs if emit == "fatbin" else (),
        device=ns.device, abi=abi, abi_name=ns.abi_name, cc=ccs[0] if ccs else None, opt=ns.opt,
        fastmath=ns.fastmath,
        lineinfo=ns.lineinfo, debug=ns.debug, forceinline=ns.forceinline, verbose=ns.verbose,
    )


class _SiblingFinder:
    """Finds the user's sibling modules (``import helpers`` next to ``mymod.py``).

    Appended to :data:`sys.meta_path`, so it is asked only after every other finder
    has found nothing: stdlib, site-packages and namespace packages (``cuda``) always
    win over a ``cuda.py``, ``random.py`` or ``numpy.py`` lying next to the input.
    (Appending the folder to ``sys.path`` would not do: a module anywhere on the path
    beats a namespace package.)"""

    def __init__(self, folder: str):
        self.folder = folder

    def find_spec(self, fullname, path=None, target=None):
        if path is not None or "." in fullname:
            return None  # submodules of a sibling package are found through its __path__
        return importlib.machinery.PathFinder.find_spec(fullname, [self.folder])


def private_module_name(path: str) -> str:
    """The ``sys.modules`` key of the user's file: private, one per absolute path."""
    digest = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogateescape")).hexdigest()
    return f"_cudalite_cli_user_{digest[:16]}"


def load_module(path: str):
    """Execute the file ``path``; return ``(module, sources)``.

    The module is registered in :data:`sys.modules` under :func:`private_module_name`
    only, so it never replaces nor is mistaken for another module (a file named
    ``random.py`` or ``numpy.py`` compiles, and ``import random`` elsewhere still gets
    the standard one).  Its ``__name__`` is the file's stem, as ``import mymod`` would
    give it, so mangled (``--abi numba``, kernel) symbol names do not depend on where
    the file lies.  Its sibling imports are found after stdlib and site-packages
    (:class:`_SiblingFinder`).  ``sources`` are the files of the module and of every
    module its execution imported: inputs an output must never overwrite."""
    if not os.path.isfile(path):
        raise CliError(f"{path}: no such file")
    abspath = os.path.abspath(path)
    name = private_module_name(abspath)
    stem = os.path.splitext(os.path.basename(abspath))[0]
    # the loader is told the stem: it checks the name of the module it executes
    loader = importlib.machinery.SourceFileLoader(stem, abspath)
    spec = importlib.util.spec_from_file_location(name, abspath, loader=loader)
    if spec is None:
        raise CliError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    module.__name__ = stem
    before = set(sys.modules)
    sys.modules[name] = module  # found by name (inspect, dataclasses) while it runs and after
    finder = _SiblingFinder(os.path.dirname(abspath))
    sys.meta_path.append(finder)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(name, None)
        raise CliError(f"{e.filename}:{e.lineno}:{e.offset or 0}: SyntaxError: {e.msg}") from None
    except Exception as e:
        sys.modules.pop(name, None)
        raise CliError(f"{path}: importing the module failed: {type(e).__name__}: {e}") from None
    finally:
        sys.meta_path.remove(finder)
    sources = [abspath]
    for key in sorted(set(sys.modules) - before - {name}):
        file = getattr(sys.modules.get(key), "__file__", None)
        if isinstance(file, str) and file not in sources:
            sources.append(file)
    return module, tuple(sources)


def find_function(module, path: str, qualname: str):
    """``qualname`` in ``module`` (a jit-decorated function gives its ``py_func``)."""
    obj = module
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise CliError(f"{path}: no function {qualname!r} (no attribute {part!r})") from None
    obj = getattr(obj, "py_func", obj)  # a jit-decorated function
    from cudalite.core.frontend import python_function

    try:
        return python_function(obj)  # a C-level wrapper: its __wrapped__, with a warning
    except TypeError:
        raise CliError(f"{path}:{qualname} is not a Python function ({type(obj).__name__})") from None


def load_function(path: str, qualname: str):
    """Load ``path`` (:func:`load_module`) and return ``qualname`` from it."""
    module, _ = load_module(path)
    return find_function(module, path, qualname)


def compile_request(req: Request, pyfunc=None) -> dict:
    """Run the pipeline for ``req``: ``{stage: Artifact}`` for the stages asked for."""
    from .api import compile_stages

    if pyfunc is None:
        pyfunc = load_function(req.path, req.qualname)
    kwargs = dict(
        device=req.device, abi=req.abi, abi_info={"abi_name": req.abi_name} if req.abi_name else None,
        cc=req.cc, opt=req.opt, fastmath=req.fastmath, lineinfo=req.lineinfo, debug=req.debug,
    )
    if req.emit == "fatbin":
        return {"fatbin": _fatbin(req, pyfunc, compile_stages(pyfunc, req.signature, output="ptx", **kwargs))}
    if req.emit != "all":
        stages = compile_stages(pyfunc, req.signature, output=req.output,
                                forceinline=req.forceinline, **kwargs)
        return {req.emit: stages[req.emit]}
    stages = compile_stages(pyfunc, req.signature, output="ptx", **kwargs)
    lto = compile_stages(pyfunc, req.signature, output="ltoir", forceinline=req.forceinline, **kwargs)
    stages["ltoir"] = lto["ltoir"]
    return stages


FATBIN_PLUGINS = "cudalite.compile_outputs"  # the entry-point group a linking package registers in


def _fatbin(req: Request, pyfunc, stages):
    """``--emit fatbin``: the kernel's PTX (made for the lowest target) handed to the
    ``fatbin`` entry point of the :data:`FATBIN_PLUGINS` group -- cudalite-linker registers
    one that links it for every target (nvJitLink) and packs the cubins (nvFatbin).  The
    compiler imports no linker: the package that links extends the command."""
    from importlib.metadata import entry_points

    from .artifacts import Artifact

    found = list(entry_points(group=FATBIN_PLUGINS, name="fatbin"))
    if not found:
        raise CliError("--emit fatbin needs a package that links and packs fatbins: pip install cudalite-linker "
                       "(or cudalite-nvvm[fatbin])")
    ptx = stages["ptx"]
    archs = [c.arch for c in req.fatbin_ccs]
    try:
        data = found[0].load()(ptx.data, archs, pyfunc.__name__)
    except Exception as e:  # the plugin's own error (LinkerError...): reported, not a traceback
        raise CliError(f"linking {req.qualname} for {', '.join(archs)} failed: {type(e).__name__}: {e}") from None
    return Artifact("fatbin", data, ptx.name)


# -- outputs: planned and checked before compiling, written all or nothing -------------------
@dataclass(frozen=True)
class OutputPlan:
    """Where each stage goes: ``files`` maps a stage to its (resolved) path; no
    files means stdout.  ``make_dirs``: directories ``--emit all`` creates."""

    files: tuple = ()  # ((stage, path), ...)
    make_dirs: tuple = ()


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)  # follows symlinks; equal inodes catch hard links
    except OSError:
        return False


def _check_target(path: str, inputs, shown: str) -> str:
    """The path to write for the output ``path``; :class:`UsageError` when it is a
    directory or one of ``inputs`` (also through a symlink or a hard link)."""
    if os.path.isdir(path):
        raise UsageError(f"-o {shown} is a directory; give a file name (a directory is for --emit all)")
    for src in inputs:
        if _same_file(path, src):
            raise UsageError(f"-o {shown} is the input file {src}; refusing to overwrite it")
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        special = False
    # a special file is written in place (by its absolute path: its directory is checked next);
    # a symlinked output is written through
    return os.path.abspath(path) if special else os.path.realpath(path)


def plan_outputs(req: Request, inputs=()) -> OutputPlan:
    """Check ``-o`` before anything is compiled or written (:class:`UsageError`)."""
    inputs = (req.path, *inputs) if os.path.exists(req.path) else tuple(inputs)
    if req.emit != "all":
        if req.output_path in (None, "-"):
            return OutputPlan()
        target = _check_target(req.output_path, inputs, req.output_path)
        parent = os.path.dirname(target)
        if not os.path.isdir(parent):
            raise UsageError(f"-o {req.output_path}: directory {parent} does not exist")
        return OutputPlan(files=((req.emit, target),))
    folder = req.output_path
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UsageError(f"-o {folder} is not a directory (--emit all writes one file per stage into it)")
    base = req.abi_name or req.qualname.rsplit(".", 1)[-1]
    files = []
    for stage, suffix in SUFFIXES.items():
        path = os.path.join(folder, base + suffix)
        files.append((stage, _check_target(path, inputs, path)))
    return OutputPlan(files=tuple(files), make_dirs=tuple(missing_dirs(folder)))


def run(req: Request, stdout) -> None:
    """Compile and write the result to ``req.output_path`` (a file, a directory, or ``stdout``).

    Everything that can be checked before compiling is: ``-o`` (:func:`plan_outputs`),
    a closed stdout, binary output to a terminal.  Outputs are then written all or
    nothing (:func:`cudalite.nvvm._cli_output.write_files`): a failed compile or write
    leaves no output file, no temporary file and the old outputs untouched."""
    plan = plan_outputs(req)
    if not plan.files:
        if stdout is None or getattr(stdout, "closed", False):
            raise OutputError("standard output is closed; write to a file with -o FILE")
        if req.emit in ("ltoir", "fatbin") and stdout.isatty():
            raise UsageError(f"{req.emit} is binary; write it to a file with -o FILE")
    module, sources = load_module(req.path)
    pyfunc = find_function(module, req.path, req.qualname)
    plan = plan_outputs(req, sources)  # again: no output may overwrite a module the input imported
    stages = compile_request(req, pyfunc)
    if not plan.files:
        write_stdout(stdout, stages[req.emit].data)
        return
    write_files([(path, stages[stage].data) for stage, path in plan.files if stage in stages],
                make_dirs=plan.make_dirs)


def format_error(exc: BaseException) -> str:
    """One line ``file:line:col: Kind: message``, then the source line and a caret."""
    from cudalite.core.errors import CompilerError

    if isinstance(exc, (CliError, OutputError)):
        return f"{PROG}: error: {exc}"
    if isinstance(exc, CompilerError) and exc.loc is not None:
        head, *rest = exc.loc.render().split("\n")
        lines = [f"{head}: {exc.kind}: {exc.msg}", *rest, *exc.notes]
        return "\n".join(lines)
    kind = getattr(exc, "kind", None) or type(exc).__name__
    return f"{PROG}: error: {kind}: {exc}"


def _report(message: str) -> None:
    """``message`` on stderr, if there is one (``2>&-`` closes it; print would fall back to stdout)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(message + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def main(argv=None) -> int:
    """Entry point of ``cudalite-compile``; returns the exit status (see the module docstring)."""
    from cudalite.core.errors import CudaliteError

    from .config import load_config

    req = parse_args(sys.argv[1:] if argv is None else argv)
    if req.verbose:
        from cudalite.core.progress import log_to_stderr

        log_to_stderr(req.verbose)
    try:
        config = load_config()
    except ValueError as e:  # a bad CUDALITE_* variable: reported like a usage error
        _report(f"{PROG}: error: {e}")
        return 2
    try:
        run(req, sys.stdout)
    except UsageError as e:
        _report(format_error(e))
        return 2
    except (CudaliteError, CliError, OutputError, OSError, ValueError) as e:
        if config.full_traceback:
            raise
        _report(format_error(e))
        return 1
    except KeyboardInterrupt:
        _report(f"{PROG}: interrupted")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
