"""Pickling ``@cuda.jit`` dispatchers and ``@vectorize(target="cuda")`` ufuncs
(``pickle.dumps(kernel)``, multiprocessing, Dask), as numba does.

A dispatcher that its module names (``module.qualname`` is this very object) pickles
by reference: unpickling imports the module and takes the dispatcher there.  Any
other one (defined in ``__main__`` -- a script or a notebook --, in a function, a
closure, replaced in its module) pickles *by value*, as one ``cloudpickle`` stream
(what Dask, loky and numba use) wrapped in cudalite's own record:

- the Python function: its code, the globals it reads, closure cells, defaults and
  annotations; by value what the receiving process could not import (classes,
  enums, dataclasses and functions of ``__main__`` or of a function body); modules
  and what an importable module names by name.  The device functions, kernels and
  ufuncs it calls travel in the same stream, so a helper or class that several of
  them read is one object again after loading, and a function that calls itself
  (or two that call each other) names the rebuilt dispatcher.  Code objects keep
  their file name, and the record carries the text of the files and notebook cells
  they come from (cudalite compiles from source; the receiving process may not have
  the file): loading registers it in ``linecache`` where that process has no text
  of its own under that name.  Anything pickle refuses refuses here too (a global
  device array, as in numba).
- the compiled code of its specializations (``_carry``), cudalite's plain payload
  (versioned fields and the cubin, never a pickle): the receiving process loads the
  cubin without compiling when its device has the same compute capability, and
  compiles otherwise; a ``vectorize`` ufunc carries its loop kernels' code the same
  way.  A device function has no code of its own to carry (it is compiled into each
  kernel that calls it).

A configured launch ``kernel[griddim, blockdim, stream, sharedmem]`` pickles as its
dispatcher (either way above) and its configuration, configured again on loading
(numba's behaviour, ``griddim``/``blockdim`` kept); one with pre-launch callbacks
(host code of this process) or on a stream other than the default ones (a handle of
this process) refuses to.

``cloudpickle`` is imported only when a by-value pickle is made or loaded.

This is only for ``pickle`` streams the user makes and loads (loading one runs code
from it, as any pickle does).  The by-value stream is nested in the user's pickle as a
:class:`~cudalite.core.nested_pickle.NestedStream`, after the record it is checked
against: the user's unpickler checks the record (:func:`_check_record`: cudalite's
magic and format version, the carried sources) and then opens the stream; cudalite's
code never unpickles anything, and its disk cache holds no pickles.
"""

from __future__ import annotations

import io
import linecache
import marshal
import pickle
import sys
import types as pytypes

from cudalite.core.nested_pickle import NestedStream

from .._compiler.carry import CarriedCode, carried_code, read_carried
from .._compiler.options import JitOptions

__all__ = ["reduce_dispatcher", "reduce_ufunc", "dispatcher_reduction", "ufunc_reduction",
           "reduce_configured_launch"]

_MAGIC, _VERSION = "cudalite-by-value", 1


def _named(obj, module, qualname) -> bool:
    """Does ``module.qualname`` (importable) name ``obj`` itself?  Never for ``__main__``
    (a script, a notebook): the receiving process (a Dask worker, an MPI rank, a
    ``spawn`` child) has another ``__main__``, so that travels by value."""
    if not module or not qualname or "<locals>" in qualname or module == "__main__":
        return False
    mod = sys.modules.get(module)
    if mod is None:
        return False
    target = mod
    for part in qualname.split("."):
        target = getattr(target, part, None)
        if target is None:
            return False
    return target is obj


def dispatcher_reduction(disp):
    """A dispatcher inside the by-value stream (its class's ``__cudalite_by_value__``;
    None: by reference, through ``__reduce__``).  A new object
    whose state -- its Python function first -- is set after pickle has remembered
    it, so references to it from its own function (recursion) resolve to it."""
    if _named(disp, getattr(disp, "__module__", None), getattr(disp, "__qualname__", None)):
        return None
    return (_new, (type(disp),), (disp.py_func, disp._sigs, disp.options, carried_code(disp)),
            None, None, _init_dispatcher)


