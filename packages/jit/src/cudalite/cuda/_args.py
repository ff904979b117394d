"""Moved: the argument kinds are :mod:`cudalite.cuda._launch` (kinds, keys, arrays...).
A transitional re-export while the package is reorganised; removed with it."""
from ._launch.arrays import needs_wait as _needs_wait, stream_wait as _stream_wait  # noqa: F401
from ._launch.keys import key_to_type  # noqa: F401
