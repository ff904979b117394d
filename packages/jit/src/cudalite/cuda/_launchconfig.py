"""Moved to :mod:`cudalite.cuda._launch.config` (transitional re-export)."""
from ._launch.config import *  # noqa: F401,F403
from ._launch.config import (  # noqa: F401
    MAX_BLOCK, MAX_GRID, MAX_THREADS_PER_BLOCK, MIN_GRID_SIZE, check_cluster_grid, normalize_dim, stream_handle_of,
    warn_low_occupancy,
)
