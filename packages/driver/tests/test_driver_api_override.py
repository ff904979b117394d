"""``cudalite.driver.driver_api`` (numba's ``cudadrv.driver.driver``): its ``cu*``
attributes are the checked calls, and setting one routes cudalite's own calls of
that driver function through it until deleted (GPU-less)."""

from __future__ import annotations

import pytest

from cudalite.driver import CudaDriverError, driver_api
from cudalite.driver._cu import call


def _refuse_error():
    return CudaDriverError(999, "Transfer not allowed")  # numba's CudaAPIError(code, msg)


def test_driver_object_overrides_cudalites_own_driver_calls():
    driver = driver_api
    seen = []

    def mock(*args):
        seen.append(args)
        raise _refuse_error()

    old = getattr(driver, "cuDriverGetVersion", None)
    assert callable(old)
    driver.cuDriverGetVersion = mock
    try:
        with pytest.raises(CudaDriverError, match="Transfer not allowed"):
            call("cuDriverGetVersion")  # what cudalite.driver.driver_version calls
        assert seen == [()]
    finally:
        driver.cuDriverGetVersion = old  # numba's test restores what it read: no recursion
    try:
        call("cuDriverGetVersion")
    except RecursionError:  # pragma: no cover - the failure this guards against
        pytest.fail("restoring the attribute read from the driver object recursed")
    except Exception:  # no libcuda here: the real binding fails
        pass
    assert len(seen) == 1
    del driver.cuDriverGetVersion
    assert "cuDriverGetVersion" not in vars(driver)
    with pytest.raises(AttributeError):
        driver.not_a_driver_function  # noqa: B018
