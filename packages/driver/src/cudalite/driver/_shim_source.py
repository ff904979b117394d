"""The launch shim's C source and cffi declarations, and nothing else.

One definition for both builds of the shim (docs/driver.md, "Launch backends"):
``packages/driver/setup.py`` loads this file by path (without importing
``cudalite``) to compile ``cudalite.driver._launch_shim`` when the wheel is built,
and :mod:`cudalite.driver._shim` compiles the same text at run time into the cache
when an install has no compiled shim (a source install without a compiler at
install time).  Standard library only: it runs inside the build backend.
"""

__all__ = ["ABI_VERSION", "PREBUILT_MODULE", "C_SOURCE", "CDEF"]

ABI_VERSION = 5  # 2: cl_launch_ex (cuLaunchKernelEx) replaced cl_launch_coop; 3: the checked and direct launches;
#                 4: the direct launch's cached groups and precondition, cl_call2 (graph launches);
#                 5: a cached group's check may be a function of the object
PREBUILT_MODULE = "cudalite.driver._launch_shim"  # what setup.py builds into the wheel


def _part(module: str, name: str) -> str:
    """A part of the C source from a sibling module: imported within the package, loaded
    by path when this file runs on its own (``setup.py``'s ``runpy.run_path``)."""
    if __package__:
        import importlib

        return getattr(importlib.import_module(f"{__package__}.{module}"), name)
    import os
    import runpy

    return runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), module + ".py"))[name]


CHECKED_SOURCE = (_part("_shim_source_checked", "CHECKED_SOURCE") + _part("_shim_source_groups", "GROUPS_SOURCE")
                  + _part("_shim_source_direct", "DIRECT_SOURCE"))


C_SOURCE = r"""
#include <stdint.h>
#include <string.h>

typedef int (*cl_launch_fn)(void *, unsigned int, unsigned int, unsigned int, unsigned int,
                            unsigned int, unsigned int, unsigned int, void *, void **, void **);
typedef int (*cl_launch_ex_fn)(const void *, void *, void **, void **);

static int cl_launch(uintptr_t entry, uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
                     unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
                     uintptr_t stream, uintptr_t params)
{
    return ((cl_launch_fn)entry)((void *)f, gx, gy, gz, bx, by, bz, smem, (void *)stream,
                                 (void **)params, (void **)0);
}

/* cuLaunchKernelEx(config, f, params, NULL): ``config`` is the address of a
   CUlaunchConfig (with its attribute array) prepared once by the caller. */
static int cl_launch_ex(uintptr_t entry, uintptr_t config, uintptr_t f, uintptr_t params)
{
    return ((cl_launch_ex_fn)entry)((const void *)config, (void *)f, (void **)params, (void **)0);
}

/* A driver function taking two pointer-sized handles, through its address (e.g.
   cuGraphLaunch(CUgraphExec, CUstream)). */
static int cl_call2(uintptr_t entry, uintptr_t a, uintptr_t b)
{
    return ((int (*)(void *, void *))entry)((void *)a, (void *)b);
}

/* Stand-in for cuLaunchKernel: ``f`` points at 16 uint64 slots; the 10 launch
   arguments after ``f`` go to slots 0..9, ``extra`` to 10; returns slot 11; when slot 12 is
   not 0, that many bytes (24 at most) from params[0] -- the start of the parameter
   buffer -- are copied into slots 13..15. */
static int cl_probe(void *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                    unsigned int by, unsigned int bz, unsigned int smem, void *stream, void **params,
                    void **extra)
{
    uint64_t *rec = (uint64_t *)f;
    rec[0] = gx; rec[1] = gy; rec[2] = gz; rec[3] = bx; rec[4] = by; rec[5] = bz; rec[6] = smem;
    rec[7] = (uint64_t)(uintptr_t)stream; rec[8] = (uint64_t)(uintptr_t)params;
    rec[9] = params ? (uint64_t)(uintptr_t)params[0] : 0; rec[10] = (uint64_t)(uintptr_t)extra;
    if (params && rec[12]) memcpy(&rec[13], params[0], rec[12] < 24 ? (size_t)rec[12] : 24);
    return (int)rec[11];
}

/* Stand-in for cuLaunchKernelEx: ``f`` points at 16 uint64 slots; slot 0 gets the
   config's address, 1 its first unsigned int (gridDimX), 2 ``params``, 3 ``params[0]``,
   4 ``extra``; returns slot 11; slots 12..15 as cl_probe's. */
static int cl_probe_ex(const void *config, void *f, void **params, void **extra)
{
    uint64_t *rec = (uint64_t *)f;
    rec[0] = (uint64_t)(uintptr_t)config; rec[1] = config ? *(const unsigned int *)config : 0;
    rec[2] = (uint64_t)(uintptr_t)params; rec[3] = params ? (uint64_t)(uintptr_t)params[0] : 0;
    rec[4] = (uint64_t)(uintptr_t)extra;
    if (params && rec[12]) memcpy(&rec[13], params[0], rec[12] < 24 ? (size_t)rec[12] : 24);
    return (int)rec[11];
}

/* Stand-in for a two-handle call (cl_call2): slot 0 of ``rec`` gets ``b``; returns slot 11. */
static int cl_probe2(void *rec, void *b)
{
    ((uint64_t *)rec)[0] = (uint64_t)(uintptr_t)b;
    return (int)((uint64_t *)rec)[11];
}

static uintptr_t cl_probe_address(void) { return (uintptr_t)&cl_probe; }
static uintptr_t cl_probe2_address(void) { return (uintptr_t)&cl_probe2; }
static uintptr_t cl_probe_ex_address(void) { return (uintptr_t)&cl_probe_ex; }
static int cl_abi_version(void) { return ABI_VERSION_VALUE; }
""".replace("ABI_VERSION_VALUE", str(ABI_VERSION)) + CHECKED_SOURCE

CDEF = """
int cl_launch(uintptr_t entry, uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
              unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
              uintptr_t stream, uintptr_t params);
int cl_launch_ex(uintptr_t entry, uintptr_t config, uintptr_t f, uintptr_t params);
int cl_call2(uintptr_t entry, uintptr_t a, uintptr_t b);
uintptr_t cl_probe_address(void);
uintptr_t cl_probe2_address(void);
uintptr_t cl_probe_ex_address(void);
int cl_abi_version(void);
uintptr_t cl_checked_maker(void);
"""
