"""Classify one numba-cuda test outcome under the alias (pure functions, unit-tested).

``classify(outcome)`` returns ``(status, klass, detail)``.  status is one of
``passed``, ``failed``, ``not-applicable``, ``skipped``, ``xfailed``.  The rules, first
match wins (docs/compat.md repeats them):

1. passed / xpassed (numba expects a failure on hardware, cudalite passes) -> passed.
2. a ModuleNotFoundError of a third-party module (ml_dtypes, cupy...) -> skipped,
   klass ``missing-dependency`` (it fails the same under numba without that package).
   A module-level ``pytest.skip`` (exception ``Skipped``) -> skipped.
   skipped with an ``N/A[rule]`` reason (the testing shim's cudasim-only skip) ->
   not-applicable, klass = rule; other skips -> skipped.
3. failed, and the test raised or touched a ``NumbaInternal`` (an internal numba module,
   numba's CPU target, numba's config internals, FileCheck over numba's IR) ->
   not-applicable, klass = that rule.
   An ``AttributeError`` naming one of numba's dispatcher internals
   (:data:`NUMBA_INTERNAL_ATTRIBUTES`: ``_compile_for_args``, ``library``...) read on a
   cudalite kernel or device function -> not-applicable, klass ``internal-attribute``.
   An assertion failing inside test_caching.py's ``check_pycache`` (the count of numba's
   index/data files in ``__pycache__`` beside the test module) -> not-applicable, klass
   ``cache-layout``: cudalite keeps its disk cache under ``CUDALITE_CACHE_DIR`` / XDG
   (never beside the source), so that count is 0 by design.
   Not applicable is evidence, not an excuse: only the tests compat_justified.py's list
   covers leave the headline's denominator.
4. failed otherwise, klass by the exception: ``missing-api`` (a public numba.cuda name
   cudalite lacks), ``compile-error`` (cudalite's compile-error family, by class name),
   ``internal-compiler-error``, ``driver-error``, ``cudalite-exception`` (another exception
   raised inside cudalite), ``missing-error`` (assertRaises: not raised),
   ``missing-warning``, ``error-message-mismatch``, ``generated-code-mismatch`` (an
   assertion over PTX/LLVM text), ``wrong-result`` (any other failed assertion),
   ``crash`` (the process died), ``timeout``, ``error`` (anything else).
"""

from __future__ import annotations

import re

COMPILE_ERRORS = frozenset({
    "CompilerError", "TypingError", "UnsupportedError", "LoweringError", "NvvmError", "SignatureError",
    "SourceError", "NestingError",
})
# numba's test of its cache files in __pycache__ (cudalite's cache lives elsewhere: see rule 3)
CACHE_LAYOUT_FRAME = "test_caching.py:check_pycache"
# numba's dispatcher/compile-result internals that its tests read on a kernel or device
# function (cudalite's objects do not have them): an AttributeError naming one -> n/a
NUMBA_INTERNAL_ATTRIBUTES = frozenset({"_compile_for_args", "library", "_codelibrary", "compile_device",
                                       "_type_annotation", "typemap"})
_NO_ATTRIBUTE = re.compile(r"object has no attribute '(\w+)'")
PASSED, FAILED, NA, SKIPPED, XFAILED = "passed", "failed", "not-applicable", "skipped", "xfailed"


def first_line(text: str, limit: int = 160) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    line = lines[0] if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def last_line(text: str, limit: int = 160) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return first_line(lines[-1] if lines else "", limit)


def _internal_attribute(mro, msg: str) -> str:
    """The numba-internal attribute an AttributeError names, or ''."""
    if "AttributeError" not in mro or "MissingApi" in mro:
        return ""
    m = _NO_ATTRIBUTE.search(str(msg))
    return m.group(1) if m and m.group(1) in NUMBA_INTERNAL_ATTRIBUTES else ""


