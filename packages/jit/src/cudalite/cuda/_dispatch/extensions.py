"""numba-cuda's launch extensions: ``cuda.jit(extensions=[...])`` / ``kernel.extensions``.

An extension is an object with ``prepare_args(ty, val, stream=..., retr=...)`` returning
``(ty, val)``: before each launch, every argument is passed through the kernel's
extensions (the last one first, as numba-cuda does), which may replace the value -- wrap
a host array in ``cuda.In`` so it is never copied back, convert a library's object to
an array -- and append to ``retr`` work to run once the kernel is queued.  cudalite
then types and passes the returned value as any argument (``ty`` is cudalite's type of
the original value, or None when it has none; the value returned is what counts).

A kernel with extensions always takes the slow launch path, which applies them; the
list is a :class:`ExtensionList`, whose changes drop the launchers made before, so an
extension appended after launches (numba-cuda's ``kernel.extensions.append(...)``)
applies to the next launch.
"""

from __future__ import annotations
from .._launch.typeof import typeof

__all__ = ["ExtensionList", "apply_extensions"]


def _check(ext):
    if not callable(getattr(ext, "prepare_args", None)):
        raise TypeError(f"a kernel extension needs a prepare_args(ty, val, stream=..., retr=...) method; "
                        f"{ext!r} has none")
    return ext


class ExtensionList(list):
    """A kernel's extensions; changing the list drops the kernel's fast launchers."""

    def __init__(self, owner, items=()):
        super().__init__(_check(e) for e in items)
        self._owner = owner

    def _changed(self):
        self._owner._forget_launchers()

    def append(self, ext):
        super().append(_check(ext))
        self._changed()

    def extend(self, exts):
        super().extend(_check(e) for e in exts)
        self._changed()

    def insert(self, i, ext):
        super().insert(i, _check(ext))
        self._changed()

    def __setitem__(self, i, value):
        super().__setitem__(i, [_check(e) for e in value] if isinstance(i, slice) else _check(value))
        self._changed()

    def __iadd__(self, exts):
        self.extend(exts)
        return self

    def __reduce__(self):  # pickled with its kernel as a plain list
        return (list, (list(self),))


def apply_extensions(extensions, args, stream):
    """``(args, retr)``: every argument passed through ``extensions`` (last first) and
    the work they registered for after the launch."""
    retr = []
    out = []
    for val in args:
        try:
            ty = typeof(val)
        except TypeError:
            ty = None
        for ext in reversed(extensions):
            try:
                ty, val = ext.prepare_args(ty, val, stream=stream, retr=retr)
            except (TypeError, ValueError) as e:
                raise TypeError(f"the kernel extension {ext!r} failed in prepare_args: {e}") from e
        out.append(val)
    return tuple(out), retr
