"""The jit tests' shared settings: their kernels run tiny grids on purpose, so the
low-occupancy :class:`~cudalite.core.errors.NumbaPerformanceWarning` (one per small
launch configuration) is silenced in every test of this directory.  A test of that
warning still sees it (``pytest.warns`` records every warning); users are not
affected (this filter exists only here)."""

from __future__ import annotations

import pathlib

import pytest

_HERE = pathlib.Path(__file__).parent
_LOW_OCCUPANCY = pytest.mark.filterwarnings(
    r"ignore:Grid size \d+ will likely result in GPU under-utilization:cudalite.core.errors.NumbaPerformanceWarning")


def pytest_collection_modifyitems(items):
    for item in items:
        if _HERE in pathlib.Path(item.path).parents:
            item.add_marker(_LOW_OCCUPANCY)
