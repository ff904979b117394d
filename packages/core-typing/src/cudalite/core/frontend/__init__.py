"""The frontend: Python source -> AST -> cudalite IR (with locations)."""

from ._build import build_ir
from ._source import SourceInfo, capture

__all__ = ["build_ir", "capture", "SourceInfo"]
