"""What the simulator cannot do: each such name raises a NotImplementedError that
names the feature.  :data:`UNSUPPORTED` maps the ``cudalite.cuda`` name to the
feature; :data:`UNSUPPORTED_NAMESPACES` the device-side namespaces (any member);
:data:`UNSUPPORTED_MEMBERS` single members of simulated namespaces (``cg.this_cluster``);
:data:`UNSUPPORTED_LIBDEVICE` the ``cuda.libdevice`` functions;
:data:`UNSUPPORTED_CLASSES` the classes: they can be named and subclassed (a module that
defines an EMM plugin imports), but creating an instance raises.  Together with the
first four this is the one table of the device functions the simulator does not run,
each with its reason (``test_simulator_parity.py`` fails on any other registered device
function without a simulator implementation)."""

from __future__ import annotations

__all__ = ["not_simulated", "UNSUPPORTED", "UNSUPPORTED_CLASSES", "UNSUPPORTED_NAMESPACES", "UNSUPPORTED_MEMBERS",
           "UNSUPPORTED_LIBDEVICE", "unsupported_objects", "unsupported_member"]

UNSUPPORTED = {
    "inline_ptx": "inline PTX",
    "declare_device": "foreign device functions (declare_device)",
    "compile": "compiling to PTX/LTO-IR", "compile_ptx": "compiling to PTX/LTO-IR",
    "compile_for_current_device": "compiling to PTX/LTO-IR",
    "compile_ptx_for_current_device": "compiling to PTX/LTO-IR", "compile_all": "compiling to PTX/LTO-IR",
    "make_tensor_map": "TMA tensor maps",
    "elect_sync": "warp specialisation (cuda.elect_sync, sm_90)",
    "fence_proxy_async": "the asynchronous proxy (cuda.fence_proxy_async, sm_90)",
    "open_ipc_array": "CUDA IPC",
    "set_memory_manager": "external memory managers (EMM plugins)",
    "carray": "arrays over raw pointers (carray/farray)", "farray": "arrays over raw pointers (carray/farray)",
    "from_cuda_array_interface": "foreign device arrays (__cuda_array_interface__)",
    "guvectorize": "generalized CUDA ufuncs (guvectorize)",
    "cuda_error": "CUDA driver error codes",
}
UNSUPPORTED_CLASSES = {
    "IpcHandle": "CUDA IPC", "GetIpcHandleMixin": "CUDA IPC",
    "BaseCUDAMemoryManager": "external memory managers (EMM plugins)",
    "HostOnlyCUDAMemoryManager": "external memory managers (EMM plugins)",
    "MemoryPointer": "raw device memory pointers", "MappedMemory": "raw device memory pointers",
    "PinnedMemory": "raw device memory pointers", "MemoryInfo": "raw device memory pointers",
}
UNSUPPORTED_NAMESPACES = {
    "mma": "tensor-core matrix multiply-accumulate (cuda.mma)",
    "pipeline": "asynchronous copies (cuda.pipeline, cp.async)",
    "tma": "TMA bulk tensor copies (cuda.tma)",
    "mbarrier": "shared-memory transaction barriers (cuda.mbarrier)",
    "named_barrier": "named barriers (cuda.named_barrier, sm_90)",
    "griddepcontrol": "programmatic dependent launch (cuda.griddepcontrol, sm_90)",
    "wgmma": "warpgroup tensor-core MMA (cuda.wgmma, sm_90a)",
    "setmaxnreg": "register reallocation (cuda.setmaxnreg, sm_90a)",
    "bf16": "bfloat16 arithmetic (cuda.bf16)",
    "fp8": "8-bit float conversions (cuda.fp8)",
    "cache": "the on-disk kernel cache (cuda.cache)",
}
# single members of a simulated namespace ("namespace.member")
UNSUPPORTED_MEMBERS = {
    "cg.this_cluster": "thread-block clusters (cuda.cg.this_cluster)",
}

