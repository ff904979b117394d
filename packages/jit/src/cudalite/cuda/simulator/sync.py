"""Barriers of simulated threads: :class:`ExecutionGroup` (the threads that run at
once -- one block, or the whole grid of a kernel that uses grid sync) and
:class:`Rendezvous` (one reusable barrier over a changing set of participants).

Every rendezvous of a group has its own :class:`threading.Condition` over the
group's one lock (a release wakes only that barrier's threads).  A thread that
exits (its kernel function returned) is taken out of every barrier it would
otherwise be awaited at, as on the GPU, where exited threads do
not hold up ``__syncthreads()``.  The group counts the threads blocked in a
barrier that cannot complete yet; when every live thread is blocked, no barrier
can ever complete and the launch fails with :class:`SimulatorDeadlock` instead of
hanging.  When a thread raises, the group is aborted: blocked threads leave with
:class:`SimulationAborted` (a BaseException, so ``except Exception`` in kernel
code does not swallow it).
"""

from __future__ import annotations

import threading

__all__ = ["ExecutionGroup", "Rendezvous", "SimulationAborted", "SimulatorDeadlock"]


class SimulationAborted(BaseException):
    """Raised in simulated threads blocked at a barrier when another thread failed."""


class SimulatorDeadlock(RuntimeError):
    """Every live thread waits at a barrier that cannot complete (for example
    ``cuda.syncthreads()`` in code that only some threads of the block reach)."""


class ExecutionGroup:
    """The simulated threads that run concurrently, and their shared condition."""

    def __init__(self, nthreads: int):
        self.lock = threading.RLock()  # guards the group and every rendezvous of it
        self.cond = threading.Condition(self.lock)
        self.live = nthreads
        self.waiting = 0
        self.aborted = False
        self.error = None  # (exception, ThreadContext) of the first failure
        self.sequential = False  # threads run one after another (a kernel with no barrier)
        self._rendezvous = []

    def register(self, rendezvous):
        with self.cond:
            self._rendezvous.append(rendezvous)

    def thread_exited(self, ctx=None):
        """A thread's kernel function returned or raised: it no longer joins barriers."""
        with self.cond:
            self.live -= 1
            for r in self._rendezvous:
                r.try_release()
            if self.deadlocked() and not self.aborted:
                waits = ", ".join(r.what for r in self._rendezvous if r.pending())
                self.abort(SimulatorDeadlock(f"deadlock: a thread exited while every other live thread waits at a "
                                             f"barrier that cannot complete ({waits})"), ctx)

    def abort(self, exc, ctx):
        """Record the first failure and release every blocked thread."""
        with self.cond:
            if self.error is None:
                self.error = (exc, ctx)
            self.aborted = True
            self.cond.notify_all()
            for r in self._rendezvous:
                r.cond.notify_all()

    def deadlocked(self) -> bool:
        return self.live > 0 and self.waiting >= self.live


class Rendezvous:
    """A reusable barrier: each participant calls :meth:`wait` with its key and a
    value, and gets the ``{key: value}`` of every participant of that round.
    ``expected()`` returns the keys of the participants still alive."""

    def __init__(self, group: ExecutionGroup, expected, what: str):
        self.group = group
        self.expected = expected
        self.what = what
        self._arrived = {}
        self._generation = 0
        self._result = None
        self.cond = threading.Condition(group.lock)
        group.register(self)

    def pending(self) -> bool:
        return bool(self._arrived)

    def try_release(self):
        """Complete the round if every expected participant arrived (condition held)."""
        if not self._arrived:
            return
        exp = self.expected()
        if len(self._arrived) >= len(exp) and self._arrived.keys() >= exp:
            self._result = self._arrived
            self._arrived = {}
            self._generation += 1
            self.group.waiting -= len(self._result)
            self.cond.notify_all()

    def wait(self, key, value=None) -> dict:
        group = self.group
        if group.sequential:
            raise RuntimeError(
                f"{self.what} reached in a kernel the simulator runs one thread at a time, because it found no "
                "barrier in the kernel's code: call the barrier through a name the simulator can see "
                "(cuda.syncthreads(), or a device function named by the kernel)")
        with group.cond:
            if group.aborted:
                raise SimulationAborted()
            generation = self._generation
            self._arrived[key] = value
            group.waiting += 1
            self.try_release()
            while self._generation == generation:
                if group.aborted:
                    raise SimulationAborted()
                if group.deadlocked():
                    raise SimulatorDeadlock(
                        f"deadlock at {self.what}: every live thread waits at a barrier that other threads "
                        "never reach (a barrier in divergent code, or threads that exited early while others "
                        "wait on a warp mask that names them)")
                self.cond.wait()
            return self._result
