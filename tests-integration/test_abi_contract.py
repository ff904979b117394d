"""GPU-less, across packages: the kernel ABI (cudalite.core.abi) is the one contract
between the codegen's PTX entry, the runtime's compiled kernel and the driver's
parameter packing -- the PTX ``.param`` sizes of a kernel are the sizes the driver
lays out for ``abi.param_format``, and the compiled kernel launches with that format."""

from __future__ import annotations

import re

from cudalite import cuda
from cudalite.core.abi import kernel_abi
from cudalite.core.types import parse_signature
from cudalite.cuda._compiler.kernel import CompiledKernel
from cudalite.cuda._compiler.options import JitOptions
from cudalite.driver import param_layout

SIG = ("void(complex64[::1], float64[:, :], Tuple(int32, boolean, float16), uint8, int16[::1, :], "
       "float32, uint64, complex128)")
_PTX_SIZES = {"8": 1, "16": 2, "32": 4, "64": 8}


def mixed(a, b, t, u, f, x, y, z):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = b[i, 0] + t[0] + t[2] + u + f[0, i] + x + y + z.real


def _entry_param_sizes(ptx, name):
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(([^)]*)\)", ptx)
    assert m, "kernel entry not found"
    return [_PTX_SIZES[w] for w in re.findall(r"\.param\s+\.[a-z](8|16|32|64)\s", m.group(1))]


def test_ptx_params_driver_layout_and_kernel_format_agree():
    argtypes = parse_signature(SIG)[1]
    k = CompiledKernel(mixed, argtypes, JitOptions(), (9, 0), load=False)  # GPU-less: compile and link
    abi = kernel_abi(argtypes)
    assert k.abi == abi and k.artifact.abi == abi
    assert k.param_format == abi.param_format == "Qq" + "Qqqqq" + "iBe" + "B" + "Qqq" + "f" + "Q" + "dd"
    layout = param_layout(abi.param_format)
    assert layout.count == len(abi.slots)
    assert list(layout.sizes) == _entry_param_sizes(k.stage("ptx"), k.name)
