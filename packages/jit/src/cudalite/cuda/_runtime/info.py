"""``cudalite-info`` (also ``python -m cudalite.cuda``): what a bug report needs.

Prints, section by section: Python and the platform; the version of every cudalite
package and of each dependency (NumPy, llvmlite, cuda-bindings, cuda-pathfinder,
cffi, cuda-core, the ``nvidia-*`` wheels); where libNVVM, libdevice, nvJitLink,
NVRTC and libcuda were found, with their versions; the driver and every GPU, or why
there is none; the cache root, the kernel cache's size and cap; whether launches go
through the compiled launch shim.  ``--json`` gives the same as one JSON object.

Each section is gathered on its own: a failure (no driver, a library that does not
load) is reported in that section as ``unavailable: <reason>`` and the others still
print.  Nothing here compiles or launches anything.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from importlib import metadata

from cudalite import driver
from cudalite.driver import compiled_shim_path
from cudalite.driver.config import load_config as driver_config

from cuda.pathfinder import load_nvidia_dynamic_lib

from .. import __version__
from .._compiler.cache import CacheStore, creation_refusal
from ..config import kernel_cache_dir

__all__ = ["collect", "main"]

_DISTRIBUTIONS = ("cudalite", "cudalite-core", "cudalite-nvvm", "cudalite-linker", "cudalite-driver", "numpy",
                  "llvmlite", "cuda-bindings", "cuda-pathfinder", "cffi", "cuda-core", "ml_dtypes")


def _python():
    return {"version": sys.version.split()[0], "implementation": sys.implementation.name,
            "executable": sys.executable, "platform": platform.platform()}


def _packages():
    out = {}
    names = list(_DISTRIBUTIONS)
    names += sorted({d.metadata["Name"] for d in metadata.distributions()
                     if (d.metadata["Name"] or "").lower().startswith("nvidia-")})
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _library(name):
    lib = load_nvidia_dynamic_lib(name)
    return {"path": getattr(lib, "abs_path", None), "found_via": getattr(lib, "found_via", None)}


def _libraries():
    out = {}
    try:
        from cudalite.nvvm.libnvvm import ir_version, libdevice_path, nvvm_version  # lazy: on request

        out["libnvvm"] = dict(_library("nvvm"), version=".".join(map(str, nvvm_version())),
                              ir_version=".".join(map(str, ir_version())))
        out["libdevice"] = {"path": libdevice_path()}
    except Exception as e:
        out["libnvvm"] = {"unavailable": _why(e)}
    try:
        from cuda.bindings import nvjitlink

        out["nvjitlink"] = dict(_library("nvJitLink"), version=".".join(map(str, nvjitlink.version())))
    except Exception as e:
        out["nvjitlink"] = {"unavailable": _why(e)}
    try:
        from cuda.bindings import nvrtc

        err, major, minor = nvrtc.nvrtcVersion()
        out["nvrtc"] = dict(_library("nvrtc"), version=f"{major}.{minor}")
    except Exception as e:
        out["nvrtc"] = {"unavailable": _why(e)}
    return out


def _gpus():
    try:
        version = driver.driver_version()
    except Exception as e:
        return {"unavailable": _why(e)}
    out = {"driver_cuda_version": ".".join(map(str, version)), "devices": []}
    for i in range(driver.device_count()):
        dev = driver.get_device(i)
        out["devices"].append({"id": i, "name": dev.name, "compute_capability": "%d.%d" % dev.compute_capability,
                               "memory_bytes": dev.total_memory, "pci_bus_id": dev.pci_bus_id})
    return out


def _cache():

    store = CacheStore(kernel_cache_dir())
    info = store.info()
    return {"root": driver_config().cache_dir or os.path.dirname(info["path"]),
            "kernels": info["path"], "entries": info["entries"], "bytes": info["bytes"],
            "max_size": info["max_size"],
            "refused": store.refusal(warn=False) or creation_refusal(store.path)}  # None: usable


def _launch():
    path = compiled_shim_path()
    if path is not None:
        return {"path": "compiled shim (installed with cudalite-driver)", "shim": path}
    return {"path": "no compiled shim installed: built at run time into the cache on first launch, or the "
                    "cuda.bindings path without a C compiler (docs/driver.md)", "shim": None}


def _why(e) -> str:
    return f"{type(e).__name__}: {e}".splitlines()[0][:300]


SECTIONS = (("python", _python), ("packages", _packages), ("libraries", _libraries), ("gpus", _gpus),
            ("cache", _cache), ("launch", _launch))


def collect() -> dict:
    """Every section as plain data (``{"unavailable": reason}`` for one that failed)."""
    out = {}
    for name, fn in SECTIONS:
        try:
            out[name] = fn()
        except Exception as e:  # each section on its own: a report must always come out
            out[name] = {"unavailable": _why(e)}
    return out


def _none_text(section, key) -> str:
    """What a None value says in the text report."""
    if section == "packages":
        return "not installed"
    return "no" if (section, key) == ("cache", "refused") else "None"


def _text(report) -> str:
    lines = []
    for section, data in report.items():
        lines.append(f"{section}:")
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(value, list):
                    lines.append(f"  {key}:")
                    lines += [f"    {item}" for item in value] or ["    (none)"]
                elif isinstance(value, dict):
                    lines.append(f"  {key}: " + ", ".join(f"{k}={v}" for k, v in value.items()))
                else:
                    lines.append(f"  {key}: {_none_text(section, key) if value is None else value}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    """Entry point of ``cudalite-info``."""

    ap = argparse.ArgumentParser(prog="cudalite-info", description="Print what a cudalite bug report needs: "
                                 "versions, libraries found, GPUs and driver, cache, launch path.")
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)
    report = collect()
    sys.stdout.write(json.dumps(report, indent=2, default=str) + "\n" if args.json else _text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
