"""CI's release checks and the type check (issue 28, finding 4): ``.ci/run`` runs ``lint``,
``wheels`` and ``typecheck``; ``typecheck``'s module list (noxfile.py's TYPECHECK_MODULES)
names every package and every module a package's facade takes public names from; mypy,
configured by mypy.ini, checks a public module by name with zero errors (the namespace's
``cudalite/types.py`` is not taken for the standard library's ``types``)."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FACADES = {  # package folder -> its facades (the modules users import)
    "./packages/core-typing": ["cudalite.types", "cudalite.core"],
    "./packages/codegen-nvvm": ["cudalite.nvvm"],
    "./packages/linker": ["cudalite.linker"],
    "./packages/driver": ["cudalite.driver"],
    "./packages/jit": ["cudalite.cuda"],
}


def _noxfile_constants() -> dict:
    """noxfile.py's module-level string constants and TYPECHECK_MODULES, read from its
    source (nox need not be installed where the tests run)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    consts: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                consts[name] = node.value.value
            elif name == "TYPECHECK_MODULES":
                consts[name] = {consts[k.id]: ast.literal_eval(v) for k, v in zip(node.value.keys, node.value.values)}
    return consts


def _module_file(module: str, pkg: str) -> pathlib.Path | None:
    base = ROOT / pkg / "src" / module.replace(".", "/")
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _facade_sources(facade: str, pkg: str) -> set:
    """The cudalite modules ``facade`` imports names from (``from .x import y``, ``from
    cudalite.x import y``, ``from . import x``) and those its lazy tables name."""
    path = _module_file(facade, pkg)
    package = facade if path.name == "__init__.py" else facade.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0]
                if node.module:
                    out.add(f"{base}.{node.module}")
                else:
                    out.update(f"{base}.{a.name}" for a in node.names)
            elif node.module and node.module.startswith("cudalite."):
                out.add(node.module)
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_LAZY" for t in node.targets):
            out.update(f"{package}.{v.value}" for v in node.value.values)  # cudalite.nvvm's lazy names
    return out


def test_ci_runs_lint_wheels_and_typecheck():
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    code = [ln for ln in lines if ln and not ln.startswith("#")]
    runs = [set(m.group(1).split()) for ln in code for m in [re.search(r"nox -s ([\w .-]+)$", ln)] if m]
    # the README's test command first, unchanged; then each branch (venv / user site) runs the checks
    assert "python3 -m venv .venv && .venv/bin/pip install nox && .venv/bin/nox -s tests" in code
    assert runs[0] == {"tests"}
    assert sum({"lint", "wheels", "typecheck", "import_budget"} <= r for r in runs) == 2, runs
    assert "python3 -m nox -s lint wheels typecheck import_budget" in code


def test_typecheck_session_covers_every_package():
    consts = _noxfile_constants()
    modules = consts["TYPECHECK_MODULES"]
    assert set(modules) == set(FACADES)
    for pkg, mods in modules.items():
        missing = [m for m in mods if _module_file(m, pkg) is None]
        assert not missing, f"{pkg}: TYPECHECK_MODULES names modules that are not in it: {missing}"
        needed = set(FACADES[pkg])
        for facade in FACADES[pkg]:
            needed |= {m for m in _facade_sources(facade, pkg) if _module_file(m, pkg) is not None}
        assert needed <= set(mods), f"{pkg}: public modules not type-checked: {sorted(needed - set(mods))}"
    nox_src = (ROOT / "noxfile.py").read_text()
    assert re.search(r'MYPY = "mypy>=[\d.]+,<\d+"', nox_src)  # a pinned range


def test_mypy_config_names_the_source_trees():
    text = (ROOT / "mypy.ini").read_text()
    for pkg in FACADES:
        assert f"$MYPY_CONFIG_FILE_DIR/{pkg[2:]}/src" in text
    assert re.search(r"^explicit_package_bases = True$", text, re.M)
    assert re.search(r"^follow_imports = silent$", text, re.M)


@pytest.fixture(scope="module")
def mypy_api():
    return pytest.importorskip("mypy.api", reason="mypy is not installed (cudalite[test] installs it)")


def _mypy(api, tmp_path, *modules: str):
    args = ["--config-file", str(ROOT / "mypy.ini"), "--cache-dir", str(tmp_path / "cache")]
    return api.run([*args, *(a for m in modules for a in ("-m", m))])


def test_mypy_checks_a_public_module_with_zero_errors(mypy_api, tmp_path):
    out, err, status = _mypy(mypy_api, tmp_path, "cudalite.types", "cudalite.linker._errors")
    assert "shadows library module" not in out + err
    assert status == 0, out + err
    assert out.startswith("Success: no issues found in 2 source files"), out


def test_mypy_reports_errors_in_a_checked_module(mypy_api, tmp_path):
    # the configuration does not silence everything: a wrong call in a checked module is reported
    bad = tmp_path / "src" / "cudalite_typecheck_probe.py"
    bad.parent.mkdir()
    bad.write_text("from cudalite.types import signature\n\nx: int = signature(1)\n")
    args = ["--config-file", str(ROOT / "mypy.ini"), "--cache-dir", str(tmp_path / "cache"), str(bad)]
    out, err, status = mypy_api.run(args)
    assert status == 1, out + err
    assert "cudalite_typecheck_probe.py:3: error: Incompatible types in assignment" in out, out


