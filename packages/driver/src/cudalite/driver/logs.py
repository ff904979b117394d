"""The loggers cudalite's packages write to, created on first use.

A library must not print through Python's "last resort" handler (which shows WARNING
records on stderr when a program configured no logging): the top ``cudalite`` logger
gets a ``NullHandler`` the first time a package asks for a logger here, so warnings
reach users once, through :mod:`warnings`, and logging only where the program asked
(docs/logging.md).  It is done on first use rather than at import: importing
:mod:`logging` costs ~5 ms, which ``import cudalite`` does not pay.
"""

from __future__ import annotations

__all__ = ["library_logger"]


def library_logger(name: str):
    """``logging.getLogger(name)``, with the ``cudalite`` logger's NullHandler in place."""
    import logging

    top = logging.getLogger("cudalite")
    if not any(isinstance(h, logging.NullHandler) for h in top.handlers):
        top.addHandler(logging.NullHandler())
    return logging.getLogger(name)
