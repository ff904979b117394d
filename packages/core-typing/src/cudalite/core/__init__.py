"""cudalite.core: frontend, typed IR, type inference, errors and the device-side
API typing.  Imports only numpy and the standard library; never a GPU library."""

from . import typing as _typing  # noqa: F401  (registers the built-in typing rules)
from .errors import (  # noqa: F401
    CompilerError, CudaliteError, Loc, NvvmError, SignatureError, TypingError, UnsupportedError,
)
