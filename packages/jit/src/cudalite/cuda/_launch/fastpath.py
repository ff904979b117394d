"""Generated launch code: what ``kernel[grid, block](*args)`` runs per call.

``kernel[config]`` is one dict lookup in the dispatcher's private table of
configured launches (:mod:`cudalite.cuda._dispatch.configured`: a C-level wrapper
with numba's attributes, which pickles); the launcher each wraps is a closure made by a *factory*
generated once per specialization (:func:`make_factory`) and called once per launch
configuration (a :class:`cudalite.driver.LaunchConfig`): its parameters are the
kernel's own parameter names, the driver launch bound to the configuration
(``kernel.bind(config)``: grid, block, stream, shared memory and launch attributes
baked in) is a closure constant, and its body is

    guard on the argument type keys (inlined attribute reads: each argument kind's
    ``ArgKind.source``) -> unpack the flattened values -> one positional call of the
    driver's checked launch (``kernel.bind_checked(config, checks)``: numbers are
    passed as they are, their classes checked and their values converted in C, per
    ``ArgKind.checked``) -> record the kernel as the device's last launch

falling back to the dispatcher's slow path (first call, another specialization,
NumPy arrays) when the guard fails or the checked launch returns False (a number of
another class).  When every argument is a number or a device array in its own layout
(``ArgKind.direct_group``) or an object with an identity cache (CuPy arrays, torch
tensors, cuda.core Buffers and views: C reads the cache entry this code keeps,
``ArgKind.direct_cache_checks``) and the launch needs nothing else of the generated
code (one GPU, no after-launch work, no device exceptions; for CuPy arrays, CuPy's
current stream is its null stream), the launcher is the driver's *direct* launch
(``kernel.bind_direct``: checks, conversion, launch and the record of the last kernel,
all in C) with the generated function as its
fallback for every call it does not launch -- a new object at a cached position
included: the generated code's miss path stores the entry C hits next time.  A
configured launch the user holds that was made before the kernel was compiled (``cfg =
kernel[g, b]`` first) *becomes* the fast launcher on its first call (the slow path's
``_launcher_of`` replaces its function in place); one made for other argument kinds
has the slow path hand each call it misses to the launcher the dispatcher now keeps for
the same configuration, as ``kernel[g, b]`` would give.  Making a launcher for a new
configuration costs one closure creation, not a compilation.  No ``*args`` tuple and
no per-argument function calls for device arrays, CuPy arrays, torch tensors and
scalars.
"""

from __future__ import annotations

import keyword
import sys

from cudalite.driver import CudaDriverError, stream_device

from .._runtime.faults import kernel_fault
from . import devices

__all__ = ["make_factory", "slow_factory", "launcher_param_names"]


def launcher_param_names(pyfunc) -> list:
    """The kernel's positional parameter names (safe to use in generated code)."""
    code = pyfunc.__code__
    names = list(code.co_varnames[:code.co_argcount])
    return [n if n.isidentifier() and not keyword.iskeyword(n) and n.upper() != n and not n.startswith("_cl_")
            else f"_cl_arg{i}" for i, n in enumerate(names)]


def _name(disp):
    name = disp.py_func.__name__
    return name if name.isidentifier() and not keyword.iskeyword(name) else "kernel"


def slow_factory(disp):
    """Launchers that always take the slow path (no specialization known yet, or
    more than 48 KiB of dynamic shared memory); ``factory(config, key, wrap)`` as
    :func:`make_factory`'s."""
    slow = disp._launch_slow

    def factory(CFG, KEY, WRAP=None):
        def launch(*args):
            slow(CFG, args, KEY, me)

        launch.__name__ = launch.__qualname__ = _name(disp)
        launch.cudalite_slow = True  # a configured launch calling it is upgraded in place (slowpath._launcher_of)
        me = launch if WRAP is None else WRAP(launch)
        return me

    return factory


_EMPTY = object()  # the identity caches' initial "last argument": no argument is it


def _launch_block(ind, kernel, values, ns, after=()):
    """Lines of the launch (CuPy stream ordering, driver call, fault naming, the
    handlers' ``after_launch`` calls); returns, unless the checked launch found a
    value of another class (then the code after the block runs: the slow path)."""
    body = []
    if "CUPY_STREAM" in ns:
        body.append(f"{ind}_cl_cs = CUPY_STREAM()")
        body.append(f"{ind}if _cl_cs is not CUPY_NULL:")
        body.append(f"{ind}    _cl_cs = _cl_cs.ptr")
        body.append(f"{ind}    if _cl_cs and NEEDS_WAIT(_cl_cs, SH):")
        body.append(f"{ind}        WAIT(SH, _cl_cs)")
    call_vals = ", ".join(v for v in values if v)
    body.append(f"{ind}try:")
    body.append(f"{ind}    _cl_r = LAUNCH({call_vals})")
    body.append(f"{ind}    if _cl_r is not False:")  # False: a checked value's class differs
    body.append(f"{ind}        if _cl_r is not None:")
    body.append(f"{ind}            SETTLE(_cl_r, LAUNCH, ({call_vals}{',' if call_vals else ''}), CFG)")
    body.append(f"{ind}        REC[DEV] = KERNEL")
    body += [f"{ind}        {line}" for line in after]
    if kernel.exc_global is not None:
        body.append(f"{ind}        KERNEL.check_exceptions(SH)")
    body.append(f"{ind}        return")
    body.append(f"{ind}except DriverError as _cl_e:")
    body.append(f"{ind}    raise FAULT(_cl_e, DEV) from None")
    return body