def ufunc_reduction(uf):
    """A ``vectorize`` ufunc inside the by-value stream (its class's
    ``__cudalite_by_value__``; None: by reference)."""
    if _named(uf, getattr(uf.py_func, "__module__", None), uf.__qualname__):
        return None
    return (_new, (type(uf),), (uf.py_func, uf._sigs, uf.identity, uf._jit_options, uf._carried_kernels()),
            None, None, _init_ufunc)


def _by_value(obj) -> tuple:
    """``obj`` (a dispatcher or ufunc) pickled by value: ``(record, stream)``, the
    arguments of :func:`_loaded`; the record (format and carried sources) is rebuilt,
    and so checked, before the unpickler opens the stream."""
    import cloudpickle

    filenames = set()

    class _ByValuePickler(cloudpickle.Pickler):
        def reducer_override(self, o):
            if type(o) is pytypes.CodeType:  # keep co_filename (cloudpickle drops it): the source is found by it
                filenames.add(o.co_filename)
                return marshal.loads, (marshal.dumps(o),)
            hook = getattr(type(o), "__cudalite_by_value__", None)  # dispatchers and ufuncs
            reduction = hook(o) if hook is not None else None
            return super().reducer_override(o) if reduction is None else reduction

    buf = io.BytesIO()
    _ByValuePickler(buf).dump(obj)
    sources = tuple((name, "".join(lines)) for name in sorted(filenames) if (lines := linecache.getlines(name)))
    return (_Record(sources), NestedStream(buf.getvalue()))


class _Record:
    """The checked part of a by-value pickle: cudalite's magic, the format version and
    the source texts the code objects come from."""

    __slots__ = ("sources",)

    def __init__(self, sources):
        self.sources = sources

    def __reduce__(self):
        return _check_record, (_MAGIC, _VERSION, self.sources)


def _malformed(detail):
    return pickle.UnpicklingError(f"this pickle of a CUDA kernel, device function or ufunc is malformed ({detail}): "
                                  "the pickle was not made by cudalite, or was altered")


