"""``kernel.stats``: what numba's dispatcher reports of its compilations and on-disk cache.

``cache_hits`` and ``cache_misses`` are :class:`collections.Counter` objects keyed by
argument types (a tuple of ``cudalite.types``): a specialization read from the
kernel cache counts as a hit, one compiled counts as a miss (as in numba, also when
caching is off).  ``cache_path`` is the cache directory (``cudalite.cuda.cache.cache_dir()``;
see docs/cache.md: cudalite keeps its entries there, not in ``__pycache__``).
``pickle_loads`` (cudalite's own) counts specializations loaded from compiled code
that a pickle of the kernel carried (``docs/guide/distributed.md``): neither a hit nor
a miss, nothing was compiled.
"""

from __future__ import annotations

from collections import Counter


__all__ = ["CompileStats"]


class CompileStats:
    __slots__ = ("cache_hits", "cache_misses", "pickle_loads")

    def __init__(self):
        self.cache_hits = Counter()
        self.cache_misses = Counter()
        self.pickle_loads = Counter()

    def record(self, argtypes, kernel):
        """Count one specialization built for ``argtypes`` (``kernel.status``: 'hit' when
        it came from the disk cache, 'pickled' when from code a pickle carried)."""
        status = getattr(kernel, "status", None)
        if status == "hit":
            self.cache_hits[argtypes] += 1
        elif status == "pickled":
            self.pickle_loads[argtypes] += 1
        else:
            self.cache_misses[argtypes] += 1

    @property
    def cache_path(self) -> str:
        from .._compiler.cache import cache_dir  # lazy: the cache module (and json) loads on use

        return cache_dir()

    def __repr__(self):
        return (f"CompileStats(cache_hits={dict(self.cache_hits)}, cache_misses={dict(self.cache_misses)}, "
                f"pickle_loads={dict(self.pickle_loads)})")
