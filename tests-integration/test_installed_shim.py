"""The installed cudalite-driver carries its compiled launch shim (GPU-less).

``nox -s tests`` (CI) installs the wheels it builds, so this checks what
``pip install`` gives: ``cudalite.driver._launch_shim`` (a cp310-abi3 extension)
is present, passes its self-test and is what :func:`load_shim` returns, with no
warning and no cache directory touched.  From a source tree on ``PYTHONPATH``
there is no compiled module (the run-time fallback is tested in
packages/driver/tests/test_shim.py), so the test says so and skips there.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import cudalite.driver as driver_pkg
from cudalite.driver import _shim

REPO = Path(__file__).resolve().parents[1]


def _from_source_tree() -> bool:
    return Path(driver_pkg.__file__).resolve().is_relative_to(REPO / "packages")


@pytest.mark.skipif(_from_source_tree(), reason="cudalite.driver imported from the source tree: the compiled "
                    "shim exists only in a built wheel (nox -s tests installs the wheels and runs this)")
def test_installed_driver_has_compiled_shim(tmp_path):
    shim = _shim.load_prebuilt()
    assert shim is not None, "the installed cudalite-driver has no compiled launch shim"
    assert Path(shim.path).name.startswith("_launch_shim.") and shim.path.endswith(".abi3.so")
    assert Path(shim.path).resolve().parent == Path(driver_pkg.__file__).resolve().parent
    cache = tmp_path / "cache"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ShimFallbackWarning, nothing else
        got = _shim.load_shim(str(cache), cc="/nonexistent/cc")
    assert got is not None and got.path == shim.path
    assert not cache.exists()  # the installed module needs no cache directory
