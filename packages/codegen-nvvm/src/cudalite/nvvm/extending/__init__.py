"""The extension API (numba's ``numba.extending`` / ``numba.cuda.extending``).

Libraries extend cudalite the way they extend numba-cuda: new types
(``types.Type`` subclasses, :func:`typeof_impl`, :func:`register_model`,
:func:`make_attribute_wrapper`), functions implemented in Python (:func:`overload`,
:func:`overload_method`, :func:`overload_attribute`, :func:`register_jitable`) and
code written against llvmlite's IRBuilder (:func:`intrinsic`, :func:`lower_builtin`,
:func:`lower_cast`, :func:`lower_constant`, :func:`lower_getattr`; helpers in
:mod:`.cgutils`).  Everything registers into the same tables the built-ins use (the
typing registry in core, the lowering table here), so an extension's function is
typed, lowered, cached and located like a built-in.  docs/extending.md is the guide.

This package is the GPU-less compiler's (``cudalite.nvvm``): an extension works for
PTX/LTO-IR export too.  ``cudalite.cuda.extending`` re-exports it and lets extension
types be kernel arguments.
"""

from cudalite.core.types import Purpose, TypeofContext, as_numba_type, typeof_impl
from cudalite.core.typing import Implementation

from . import cgutils, models, templates
from ._boxing import NativeValue, box, reflect, unbox
from ._context import LoweringContext
from ._intrinsic import Intrinsic, intrinsic
from ._lowering import Registry, lower_builtin, lower_cast, lower_constant, lower_getattr, lower_getattr_generic
from ._typing import (
    make_attribute_wrapper, overload, overload_attribute, overload_classmethod, overload_method, python_attribute,
    register_jitable, type_callable,
)
from .models import register_model
from .templates import (
    AbstractTemplate, AttributeTemplate, CallableTemplate, ConcreteTemplate, bound_function, infer, infer_getattr,
    infer_global, register_attr, register_global, signature,
)

typing_registry = templates.registry  # numba-cuda's cudadecl.registry
core_models = models  # numba-cuda's name: ``from numba.cuda.extending import core_models``
lower = lower_builtin  # numba's ``imputils.lower_builtin`` is also exported as ``lower``
_Intrinsic = Intrinsic

__all__ = [
    "overload", "overload_method", "overload_attribute", "overload_classmethod", "register_jitable", "intrinsic",
    "type_callable", "typeof_impl", "as_numba_type", "register_model", "models", "core_models",
    "make_attribute_wrapper", "lower_builtin", "lower", "lower_cast", "lower_constant", "lower_getattr",
    "lower_getattr_generic", "cgutils", "Registry", "LoweringContext", "Intrinsic", "Implementation", "Purpose",
    "TypeofContext", "python_attribute", "templates", "AbstractTemplate", "AttributeTemplate", "ConcreteTemplate",
    "infer", "infer_getattr", "infer_global", "signature", "box", "unbox", "reflect", "NativeValue",
    "typing_registry", "CallableTemplate", "register_global", "register_attr", "bound_function",
]
