"""The one place cudalite.nvvm reads the environment.

* ``CUDALITE_FULL_TRACEBACK=1`` keeps compiler-internal frames in tracebacks of
  compile errors (off by default: errors point at the user's code).  A boolean
  switch parsed by :func:`cudalite.core.switches.parse_bool` (``off`` is false).
* ``CUDALITE_DEFAULT_CC=9.0`` changes the default target of compile/compile_ptx,
  the CLI and ``compile_ptx_for``; any spelling :func:`cudalite.core.target.parse_cc`
  accepts (``90``, ``9.0``, ``sm_90``, ``sm_90a``, ``compute_90``).  Default 7.5.

numba's spellings are aliases (the ``CUDALITE_*`` one wins when both are set):
``NUMBA_CUDA_DEFAULT_PTX_CC`` of ``CUDALITE_DEFAULT_CC`` (numba-cuda's default target of
``compile_ptx``; the same spellings, e.g. ``8.0``) and ``NUMBA_FULL_TRACEBACKS`` of ``CUDALITE_FULL_TRACEBACK``
(an integer as numba reads it, non-zero on, or a boolean word).

:func:`load_config` parses every variable it reads: an unparsable value raises a
:class:`ValueError` naming the variable (never a silent fallback to the default).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from cudalite.core.switches import parse_bool
from cudalite.core.target import ComputeCapability, parse_cc

__all__ = ["Config", "load_config", "DEFAULT_CC"]

DEFAULT_CC = ComputeCapability(7, 5)  # the oldest target libNVVM 13 accepts


@dataclass(frozen=True)
class Config:
    full_traceback: bool = False
    default_cc: ComputeCapability = DEFAULT_CC


def _cc(name, text):
    if not (text or "").strip():
        return DEFAULT_CC
    try:
        return parse_cc(text)
    except ValueError as e:
        raise ValueError(f"{name}={text!r}: {e}") from None


def load_config(environ=None) -> Config:
    """Read the configuration from ``environ`` (default ``os.environ``)."""
    env = os.environ if environ is None else environ
    cc_name = "CUDALITE_DEFAULT_CC" if (env.get("CUDALITE_DEFAULT_CC") or "").strip() else "NUMBA_CUDA_DEFAULT_PTX_CC"
    return Config(
        full_traceback=parse_bool("CUDALITE_FULL_TRACEBACK", env.get("CUDALITE_FULL_TRACEBACK"),
                                  _numba_flag("NUMBA_FULL_TRACEBACKS", env.get("NUMBA_FULL_TRACEBACKS"))),
        default_cc=_cc(cc_name, env.get(cc_name)),
    )


def _numba_flag(name, text):
    """numba's switch ``name`` read as numba reads it (an integer, non-zero: on), or a
    boolean word; unset: off."""
    value = (text or "").strip()
    if value.lstrip("+-").isdigit():
        return int(value) != 0
    return parse_bool(name, value, False)
