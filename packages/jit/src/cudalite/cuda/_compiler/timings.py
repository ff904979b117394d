"""The per-compile timing line (``CUDALITE_TIMINGS``) and its logger (docs/logging.md).

:func:`report_timings` formats one line per compile from the build loop's record
(``stages.run_build``): the stages in pipeline order, each nested loop's parts, then
``other`` (time outside every stage) and ``total`` -- the parts add up to the total.
The logger is ``cudalite.cuda.timings``:
``CUDALITE_TIMINGS=1`` gives it a handler printing the bare line on the ``sys.stderr``
of the moment; without the variable the INFO record goes wherever the program's
logging sends it.  Imported on the first compile that reports, not with the package.
"""

from __future__ import annotations

import logging
import sys

from cudalite.driver.logs import library_logger

from ..config import load_config

__all__ = ["TIMINGS_LOGGER", "timings_logger", "report_timings", "report_if_asked", "ORDER"]

#: the order of the parts on the line: the wait for the background warm-up's imports
#: (``_runtime.warmup``), the compiler's stages, then the runtime's
ORDER = ("warmup", "parse", "infer", "key", "cache", "lower", "nvvm", "link", "fatbin", "store", "load", "launcher",
         "other")

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


def report_timings(qualname, argtypes, timings, status, file=None, to_stderr=True):
    """One line per compile, ``cudalite: compiled f(types) [cache: hit] parse=..ms ...``:
    written to ``file`` when given, else logged at INFO on ``cudalite.cuda.timings``
    (with ``to_stderr``, as ``CUDALITE_TIMINGS=1`` asks, printed on stderr too)."""
    parts = [f"{k}={timings[k] * 1e3:.2f}ms" for k in ORDER if k in timings]
    parts += [f"{k}={v * 1e3:.2f}ms" for k, v in timings.items() if k not in ORDER and k != "total"]
    total = timings.get("total", sum(v for k, v in timings.items() if k != "total"))
    line = (f"cudalite: compiled {qualname}({', '.join(map(str, argtypes))}) [cache: {status}] "
            f"{' '.join(parts)} total={total * 1e3:.2f}ms")
    if file is not None:
        print(line, file=file, flush=True)
        return
    timings_logger(to_stderr).info("%s", line)


def report_if_asked(qualname, argtypes, timings, status):
    """:func:`report_timings` when ``CUDALITE_TIMINGS=1`` or the program enabled INFO on
    the timing lines' logger; nothing (and no logging work) otherwise."""

    to_stderr = load_config().timings
    if to_stderr or logging.getLogger(TIMINGS_LOGGER).isEnabledFor(logging.INFO):
        report_timings(qualname, argtypes, timings, status, to_stderr=to_stderr)