def _device_guards(kinds, names, guards, ns, kernel):
    """Multi-GPU processes: each argument's guard also checks that it lives on the
    kernel's device (or on any: managed memory), and the calling thread's current
    device must be the kernel's; a miss takes the slow path, which routes the launch
    (``_devices``).  A launcher whose stream belongs to another device is always slow."""
    def stream_device_or_none(sh):
        try:
            return stream_device(sh)
        except Exception:  # not a valid stream: the slow path reports it
            return None

    ns["DEVS"], ns["CURDEV"] = (kernel.device_id, devices.ANY), devices.current_reader()
    ns["STREAM_DEVICE"], ns["SLOW_FACTORY"] = stream_device_or_none, None
    for i, (k, a) in enumerate(zip(kinds, names)):
        extra = k.device_guard(i, a, ns)
        if extra:
            guards[i] = f"({guards[i]} and {extra})" if guards[i] else f"({extra})"
    return ["CURDEV() == DEV"]


def _direct_groups(kinds, keys, specs, kernel, ns, multi, cached, after):
    """The direct launch's argument groups (``ArgKind.direct_group``; an argument with an
    identity cache: a ``"cached"`` group reading this code's cache entry ``_CL_M<i>``,
    ``ArgKind.direct_cache_checks``), or None when the launch needs the generated code's
    own work: several devices, after-launch actions, device exceptions to check, or an
    argument kind without a group."""
    if multi or after or kernel.exc_global is not None:
        return None
    groups = []
    for i, (k, key, spec) in enumerate(zip(kinds, keys, specs)):
        if i in cached:
            checks = k.direct_cache_checks(key)
            if checks is None:
                return None
            # the entry: (object, fields..., values...); indices into it
            start = {"field": 1, "value": 1 + k.cache_fields}
            tests = tuple((attr, call, start[part] + j) for attr, call, (part, j) in checks)
            # the interned name: the very key object of ns (C's lookup then compares pointers)
            group = ("cached", ns, sys.intern(f"_CL_M{i}"), tests, spec.count)
        else:
            group = k.direct_group(spec, key)
        if group is None:
            return None
        groups.append(group)
    return tuple(groups)


