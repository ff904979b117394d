"""cudalite.core: frontend, typed IR, type inference, errors and the device-side
API typing.  Imports only numpy and the standard library; never a GPU library.

The typing rules register when ``cudalite.core.typing`` is first imported (every
compile imports it: ``TypingContext`` lives there), not when this package is: the
runtime's import (``cudalite.cuda`` needs the device-side stubs and the types)
stays free of the inference engine and its tables."""

from .errors import (  # noqa: F401
    CompilerError, CudaliteError, Loc, NvvmError, SignatureError, TypingError, UnsupportedError,
)

from . import exec_sources as _exec_sources  # noqa: E402

_exec_sources.install()  # keep the text of functions later made by exec() of a string (frontend source)

__version__ = "0.1.0"  # the distribution's version (pyproject.toml)
