"""Typing of the asynchronous copies global -> shared (PTX ``cp.async``, sm_80+):
``cuda.pipeline.memcpy_async(dst, dst_index, src, src_index, nbytes)`` starts copying
``nbytes`` (a constant: 4, 8 or 16) from ``src[src_index]`` (global memory) to
``dst[dst_index]`` (shared memory) without waiting for it; ``cuda.pipeline.commit()``
closes the group of copies started since the last commit; ``cuda.pipeline.wait(n)``
(``n`` a constant, default 0) waits until at most ``n`` committed groups are still in
flight.  Indices are an integer (1-d arrays) or a tuple of ``ndim`` integers, as
``a[i]``; both addresses must be aligned to ``nbytes``.
"""

from __future__ import annotations

from ... import device_api as api
from ...registry import registry
from ...types import Array, Float, Integer, Signature, Tuple, none
from .._records import Resolved

__all__ = ["AsyncCopy"]


class AsyncCopy:
    """The payload of ``memcpy_async``: the byte count."""

    __slots__ = ("nbytes",)

    def __init__(self, nbytes):
        self.nbytes = nbytes


def _array_and_index(site, k, role):
    arr, idx = site.args[k], site.args[k + 1]
    if not isinstance(arr, Array) or not isinstance(arr.dtype, (Integer, Float)):
        raise site.error(f"the {role} must be an array of integers or floats, not {arr}")
    if isinstance(idx, Integer):
        if arr.ndim != 1:
            raise site.error(f"the {role} index must be a tuple of {arr.ndim} integers (the array is {arr.ndim}-d)")
    elif not (isinstance(idx, Tuple) and len(idx.types) == arr.ndim and all(isinstance(t, Integer) for t in idx.types)):
        raise site.error(f"the {role} index must be an integer or a tuple of {arr.ndim} integers, not {idx}")
    return arr, idx


@registry.call(api.pipeline.memcpy_async, params=("dst", "dst_index", "src", "src_index", "nbytes"),
               name="cuda.pipeline.memcpy_async")
def _memcpy_async(site):
    if len(site.args) != 5:
        raise site.error(f"takes dst, dst_index, src, src_index, nbytes: {len(site.args)} argument(s) given")
    dst, di = _array_and_index(site, 0, "destination")
    src, si = _array_and_index(site, 2, "source")
    if dst.readonly:
        raise site.error(f"the destination is read-only ({dst})")
    nbytes = site.const(4, "byte count")
    if nbytes not in (4, 8, 16) or isinstance(nbytes, bool):
        raise site.error(f"the byte count must be the constant 4, 8 or 16 (what cp.async copies), not {nbytes!r}")
    return Resolved(Signature(none, (dst, di, src, si, site.args[4])), AsyncCopy(int(nbytes)))


@registry.call(api.pipeline.commit, name="cuda.pipeline.commit")
def _commit(site):
    if site.args:
        raise site.error("takes no arguments")
    return Signature(none, ())


@registry.call(api.pipeline.wait, params=("n",), name="cuda.pipeline.wait")
def group_wait(site):
    """The typer of a wait for committed asynchronous groups (``cuda.pipeline.wait``,
    ``cuda.tma.store_wait``): an optional constant count, 0 to 7, as the payload."""
    if len(site.args) > 1:
        raise site.error(f"takes at most 1 argument ({len(site.args)} given)")
    n = site.const(0, "number of groups") if site.args else 0
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 7:
        raise site.error(f"the number of groups left in flight must be a constant int from 0 to 7, not {n!r}")
    return Resolved(Signature(none, tuple(site.args)), n)
