"""numba's ``strict`` rule for overloads: the implementation's signature must match the
typing function's.

``@overload(func)`` (and ``overload_method``) passes the call's argument types to the
typing function and then compiles the implementation it returns for the same
arguments, so the two must agree: the same positional parameter names, the same
keyword parameters with the same defaults; an implementation may consume trailing
arguments with ``*args``; ``**kwargs`` is not supported anywhere.  A mismatch is a
TypingError worded as numba words it ("Typing and implementation arguments differ in
argument names ..."), so code and tests written against numba-cuda read the same.
"""

from __future__ import annotations

import inspect

__all__ = ["signature_mismatch"]

_PREFIX = "Typing and implementation arguments differ in "


def _split(sig):
    """``(positional parameters, keyword parameters with defaults, the *args one)``; a
    ``**kwargs`` parameter is an error message instead."""
    positional, keywords, star = [], [], None
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            return f"The use of VAR_KEYWORD (e.g. **kwargs) is unsupported. (offending argument name is '{p}')"
        if p.default is inspect.Parameter.empty:
            positional.append(p)
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                star = p
        else:
            keywords.append(p)
    return positional, keywords, star


def _difference(a, b) -> str:
    return f"Difference: {set(a) ^ set(b)}"


def signature_mismatch(typing_func, impl_func):
    """None when ``impl_func`` may implement ``typing_func``'s signature, else the
    message saying how they differ."""
    try:
        ty_sig, im_sig = inspect.signature(typing_func), inspect.signature(impl_func)
    except (TypeError, ValueError):
        return None
    ty, im = _split(ty_sig), _split(im_sig)
    for part in (ty, im):
        if isinstance(part, str):
            return part
    (ty_args, ty_kws, ty_star), (im_args, im_kws, im_star) = ty, im
    shown = f"Typing signature:         {ty_sig}\nImplementation signature: {im_sig}"
    a, b = ty_args, im_args
    if ty_star is not None and im_star is None:
        return (f"VAR_POSITIONAL (e.g. *args) argument kind (offending argument name is '{ty_star}') found in "
                f"the typing function signature, but is not in the implementing function signature.\n{shown}")
    if ty_star is None and im_star is not None:  # the implementation's *args takes the rest
        b = im_args[:im_args.index(im_star)]
        names = [p.name for p in ty_args]
        if b and b[-1].name not in names:
            return f"{_PREFIX}argument names.\n{shown}\nFirst difference: '{b[-1]}'"
        a = ty_args[:names.index(b[-1].name) + 1] if b else []
    if a != b:
        return f"{_PREFIX}argument names.\n{shown}\n{_difference(a, b)}"
    if [p.name for p in ty_kws] != [p.name for p in im_kws]:
        return f"{_PREFIX}keyword argument names.\n{shown}\n{_difference(ty_kws, im_kws)}"
    if [p.default for p in ty_kws] != [p.default for p in im_kws]:
        return f"{_PREFIX}keyword argument default values.\n{shown}\n{_difference(ty_kws, im_kws)}"
    return None
