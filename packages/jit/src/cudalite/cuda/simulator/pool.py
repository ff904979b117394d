"""A pool of reusable Python threads that run the simulated CUDA threads of a
block (or of a grid under grid sync) concurrently.

Starting a Python thread costs far more than handing work to a waiting one, so
the pool keeps its threads between blocks and launches, and grows to the
largest number of simulated threads run at once.  One launch uses the pool at a
time; each call of :meth:`WorkerPool.run` gives every callable its own thread.
"""

from __future__ import annotations

import queue
import threading

__all__ = ["WorkerPool"]


class _Latch:
    def __init__(self, count: int):
        self._count = count
        self._cond = threading.Condition()

    def count_down(self):
        with self._cond:
            self._count -= 1
            if self._count <= 0:
                self._cond.notify_all()

    def wait(self):
        with self._cond:
            while self._count > 0:
                self._cond.wait()


class _Worker:
    def __init__(self, index: int):
        self.queue = queue.SimpleQueue()
        threading.Thread(target=self._loop, name=f"cudalite-simulator-{index}", daemon=True).start()

    def _loop(self):
        while True:
            call, latch = self.queue.get()
            try:
                call()
            finally:
                latch.count_down()


class WorkerPool:
    """Daemon threads that each run one callable per :meth:`run`."""

    def __init__(self):
        self._workers = []
        self._lock = threading.Lock()

    def run(self, calls):
        """Run every callable of ``calls`` at once, each in its own thread; return when all returned."""
        with self._lock:
            while len(self._workers) < len(calls):
                self._workers.append(_Worker(len(self._workers)))
            latch = _Latch(len(calls))
            for worker, call in zip(self._workers, calls):
                worker.queue.put((call, latch))
            latch.wait()
