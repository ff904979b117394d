"""The one place cudalite.linker reads the environment.

* ``CUDALITE_CUDA_INCLUDE_PATH``: directories (``os.pathsep``-separated) with
  the CUDA headers NVRTC should use instead of the ones in the pip wheels.

Nothing else in the package reads ``os.environ``; the functions take these
values as arguments, and a runtime passes ``load_config().cuda_include_path``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Config", "load_config"]


@dataclass(frozen=True)
class Config:
    cuda_include_path: str | None = None


def load_config(environ=None) -> Config:
    env = os.environ if environ is None else environ
    return Config(cuda_include_path=env.get("CUDALITE_CUDA_INCLUDE_PATH") or None)
