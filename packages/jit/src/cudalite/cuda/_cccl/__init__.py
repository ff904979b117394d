"""Support for ``cudalite.cuda.cccl`` (cuda.compute operators): how struct values
are represented (``records``).  May import the jit package's modules and
``cudalite.core``; never cuda.compute itself (the public module does, lazily)."""
