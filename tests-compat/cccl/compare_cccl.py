"""Compare run_cccl.py's two reports: cuda.compute's suite with cudalite and with its own compiler.

    python3 tests-compat/cccl/compare_cccl.py NATIVE.json CUDALITE.json [--md FILE] [--json FIGURES.json]

Each test gets a class (:func:`classify`), first match wins:

- ``no-python-op``: neither run handed a Python callable to the operator compiler; the test
  exercises cuda.compute alone.  Counted apart, its pass rate (both runs) printed beside.
- ``na-skipped``: skipped or xfailed with cuda.compute's own compiler.
- ``na-native-fails``: fails with cuda.compute's own compiler -- "not applicable: fails with
  cuda.compute's own compiler (reason)", listed.
- ``na-not-run``: absent from the native run.
- ``pass`` / ``FAIL``: the denominator -- uses a Python operator and passes with
  cuda.compute's own compiler -- split by the cudalite outcome.

The headline: **passed with cudalite / tests that use a Python operator and pass with
cuda.compute's own compiler**.  Every ``FAIL`` is listed with its reason, and so is every
``no-python-op`` test that passes natively and not under the cudalite run (the harness's
alias or adapter must not disturb cuda.compute's other paths).  A test missing from the
cudalite run counts as failed there: ``error`` with its module's collection error, else
``not run``.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

GOOD = ("passed", "xpassed")
BAD = ("failed", "error")
CLASSES = ("pass", "FAIL", "na-native-fails", "na-skipped", "na-not-run", "no-python-op")
NOT_RUN = "not run"


def _module_of(test_id):
    return test_id.split("::", 1)[0]


def _missing(test_id, report):
    """The stand-in record of a test absent from ``report``."""
    err = report.get("collect_errors", {}).get(_module_of(test_id))
    if err is not None:
        return {"id": test_id, "outcome": "error", "reason": f"collection error: {err}", "uses_op": False}
    why = f"not reached: the {report.get('compiler', '')} run stopped at its time budget" if report.get(
        "interrupted") else NOT_RUN
    return {"id": test_id, "outcome": NOT_RUN, "reason": why, "uses_op": False}


def classify(native, cudalite):
    """``(class, reason)`` of one test from its two records (see the module docstring)."""
    if not (native.get("uses_op") or cudalite.get("uses_op")):
        if native["outcome"] not in GOOD:
            return "no-python-op", native["reason"]
        return "no-python-op", "" if cudalite["outcome"] in GOOD else cudalite["reason"]
    if native["outcome"] in ("skipped", "xfailed"):
        return "na-skipped", native["reason"]
    if native["outcome"] in BAD:
        return "na-native-fails", f"fails with cuda.compute's own compiler ({native['reason']})"
    if native["outcome"] not in GOOD:
        return "na-not-run", native["reason"] or NOT_RUN
    if cudalite["outcome"] in GOOD:
        return "pass", ""
    return "FAIL", f"{cudalite['outcome']}: {cudalite['reason']}"


def compare(native_report, cudalite_report):
    """The per-test rows and the figures of the two reports."""
    nat = {r["id"]: r for r in native_report["tests"]}
    cud = {r["id"]: r for r in cudalite_report["tests"]}
    rows = []
    for tid in sorted(set(nat) | set(cud)):
        n = nat.get(tid) or _missing(tid, native_report)
        c = cud.get(tid) or _missing(tid, cudalite_report)
        klass, reason = classify(n, c)
        if klass == "FAIL" and c["outcome"] == NOT_RUN and cudalite_report.get("interrupted"):
            klass, reason = "na-not-run", "not reached: the cudalite run stopped at its time budget"
        rows.append({"id": tid, "native": n["outcome"], "cudalite": c["outcome"],
                     "uses_op": bool(n.get("uses_op") or c.get("uses_op")), "class": klass, "reason": reason})
    return rows, figures(rows, native_report, cudalite_report)


def _rate(num, den):
    return round(100.0 * num / den, 1) if den else None


def figures(rows, native_report, cudalite_report):
    """Headline, the no-operator figures and the raw counts (JSON-ready)."""
    by = collections.Counter(r["class"] for r in rows)
    denominator = by["pass"] + by["FAIL"]
    noop = [r for r in rows if r["class"] == "no-python-op"]
    return {
        "headline": {"passed": by["pass"], "denominator": denominator, "rate": _rate(by["pass"], denominator)},
        "classes": {k: by[k] for k in CLASSES},
        "no_python_op": {"tests": len(noop),
                         "native_passed": sum(r["native"] in GOOD for r in noop),
                         "cudalite_passed": sum(r["cudalite"] in GOOD for r in noop),
                         "native_rate": _rate(sum(r["native"] in GOOD for r in noop), len(noop)),
                         "cudalite_rate": _rate(sum(r["cudalite"] in GOOD for r in noop), len(noop))},
        "raw": {"tests": len(rows), "uses_op": sum(r["uses_op"] for r in rows),
                "native": collections.Counter(r["native"] for r in rows),
                "cudalite": collections.Counter(r["cudalite"] for r in rows)},
        "runs": {name: {k: rep.get(k) for k in ("compiler", "wall_s", "pytest_rc", "python")}
                 | {"collect_errors": len(rep.get("collect_errors", {}))}
                 for name, rep in (("native", native_report), ("cudalite", cudalite_report))},
        "collect_errors": {name: dict(sorted(rep.get("collect_errors", {}).items()))
                           for name, rep in (("native", native_report), ("cudalite", cudalite_report))},
    }


def headline_line(fig) -> str:
    h, np_ = fig["headline"], fig["no_python_op"]
    rate = "n/a" if h["rate"] is None else f"{h['rate']:.1f}%"
    nr = "n/a" if np_["native_rate"] is None else f"{np_['native_rate']:.1f}%"
    cr = "n/a" if np_["cudalite_rate"] is None else f"{np_['cudalite_rate']:.1f}%"
    return (f"**{rate}** of the tests that use a Python operator and pass with cuda.compute's own compiler "
            f"pass with cudalite: **{h['passed']}/{h['denominator']}**.  Tests with no Python operator "
            f"(cuda.compute alone): {np_['tests']}, passing {np_['native_passed']} ({nr}) natively and "
            f"{np_['cudalite_passed']} ({cr}) in the cudalite run.")


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(rows, fig) -> str:
    """The report: headline, counts, the lists that matter, then every test."""
    out = ["# cuda.compute's test suite: cudalite against cuda.compute's own operator compiler", "",
           headline_line(fig), ""]
    out += ["| class | tests |", "|---|---:|"] + [f"| {k} | {v} |" for k, v in fig["classes"].items()] + [""]
    raw = fig["raw"]
    outcomes = sorted(set(raw["native"]) | set(raw["cudalite"]))
    out += [f"Raw: {raw['tests']} tests, {raw['uses_op']} hand a Python callable to the operator compiler.", "",
            "| outcome | native | cudalite |", "|---|---:|---:|"]
    out += [f"| {o} | {raw['native'].get(o, 0)} | {raw['cudalite'].get(o, 0)} |" for o in outcomes] + [""]
    for name, run in fig["runs"].items():
        out.append(f"- {name} run: {run['wall_s']} s, pytest exit {run['pytest_rc']}, Python {run['python']}, "
                   f"{run['collect_errors']} test modules did not import")
    sections = [
        ("Fails with cudalite (in the denominator)", lambda r: r["class"] == "FAIL"),
        ("Not applicable: fails with cuda.compute's own compiler", lambda r: r["class"] == "na-native-fails"),
        ("Not applicable: skipped/xfailed with cuda.compute's own compiler, or not run",
         lambda r: r["class"] in ("na-skipped", "na-not-run")),
        ("No Python operator, passing natively but not in the cudalite run",
         lambda r: r["class"] == "no-python-op" and r["native"] in GOOD and r["cudalite"] not in GOOD),
    ]
    for title, keep in sections:
        chosen = [r for r in rows if keep(r)]
        out += ["", f"## {title} ({len(chosen)})", ""]
        out += [f"- `{r['id']}`: {_cell(r['reason'])}" for r in chosen] or ["(none)"]
    out += ["", "## Test modules that did not import (their tests are in neither count when both runs fail)", ""]
    errs = [(name, path, why) for name, by_path in fig["collect_errors"].items() for path, why in by_path.items()]
    out += [f"- {name}: `{path}`: {_cell(why)}" for name, path, why in errs] or ["(none)"]
    out += ["", "## Every test", "", "| test | native | cudalite | Python op | class | reason |",
            "|---|---|---|---|---|---|"]
    out += [row_line(r) for r in rows]
    return "\n".join(out) + "\n"


def row_line(r) -> str:
    return (f"| `{_cell(r['id'])}` | {r['native']} | {r['cudalite']} | {'yes' if r['uses_op'] else 'no'} "
            f"| {r['class']} | {_cell(r['reason'])} |")


def load(path, want):
    """A run_cccl.py report, checked to be of compiler ``want``."""
    try:
        with open(path, encoding="utf-8") as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"compare_cccl: cannot read {path}: {e}") from None
    if not isinstance(rep, dict) or "tests" not in rep:
        raise SystemExit(f"compare_cccl: {path} is not a run_cccl.py report")
    if rep.get("compiler") != want:
        raise SystemExit(f"compare_cccl: {path} is the {rep.get('compiler')!r} run; expected the {want!r} run")
    return rep


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("native", help="run_cccl.py --compiler native report")
    ap.add_argument("cudalite", help="run_cccl.py --compiler cudalite report")
    ap.add_argument("--md", help="write the markdown here (default: stdout)")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    rows, fig = compare(load(args.native, "native"), load(args.cudalite, "cudalite"))
    text = markdown(rows, fig)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(text)
        print(headline_line(fig))
    else:
        sys.stdout.write(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(fig | {"tests": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
