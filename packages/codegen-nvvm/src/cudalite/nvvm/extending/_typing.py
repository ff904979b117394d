"""The high-level half of the extension API: typing from Python code.

* ``@overload(func)`` -- ``generator(*argtypes)`` returns a Python implementation for
  those types (or None: no match); the implementation is compiled by cudalite as a
  device function for the call's argument types, so it is typed per call site and
  errors in it are located in the extension's own file;
* ``@overload_method(TypeClass, "name")`` / ``@overload_attribute(TypeClass, "name")``
  -- the same for ``value.name(...)`` (the receiver first) and ``value.name``;
* ``register_jitable(fn)`` -- ``fn`` itself becomes callable from device code;
* ``@type_callable(func)`` -- ``typer_factory(context)`` returns ``typer(*argtypes)``
  giving the return type (or a signature) of a call of ``func``; the call is then
  lowered by a ``lower_builtin`` of the same ``func``;
* :func:`make_attribute_wrapper` -- a struct-model member read as an attribute.

All of them fill cudalite's one typing registry (:data:`cudalite.core.registry.registry`),
which the built-ins fill too, and a typer answers with an
:class:`~cudalite.core.typing.Implementation` when Python code implements the call.
"""

from __future__ import annotations

import inspect
import types as pytypes

from cudalite.core.datamodel import data_models
from cudalite.core.errors import TypingError
from cudalite.core.registry import registry
from cudalite.core.types import Signature, Type
from cudalite.core.typing import Implementation

from ..lower._registry import lowerings
from ._strict import signature_mismatch

__all__ = ["overload", "overload_method", "overload_attribute", "overload_classmethod", "register_jitable",
           "type_callable", "make_attribute_wrapper", "python_attribute", "TypingContextView"]

_INLINE = ("never", "always")


class TypingContextView:
    """What a ``type_callable`` factory or an ``@intrinsic`` receives as ``context`` /
    ``typingctx``: a way to ask for types (numba's typing context, the parts extension
    code uses)."""

    __slots__ = ()

    def resolve_value_type(self, value):
        from cudalite.core.types import typeof_constant

        return typeof_constant(value)

    def unify_types(self, *types):
        from cudalite.core.typing.rules.casts import unify

        out = types[0]
        for t in types[1:]:
            out = unify(out, t)
            if out is None:
                return None
        return out

    unify_pairs = unify_types

    def can_convert(self, fromty, toty):
        from cudalite.core.typing.rules.casts import can_convert

        return can_convert(fromty, toty)


def _inline_choice(inline, who):
    if inline in _INLINE:
        return (inline, False)
    if callable(inline):
        return (inline, False)
    raise TypeError(f"{who}: inline must be 'never', 'always' or a callable, not {inline!r}")


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    return f"{fn.__qualname__} ({code.co_filename}:{code.co_firstlineno})" if code else repr(fn)


def _call_generator(gen, site, args, what, kwargs=None):
    """``gen(*args, **kwargs)``: the extension's typing function; its exception,
    re-raised as a located TypingError naming the function (never an internal exception)."""
    try:
        return gen(*args, **(kwargs or {}))
    except TypingError:
        raise
    except Exception as e:
        raise TypingError(f"{what}: the typing function {_where(gen)} raised {type(e).__name__}: {e}",
                          site.loc) from e


def _implementation(impl, gen, site, what, inline, strict=False):
    if impl is None:
        return None
    if not isinstance(impl, pytypes.FunctionType):
        pyfunc = getattr(impl, "__cudalite_pyfunc__", None) or getattr(impl, "py_func", None)
        if not isinstance(pyfunc, pytypes.FunctionType):
            raise TypingError(f"{what}: the typing function {_where(gen)} must return a Python function (the "
                              f"implementation) or None, not {impl!r}", site.loc)
        impl = pyfunc
    if strict:
        mismatch = signature_mismatch(gen, impl)
        if mismatch is not None:
            raise TypingError(f"{what}: {mismatch}", site.loc)
    return Implementation(impl, what, inline)


def _params(func, skip=0):
    """``(parameter names, {name: default})`` of ``func`` after the first ``skip``."""
    try:
        params = list(inspect.signature(func).parameters.values())[skip:]
    except (TypeError, ValueError):
        return None, None
    plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
             inspect.Parameter.KEYWORD_ONLY)
    if any(p.kind not in plain for p in params):  # *args / **kwargs: the names are not known
        return None, None
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    return tuple(p.name for p in params) or None, defaults or None