def make_factory(disp, names, kinds, keys, kernel, record, multi=False):
    """The launcher factory for one specialization (``kernel``: a CompiledKernel; its
    ``abi`` says which values each argument flattens to, in which order)
    and the argument kinds/keys that select it; None when an argument kind
    cannot be inlined (NumPy host arrays).  ``factory(config, key, wrap)`` makes the launcher
    of one :class:`~cudalite.driver.LaunchConfig` (``key``: the dispatcher's key for it)
    and returns ``wrap(launcher)`` (the dispatcher's configured-launch object; the
    launcher itself when ``wrap`` is None): that is what the launcher hands to the slow
    path as the caller whose guard failed.

    Identity cache: for argument kinds whose attribute reads are slow (CuPy arrays,
    torch tensors; ``ArgKind.cache_fields``), the generated code keeps, per
    argument position, the last object passed there with its flattened values and a
    few validation fields (``_CL_M<i>``, one tuple, replaced atomically).  When the
    same object comes again and the cheap validation holds (torch: ``_version`` and
    ``data_ptr()``; CuPy: ``shape``), its values are reused without the full guard.
    The cache holds a strong reference to the last object at each position (until
    another object is passed there or the kernel is collected), so an object's id
    cannot be reused while it is cached.

    ``multi`` (a process with several devices): the guards also check the arguments'
    devices and the current device (:func:`_device_guards`); with one device the code
    has no device check at all."""
    if any(not k.inline for k in kinds):
        return None
    ns = {"BIND": kernel.bind_checked, "SETTLE": kernel.settle, "REC": record, "DEV": kernel.device_id,
          "KERNEL": kernel, "DriverError": CudaDriverError, "FAULT": kernel_fault, "SLOW": disp._launch_slow}
    guards, pre, values, checks = [], [], [], []
    specs = kernel.abi.args  # per argument: its parameter slots (cudalite.core.abi.ArgABI)
    for i, (k, key, spec, a) in enumerate(zip(kinds, keys, specs, names)):
        checked = k.checked(spec, key)
        if checked is not None:  # the driver's checked launch checks and converts it, in C
            guards.append("")
            pre.append([])
            values.append(a)
            checks.extend(checked)
            continue
        guard, lines, vals = k.source(i, a, spec, key, ns)
        guards.append(f"({guard})")
        pre.append(lines)
        values.append(vals)
        checks.extend([None] * spec.count)
    ns["CHECKS"] = tuple(checks) if any(checks) else None
    device_checks = _device_guards(kinds, names, guards, ns, kernel) if multi else []
    if multi:
        ns["SLOW_FACTORY"] = slow_factory(disp)
    cached = [i for i, k in enumerate(kinds) if k.cache_fields]
    after = []
    for i, k in enumerate(kinds):
        if k.after_launch is not None:
            ns[f"AFTER{i}"] = k.after_launch
            after.append(f"AFTER{i}(SH)")
    params = ", ".join(names)
    fname = _name(disp)
    body = ["def factory(CFG, KEY, WRAP=None):", "    SH = CFG.stream"]
    if multi:  # a stream of another device: the slow path routes (or refuses) each launch
        body += ["    if SH > 2 and STREAM_DEVICE(SH) != DEV:",
                 "        return SLOW_FACTORY(CFG, KEY, WRAP)"]
    body.append("    LAUNCH = BIND(CFG, CHECKS)")
    body.append(f"    def {fname}({params}):")
    ind = " " * 8
    hit_values = list(values)
    stores = []
    if cached:
        body.append(f"{ind}global {', '.join(f'_CL_M{i}' for i in cached)}")
        hit_guards, hit_pre = [], []
        for i, (k, spec, a) in enumerate(zip(kinds, specs, names)):
            if i not in cached:
                if guards[i]:
                    hit_guards.append(guards[i])
                hit_pre.extend(pre[i])
                continue
            fields = [f"_cl_k{i}_{j}" for j in range(k.cache_fields)]
            vals = [f"_cl_c{i}_{j}" for j in range(spec.count)]
            ns[sys.intern(f"_CL_M{i}")] = (_EMPTY,) + (None,) * (len(fields) + len(vals))
            body.append(f"{ind}_cl_l{i}, {', '.join(fields + vals)} = _CL_M{i}")
            checks, store_exprs = k.cache_snippet(a, fields, vals, ns, keys[i])
            hit_guards.append(" and ".join([f"{a} is _cl_l{i}"] + checks))
            hit_values[i] = ", ".join(vals)
            # on a miss: the flattened values as one tuple, and the new cache entry
            pre[i] = pre[i] + [f"_cl_t{i} = ({values[i]},)"]
            values[i] = f"*_cl_t{i}"
            new = [f"_cl_n{i}_{j}" for j in range(len(store_exprs))]
            stores += [f"{n} = {e}" for n, e in zip(new, store_exprs)]
            stores.append(f"if {' and '.join(f'{n} is not None' for n in new)}:")
            stores.append(f"    _CL_M{i} = ({a}, {', '.join(new)}, *_cl_t{i})")
        body.append(f"{ind}try:")
        body.append(f"{ind}    _cl_hit = {' and '.join(hit_guards + device_checks)}")
        body.append(f"{ind}except AttributeError:")
        body.append(f"{ind}    _cl_hit = False")
        body.append(f"{ind}if _cl_hit:")
        body += [f"{ind}    {line}" for line in hit_pre]
        body += _launch_block(ind + "    ", kernel, hit_values, ns, after)
    body.append(f"{ind}try:")
    all_guards = [g for g in guards if g] + device_checks
    body.append(f"{ind}    _cl_ok = {' and '.join(all_guards) if all_guards else 'True'}")
    body.append(f"{ind}except AttributeError:")
    body.append(f"{ind}    _cl_ok = False")
    body.append(f"{ind}if _cl_ok:")
    body += [f"{ind}    {line}" for lines in pre for line in lines]
    body += [f"{ind}    {line}" for line in stores]
    body += _launch_block(ind + "    ", kernel, values, ns, after)
    body.append(f"{ind}SLOW(CFG, ({params}{',' if len(names) == 1 else ''}), KEY, _cl_me)")
    groups = _direct_groups(kinds, keys, specs, kernel, ns, multi, cached, after)
    if groups is not None:  # the whole launch in C, this generated code its fallback
        ns["BIND_DIRECT"], ns["GROUPS"], ns["RECORD"] = kernel.bind_direct, groups, (record, kernel.device_id, kernel)
        # CuPy arrays: launched in C only while CuPy's current stream is its null stream (no
        # ordering to do); on any other the generated code orders the launch after it
        ns["PRE"] = (ns["CUPY_STREAM"], ns["CUPY_NULL"]) if "CUPY_STREAM" in ns else None
        body.append(f"    _cl_direct = BIND_DIRECT(CFG, GROUPS, {fname}, RECORD, PRE)")
        body.append("    if _cl_direct is None:")
        body.append(f"        _cl_direct = {fname}")
        fname = "_cl_direct"
    body.append(f"    _cl_me = {fname} if WRAP is None else WRAP({fname})")
    body.append("    return _cl_me")
    src = "\n".join(body) + "\n"
    exec(compile(src, f"<cudalite launch {kernel.name}>", "exec"), ns)
    factory = ns["factory"]
    factory.source = src
    empty = {name: value for name, value in ns.items() if name.startswith("_CL_M")}
    factory.forget = lambda: ns.update(empty)  # drop the identity caches' last arguments
    return factory
