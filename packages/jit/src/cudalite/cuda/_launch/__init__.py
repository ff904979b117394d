"""Launching kernels and the kernel-argument kinds.

What this sub-package owns, from ``kernel[...]`` to the driver:

* :mod:`.config` -- ``kernel[griddim, blockdim, stream, sharedmem]`` parsed and
  validated once into the driver's frozen :class:`cudalite.driver.LaunchConfig`;
* :mod:`.kinds` -- the one argument-kind table: every kind of Python value a kernel
  accepts is one :class:`~.kinds.ArgKind` entry, found by :func:`~.kinds.kind_for`;
  the entries live in :mod:`.scalars`, :mod:`.arrays`, :mod:`.foreign`, :mod:`.host`
  and :mod:`.tuples`, their type keys' meaning in :mod:`.keys`;
* :mod:`.hints` -- ``cuda.In`` / ``cuda.Out`` / ``cuda.InOut``;
* :mod:`.fastpath` -- the generated per-specialization launch code, made from the
  kinds' conversion source;
* :mod:`.devices` -- which device a launch runs on (multi-GPU routing).

It may import cudalite.core (types, ABI), cudalite.driver, and of the jit package only
:mod:`cudalite.cuda._runtime.api` (the process-wide record) and :mod:`cudalite.cuda._memory`
(copies of host arguments); the dispatchers (:mod:`cudalite.cuda._dispatch`) import it,
never the reverse.
"""
