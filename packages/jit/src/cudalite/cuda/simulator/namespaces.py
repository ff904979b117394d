""":class:`Namespace`: a plain attribute bag for the simulator's sub-namespaces
(``cuda.shared``, ``cuda.fp16``, ``cuda.runtime`` ...)."""

from __future__ import annotations

__all__ = ["Namespace"]


class Namespace:
    """``Namespace("shared", array=f)``: an object whose attributes are the members."""

    def __init__(self, name, members=None, **kwargs):
        self.__name__ = name
        for k, v in {**(members or {}), **kwargs}.items():
            setattr(self, k, v)

    def __repr__(self):
        return f"<cudalite simulator namespace cuda.{self.__name__}>"
