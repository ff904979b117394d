"""Installs the numba -> cudalite alias in every Python process the compatibility runner
starts (its worker and the subprocesses tests spawn: multiprocessing, ``python -c``),
when ``CUDALITE_COMPAT_TESTS_ROOT`` names the installed numba/cuda/tests folder."""

import os
import sys

_root = os.environ.get("CUDALITE_COMPAT_TESTS_ROOT")
if _root:
    _here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if _here not in sys.path:
        sys.path.insert(0, _here)
    import compat_alias

    compat_alias.install(_root)
