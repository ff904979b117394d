"""Compiled code that travels with a kernel pickled by value.

A ``@cuda.jit`` kernel pickled *by value* (a function defined in ``__main__``, a
notebook, a function body: see ``_pickling``) carries, for every specialization
compiled so far, the stored form of its :class:`~._artifact.KernelArtifact`
(:meth:`~._artifact.KernelArtifact.to_payload`: versioned JSON fields and the linked
cubin, the same plain data the on-disk cache keeps, never a pickle) with its argument
types and compute capability, and the versions of the compiler that made it::

    ("cudalite-carried-code", 1, compiler tag, ((argtypes, (major, minor), payload), ...))

Unpickled, the dispatcher compiles through a :class:`CarriedCode`: the first launch
(or eager compile) for carried argument types on a device of the same compute
capability loads the carried cubin -- no typing, lowering, libNVVM or link; the
dispatcher's ``stats.pickle_loads`` counts it -- and anything else (other argument
types, another compute capability, another cudalite version, a cubin the driver
refuses) compiles as before.

What is carried is untrusted input, validated as the cache validates its entries: a
malformed bundle is an :class:`pickle.UnpicklingError` naming the kernel; a payload
that :meth:`~._artifact.KernelArtifact.from_payload` rejects, or one whose ABI does not
fit its argument types, is dropped with a :class:`~cudalite.core.errors.NumbaWarning`
(that specialization compiles again).  Not carried: specializations that captured
device arrays (their addresses mean nothing in another process), whose link items have
setup callbacks (code), or whose debug exception table cannot be stored.

A dispatcher pickled *by reference* (its module names it) carries nothing: the
receiving process imports its own copy of the module, whose source may differ from
the sender's, so the sender's cubin could be code for another function (numba also
pickles importable functions by name).  ``cache=True`` shares those through the disk.
"""

from __future__ import annotations

import pickle
import warnings

from cudalite import core
from cudalite.core.errors import NumbaWarning
from cudalite.core.types import Type
from cudalite.driver import CudaDriverError

__all__ = ["CarriedCode", "carried_code", "make_bundle", "read_carried", "compiler_tag"]

_MAGIC = "cudalite-carried-code"
_VERSION = 1


def _compile_side():
    """``(cudalite.nvvm, artifact, kernel)``: what carried code is checked and loaded with,
    imported when a pickle is first made or read (the compiler stays unloaded until then)."""
    from cudalite import nvvm  # lazy: the compiler loads with the first carried pickle

    from . import artifact, kernel  # lazy: as above

    return nvvm, artifact, kernel


def compiler_tag() -> str:
    """The versions of the compiler (typing and ABI in cudalite-core, code generation in
    cudalite-nvvm) and of the artifact format: carried code is used only by a process
    whose tag is the same."""



    nvvm, artifact, _kernel = _compile_side()

    return f"core {core.__version__}; nvvm {nvvm.__version__}; artifact {artifact.PAYLOAD_VERSION}"


def _carryable(kernel) -> bool:
    """Can this compiled specialization be loaded by another process as it is?"""
    if not isinstance(kernel, _compile_side()[2].CompiledKernel) or getattr(kernel, "_keepalive", ()):
        return False
    art = kernel.artifact
    return art.storable() and art.setup_callback() is None


def carried_code(disp):
    """The bundle a pickle of ``disp`` (by value) carries, or None when nothing is:
    its compiled specializations, and carried code it received and has not used yet
    (so a process without a matching GPU passes it on)."""
    return make_bundle(getattr(disp, "overloads", {}), getattr(disp, "_compiler", None))


def make_bundle(overloads, held=None):
    """The bundle of ``overloads`` (argument types -> compiled kernel) and of the
    artifacts of ``held`` (a :class:`CarriedCode`, or anything else: ignored), or None."""
    entries = {}
    if isinstance(held, CarriedCode):
        entries.update(held.artifacts)
    for argtypes, kernel in list(overloads.items()):
        if _carryable(kernel):
            entries[(tuple(argtypes), tuple(kernel.cc))] = kernel.artifact
    if not entries:
        return None
    return (_MAGIC, _VERSION, compiler_tag(),
            tuple((argtypes, cc, art.to_payload()) for (argtypes, cc), art in entries.items()))


