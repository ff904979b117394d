"""Regenerate ``cudalite/core/libdevice_table.py`` from the libdevice bitcode.

A developer tool, run by hand when libdevice changes (never imported at run
time)::

    python packages/core-typing/tools/gen_libdevice_table.py > \\
        packages/core-typing/src/cudalite/core/libdevice_table.py

It reads the ``__nv_*`` definitions of the libdevice found by cuda-pathfinder
with ``llvmlite.binding`` (reading bitcode only; nothing is compiled through it)
and names each function as numba.cuda does: without ``__nv_``, every i16/i32/i64
a signed integer, and pointer parameters (outputs) returned after the result.
The pointee types of the output pointers are not in opaque-pointer bitcode, so
they come from the libdevice documentation (``_OUTPUTS`` below).
"""

from __future__ import annotations

import llvmlite.binding as llvm
from cuda.pathfinder import find_bitcode_lib

_SCALARS = {"i16": "int16", "i32": "int32", "i64": "int64", "float": "float32",
            "double": "float64", "void": "void"}

# pointer (output) parameters, by function: their element types
_OUTPUTS = {
    "sincosf": ("float32", "float32"), "sincos": ("float64", "float64"),
    "fast_sincosf": ("float32", "float32"),
    "sincospif": ("float32", "float32"), "sincospi": ("float64", "float64"),
    "frexpf": ("int32",), "frexp": ("int32",),
    "modff": ("float32",), "modf": ("float64",),
    "remquof": ("int32",), "remquo": ("int32",),
}
# pointer parameters that are inputs (numba-cuda leaves these out too)
_EXCLUDED = {"nan": "its argument is an undocumented tag string (use math.nan)",
             "nanf": "its argument is an undocumented tag string (use math.nan)",
             "norm": "it reads an input array through a pointer (use math.sqrt of a sum)",
             "normf": "it reads an input array through a pointer (use math.sqrt of a sum)",
             "rnorm": "it reads an input array through a pointer",
             "rnormf": "it reads an input array through a pointer"}


def _rows():
    m = llvm.parse_bitcode(open(find_bitcode_lib("device"), "rb").read())
    for f in sorted(m.functions, key=lambda f: f.name):
        if not f.name.startswith("__nv_"):
            continue
        name = f.name[5:]
        if name in _EXCLUDED:
            continue
        ret = _SCALARS[str(f.global_value_type).split(" ", 1)[0]]
        params = [str(a.type) for a in f.arguments]
        ins = tuple(_SCALARS[p] for p in params if p != "ptr")
        outs = _OUTPUTS.get(name, ())
        assert params.count("ptr") == len(outs), name
        assert params[len(ins):] == ["ptr"] * len(outs), name  # outputs come last
        yield name, ret, ins, outs


def main():
    print('"""The libdevice functions callable as ``cuda.libdevice.<name>`` (generated; do not edit).')
    print()
    print("Made by ``packages/core-typing/tools/gen_libdevice_table.py`` from the libdevice")
    print("bitcode.  ``FUNCTIONS[name] = (result, inputs, outputs)``: the libdevice function is")
    print("``__nv_<name>``; ``outputs`` are its trailing pointer parameters, which the Python")
    print("function returns (after the result unless it is ``void``) as numba.cuda does.")
    print('"""')
    print()
    print('__all__ = ["FUNCTIONS", "EXCLUDED"]')
    print()
    print("FUNCTIONS = {")
    for name, ret, ins, outs in _rows():
        print(f"    {name!r}: ({ret!r}, {ins!r}, {outs!r}),")
    print("}")
    print()
    print("# libdevice functions with no Python binding, and why")
    print("EXCLUDED = {")
    for name, why in sorted(_EXCLUDED.items()):
        print(f"    {name!r}: {why!r},")
    print("}")


if __name__ == "__main__":
    main()