#: the order an overload's targets are asked in: numba's "cuda" ones before "generic" ones
_TARGETS = {"cuda": 0, "gpu": 0, "generic": 1}


def _generator_args(gen, args, params):
    """``(positional, keywords)`` to call typing function ``gen`` with the call's
    argument types ``args`` (in the order of the registered ``params``): arguments past
    ``gen``'s positional parameters go by name (into its ``**kwargs``), as numba passes
    a call's keywords on."""
    try:
        sig = inspect.signature(gen).parameters.values()
    except (TypeError, ValueError):
        return tuple(args), {}
    kinds = [p.kind for p in sig]
    n = sum(k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in kinds)
    if inspect.Parameter.VAR_POSITIONAL in kinds or len(args) <= n or not params or len(params) < len(args):
        return tuple(args), {}
    return tuple(args[:n]), {params[i].lstrip("/"): args[i] for i in range(n, len(args))}


class _OverloadSet:
    """Every ``overload`` of one callable: asked CUDA-target first, then generic, the
    newest first within a target; then the typer that was there before (a built-in)."""

    def __init__(self, what, builtin):
        self.what = what
        self.builtin = builtin  # TyperEntry or None
        self.entries = []  # (target rank, -sequence, generator, inline, strict)
        self.params = None  # the parameter names calls are folded to (registered with the set)

    def add(self, rank, gen, inline, strict):
        self.entries.append((rank, -len(self.entries), gen, inline, strict))
        self.entries.sort(key=lambda e: (e[0], e[1]))

    def extension_typer(self, site):
        """The overloads alone (operators ask this: a built-in's error stays its own)."""
        for _rank, _seq, gen, inline, strict in self.entries:
            pos, kws = _generator_args(gen, site.args, self.params)
            found = _implementation(_call_generator(gen, site, pos, f"{self.what}()", kws), gen, site, self.what,
                                    inline, strict)
            if found is not None:
                return found
        return None

    def __call__(self, site):
        found = self.extension_typer(site)
        if found is None and self.builtin is not None:
            return self.builtin.typer(site)
        return found


def overload(func, jit_options=None, strict=True, inline="never", prefer_literal=False, target="cuda", **kwargs):
    """Decorator: ``generator(*argtypes) -> implementation or None`` implements calls of
    ``func`` in device code (numba's ``@overload``).  ``target``: "cuda" (the default)
    and "generic" overloads apply to device code, CUDA ones first; a "cpu" one does not
    (there is no CPU target)."""
    choice = _inline_choice(inline, "overload()")
    what = getattr(func, "__name__", None) or repr(func)
    rank = _TARGETS.get(target.lower() if isinstance(target, str) else target)

    def deco(gen):
        if rank is None:  # another target's overload (numba's CPU): nothing for device code
            return gen
        prev = registry.lookup_call(func)
        oset = prev.typer if prev is not None and isinstance(prev.typer, _OverloadSet) else None
        if oset is None:  # numba's overload extends what a callable accepts: the built-in stays behind it
            oset = _OverloadSet(what, prev)
        oset.add(rank, gen, choice, strict)
        params, defaults = _params(gen)
        if params is None and callable(func):  # a generator taking *args (register_jitable's): func's own
            params, defaults = _params(func)
        if params is None and prev is not None:
            params = prev.declared
        oset.params = params
        registry.call(func, params=params, name=what, defaults=defaults)(oset)
        return gen

    return deco


def register_jitable(*args, **kwargs):
    """``@register_jitable`` / ``@register_jitable(inline=...)``: the function is
    callable from device code (compiled for each call's argument types) and stays an
    ordinary Python function."""

    def wrap(fn):
        inline = kwargs.get("inline", "never")
        overload(fn, inline=inline, strict=False)(lambda *a, **k: fn)
        return fn

    if len(args) == 1 and not kwargs and callable(args[0]):
        return wrap(args[0])
    return wrap


