"""The configured launch ``kernel[griddim, blockdim, stream, sharedmem]`` (numba's
``_LaunchConfiguration``): what the user holds, calls, inspects and pickles.

A :class:`ConfiguredLaunch` wraps the launcher that the generated launch code made for
one configuration (:mod:`cudalite.cuda._launch.fastpath`): calling it is one C-level
call of that launcher (it is a ``functools.partial`` with no bound arguments, not a
Python ``__call__``, which would cost a frame and an argument tuple per launch), and
it carries numba's attributes ``dispatcher``, ``griddim``, ``blockdim`` (3-tuples),
``stream`` (as given), ``sharedmem`` and cudalite's ``config`` (the driver's
``LaunchConfig``).

``pre_launch_callbacks`` is numba's list of host callbacks called as
``callback(kernel, launch_config)`` (``kernel``: the compiled kernel the arguments
select, compiled first if needed) right before each launch through *this* object.  It
is made on first read, which also

- takes this object out of the dispatcher's table of configured launches, so, as in
  numba (where every ``kernel[...]`` is a new object), callbacks added to it never run
  for another ``kernel[griddim, blockdim]`` of the same configuration;
- routes this object's calls through a wrapper that runs the callbacks, so configured
  launches that never read the attribute pay nothing for it.

A configured launch pickles as its dispatcher (by reference or by value, see
:mod:`.pickling`) and its configuration, and refuses to with callbacks, as numba.
"""

from __future__ import annotations

import functools
from .pickling import reduce_configured_launch

__all__ = ["ConfiguredLaunch"]


class ConfiguredLaunch(functools.partial):
    """``kernel[griddim, blockdim, stream, sharedmem]``: call it with the kernel's
    arguments to launch.  Made by the dispatcher; not meant to be constructed directly.

    Attributes
    ----------
    dispatcher : CUDADispatcher
        The kernel.
    griddim, blockdim : tuple of 3 ints
    stream : stream object or int
        The stream as given in the configuration (0: the legacy default stream).
    sharedmem : int
        Dynamic shared memory per block, in bytes.
    config : cudalite.driver.LaunchConfig
        The validated configuration the launch uses.
    pre_launch_callbacks : list
        Host callbacks run before each launch through this object as
        ``callback(kernel, launch_config)``, in order.  They must not call CUDA APIs
        or launch CUDA work (numba's rule).
    """

    __slots__ = ()  # the attributes live in functools.partial's own __dict__

    def _attach(self, dispatcher, config, key, stream):
        self.dispatcher, self.config, self._key = dispatcher, config, key
        self.griddim, self.blockdim, self.sharedmem = config.grid, config.block, config.shared_mem
        self.stream = config.stream if stream is None else stream
        return self

    @property
    def pre_launch_callbacks(self) -> list:
        callbacks = self.__dict__.get("_callbacks")
        if callbacks is None:
            callbacks = self._arm()
        return callbacks

    def _arm(self) -> list:
        """Make the callback list, leave the dispatcher's table (see the module
        docstring) and run calls through :func:`_with_callbacks`."""
        callbacks = self.__dict__.setdefault("_callbacks", [])
        disp, key = self.dispatcher, self._key
        configs = disp._configs
        try:
            if configs.get(key) is self:
                configs.pop(key, None)
        except TypeError:  # an unhashable configuration was never kept
            pass
        # functools.partial's own state setter: the same object, now calling the wrapper
        functools.partial.__setstate__(self, (_with_callbacks(self, self.func, callbacks), (), None, self.__dict__))
        return callbacks

    def __reduce__(self):
        return reduce_configured_launch(self)

    def __repr__(self):
        return (f"<configured launch of {self.dispatcher.py_func.__qualname__}: griddim={self.griddim}, "
                f"blockdim={self.blockdim}, stream={self.stream!r}, sharedmem={self.sharedmem}>")


def _with_callbacks(owner, launch, callbacks):
    """``launch`` preceded by ``owner``'s pre-launch callbacks, each called with the
    kernel the arguments select (compiled first if needed) and ``owner``.  A call with
    the wrong number of arguments goes straight to ``launch``, which reports it."""
    disp = owner.dispatcher

    def launch_with_callbacks(*args):
        if callbacks and len(args) == len(disp._names):
            kernel = disp._kernel_for(disp._keys(args))
            for callback in tuple(callbacks):
                callback(kernel, owner)
        return launch(*args)

    launch_with_callbacks.__name__ = launch_with_callbacks.__qualname__ = getattr(launch, "__name__", "launch")
    return launch_with_callbacks
