"""Moved to :mod:`cudalite.cuda._dispatch` (transitional re-export)."""
from ._dispatch.device import DeviceDispatcher  # noqa: F401
from ._dispatch.decorator import jit  # noqa: F401
from ._dispatch.kernel import CUDADispatcher, ForAll  # noqa: F401
