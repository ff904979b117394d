"""Host time of ``kernel[griddim, blockdim]`` for a configuration seen before (GPU-less).

The dispatcher keeps configured launchers in a private table and looks them up
in a Python-level ``__getitem__``.  The peer, measured in the same run, is a
``dict`` subclass with ``__missing__`` (what the dispatcher used to be: the lookup
runs in C); the ratio is the price of the plain class.  Rows:

* ``k[1, 1]``       -- a constant configuration (the tuple is a code constant);
* ``k[g, b]``       -- the configuration built from variables on each call;
* ``k[[g], [b]]``   -- lists (numba accepts them): normalised to tuples, no caching
  of the list itself, so every lookup takes the slow path.

Only the lookup is timed, not the launch.  Run anywhere: ``python benchmarks/config_lookup.py``.
"""

from __future__ import annotations

import timeit

NUMBER, REPEAT = 500_000, 15


def empty(a):
    pass


class DictDispatcher(dict):
    """The peer: a dict of launchers whose missing entries are configured on demand."""

    def __missing__(self, config):
        fn = self[config] = object()
        return fn


def per_call_ns(stmt, namespace, number=NUMBER):
    best = min(timeit.repeat(stmt, globals=namespace, number=number, repeat=REPEAT))
    return best / number * 1e9


def paired_ns(stmt, *namespaces, number=NUMBER):
    """Best time per call of ``stmt`` in each namespace, the runs interleaved (a load
    spike on a busy host hits both sides alike)."""
    timers = [timeit.Timer(stmt, globals=ns) for ns in namespaces]
    best = [float("inf")] * len(timers)
    for _ in range(REPEAT):
        for i, t in enumerate(timers):
            best[i] = min(best[i], t.timeit(number))
    return [b / number * 1e9 for b in best]


def main():
    from cudalite import cuda

    kernel = cuda.jit(empty)
    peer = DictDispatcher()
    g, b = 4, 128
    for k in (kernel, peer):  # configure once: later lookups hit the table
        k[1, 1]
        k[g, b]
    print(f"{'lookup':<14} {'dict subclass':>14} {'CUDADispatcher':>15} {'ratio':>7} {'difference':>11}")
    for expr in ("[1, 1]", "[g, b]"):
        ref, new = paired_ns(f"k{expr}", {"k": peer, "g": g, "b": b}, {"k": kernel, "g": g, "b": b})
        print(f"{'k' + expr:<14} {ref:>11.1f} ns {new:>12.1f} ns {new / ref:>6.2f}x {new - ref:>8.1f} ns")
    lists = per_call_ns("k[[g], [b]]", {"k": kernel, "g": g, "b": b}, number=NUMBER // 10)
    print(f"{'k[[g], [b]]':<14} {'(unhashable)':>14} {lists:>12.1f} ns")


if __name__ == "__main__":
    main()
