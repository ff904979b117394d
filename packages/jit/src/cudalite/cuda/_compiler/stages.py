"""The runtime half of the pipeline as data: after NVVM, through the cubin.

The compiler half (``cudalite.nvvm.pipeline``) takes a function to PTX or LTO-IR.
This module is its continuation, in the same style: :data:`BUILD_STAGES` is an ordered
tuple of :class:`Stage` values, each a function ``run(job, state) -> state`` of the
immutable :class:`BuildJob` and the :class:`BuildState` made so far, run by one loop
(:func:`run_build`) that times every stage, stops after the stage asked for
(``until``) and resumes from a state it returned::

    key -> cache -> compile -> link -> fatbin -> store -> load
    (cache key) (on-disk hit) (parse, infer, lower, nvvm) (nvJitLink, per arch) (nvFatbin) (cache entry) (module)

A stage that has nothing to do returns the state unchanged (``cache`` without a key,
``compile`` and ``link`` after a cache hit, ``fatbin`` unless asked, ``store`` unless a
miss): the table is the same for a JIT kernel, an ahead-of-time fatbin and a
device-less build, only the job differs.  A stage that runs a nested loop (``key``:
parse and infer; ``compile``: the compiler's own stages) reports those parts, so the
timing line's parts add up to its total (the rest is reported as ``other``).

Options are translated once, when the job is made (:func:`make_job`): the jit's
``JitOptions`` into the compiler's ``CompileOptions`` and the linker's
``LinkerOptions``; each stage reads the one it needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from time import perf_counter
from types import MappingProxyType

from cudalite.core.errors import CompilerError, CudaliteError
from cudalite.driver import current_device, load_module
from cudalite.linker import LinkerOptions, make_fatbin, normalize_arch

from . import cache as cache_mod
from . import compile_code as frontend
from . import options as _options
from .artifact import KernelArtifact
from .compile_code import reraise_located
from .linking import link_cubin

__all__ = ["Stage", "BuildJob", "BuildState", "BUILD_STAGES", "STAGE_NAMES", "make_job", "load_job", "run_build"]


@dataclass(frozen=True)
class BuildJob:
    """What to build: ``pyfunc`` for ``argtypes`` with the ``@cuda.jit`` options
    ``options``, compiled for ``cc`` (the lowest target) and linked for every ``archs``;
    ``compile_options`` and ``link_options`` are ``options`` translated, once;
    ``cache``: use the on-disk kernel cache; ``output``: ``"cubin"`` (one arch) or
    ``"fatbin"``; ``load``: load the module on the current device."""

    pyfunc: object
    argtypes: tuple
    options: object  # JitOptions
    cc: tuple
    archs: tuple
    compile_options: object  # cudalite.nvvm CompileOptions
    link_options: object  # cudalite.linker LinkerOptions
    cache: bool = False
    output: str = "cubin"
    load: bool = False


@dataclass(frozen=True)
class BuildState:
    """What the stages made so far (each field set by one stage)."""

    status: str = "off"  # the cache: 'off', 'off (reason)', 'hit', 'miss'
    probe: object = None  # key: the cache probe (typing context, key, link items)
    store: object = None  # key: the cache store
    result: object = None  # compile: the compiler's PipelineResult (PTX or LTO-IR)
    cubins: tuple = ()  # link: ((arch, cubin bytes), ...)
    items: tuple = ()  # link: the linked items
    artifact: object = None  # link or cache: the KernelArtifact
    fatbin: bytes | None = None  # fatbin
    loaded: object = None  # load: (module, function, exception record or None, device id)
    timings: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Stage:
    """One stage: its ``name`` and ``run(job, state) -> state``."""

    name: str
    run: object


def make_job(pyfunc, argtypes, options, cc, *, archs=None, cache=None, output="cubin", load=False) -> BuildJob:
    """The :class:`BuildJob` of one specialization; the options are translated here,
    once (and validated: a bad option raises now, GPU-less)."""


    cc = tuple(cc)
    archs = tuple(normalize_arch(a) for a in (archs or (cc,)))
    lopts = LinkerOptions(max_registers=options.max_registers, lineinfo=options.lineinfo, debug=options.debug)
    if cache is None:
        cache = cache_mod.is_enabled(options)
    return BuildJob(pyfunc, tuple(argtypes), options, cc, archs, _options.compile_options_of(options, cc), lopts,
                    bool(cache) and output == "cubin", output, bool(load))


def load_job(pyfunc, argtypes, options, cc) -> BuildJob:
    """The job of loading an artifact in hand (carried in a pickle, built ahead of
    time): the load stage alone, so nothing is translated and no compiler is imported."""
    return BuildJob(pyfunc, tuple(argtypes), options, tuple(cc), (), None, None, cache=False, load=True)


# -- the stages -------------------------------------------------------------------------------
def _key(job: BuildJob, state: BuildState):
    """The cache key: the function parsed and typed once (the compile reuses it)."""
    if not job.cache:
        return state, None
    store = cache_mod.CacheStore()
    probe = cache_mod.probe_kernel(job.pyfunc, job.argtypes, job.options, job.cc, directory=store.path,
                                compile_options=job.compile_options)
    status = "miss" if probe.key is not None else f"off ({probe.reason})"
    return replace(state, probe=probe, store=store, status=status), dict(probe.timings)


def _cache(job: BuildJob, state: BuildState):
    """An on-disk entry for the key, when there is one for this architecture."""
    probe = state.probe
    if probe is None or probe.key is None:
        return state, None
    artifact = state.store.load_artifact(probe.key, job.argtypes, probe.links)
    if artifact is None or artifact.arch not in (job.archs[0], job.archs[0] + "a"):  # "a": code that needs sm_90a
        return state, None
    return replace(state, artifact=artifact, status="hit"), None


def _compile(job: BuildJob, state: BuildState):
    """libNVVM's PTX, or LTO-IR when the kernel or any callee links LTO-IR (decided
    after lowering, so libNVVM runs once)."""
    if state.artifact is not None:
        return state, None
    context = state.probe.context if state.probe is not None else None
    result = frontend.compile_with(job.pyfunc, job.argtypes, job.options, job.compile_options, context=context)
    return replace(state, result=result), dict(result.timings)


def _link(job: BuildJob, state: BuildState):
    """nvJitLink the code with every link item for each architecture of the job; the
    first architecture's cubin makes the KernelArtifact."""
    if state.artifact is not None:
        return state, None

    cubins, items = [], ()
    for arch in _link_archs(job, state.result):
        cubin, items = link_cubin(state.result, job.pyfunc, job.options, job.link_options, arch)
        cubins.append((arch, cubin))
    artifact = KernelArtifact.from_compile(state.result, cubins[0][1], cubins[0][0], items)
    return replace(state, cubins=tuple(cubins), items=items, artifact=artifact), None


