"""``cuda.cudadrv.runtime``: numba's module path of ``runtime`` (the toolkit version)."""

from .. import runtime  # noqa: F401
from ..runtime import SUPPORTED_TOOLKIT_MAJOR_VERSIONS, get_version, is_supported_version  # noqa: F401

__all__ = ["runtime", "get_version", "is_supported_version", "SUPPORTED_TOOLKIT_MAJOR_VERSIONS"]
