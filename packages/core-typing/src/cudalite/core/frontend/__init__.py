"""The frontend: Python source -> AST -> cudalite IR (with locations)."""

from ._build import build_ir
from ._source import SourceInfo, capture, python_function

__all__ = ["build_ir", "capture", "python_function", "SourceInfo"]