def _link_archs(job: BuildJob, result) -> tuple:
    """The architectures to link for: the job's, or ``sm_90a`` for code compiled for it
    (wgmma, setmaxnreg), which no other architecture runs."""
    suffix = result.arch_suffix
    if not suffix:
        return job.archs
    others = [a for a in job.archs if a.rstrip("af") != "sm_90"]
    if others:
        raise CompilerError(f"{job.pyfunc.__qualname__} uses sm_90a-only instructions (wgmma or setmaxnreg), so "
                            f"it cannot be built for {', '.join(others)}; build it for sm_90a alone")
    return ("sm_90" + suffix,)


def _fatbin(job: BuildJob, state: BuildState):
    """nvFatbin: every architecture's cubin in one fatbin (``output="fatbin"`` only)."""
    if job.output != "fatbin":
        return state, None

    return replace(state, fatbin=make_fatbin(dict(state.cubins), name=f"{job.pyfunc.__name__}.fatbin").data), None


def _store(job: BuildJob, state: BuildState):
    """A miss's artifact written to the cache (when storable and every linked item was
    covered by the key)."""
    probe = state.probe
    if state.status != "miss" or state.result is None:
        return state, None
    if state.artifact.storable() and cache_mod.verify_after_compile(probe, state.result, state.store.path):
        state.store.store_artifact(probe.key, state.artifact, qualname=job.pyfunc.__qualname__,
                                   argtypes=job.argtypes)
    return state, None


def _load(job: BuildJob, state: BuildState):
    """The artifact's cubin loaded on the current device: module, entry function,
    the debug exception record, after the link items' setup callbacks ran."""
    if not job.load:
        return state, None

    art = state.artifact
    device_id = current_device().id
    module = load_module(art.cubin)
    setup = art.setup_callback()
    if setup is not None:
        setup(module)
    function = module.get_function(art.entry_name)
    exc = module.get_global(art.exc_symbol) if art.exc_symbol else None
    return replace(state, loaded=(module, function, exc, device_id)), None


#: the runtime stages, in order
BUILD_STAGES = (
    Stage("key", _key),
    Stage("cache", _cache),
    Stage("compile", _compile),
    Stage("link", _link),
    Stage("fatbin", _fatbin),
    Stage("store", _store),
    Stage("load", _load),
)
STAGE_NAMES = tuple(s.name for s in BUILD_STAGES)


def run_build(job: BuildJob, state: BuildState | None = None, *, until: str = "load", start: str | None = None):
    """The loop: run :data:`BUILD_STAGES` from ``start`` (default: the first, or the
    one after the last a resumed ``state`` ran) through ``until``, recording each
    stage's time (or the parts a nested loop reported) in ``state.timings``."""
    if until not in STAGE_NAMES:
        raise ValueError(f"unknown build stage {until!r}; the stages are {', '.join(STAGE_NAMES)}")
    state = BuildState() if state is None else state
    timings = dict(state.timings)
    first = STAGE_NAMES.index(start) if start is not None else 0
    for stage in BUILD_STAGES[first:STAGE_NAMES.index(until) + 1]:
        t0 = perf_counter()
        try:
            state, parts = stage.run(job, state)
        except CudaliteError as e:
            err = e
        else:
            err = None
        if err is not None:
            reraise_located(err, job.pyfunc)
        elapsed = perf_counter() - t0
        if parts:
            for name, seconds in parts.items():
                timings[name] = timings.get(name, 0.0) + seconds
            rest = elapsed - sum(parts.values())
            if rest > 0:
                timings["other"] = timings.get("other", 0.0) + rest
        elif stage.run is not None and _ran(stage.name, state, timings):
            timings[stage.name] = timings.get(stage.name, 0.0) + elapsed
    return replace(state, timings=MappingProxyType(timings))


def _ran(name, state, timings) -> bool:
    """Whether stage ``name`` did something worth a timing entry."""
    return {"key": False, "cache": state.probe is not None and state.probe.key is not None,
            "compile": state.result is not None, "link": bool(state.cubins), "fatbin": state.fatbin is not None,
            "store": state.status == "miss", "load": state.loaded is not None}[name]
