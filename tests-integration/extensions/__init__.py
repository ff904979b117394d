"""Extension modules written against ``cudalite.cuda.extending`` exactly as numba's
documentation writes them against ``numba.extending`` (only the import differs): the
tests of the extension API import them, GPU-less and on the GPU."""
