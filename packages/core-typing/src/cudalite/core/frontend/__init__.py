"""The frontend: Python source -> AST -> cudalite IR (with locations)."""

from . import _build
from ._source import SourceInfo, capture, python_function
from ._validate import check_function, check_ir

__all__ = ["build_ir", "capture", "python_function", "SourceInfo"]


def build_ir(func):
    """The checked :class:`~cudalite.core.ir.FunctionIR` of ``func``: coroutines and
    generators are refused before its source is read, ``raise`` of a non-exception
    and device-side uses of host-only objects (kernels) after it is built."""
    check_function(func)
    fir = _build.build_ir(func)
    check_ir(fir)
    return fir
