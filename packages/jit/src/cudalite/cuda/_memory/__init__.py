"""Memory and arrays: device, pinned, mapped and managed memory, and their interop.

* :mod:`.api` -- numba's memory API (``device_array``, ``to_device``, ``pinned``...);
* :mod:`.emm` -- external memory management: the plugin protocol every allocation uses;
* :mod:`.hostarray` -- NumPy arrays the GPU can address (mapped, managed);
* :mod:`.layout` -- shape/stride arithmetic (the one layout classifier is core's);
* :mod:`.dlpack` -- DLPack export and import; :mod:`.tma` -- TMA tensor-map descriptors.

``cudalite.cuda.devicearray`` (the public ``DeviceNDArray`` module) stays at the top.
It may import cudalite.driver, cudalite.core and :mod:`cudalite.cuda._runtime`.
"""
