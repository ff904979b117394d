"""cudalite.cuda.simulator: a CPU simulator of the ``cudalite.cuda`` API, as
numba-cuda's ``NUMBA_ENABLE_CUDASIM``.

With ``CUDALITE_ENABLE_CUDASIM=1`` (or ``NUMBA_ENABLE_CUDASIM=1``),
``from cudalite import cuda`` gives this namespace: ``@cuda.jit`` kernels run as
Python on the CPU, one Python thread per CUDA thread, the threads of a block at
once and the blocks one after another.  Modules:

* ``_state`` -- the one per-process object (thread-local contexts, atomic lock);
* ``sync`` -- barriers with deadlock detection and abort;
* ``context`` -- per-thread and per-block state;
* ``launch`` -- running a grid and re-raising a thread's exception;
* ``pool`` -- the reusable threads that run simulated threads;
* ``analysis`` -- which kernels need concurrent threads or grid sync;
* ``intrinsics``, ``warp``, ``atomics``, ``mathfuncs`` -- the device-side API;
* ``kernel`` -- ``cuda.jit``; ``host``, ``runtime``, ``ufuncs`` -- the host API;
* ``namespaces``, ``dtypes`` -- small helpers;
* ``unsupported`` -- what cannot be simulated (NotImplementedError);
* ``api`` -- the assembled namespace.

See docs/simulator.md.
"""

from .api import *  # noqa: F401,F403  (api.__all__: the simulator's cudalite.cuda names)
from .api import __all__ as __all__, module_getattr  # noqa: PLE0604

__getattr__ = module_getattr
