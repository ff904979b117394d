"""The dispatchers: ``@cuda.jit`` kernels and what they keep per signature.

* :mod:`.decorator` -- ``cuda.jit`` itself;
* :mod:`.kernel` -- :class:`~.kernel.CUDADispatcher`: compile per signature, the launch
  configuration table, ``specialize``/``recompile``/``forall``;
* :mod:`.specializations` -- one immutable record per compiled signature, in one table;
* :mod:`.slowpath` -- the launch path that is not generated code.

It may import cudalite.core, cudalite.driver and the jit package's launching
(:mod:`cudalite.cuda._launch`), compiling and runtime-record modules; nothing below it
imports it.
"""
