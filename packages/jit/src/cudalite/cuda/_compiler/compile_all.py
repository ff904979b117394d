"""``cuda.compile_all``: a function's code and the code it must be linked with.

numba-cuda's ``compile_all(pyfunc, sig, ...)`` returns ``(codes, resty)``: first the
function's own PTX (``output='ptx'``) or LTO-IR (``output='ltoir'``, the default),
then every linkable item its foreign calls need (``declare_device(..., link=...)``,
``@cuda.jit(link=...)`` of a called device function): CUDA C++ sources compiled
with NVRTC to the same output kind, any other code (PTX, cubin, fatbin, object,
archive, LTO-IR) as a :class:`cudalite.linker.LinkableCode` object.  A caller links
them all itself (e.g. into a C++ program with nvJitLink).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

from cudalite.core.errors import CudaliteError, NumbaInvalidConfigWarning
from cudalite.core.frontend import python_function
from cudalite.linker import CUSource, LinkableCode, compile_cuda, normalize_arch
from cudalite.linker.config import load_config as linker_config
from cudalite.nvvm import make_options
from cudalite.nvvm.api import check_output, target_cc
from cudalite.nvvm.lower import is_symbol_name
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

from .api import _pyfunc
from .compile_code import reraise_located

__all__ = ["compile_all"]


def _entry(device, abi, abi_info):
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi} (the ABI is 'numba' or 'c')")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels: the C ABI is for device functions only; "
                                  "compile kernels with abi='numba'")
    abi_info = {} if abi_info is None else abi_info
    if not isinstance(abi_info, Mapping) or set(abi_info) - {"abi_name"}:
        raise ValueError(f"abi_info must be a dict whose only key is 'abi_name', not {abi_info!r}")
    name = abi_info.get("abi_name")
    if name is not None and not (isinstance(name, str) and is_symbol_name(name)):
        raise ValueError(f"abi_info['abi_name'] {name!r} is not a valid symbol name")
    return EntrySpec(device=bool(device), abi=abi, abi_name=name)


def _linked_code(item, output, arch, debug, lineinfo):
    """One link item as compile_all returns it: a CUDA C++ source compiled by NVRTC
    (its own folder searched for headers), anything else as a LinkableCode."""

    path = os.fspath(item) if isinstance(item, (str, os.PathLike)) else None
    code = item if isinstance(item, LinkableCode) else LinkableCode.from_path(path)
    if not isinstance(code, CUSource):
        return code
    include_dirs = ((os.path.dirname(os.path.abspath(path)),) if path else ()) + linker_config().extra_search_paths
    options = (["-G"] if debug else []) + (["-lineinfo"] if lineinfo and not debug else [])
    config = linker_config()
    compiled = compile_cuda(code, arch=arch, lto=(output == "ltoir"), include_dirs=include_dirs,
                            options=options, cuda_include_path=config.cuda_include_path,
                            isolate=config.isolate, timeout=config.link_timeout)
    return compiled.data if output == "ltoir" else compiled.text


def compile_all(pyfunc: Any, sig: Any, debug: bool | None = None, lineinfo: bool = False, device: bool = True,
                fastmath: Any = False, cc: Any = None, opt: int | None = None, abi: str = "c",
                abi_info: Mapping[str, Any] | None = None, output: str = "ltoir", forceinline: bool = False,
                launch_bounds: Any = None) -> tuple[list, Any]:
    """Compile ``pyfunc`` for ``sig`` and return ``(codes, resty)``.

    Parameters
    ----------
    pyfunc : function or dispatcher
        The Python function (or a ``@cuda.jit`` kernel / device function).
    sig : str or Signature
        Its signature.
    debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, launch_bounds
        As for :func:`cudalite.cuda.compile` (``device`` defaults to True, ``abi`` to 'c').
    output : {'ltoir', 'ptx'}
        The kind of the function's code and of compiled CUDA C++ link items.
    forceinline : bool
        Force inlining of the function into its callers (LTO-IR only).

    Returns
    -------
    tuple
        ``(codes, resty)``: ``codes[0]`` is the function's PTX (str) or LTO-IR (bytes);
        then one entry per link item its foreign calls need, in order (each content
        once).

    Raises
    ------
    NotImplementedError
        ``output`` is neither 'ptx' nor 'ltoir', an unknown ``abi``, or ``abi='c'`` (the default)
        for a kernel (``device=False``: pass ``abi='numba'``).
    ValueError
        ``forceinline`` with ``output='ptx'``; invalid ``abi_info`` or options.
    CompilerError
        The function does not compile (located).
    cudalite.linker.NvrtcError
        A CUDA C++ link item does not compile.
    """
    check_output(output)
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR (output='ltoir')")
    debug = False if debug is None else debug  # make_options refuses a non-bool (debug="no" is not True)
    entry = _entry(device, abi, abi_info)
    options = make_options(cc=target_cc(cc), opt=(False if debug and opt is None else opt), fastmath=fastmath,
                           debug=debug, lineinfo=lineinfo, output=output, forceinline=forceinline,
                           launch_bounds=launch_bounds)
    if debug and opt:
        warnings.warn("debug=True with opt=True is not supported by CUDA: optimizations may make debugging "
                      "less useful (pass opt=False)", NumbaInvalidConfigWarning, stacklevel=2)
    pyfunc = python_function(_pyfunc(pyfunc), stacklevel=2)
    err: CudaliteError | None
    try:
        res = run_pipeline(pyfunc, sig, entry, options, until=output)
    except CudaliteError as e:
        err = e
    else:
        err = None
    if err is not None:
        reraise_located(err, pyfunc)
    codes = [res.artifacts[output].data]
    arch = normalize_arch(f"sm_{options.cc[0]}{options.cc[1]}{options.arch_suffix}")
    seen = set()
    for item in res.link_items:
        code = _linked_code(item, output, arch, debug, lineinfo)
        key = code.content_hash if isinstance(code, LinkableCode) else code
        if key not in seen:
            seen.add(key)
            codes.append(code)
    return codes, res.return_type