def _remember_sources(sources):
    """Make the carried source texts readable through ``linecache`` under their file
    names, where this process has no text of its own under that name (a notebook
    cell, a script that is not on this machine)."""
    if type(sources) is not tuple:
        raise _malformed("the source texts are not a tuple")
    for item in sources:
        if not (type(item) is tuple and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise _malformed("a source text is not (file name, text)")
        name, text = item
        if not linecache.getlines(name):
            linecache.cache[name] = (len(text), None, text.splitlines(True), name)


def _check_record(magic, version, sources):
    """The record of a by-value pickle, rebuilt before its stream is opened: refuses
    another format, registers the carried sources; ``True``."""
    if magic != _MAGIC:
        raise _malformed("not a by-value record")
    if version != _VERSION:
        raise pickle.UnpicklingError(f"this pickle of a CUDA kernel, device function or ufunc was made by another "
                                     f"cudalite version (by-value format {version!r}, this one reads {_VERSION}): "
                                     "pickle it again with this version")
    _remember_sources(sources)
    return True


def _loaded(checked, obj):
    """The dispatcher or ufunc of a by-value pickle (``checked``: the rebuilt record)."""
    if checked is not True:
        raise _malformed("not a by-value record")
    if not hasattr(obj, "py_func"):
        raise _malformed(f"the pickled stream holds a {type(obj).__name__}, not a kernel, device function or ufunc")
    return obj


def _new(cls):
    return cls.__new__(cls)


def _function(fn, kind):
    if not isinstance(fn, pytypes.FunctionType):
        raise _malformed(f"the Python function of a {kind} is a {type(fn).__name__}")
    return fn


def _checked(value, kinds, what, kind):
    """``value`` when it is one of ``kinds`` (the field ``what`` of a ``kind``), else the
    pickle is malformed (a tampered field must not surface as an AttributeError of the
    constructor)."""
    if not isinstance(value, kinds):
        raise _malformed(f"the {what} of a {kind} are a {type(value).__name__}")
    return value


def _init_dispatcher(disp, state):
    """Make ``disp`` (from :func:`_new`) the dispatcher of ``state``: its Python
    function, signatures, options and carried compiled code (``_carry``), loaded
    instead of compiling."""
    if not (type(state) is tuple and len(state) == 4):
        raise _malformed("a dispatcher's state")
    fn, sigs, options, carried = state
    kind = type(disp).__name__
    fn = _function(fn, kind)
    _checked(sigs, (tuple, type(None)), "signatures", kind)
    _checked(options, JitOptions, "options", kind)
    artifacts = read_carried(carried, fn.__qualname__)
    if artifacts:
        type(disp).__init__(disp, fn, sigs, options, compiler=CarriedCode(artifacts))
    else:
        type(disp).__init__(disp, fn, sigs, options)


def _init_ufunc(uf, state):
    """Make ``uf`` (from :func:`_new`) the ``vectorize`` ufunc of ``state``; its carried
    ``((loop key, bundle), ...)`` are its loop kernels' compiled code."""
    if not (type(state) is tuple and len(state) == 5):
        raise _malformed("a ufunc's state")
    fn, sigs, identity, jit_options, carried = state
    _checked(sigs, (tuple, list, str, type(None)), "signatures", "ufunc")
    if not all(isinstance(k, str) for k in _checked(jit_options, dict, "options", "ufunc")):
        raise _malformed("the options of a ufunc are not named by strings")
    type(uf).__init__(uf, _function(fn, "ufunc"), sigs, identity, jit_options)
    if type(carried) is not tuple or not all(type(c) is tuple and len(c) == 2 for c in carried):
        raise pickle.UnpicklingError(f"the compiled code carried in the pickle of ufunc {uf.__qualname__} "
                                     "is malformed: the pickle was not made by cudalite, or was altered")
    for key, bundle in carried:
        artifacts = read_carried(bundle, uf.__qualname__)
        if artifacts:
            uf._add_carried(key, CarriedCode(artifacts))


def _earlier_version(*_args):
    """What the by-value pickles of cudalite before cloudpickle name to rebuild."""
    raise pickle.UnpicklingError("this pickle of a CUDA kernel, device function or ufunc was made by an earlier "
                                 "cudalite version, whose by-value format this version does not read: pickle it "
                                 "again with this version")


_rebuild_dispatcher = _rebuild_ufunc = _earlier_version


def reduce_dispatcher(disp):
    """``disp.__reduce__()``: by reference when its module names it, else by value."""
    if _named(disp, getattr(disp, "__module__", None), getattr(disp, "__qualname__", None)):
        return disp.__qualname__  # pickle looks up __module__.__qualname__
    return _loaded, _by_value(disp)


def reduce_ufunc(uf):
    """``ufunc.__reduce__()``: by reference when its module names it, else by value
    (the scalar function rebuilt, the ufunc made again from the same signatures)."""
    if _named(uf, getattr(uf.py_func, "__module__", None), uf.__qualname__):
        return uf.__qualname__
    return _loaded, _by_value(uf)


_PROCESS_FREE_STREAMS = (0, 1, 2)  # CUDA's legacy and per-thread default streams: the same in every process


def reduce_configured_launch(cfg):
    """``kernel[griddim, blockdim, stream, sharedmem].__reduce__()``: the dispatcher and
    the configuration, configured again when loaded."""
    if cfg.__dict__.get("_callbacks"):
        raise pickle.PicklingError(
            "Cannot pickle configured launches with pre-launch callbacks (they are host code of this process): "
            f"pickle the kernel {cfg.dispatcher.py_func.__qualname__} and configure it where it is loaded")
    config = cfg.config
    if config.stream not in _PROCESS_FREE_STREAMS:
        raise pickle.PicklingError(
            f"Cannot pickle the configured launch of {cfg.dispatcher.py_func.__qualname__} on stream "
            f"{cfg.stream!r}: a stream belongs to the process that made it; pickle the kernel and configure it "
            "with a stream of the process that loads it")
    return _configured_launch, (cfg.dispatcher, config.grid, config.block, config.stream, config.shared_mem)


def _configured_launch(disp, griddim, blockdim, stream, sharedmem):
    """The configured launch that :func:`reduce_configured_launch` pickled."""
    configure = getattr(type(disp), "configure", None)
    if configure is None:
        raise _malformed(f"a configured launch of a {type(disp).__name__}, not of a kernel")
    return configure(disp, griddim, blockdim, stream, sharedmem)
