"""Harness stand-in for ``numba.cuda.tests.support`` (loaded under that name by the alias).

Our own implementation of the helpers numba-cuda's test files import from it, with the
same meaning: ``TestCase.assertPreciseEqual`` (type family, dtype, shape, strides and
value checks; ``prec='single'|'double'`` with ``ulps``), ``captured_stdout``,
``override_config`` (sets the harness's numba config object; the names cudalite has an
equivalent of set its environment variable, see ``compat_alias._Config``),
``run_in_subprocess``, ``TestCase.run_test_in_subprocess`` (the test alone in a fresh
process), ``TestCase.make_dummy_type`` (an opaque extension type through
``cudalite.cuda.extending``), ``temp_directory``, the platform skips.  Helpers tied to
numba's runtime internals (NRT statistics, refcounts) raise ``NumbaInternal``.
"""

from __future__ import annotations

import cmath
import contextlib
import enum
import functools
import importlib
import io
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np

from compat_alias import NumbaInternal

try:
    import cffi  # noqa: F401
    _HAVE_CFFI = True
except ImportError:
    _HAVE_CFFI = False

skip_unless_cffi = unittest.skipUnless(_HAVE_CFFI, "requires cffi")
linux_only = unittest.skipIf(not sys.platform.startswith("linux"), "linux only test")
windows_only = unittest.skipIf(not sys.platform.startswith("win"), "Windows only test")
skip_unless_typeguard = unittest.skip("typeguard checks numba internals")
skip_if_typeguard = lambda f: f  # noqa: E731


IS_NUMPY_2 = int(np.__version__.split(".")[0]) >= 2
# set to the test id in the process TestCase.run_test_in_subprocess starts for that test
SUBPROCESS_TEST_ENV = "CUDALITE_COMPAT_SUBPROCESS_TEST"
_ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning)\b")
_NA_IN_OUTPUT = re.compile(r"NumbaInternal: not applicable \[([\w-]+)\]: (.+?) is numba-internal")


def _config():
    return importlib.import_module("numba.cuda.config")


@contextlib.contextmanager
def override_config(name, value):
    """Temporarily set the harness config variable *name* (must exist) to *value*."""
    cfg = _config()
    old = getattr(cfg, name)
    setattr(cfg, name, value)
    try:
        yield
    finally:
        setattr(cfg, name, old)


@contextlib.contextmanager
def override_env_config(name, value):
    raise NumbaInternal("internal-config", f"numba environment config {name}")
    yield  # pragma: no cover


def captured_stdout():
    return contextlib.redirect_stdout(io.StringIO())


def captured_stderr():
    return contextlib.redirect_stderr(io.StringIO())


def temp_directory(prefix):
    return tempfile.mkdtemp(prefix=f"{prefix}-")


def import_dynamic(modname):
    importlib.invalidate_caches()
    __import__(modname)
    return sys.modules[modname]


def ignore_internal_warnings():
    warnings.filterwarnings("ignore", module="typeguard")


def expected_failure_py314(fn):
    return unittest.expectedFailure(fn) if sys.version_info >= (3, 14) else fn