# Modules whose every public function and method (and dunder) annotates its parameters and
# return (issue 28, finding 4): every module of TYPECHECK_MODULES, so that mypy checks the
# bodies of all of them. A module added to TYPECHECK_MODULES joins this list once annotated.
FULLY_ANNOTATED = {
    "./packages/core-typing": ["cudalite.types", "cudalite.core", "cudalite.core.errors", "cudalite.core.exec_sources",
                               "cudalite.core.ffi", "cudalite.core.pointer_arrays", "cudalite.core.types",
                               "cudalite.core.device_api"],
    "./packages/codegen-nvvm": ["cudalite.nvvm", "cudalite.nvvm.api", "cudalite.nvvm.pipeline",
                                "cudalite.nvvm.artifacts", "cudalite.nvvm._options"],
    "./packages/linker": ["cudalite.linker", "cudalite.linker._code", "cudalite.linker._errors",
                          "cudalite.linker._fatbin", "cudalite.linker._linker", "cudalite.linker._nvjitlink",
                          "cudalite.linker._nvrtc", "cudalite.linker._options", "cudalite.linker._validate"],
    "./packages/driver": ["cudalite.driver", "cudalite.driver.backends",
                           "cudalite.driver._cu", "cudalite.driver._shim", "cudalite.driver.cachedir",
                          "cudalite.driver.device", "cudalite.driver.errors", "cudalite.driver.ipc",
                          "cudalite.driver.launch", "cudalite.driver.checked", "cudalite.driver.generic",
                          "cudalite.driver.pool", "cudalite.driver.fill",
                          "cudalite.driver.launchconfig", "cudalite.driver.memory",
                          "cudalite.driver.module", "cudalite.driver.params", "cudalite.driver.peer",
                          "cudalite.driver.pointer", "cudalite.driver.profiler", "cudalite.driver.registration",
                          "cudalite.driver.stream"],
    "./packages/jit": ["cudalite.cuda", "cudalite.cuda._compat_names", "cudalite.cuda._dispatch.decorator",
                       "cudalite.cuda._dispatch.kernel", "cudalite.cuda._dispatch.device",
                       "cudalite.cuda._dispatch.aot", "cudalite.cuda._compiler.api",
                       "cudalite.cuda._compiler.compile_all", "cudalite.cuda._compiler.cache",
                       "cudalite.cuda._launch.hints", "cudalite.cuda._launch.typeof", "cudalite.cuda._memory.api",
                       "cudalite.cuda._memory.emm", "cudalite.cuda._memory.tma", "cudalite.cuda._runtime.api",
                       "cudalite.cuda._runtime.context", "cudalite.cuda._runtime.faults",
                       "cudalite.cuda._ufuncs.gufunc", "cudalite.cuda._ufuncs.reduce",
                       "cudalite.cuda._ufuncs.vectorize", "cudalite.cuda.bf16", "cudalite.cuda.config",
                       "cudalite.cuda.devicearray", "cudalite.cuda.errors", "cudalite.cuda.fp8",
                       "cudalite.cuda.runtime", "cudalite.cuda.simulator.api"],
}


def _unannotated(path: pathlib.Path) -> list:
    """The public functions and methods of ``path`` lacking a parameter or return annotation."""
    out = []

    def visit(body: list, prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("_") and not (node.name.startswith("__") and node.name.endswith("__")):
                    continue
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(p for p in (a.vararg, a.kwarg) if p)]
                if node.returns is None or any(p.annotation is None for p in params if p.arg not in ("self", "cls")):
                    out.append(f"{prefix}{node.name}:{node.lineno}")

    visit(ast.parse(path.read_text()).body, "")
    return out


@pytest.mark.parametrize("pkg", sorted(FULLY_ANNOTATED))
def test_user_facing_modules_are_fully_annotated(pkg):
    checked = set(_noxfile_constants()["TYPECHECK_MODULES"][pkg])
    for module in FULLY_ANNOTATED[pkg]:
        assert module in checked, f"{module} is annotated but not type-checked"
        assert _unannotated(_module_file(module, pkg)) == [], module


def test_import_budget_parses_importtime_after_the_marker():
    """benchmarks/import_budget.py counts only what ``from cudalite import cuda`` imports."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("import_budget", ROOT / "benchmarks" / "import_budget.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    stderr = ("import time: self [us] | cumulative | imported package\n"
              "import time:       900 |       1200 | numpy\n"
              "--- cudalite\n"
              "import time: self [us] | cumulative | imported package\n"
              "import time:       300 |        300 |     cudalite.core.errors\n"
              "import time:      1000 |       1300 |   cudalite.core\n"
              "import time:       500 |       1800 | cudalite.cuda\n")
    assert mod.parse_importtime(stderr) == [("cudalite.core.errors", 300, 300, 2), ("cudalite.core", 1000, 1300, 1),
                                            ("cudalite.cuda", 500, 1800, 0)]