def classify(o: dict) -> tuple[str, str, str]:
    """o: outcome ('passed'|'failed'|'skipped'|'xfailed'|'xpassed'|'crash'|'timeout'),
    exc_type, exc_mro (class names), exc_module, message, in_cudalite, events
    [(rule, detail)], skip_reason, na_rule (from a NumbaInternal)."""
    outcome = o.get("outcome")
    if outcome in ("passed", "xpassed"):
        return PASSED, "xpass" if outcome == "xpassed" else "", ""
    if outcome == "xfailed":
        return XFAILED, "xfail", first_line(o.get("skip_reason") or o.get("message", ""))
    if outcome == "skipped":
        reason = o.get("skip_reason") or ""
        if reason.startswith("N/A["):
            rule = reason[4: reason.index("]")] if "]" in reason else "n/a"
            return NA, rule, first_line(reason)
        return SKIPPED, "skip", first_line(reason)
    if outcome == "crash":
        return FAILED, "crash", first_line(o.get("message", "process died"))
    if outcome == "timeout":
        return FAILED, "timeout", first_line(o.get("message", ""))
    mro = set(o.get("exc_mro") or [])
    etype = o.get("exc_type", "")
    msg = o.get("message", "")
    if etype == "Skipped":  # pytest.skip(allow_module_level=True) while the module imports
        return SKIPPED, "skip", first_line(msg)
    if o.get("na_rule"):
        return NA, o["na_rule"], first_line(msg)
    events = o.get("events") or []
    if events:
        rule, detail = events[0]
        return NA, rule, detail
    internal_attr = _internal_attribute(mro, msg)
    if internal_attr:
        return NA, "internal-attribute", f"numba's internal attribute {internal_attr!r}: {first_line(msg)}"
    if "AssertionError" in mro and CACHE_LAYOUT_FRAME in (o.get("tb_funcs") or ()):
        return NA, "cache-layout", first_line(msg)
    if etype == "ModuleNotFoundError":
        missing = str(o.get("missing_module") or msg.split("'")[1] if "'" in msg else msg)
        if not missing.startswith(("numba", "cudalite")):  # a third-party test dependency (ml_dtypes...)
            return SKIPPED, "missing-dependency", missing
    if "MissingApi" in mro or "MissingApiImport" in mro:
        return FAILED, "missing-api", o.get("api_name") or first_line(msg)
    if etype == "InternalCompilerError":
        return FAILED, "internal-compiler-error", first_line(msg)
    if mro & COMPILE_ERRORS and "CudaliteError" in mro:
        return FAILED, "compile-error", f"{etype}: {last_line(msg)}"
    mod = o.get("exc_module") or ""
    if mod.startswith("cudalite.driver") or "CudaAPIError" in mro or "CudaDriverError" in mro:
        return FAILED, "driver-error", f"{etype}: {first_line(msg)}"
    if o.get("in_cudalite") and etype != "AssertionError":
        return FAILED, "cudalite-exception", f"{etype}: {first_line(msg)}"
    if "AssertionError" in mro:
        if " not raised" in msg:
            return FAILED, "missing-error", first_line(msg)
        if "not triggered" in msg:
            return FAILED, "missing-warning", first_line(msg)
        if "does not match" in msg:
            return FAILED, "error-message-mismatch", first_line(msg)
        if "Generated by NVIDIA NVVM Compiler" in msg or "target triple" in msg:
            return FAILED, "generated-code-mismatch", first_line(msg)
        return FAILED, "wrong-result", first_line(msg)
    return FAILED, "error", f"{etype}: {first_line(msg)}"


def describe_exception(exc: BaseException, tb=None) -> dict:
    """The classify() fields of one exception (its type, MRO names, where it was raised)."""
    tb = tb if tb is not None else exc.__traceback__
    last = None
    funcs = []  # "file.py:function" of each traceback frame, outermost first
    while tb is not None:
        code = tb.tb_frame.f_code
        last = code.co_filename
        funcs.append(f"{last.replace(chr(92), '/').rsplit('/', 1)[-1]}:{code.co_name}")
        tb = tb.tb_next
    rec = {
        "exc_type": type(exc).__name__,
        "exc_mro": [c.__name__ for c in type(exc).__mro__],
        "exc_module": type(exc).__module__,
        "message": str(exc),
        "in_cudalite": bool(last and "/cudalite/" in last.replace("\\", "/")),
        "tb_funcs": funcs,
    }
    if hasattr(exc, "rule") and "NumbaInternal" in rec["exc_mro"]:
        rec["na_rule"] = exc.rule
    if hasattr(exc, "api_name"):
        rec["api_name"] = exc.api_name
    return rec
