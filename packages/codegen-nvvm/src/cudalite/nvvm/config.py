"""The one place cudalite.nvvm reads the environment.

* ``CUDALITE_FULL_TRACEBACK=1`` keeps compiler-internal frames in tracebacks of
  compile errors (off by default: errors point at the user's code).
* ``CUDALITE_DEFAULT_CC=8.0`` changes the default target of compile/compile_ptx.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Config", "load_config", "DEFAULT_CC"]

DEFAULT_CC = (7, 5)


@dataclass(frozen=True)
class Config:
    full_traceback: bool = False
    default_cc: tuple = DEFAULT_CC


def _parse_cc(text):
    try:
        major, minor = text.strip().split(".")
        return int(major), int(minor)
    except ValueError:
        return DEFAULT_CC


def load_config(environ=None) -> Config:
    env = os.environ if environ is None else environ
    return Config(
        full_traceback=env.get("CUDALITE_FULL_TRACEBACK", "0") not in ("", "0", "false", "no"),
        default_cc=_parse_cc(env["CUDALITE_DEFAULT_CC"]) if env.get("CUDALITE_DEFAULT_CC") else DEFAULT_CC,
    )
