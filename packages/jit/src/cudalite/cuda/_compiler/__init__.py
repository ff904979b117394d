"""Compiling and caching: from a Python function to a loaded kernel, as data.

* :mod:`.options` -- ``JitOptions`` and their one translation into the compiler's options;
* :mod:`.compile_code` -- the compiler half (``cudalite.nvvm``'s pipeline) for the jit;
* :mod:`.stages` -- the runtime half as data: key, cache, compile, link, fatbin, store,
  load, run by one loop that times every stage;
* :mod:`.linking` -- nvJitLink of the compiled code with its link items;
* :mod:`.kernel` -- ``CompiledKernel``: one specialization built, loaded and bound to
  launch configurations;
* :mod:`.api` -- ``cuda.compile`` / ``compile_ptx`` (and ``output="fatbin"``);
* :mod:`.timings` -- the per-compile timing line.

It may import cudalite.core, cudalite.nvvm, cudalite.linker, cudalite.driver and the jit
package's runtime record; the dispatchers import it, never the reverse.
"""
