"""Progress of long compile stages, through :mod:`logging`.

libNVVM compiles a module in one blocking call: a 1,500-statement kernel spends
~24 s there.  :func:`reporting` wraps a stage; when its logger is enabled for INFO
(``cudalite-compile -v``, or ``logging.basicConfig(level=logging.INFO)`` in a
program) a watcher thread logs "still compiling <what>: <stage> stage, N s so far"
after ``after`` seconds and every ``every`` seconds after that, and the stage's
total once it ends.  With INFO off it starts no thread and costs one level check.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager

__all__ = ["reporting", "log_to_stderr", "PROGRESS_AFTER", "PROGRESS_EVERY"]

PROGRESS_AFTER = 2.0  # seconds before the first report
PROGRESS_EVERY = 5.0  # seconds between later reports


@contextmanager
def reporting(logger: logging.Logger, what: str, stage: str, after: float = PROGRESS_AFTER,
              every: float = PROGRESS_EVERY):
    """Report on ``logger`` (INFO) while the ``with`` body runs longer than ``after`` s."""
    if not logger.isEnabledFor(logging.INFO):
        yield
        return
    t0 = time.perf_counter()
    done = threading.Event()

    def watch():
        wait = after
        while not done.wait(wait):
            logger.info("still compiling %s: %s stage, %.1f s so far", what, stage, time.perf_counter() - t0)
            wait = every

    watcher = threading.Thread(target=watch, name="cudalite-progress", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        elapsed = time.perf_counter() - t0
        if elapsed >= after:
            logger.info("compiled %s: %s stage took %.1f s", what, stage, elapsed)


def log_to_stderr(verbosity: int) -> None:
    """Show the ``cudalite`` loggers' records on stderr: INFO for ``verbosity`` 1 (``-v``:
    one line per compile, progress of long stages), DEBUG for 2 and more (``-vv``: every
    stage, cache lookups, where each CUDA library was found).  For command-line tools
    only: a library never configures logging."""
    if verbosity <= 0:
        return
    import sys

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(levelname)s: %(message)s"))
    logger = logging.getLogger("cudalite")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbosity > 1 else logging.INFO)
