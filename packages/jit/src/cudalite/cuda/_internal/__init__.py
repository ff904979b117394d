"""numba-cuda's ``numba.cuda._internal`` paths that user code imports public names from
(``from numba.cuda._internal.cuda_fp8 import fp8_e4m3``): each module here re-exports
cudalite's public module, so such a program ports by renaming ``numba`` to ``cudalite``."""
