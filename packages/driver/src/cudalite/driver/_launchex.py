"""The ``cuLaunchKernelEx`` structures of a :class:`LaunchConfig`, built once per bind.

``cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
void **extra)`` takes the grid, block, dynamic shared memory, stream and an array of
launch attributes in one struct.  This module lays those structs out exactly as
``cuda.h`` (CUDA 12/13) does, with ``ctypes``:

* ``CUlaunchAttributeValue`` -- a 64-byte union (8-byte aligned: some members hold
  pointers); ``cooperative`` and ``programmaticStreamSerializationAllowed`` are ints
  at offset 0, ``clusterDim`` three unsigned ints at offset 0;
* ``CUlaunchAttribute`` -- the ``CUlaunchAttributeID`` (an enum, 4 bytes), 4 bytes of
  padding, the value at offset 8: 72 bytes;
* ``CUlaunchConfig`` -- seven unsigned ints (grid x/y/z, block x/y/z, shared memory),
  then ``hStream`` at 32, ``attrs`` at 40, ``numAttrs`` at 48: 56 bytes.

(packages/driver/tests check these offsets against ``cuda.h`` when a header and a C
compiler are at hand, and byte for byte against ``cuda.bindings``' own structs.)

:func:`native_config` returns the ctypes struct (with its attribute array kept alive
on it) for the ``shim``, ``cffi`` and ``ctypes`` backends, which pass its address;
:func:`bindings_config` the ``cuda.bindings.driver.CUlaunchConfig`` (and its attributes) for the
``bindings`` backend.  Imported only when a configuration with attributes is bound.
"""

from __future__ import annotations

import ctypes

__all__ = ["CU_LAUNCH_ATTRIBUTE_COOPERATIVE", "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION",
           "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION", "CUlaunchAttributeValue",
           "CUlaunchAttribute", "CUlaunchConfig", "attribute_values", "native_config", "bindings_config"]

# CUlaunchAttributeID values (cuda.h)
CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6


class _Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class CUlaunchAttributeValue(ctypes.Union):
    """cuda.h's ``CUlaunchAttributeValue``, the members cudalite sets (64 bytes)."""

    _fields_ = [("pad", ctypes.c_char * 64), ("_align", ctypes.c_void_p), ("cooperative", ctypes.c_int),
                ("clusterDim", _Dim3), ("programmaticStreamSerializationAllowed", ctypes.c_int)]


class CUlaunchAttribute(ctypes.Structure):
    """cuda.h's ``CUlaunchAttribute`` (72 bytes)."""

    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", CUlaunchAttributeValue)]


class CUlaunchConfig(ctypes.Structure):
    """cuda.h's ``CUlaunchConfig`` (56 bytes)."""

    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(CUlaunchAttribute)), ("numAttrs", ctypes.c_uint)]


def attribute_values(config):
    """The launch attributes of ``config`` as ``[(CUlaunchAttributeID, value), ...]``
    in a fixed order: cooperative (1), cluster dimension ((x, y, z)), programmatic
    stream serialization (1); only those set."""
    out = []
    if config.cooperative:
        out.append((CU_LAUNCH_ATTRIBUTE_COOPERATIVE, 1))
    if config.cluster is not None:
        out.append((CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, tuple(config.cluster)))
    if config.programmatic_dependent_launch:
        out.append((CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, 1))
    return out


def native_config(config):
    """The ``CUlaunchConfig`` ctypes struct of ``config``; its attribute array is kept
    alive as the struct's ``_keep`` attribute (pass ``ctypes.addressof`` of it)."""
    values = attribute_values(config)
    attrs = (CUlaunchAttribute * max(len(values), 1))()
    for slot, (ident, value) in zip(attrs, values):
        slot.id = ident
        if ident == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            slot.value.clusterDim.x, slot.value.clusterDim.y, slot.value.clusterDim.z = value
        elif ident == CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            slot.value.cooperative = value
        else:
            slot.value.programmaticStreamSerializationAllowed = value
    (gx, gy, gz), (bx, by, bz) = config.grid, config.block
    cfg = CUlaunchConfig(gx, gy, gz, bx, by, bz, config.shared_mem, config.stream or None,
                         ctypes.cast(attrs, ctypes.POINTER(CUlaunchAttribute)) if values else None, len(values))
    cfg._keep = attrs
    return cfg


def bindings_config(config, driver):
    """``(driver.CUlaunchConfig, [driver.CUlaunchAttribute, ...])`` (cuda.bindings) of
    ``config``; the caller keeps both."""
    attrs = []
    for ident, value in attribute_values(config):
        attr = driver.CUlaunchAttribute()
        attr.id = driver.CUlaunchAttributeID(ident)
        if ident == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = value
        elif ident == CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            attr.value.cooperative = value
        else:
            attr.value.programmaticStreamSerializationAllowed = value
        attrs.append(attr)
    cfg = driver.CUlaunchConfig()
    (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ) = config.grid
    (cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ) = config.block
    cfg.sharedMemBytes = config.shared_mem
    cfg.hStream = driver.CUstream(config.stream)
    cfg.attrs = attrs
    cfg.numAttrs = len(attrs)
    return cfg, attrs
