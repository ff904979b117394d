"""The per-compile timing line's logger, ``cudalite.cuda.timings`` (docs/logging.md).

``CUDALITE_TIMINGS=1`` gives it a handler printing the bare line on the ``sys.stderr``
of the moment; without the variable the INFO record goes wherever the program's
logging sends it.  Imported on the first compile that reports, not with the package.
"""

from __future__ import annotations

import logging
import sys

from cudalite.driver.logs import library_logger

__all__ = ["TIMINGS_LOGGER", "timings_logger"]

TIMINGS_LOGGER = "cudalite.cuda.timings"


class _CurrentStderr(logging.StreamHandler):
    """A handler writing each record to the ``sys.stderr`` of the moment (a test's or an
    IDE's replacement included), as ``print(file=sys.stderr)`` did."""

    def emit(self, record):
        self.setStream(sys.stderr)
        super().emit(record)


def timings_logger(to_stderr: bool) -> logging.Logger:
    """The timing lines' logger.  ``to_stderr`` (``CUDALITE_TIMINGS=1``): also give it a
    handler printing the bare line on stderr (added once; the line then does not
    propagate, so a program that also configured logging does not see it twice)."""
    logger = library_logger(TIMINGS_LOGGER)
    if to_stderr and not any(isinstance(h, _CurrentStderr) for h in logger.handlers):
        handler = _CurrentStderr(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger
