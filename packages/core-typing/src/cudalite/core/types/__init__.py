"""cudalite's type system: scalars, arrays, tuples, pointers, records, signatures."""

from ._base import Signature, Type
from ._containers import (
    Array, ArrayCTypes, CPointer, NamedTuple, NestedArray, Record, Tuple, UniTuple, array_from_subscript,
)
from ._enums import EnumClass, EnumMember
from ._extension import (
    Any, BoundFunction, Dummy, ExtOpaque, Function, Literal, Number, Purpose, TypeofContext, VarArg, as_numba_type,
    extension_typeof, typeof_impl,
)
from ._npextra import DATETIME_UNITS, BytesLiteral, CharSeq, NPDatetime, NPTimedelta, UnicodeCharSeq
from ._functions import (
    BoundMethod, DType, Module, NumberClass, Opaque, PyFunction, RangeType, SliceType, StringLiteral,
)
from ._scalar import *  # noqa: F401,F403
from ._fp8 import (
    FP8_TYPES, BFloat16Raw, Fp8, bfloat16_raw, fp8_bits, fp8_decode, fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8_encode,
    fp8_interpretation_t, saturation_t,
)
from ._scalar import __all__ as _scalar_all
from ._signature import TYPE_NAMES, as_type, parse_signature, parse_type, voidptr
from ._typeof import (
    BrokenDeviceArray, DeviceArrayRef, bfloat16_dtype, device_array_ref, dtype_of, from_dtype, type_from_dtype,
    typeof_constant, untyped_reason,
)
from ._vector import VECTOR_ALIASES, VectorType, cuda_alignment, vector_type_named, vector_types

Type._convert_arg = staticmethod(as_type)  # int32("float32"), float64(np.float32): see Type.__call__
Type._array_of = staticmethod(array_from_subscript)  # my_type[::1]: see Type.__getitem__

__all__ = [
    "Signature", "Type", "Array", "ArrayCTypes", "CPointer", "voidptr", "NamedTuple", "NestedArray", "Record", "Tuple",
    "UniTuple",
    "array_from_subscript", "BoundMethod", "DType", "EnumClass", "EnumMember", "Module", "NumberClass", "Opaque",
    "PyFunction", "RangeType", "SliceType", "StringLiteral", "TYPE_NAMES", "as_type",
    "parse_signature", "parse_type", "dtype_of", "from_dtype", "type_from_dtype", "typeof_constant",
    "DeviceArrayRef", "device_array_ref", "BrokenDeviceArray", "untyped_reason", "bfloat16_dtype",
    "BytesLiteral", "CharSeq", "UnicodeCharSeq", "NPDatetime", "NPTimedelta", "DATETIME_UNITS",
    "VECTOR_ALIASES", "VectorType", "cuda_alignment", "vector_type_named", "vector_types",
    "FP8_TYPES", "BFloat16Raw", "bfloat16_raw", "Fp8", "fp8_bits", "fp8_decode", "fp8_e4m3", "fp8_e5m2",
    "fp8_e8m0", "fp8_encode", "fp8_interpretation_t",
    "saturation_t", "Any", "BoundFunction", "Dummy", "ExtOpaque", "Function", "Literal", "Number", "VarArg",
    "Purpose",
    "TypeofContext", "as_numba_type",
    "extension_typeof",
    "typeof_impl", *_scalar_all,
]