def _malformed(qualname, what):
    return pickle.UnpicklingError(f"the compiled code carried in the pickle of kernel {qualname} is malformed "
                                  f"({what}): the pickle was not made by cudalite, or was altered")


def read_carried(bundle, qualname):
    """``{(argtypes, cc): KernelArtifact}`` from a bundle :func:`carried_code` made
    (empty when ``bundle`` is None or from another compiler version).

    Raises
    ------
    pickle.UnpicklingError
        ``bundle`` does not have the bundle's structure.
    """

    _nvvm, artifact, _kernel = _compile_side()
    KernelArtifact, PayloadError = artifact.KernelArtifact, artifact.PayloadError

    if bundle is None:
        return {}
    if not (type(bundle) is tuple and len(bundle) == 4 and bundle[0] == _MAGIC):
        raise _malformed(qualname, "not a carried-code bundle")
    _magic, version, tag, items = bundle
    if type(version) is not int or not isinstance(tag, str) or type(items) is not tuple:
        raise _malformed(qualname, "bad header")
    if version != _VERSION or tag != compiler_tag():  # another cudalite: compile as usual
        return {}
    out = {}
    for item in items:
        if not (type(item) is tuple and len(item) == 3):
            raise _malformed(qualname, "an entry is not (argument types, compute capability, payload)")
        argtypes, cc, payload = item
        if not (type(argtypes) is tuple and all(isinstance(t, Type) for t in argtypes)):
            raise _malformed(qualname, "argument types are not cudalite types")
        if not (type(cc) is tuple and len(cc) == 2 and all(type(n) is int and 0 <= n < 1000 for n in cc)):
            raise _malformed(qualname, f"compute capability {cc!r}")
        if not isinstance(payload, bytes):
            raise _malformed(qualname, "the artifact is not bytes")
        shown = f"{qualname}({', '.join(map(str, argtypes))})"
        try:
            art = KernelArtifact.from_payload(payload, argtypes)
            if art.arch not in (f"sm_{cc[0]}{cc[1]}", f"sm_{cc[0]}{cc[1]}a"):  # "a": code that needs sm_90a
                raise PayloadError(f"code for {art.arch} labelled compute capability {cc[0]}.{cc[1]}")
        except PayloadError as e:
            warnings.warn(f"the compiled code carried in the pickle of kernel {shown} is not valid ({e}); "
                          "it is compiled again on first use", NumbaWarning, stacklevel=2)
            continue
        out[(argtypes, cc)] = art
    return out


class CarriedCode:
    """A dispatcher's compiler after unpickling: ``(pyfunc, argtypes, opts, cc)`` ->
    a compiled kernel, loaded from a carried artifact for ``(argtypes, cc)`` when one
    is held, else from ``fallback`` (``CompiledKernel``: compiling).

    Attributes
    ----------
    artifacts : dict
        ``(argtypes, cc)`` -> :class:`~._artifact.KernelArtifact` (kept after use: a
        second device of the same compute capability loads it too).
    fallback : callable
        The compiler used for everything else (and by ``recompile()``).
    """

    def __init__(self, artifacts, fallback=None):
        self.artifacts = dict(artifacts)
        self.fallback = _compile_side()[2].CompiledKernel if fallback is None else fallback

    def __call__(self, pyfunc, argtypes, opts, cc):
        art = self.artifacts.get((tuple(argtypes), tuple(cc)))
        if art is None:
            return self.fallback(pyfunc, argtypes, opts, cc)

        KernelBuild = _compile_side()[2].KernelBuild
        try:
            return self.fallback(pyfunc, argtypes, opts, cc, build=KernelBuild(art, {}, "pickled"))
        except CudaDriverError as e:  # the driver refuses the carried cubin: compile it here
            self.artifacts.pop((tuple(argtypes), tuple(cc)), None)
            warnings.warn(f"the compiled code carried in the pickle of kernel {pyfunc.__qualname__} does not "
                          f"load ({e}); compiling it again", NumbaWarning, stacklevel=2)
            return self.fallback(pyfunc, argtypes, opts, cc)

    def __repr__(self):
        return f"<CarriedCode {len(self.artifacts)} specialization(s)>"
