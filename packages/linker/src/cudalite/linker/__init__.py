"""cudalite.linker: linkable code, NVRTC for CUDA C++ sources, nvJitLink linking.

GPU-less: compiling, linking and packing fatbins (nvFatbin) need no driver and no GPU.  Knows nothing of
cudalite's typing or code generation, so any frontend can use it alone::

    from cudalite.linker import Linker, CUSource, PTXSource
    cubin = Linker("sm_90").add(CUSource(src, name="k.cu"), PTXSource(ptx)).link()
"""

from ._code import LTOIR, Archive, Cubin, CUSource, Fatbin, LinkableCode, Object, PTXSource
from ._fatbin import fatbin_archs, fatbin_cubins, fatbin_from_ptx, link_fatbin, make_fatbin
from ._errors import (
    InvalidInputError, LinkerError, LinkTimeout, MissingFileError, NvrtcError, ToolNotFoundError,
    UnknownFileTypeError,
)
from ._linker import Linker, link
from ._nvjitlink import LinkFailure, nvjitlink_version
from ._nvrtc import compile_cuda, cuda_include_dirs, nvrtc_version, parse_nvrtc_log
from ._options import LinkerOptions, linker_flags, normalize_arch
from ._validate import validate_input

__version__ = "0.1.0"  # the distribution's version (pyproject.toml)
__all__ = [
    "LinkableCode", "PTXSource", "CUSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR",
    "Linker", "LinkerOptions", "link", "linker_flags", "normalize_arch",
    "validate_input", "compile_cuda", "cuda_include_dirs", "parse_nvrtc_log", "nvrtc_version", "nvjitlink_version",
    "LinkerError", "LinkFailure", "NvrtcError", "MissingFileError", "UnknownFileTypeError",
    "InvalidInputError", "ToolNotFoundError", "LinkTimeout",
    "make_fatbin", "link_fatbin", "fatbin_archs", "fatbin_cubins", "fatbin_from_ptx",
]
