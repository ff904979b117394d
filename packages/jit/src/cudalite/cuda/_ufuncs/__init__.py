"""CUDA ufuncs and reductions: ``cuda.vectorize``, ``cuda.guvectorize``, ``cuda.reduce``.

* :mod:`.vectorize` -- elementwise ufuncs (loop kernels generated per signature and rank);
* :mod:`.gufunc` -- generalized ufuncs over core dimensions;
* :mod:`.reduce` -- full 1-d reductions from a binary function.

They are built on the dispatchers (:mod:`cudalite.cuda._dispatch`) and the memory API
(:mod:`cudalite.cuda._memory`); nothing below them imports them.
"""
