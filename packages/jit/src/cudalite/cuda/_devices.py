"""Moved to :mod:`cudalite.cuda._launch.devices` (transitional re-export)."""
from ._launch.devices import *  # noqa: F401,F403
from ._launch.devices import ANY, current_id, dlpack_device_of, multi_gpu, on_device  # noqa: F401