def overload_method(typ, attr, target="cuda", inline="never", prefer_literal=False, strict=True, **kwargs):
    """Decorator: ``generator(self_type, *argtypes) -> implementation or None``
    implements ``value.attr(...)`` for values of ``typ`` (a type class or a type)."""
    choice = _inline_choice(inline, "overload_method()")
    cls = typ if isinstance(typ, type) else type(typ)

    def deco(gen):
        params, defaults = _params(gen, skip=1)
        prev = registry.method_at((cls, attr))

        @registry.method(cls, attr, params=params, defaults=defaults)
        def _type(site):
            found = None
            if isinstance(typ, type) or site.recv == typ:
                impl = _call_generator(gen, site, (site.recv, *site.args), f"{site.recv}.{attr}()")
                found = _implementation(impl, gen, site, attr, choice, strict)
            return found if found is not None or prev is None else prev.typer(site)

        return gen

    return deco


overload_classmethod = overload_method


def overload_attribute(typ, attr, target="cuda", inline="never", **kwargs):
    """Decorator: ``generator(self_type) -> getter or None`` implements ``value.attr``."""
    choice = _inline_choice(inline, "overload_attribute()")
    cls = typ if isinstance(typ, type) else type(typ)

    def deco(gen):
        prev = registry.attr_at((cls, attr))

        @registry.attr(cls, attr)
        def _type(recv):
            try:
                impl = gen(recv) if isinstance(typ, type) or recv == typ else None
            except TypingError:
                raise
            except Exception as e:  # the extension's typing function failed: name it
                raise TypingError(f"{recv}.{attr}: the typing function {_where(gen)} raised "
                                  f"{type(e).__name__}: {e}") from e
            if impl is None:
                return prev(recv) if prev is not None else None
            if not isinstance(impl, pytypes.FunctionType):
                raise TypingError(f"overload_attribute({cls.__name__}, {attr!r}): {_where(gen)} must return a "
                                  f"Python function (the getter) or None, not {impl!r}")
            return Implementation(impl, attr, choice)

        return gen

    return deco


def type_callable(func):
    """Decorator: ``typer_factory(context) -> typer``; ``typer(*argtypes)`` returns the
    result type (or a full signature, or None: no match) of calling ``func``."""
    what = getattr(func, "__name__", None) or repr(func)

    def deco(factory):
        typer = factory(TypingContextView())
        if not callable(typer):
            raise TypeError(f"type_callable({what}): {_where(factory)} must return the typer function, "
                            f"not {typer!r}")
        params, defaults = _params(typer)
        prev = registry.lookup_call(func)

        @registry.call(func, params=params or (prev.declared if prev else None), name=what, defaults=defaults)
        def _type(site):
            rt = _call_generator(typer, site, site.args, f"{what}()")
            if rt is None:
                return prev.typer(site) if prev is not None else None
            if isinstance(rt, Signature):
                return rt
            if not isinstance(rt, Type):
                raise TypingError(f"{what}(): the typer {_where(typer)} returned {rt!r}, not a type or a "
                                  "signature", site.loc)
            return Signature(rt, tuple(site.args))

        return factory

    return deco


def make_attribute_wrapper(typeclass, struct_attr, python_attr):
    """Expose member ``struct_attr`` of ``typeclass``'s struct model as the attribute
    ``python_attr`` (read-only), in device code and for kernel arguments."""
    if not isinstance(typeclass, type) or not issubclass(typeclass, Type):
        raise TypeError(f"make_attribute_wrapper() takes a type class, not {typeclass!r}")

    def member_model(t):
        model = data_models.lookup(t)
        if model is None or not hasattr(model, "get_field_position"):
            raise TypingError(f"make_attribute_wrapper({typeclass.__name__}, {struct_attr!r}): {t} has no "
                              "StructModel (register one with @register_model)")
        return model

    @registry.attr(typeclass, python_attr)
    def _type(t):
        return member_model(t).get_type(struct_attr)

    @lowerings.attr(typeclass, python_attr)
    def _lower(lc, value, info):
        model = member_model(info.sig.args[0])
        return lc.builder.extract_value(value, model.get_field_position(struct_attr))

    ATTRIBUTE_WRAPPERS.setdefault(typeclass, {})[struct_attr] = python_attr
    return None


#: ``type class -> {struct member: Python attribute}`` (the runtime reads kernel arguments by it)
ATTRIBUTE_WRAPPERS: dict = {}


def python_attribute(t, member):
    """The Python attribute a kernel argument of extension type ``t`` gives struct member
    ``member`` from: the one :func:`make_attribute_wrapper` named, else the member's name."""
    for cls in type(t).__mro__:
        mapped = ATTRIBUTE_WRAPPERS.get(cls, {}).get(member)
        if mapped is not None:
            return mapped
    return member
