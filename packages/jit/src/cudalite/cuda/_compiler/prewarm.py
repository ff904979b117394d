"""The compile side of the background warm-up (``_runtime.warmup`` runs it in its
import thread): importing this module imports the whole compile chain (typing,
lowering, the build stages); :func:`prewarm` then loads libNVVM and nvJitLink,
builds a one-line probe kernel GPU-less so that their first-use set-up is done
(compiled and linked for sm_75; never loaded, never cached), and computes the
compiler fingerprint every kernel cache key holds.  Each step's failure is ignored:
the real compile reports it.
"""

from __future__ import annotations

from cudalite.core.types import float32
from cudalite.linker import nvjitlink_version
from cudalite.nvvm import libnvvm

from . import kernel  # noqa: F401  the build stages and all they import
from .cache import compiler_fingerprint
from .options import JitOptions
from .stages import make_job, run_build

__all__ = ["prewarm"]


def _probe(out):  # the probe kernel: every build stage through link, nothing a program sees
    out[0] = 1.0


def prewarm() -> None:
    """Load the libraries, build the probe, compute the fingerprint (see the module)."""
    for step in (libnvvm.ir_version, nvjitlink_version,
                 lambda: run_build(make_job(_probe, (float32[::1],), JitOptions(), (7, 5), cache=False),
                                   until="link"),
                 compiler_fingerprint):
        try:
            step()
        except Exception:
            pass