def run_in_subprocess(code, flags=(), env=None, timeout=30):
    """Run *code* with ``python -c`` (the alias is active there through sitecustomize)."""
    try:
        proc = subprocess.run([sys.executable, *flags, "-c", code], env=env, check=True,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.CalledProcessError as e:
        raise AssertionError(f"process failed with code {e.returncode:d}: stderr:\n{e.stderr}\n") from e
    return proc.stdout, proc.stderr


class TestCase(unittest.TestCase):
    """unittest.TestCase plus numba's precise-equality assertion."""

    _bool_types = (bool, np.bool_)
    _exact_types = (bool, np.bool_, int, np.integer, str, bytes)
    _complex_types = (complex, np.complexfloating)
    _float_types = (float, np.floating)

    @property
    def random(self):
        return np.random.RandomState(42)

    def _family(self, x):
        if isinstance(x, np.ndarray):
            return "ndarray"
        if isinstance(x, enum.Enum):
            return "enum"
        if isinstance(x, (tuple, list)):
            return "sequence"
        if isinstance(x, self._exact_types):
            return "exact"
        if isinstance(x, self._complex_types):
            return "complex"
        if isinstance(x, (float, complex, np.inexact)):
            return "approximate"
        return "unknown"

    @staticmethod
    def _strides(a):
        if a.size == 0:
            return [0] * a.ndim
        return [s / a.itemsize for s, n in zip(a.strides, a.shape) if n > 1]

    def assertStridesEqual(self, first, second):
        self.assertEqual(first.shape, second.shape, "shapes differ")
        self.assertEqual(first.itemsize, second.itemsize, "itemsizes differ")
        self.assertEqual(self._strides(first), self._strides(second), "strides differ")

    def assertPreciseEqual(self, first, second, prec="exact", ulps=1, msg=None,
                           ignore_sign_on_zero=False, abs_tol=None):
        """Equal in type family, dtype, layout and value: exactly for integers, bools and
        prec='exact'; for floats with prec 'single'/'double' within a relative delta of
        2**(ulps - bits - 1) * (|a| + |b|) (bits 24/53).  NaN equals NaN; signed zeros
        differ unless *ignore_sign_on_zero*; *abs_tol* (a float or "eps") accepts a small
        absolute difference."""
        try:
            self._precise(first, second, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
        except AssertionError as exc:
            text = str(exc)
        else:
            return
        self.fail(f"when comparing {first} and {second}: {text}")

    def _precise(self, a, b, prec, ulps, msg, ignore_sign, abs_tol):
        fa, fb = self._family(a), self._family(b)
        self.assertEqual(fa, fb, f"Type Family mismatch. ({fa} != {fb})" + (f": {msg}" if msg else ""))
        if fa == "ndarray":
            self.assertEqual(a.dtype, b.dtype)
            self.assertEqual(a.ndim, b.ndim, "different number of dimensions")
            self.assertEqual(a.shape, b.shape, "different shapes")
            self.assertEqual(a.flags.writeable, b.flags.writeable, "different mutability")
            self.assertEqual(self._strides(a), self._strides(b), "different strides")
            for x, y in zip(a.flat, b.flat):
                self._precise(x, y, prec, ulps, msg, ignore_sign, abs_tol)
            return
        if fa == "sequence":
            self.assertEqual(len(a), len(b), msg=msg)
            for x, y in zip(a, b):
                self._precise(x, y, prec, ulps, msg, ignore_sign, abs_tol)
            return
        if fa == "enum":
            self.assertIs(a.__class__, b.__class__)
            self._precise(a.value, b.value, prec, ulps, msg, ignore_sign, abs_tol)
            return
        if fa == "unknown":
            self.assertIs(a.__class__, b.__class__)
        exact = fa in ("exact", "unknown") or prec == "exact"
        if hasattr(a, "dtype") and hasattr(b, "dtype"):
            self.assertEqual(a.dtype, b.dtype)
        if isinstance(a, self._bool_types) != isinstance(b, self._bool_types):
            self.fail(f"Mismatching return types ({a.__class__} vs. {b.__class__})" + (f": {msg}" if msg else ""))
        try:
            if cmath.isnan(a) and cmath.isnan(b):
                return
        except TypeError:
            pass
        if abs_tol is not None:
            if abs_tol == "eps":
                tol = np.finfo(type(a)).eps
            elif isinstance(abs_tol, float):
                tol = abs_tol
            else:
                raise ValueError(f'abs_tol is not "eps" or a float, found {abs_tol}')
            if abs(a - b) < tol:
                return
        delta = None
        if not exact:
            bits = {"single": 24, "double": 53}.get(prec)
            if bits is None:
                raise ValueError(f"unsupported precision {prec!r}")
            delta = 2.0 ** (ulps - bits - 1) * (abs(a) + abs(b))
        if isinstance(a, self._complex_types):
            self._number(a.real, b.real, delta, msg, ignore_sign)
            self._number(a.imag, b.imag, delta, msg, ignore_sign)
        elif isinstance(a, (np.timedelta64, np.datetime64)) and np.isnat(a):
            self.assertEqual(np.isnat(a), np.isnat(b))
        else:
            self._number(a, b, delta, msg, ignore_sign)

    def _number(self, a, b, delta, msg, ignore_sign):
        if delta is None or a == b == 0.0 or math.isinf(a) or math.isinf(b):
            self.assertEqual(a, b, msg=msg)
            if not ignore_sign:
                try:
                    if math.copysign(1, a) != math.copysign(1, b):
                        self.fail(self._formatMessage(msg, f"{a} != {b}"))
                except TypeError:
                    pass
        else:
            self.assertAlmostEqual(a, b, delta=delta, msg=msg)

    def reset_module_warnings(self, module):
        """Forget which warnings ``module`` (or its name) has shown (Python's registry)."""
        if isinstance(module, str):
            module = sys.modules[module]
        module.__dict__.pop("__warningregistry__", None)

    def assertRefCount(self, *objects):
        raise NumbaInternal("internal-runtime", "numba refcount checks (NRT)")

    def assertNoNRTLeak(self):
        raise NumbaInternal("internal-runtime", "numba NRT leak checks")

    def make_dummy_type(self):
        """A fresh Python class and an opaque cudalite type for it, unique to this test:
        ``(Dummy, DummyType)``; ``typeof(Dummy())`` is an instance of ``DummyType``."""
        from cudalite import types
        from cudalite.cuda.extending import models, register_model, typeof_impl

        dummy_type_class = type(f"DummyTypeFor{self.id()}", (types.Opaque,), {})
        dummy_type = dummy_type_class("my_dummy")
        register_model(dummy_type_class)(models.OpaqueModel)
        dummy = type(f"DummyFor{self.id()}", (), {})
        typeof_impl.register(dummy)(lambda val, c: dummy_type)
        return dummy, dummy_type_class

    @staticmethod
    def run_test_in_subprocess(maybefunc=None, timeout=60, envvars=None):
        """Run the decorated test alone in a fresh Python process (``python -m unittest
        <test id>``; the alias is installed there by sitecustomize): the process marked by
        :data:`SUBPROCESS_TEST_ENV` runs the body, the parent fails if the child fails."""
        def wrap(func):
            @functools.wraps(func)
            def test(self):
                if os.environ.get(SUBPROCESS_TEST_ENV) == self.id():
                    return func(self)
                env = {**os.environ, **(envvars or {}), SUBPROCESS_TEST_ENV: self.id()}
                proc = subprocess.run([sys.executable, "-m", "unittest", self.id()], env=env,
                                      capture_output=True, text=True, timeout=timeout)
                if proc.returncode != 0:
                    internal = _NA_IN_OUTPUT.search(proc.stderr)
                    if internal:  # the child touched a numba internal: so does this test
                        raise NumbaInternal(internal.group(1), internal.group(2))
                    errors = [ln for ln in proc.stderr.splitlines() if _ERROR_LINE.match(ln)]
                    self.fail(f"the test failed in its own process: {errors[-1] if errors else proc.returncode}"
                              f"\n{proc.stderr}")
            return test
        return wrap(maybefunc) if callable(maybefunc) else wrap


class MemoryLeakMixin:
    """numba's NRT leak check; cudalite has no NRT allocations to leak, so it checks nothing."""


class CheckWarningsMixin:
    @contextlib.contextmanager
    def check_warnings(self, messages, category=RuntimeWarning):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        found = 0
        for w in caught:
            for m in messages:
                if m in str(w.message):
                    self.assertEqual(w.category, category)
                    found += 1
        self.assertEqual(found, len(messages))
