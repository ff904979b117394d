"""The justified "not applicable" list of the compatibility count (docs/compat.md repeats it).

The honest count leaves out only the tests an entry below covers, each with why its subject
is numba's own machinery -- its IR, byteflow, SSA or type-inference internals,
``_compile_for_args``, ``.library``, the cache's file layout -- or a target that is not
numba.cuda.  A "not applicable" test (it touched a numba internal, see compat_classify.py)
that no entry covers stays in the denominator as not passed, and the report lists it, so a
new internal use shows up instead of shrinking the count.

Each entry is ``(where, rule, reason)``: ``where`` is ``"*"`` (every module), a module
(``"cudapy/test_ir.py"``), a class or a test id (``"cudapy/test_x.py::TestY::test_z"``).
With a ``rule``, the entry covers the tests there that are not applicable by that rule;
with ``rule`` ``"*"`` (only for a module, class or test, never ``"*"`` itself), it covers
every test there whatever its outcome: the whole subject is numba's machinery, so its
passes are not counted either.
"""

from __future__ import annotations

JUSTIFIED: tuple[tuple[str, str, str], ...] = (
    # -- by rule: the subject is never cudalite's --------------------------------------------
    ("*", "cudasim-only", "runs only in numba's simulator (skip_unless_cudasim): numba-cuda skips it on a GPU too"),
    ("*", "cpu-target", "calls numba's CPU compiler (njit, jit, objmode, ...): numba's CPU target is not "
                        "numba.cuda, and cudalite does not replace it"),
    ("*", "internal-attribute", "reads numba's dispatcher internals (_compile_for_args, .library, _codelibrary, "
                                "compile_device, the type-inference typemap) on a kernel or device function"),
    ("*", "ir-inspection", "FileCheck over numba's own LLVM/PTX (its value names, metadata and "
                           "calling convention), not over a behaviour"),
    ("cudapy/test_caching.py", "cache-layout", "counts numba's index/data files in __pycache__ beside the test "
                                               "module; cudalite's cache lives under CUDALITE_CACHE_DIR"),
    # -- whole modules whose subject is numba's compiler machinery -----------------------------
    ("cudapy/test_ir.py", "*", "numba's IR classes (ir.Var, ir.Loc, ir.Scope) and IR passes"),
    ("cudapy/test_ir_utils.py", "*", "numba's IR utilities on its IR"),
    ("cudapy/test_analysis.py", "*", "numba's dead-branch pruning and semantic-constant rewrites on its IR"),
    ("cudapy/test_byteflow.py", "*", "numba's bytecode-flow analysis (run_frontend)"),
    ("cudapy/test_copy_propagate.py", "*", "copy propagation over numba's IR"),
    ("cudapy/test_typeconv.py", "*", "numba's type-conversion graph (TypeManager, castgraph, rules)"),
    ("cudapy/test_typeinfer.py", "*", "numba's type-inference internals (typing contexts, Conversion, "
                                      "partial type inference passes)"),
    ("cudapy/test_tracing.py", "*", "numba's internal event-tracing logger"),
    ("cudapy/test_launch_config_sensitive.py", "*", "numba's rewrite-pass registry (register_rewrite) and its "
                                                    "launch-configuration callbacks"),
    ("cudapy/test_gufunc_scheduling.py", "*", "numba's GUFuncEngine loop scheduler (an internal of its gufunc "
                                              "dispatch)"),
    # -- single classes or tests in user-facing modules -----------------------------------------
    ("cudapy/test_flow_control.py::TestCFGraph", "internal-import", "numba's CFGraph (its control-flow graph "
                                                                    "class)"),
    ("cudapy/test_flow_control.py::TestRealCodeDomFront", "internal-import", "numba's ControlFlowAnalysis and "
                                                                             "ByteCode on real functions"),
    ("cudapy/test_caching.py::LaunchConfigSensitiveCachingTest", "internal-import",
     "numba's rewrite registry and launch-configuration callbacks in its cache keys"),
    ("cudapy/test_caching.py::TestCUDACodeLibrary", "internal-import", "numba's CUDACodeLibrary (.library)"),
    ("cudapy/test_compiler.py::TestCompile::test_compile_jitted_subroutine", "internal-import",
     "numba's compile-result internals (cres.fndesc and its CUDACallConv calling convention)"),
    ("cudapy/test_const_string.py::TestConstStringCodegen::test_const_string", "internal-import",
     "numba's target context and its LLVM codegen of constant strings (descriptor.cuda_target)"),
    ("cudapy/test_enums.py::EnumTest::test_int_enum_no_conversion", "internal-import",
     "numba's typing context's can_convert on its IntEnumMember type (descriptor.cuda_target)"),
    ("cudapy/test_extending.py::TestNumbaInternalOverloads", "internal-import",
     "the argument names of numba's own internal overload declarations in its CUDATypingContext"),
    ("cudapy/test_warning.py::TestWarnings::test_no_warn_on_debug_and_opt_with_config", "internal-config",
     "numba's config internals (config._OptLevel)"),
    ("cudapy/test_warning.py::TestWarnings::test_warn_on_debug_and_opt_with_config", "internal-config",
     "numba's config internals (config._OptLevel)"),
)


def _covers(where: str, test_id: str) -> bool:
    return where == "*" or test_id == where or test_id.startswith(where + "::")


def justification(test: dict) -> str | None:
    """Why a test (a record with ``id``, ``status``, ``klass``) is left out of the honest
    count, or None.  Skipped and xfailed tests are left out as such, never justified."""
    status = test.get("status")
    if status in ("skipped", "xfailed"):
        return None
    for where, rule, reason in JUSTIFIED:
        if not _covers(where, test.get("id", "")):
            continue
        if rule == "*" or (status == "not-applicable" and rule == test.get("klass")):
            return reason
    return None


def honest_counts(tests) -> dict:
    """The headline numbers: ``passed`` (outside the justified list), ``denominator`` = all
    - skipped (and xfailed: numba expects them to fail) - justified, ``rate`` =
    passed / denominator; ``raw_passed`` / ``all`` = ``raw_rate``; ``failed`` and
    ``unjustified_na`` (in the denominator, not passed)."""
    c = {"all": 0, "raw_passed": 0, "passed": 0, "skipped": 0, "justified": 0, "unjustified_na": 0, "failed": 0}
    for t in tests:
        c["all"] += 1
        status = t.get("status")
        c["raw_passed"] += status == "passed"
        if status in ("skipped", "xfailed"):
            c["skipped"] += 1
        elif justification(t) is not None:
            c["justified"] += 1
        elif status == "passed":
            c["passed"] += 1
        elif status == "failed":
            c["failed"] += 1
        else:
            c["unjustified_na"] += 1
    c["denominator"] = c["all"] - c["skipped"] - c["justified"]
    c["rate"] = 100.0 * c["passed"] / c["denominator"] if c["denominator"] else 0.0
    c["raw_rate"] = 100.0 * c["raw_passed"] / c["all"] if c["all"] else 0.0
    return c