# cuda.libdevice functions the simulator does not implement (the others map onto math
# or the bit intrinsics, see mathfuncs._Libdevice), with the reason; together with
# UNSUPPORTED and UNSUPPORTED_NAMESPACES the one table of device functions that are not
# simulated (test_simulator_parity.py fails on any other device function without one)
UNSUPPORTED_LIBDEVICE = {
    **dict.fromkeys((
        "dadd_rd", "dadd_rn", "dadd_ru", "dadd_rz", "ddiv_rd", "ddiv_rn", "ddiv_ru", "ddiv_rz", "dmul_rd",
        "dmul_rn", "dmul_ru", "dmul_rz", "double2float_rd", "double2float_rn", "double2float_ru",
        "double2float_rz", "double2int_rd", "double2int_rn", "double2int_ru", "double2int_rz", "double2ll_rd",
        "double2ll_rn", "double2ll_ru", "double2ll_rz", "double2uint_rd", "double2uint_rn", "double2uint_ru",
        "double2uint_rz", "double2ull_rd", "double2ull_rn", "double2ull_ru", "double2ull_rz", "drcp_rd",
        "drcp_rn", "drcp_ru", "drcp_rz", "dsqrt_rd", "dsqrt_rn", "dsqrt_ru", "dsqrt_rz", "dsub_rd", "dsub_rn",
        "dsub_ru", "dsub_rz", "fadd_rd", "fadd_rn", "fadd_ru", "fadd_rz", "fdiv_rd", "fdiv_rn", "fdiv_ru",
        "fdiv_rz", "float2half_rn", "float2int_rd", "float2int_rn", "float2int_ru", "float2int_rz",
        "float2ll_rd", "float2ll_rn", "float2ll_ru", "float2ll_rz", "float2uint_rd", "float2uint_rn",
        "float2uint_ru", "float2uint_rz", "float2ull_rd", "float2ull_rn", "float2ull_ru", "float2ull_rz",
        "fma_rd", "fma_rn", "fma_ru", "fma_rz", "fmaf_ieee_rd", "fmaf_ieee_rn", "fmaf_ieee_ru",
        "fmaf_ieee_rz", "fmaf_rd", "fmaf_rn", "fmaf_ru", "fmaf_rz", "fmul_rd", "fmul_rn", "fmul_ru",
        "fmul_rz", "frcp_rd", "frcp_rn", "frcp_ru", "frcp_rz", "frsqrt_rn", "fsqrt_rd", "fsqrt_rn",
        "fsqrt_ru", "fsqrt_rz", "fsub_rd", "fsub_rn", "fsub_ru", "fsub_rz", "int2double_rn", "int2float_rd",
        "int2float_rn", "int2float_ru", "int2float_rz", "ll2double_rd", "ll2double_rn", "ll2double_ru",
        "ll2double_rz", "ll2float_rd", "ll2float_rn", "ll2float_ru", "ll2float_rz", "rcp64h",
        "uint2double_rn", "uint2float_rd", "uint2float_rn", "uint2float_ru", "uint2float_rz", "ull2double_rd",
        "ull2double_rn", "ull2double_ru", "ull2double_rz", "ull2float_rd", "ull2float_rn", "ull2float_ru",
        "ull2float_rz",
    ), "IEEE directed rounding modes (_rn/_rz/_ru/_rd) and the hardware's reciprocal approximations"),
    **dict.fromkeys((
        "double2hiint", "double2loint", "double_as_longlong", "float_as_int", "float_as_uint", "half2float",
        "hiloint2double", "int_as_float", "longlong_as_double", "uint_as_float",
    ), "bit reinterpretation and half/int conversions of libdevice"),
    **dict.fromkeys((
        "cospi", "cospif", "cyl_bessel_i0", "cyl_bessel_i0f", "cyl_bessel_i1", "cyl_bessel_i1f", "erfcinv",
        "erfcinvf", "erfcx", "erfcxf", "erfinv", "erfinvf", "exp10", "exp10f", "fast_exp10f", "j0", "j0f",
        "j1", "j1f", "jn", "jnf", "norm3d", "norm3df", "norm4d", "norm4df", "normcdf", "normcdff",
        "normcdfinv", "normcdfinvf", "rcbrt", "rcbrtf", "rhypot", "rhypotf", "rnorm3d", "rnorm3df", "rnorm4d",
        "rnorm4df", "rsqrt", "rsqrtf", "sincospi", "sincospif", "sinpi", "sinpif", "tgamma", "tgammaf", "y0",
        "y0f", "y1", "y1f", "yn", "ynf",
    ), "special functions with no Python math counterpart"),
    **dict.fromkeys((
        "byte_perm", "fmax", "fmaxf", "fmin", "fminf", "hadd", "llmax", "llmin", "max", "min", "mul24",
        "mul64hi", "mulhi", "rhadd", "sad", "uhadd", "ullmax", "ullmin", "umax", "umin", "umul24", "umul64hi",
        "umulhi", "urhadd", "usad",
    ), "integer and min/max intrinsics of libdevice"),
    **dict.fromkeys((
        "fast_fdividef", "fdim", "fdimf", "finitef", "fma", "fmaf", "ilogb", "ilogbf", "isfinited", "isinfd",
        "isnand", "llrint", "llrintf", "llround", "llroundf", "logb", "logbf", "nearbyint", "nearbyintf",
        "powi", "powif", "rint", "rintf", "round", "roundf", "saturatef", "scalbn", "scalbnf", "signbitd",
        "signbitf",
    ), "libdevice functions whose name has no math counterpart (rounding, classification, fused ops)"),
}


def not_simulated(name: str, feature: str):
    """Raise the NotImplementedError for ``name``, which needs ``feature``."""
    raise NotImplementedError(
        f"{name}: {feature} cannot be simulated by the cudalite CUDA simulator (CUDALITE_ENABLE_CUDASIM=1); "
        "run this program on a GPU")


def _raiser(name, feature):
    def unsupported(*args, **kwargs):
        not_simulated(f"cuda.{name}", feature)

    unsupported.__name__ = name
    unsupported.__qualname__ = name
    unsupported.__doc__ = f"Not available in the simulator: {feature}."
    return unsupported


def unsupported_member(qualname):
    """The raising stand-in of ``UNSUPPORTED_MEMBERS[qualname]`` (``"cg.this_cluster"``)."""
    return _raiser(qualname, UNSUPPORTED_MEMBERS[qualname])


def _unsupported_class(name, feature):
    def __init__(self, *args, **kwargs):
        not_simulated(f"cuda.{name}", feature)

    return type(name, (), {"__init__": __init__, "__module__": "cudalite.cuda",
                           "__doc__": f"Not available in the simulator: {feature}."})


class _UnsupportedNamespace:
    def __init__(self, name, feature):
        self._name = name
        self._feature = feature

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _raiser(f"{self._name}.{attr}", self._feature)

    def __repr__(self):
        return f"<cudalite simulator: cuda.{self._name} is not simulated>"


def unsupported_objects() -> dict:
    """``{name: object}`` of every unsupported name of the simulator namespace."""
    out = {name: _raiser(name, feature) for name, feature in UNSUPPORTED.items()}
    out.update({name: _unsupported_class(name, feature) for name, feature in UNSUPPORTED_CLASSES.items()})
    out.update({name: _UnsupportedNamespace(name, feature) for name, feature in UNSUPPORTED_NAMESPACES.items()})
    return out
