"""benchmarks/report.py turns the benchmark scripts' JSON into docs tables and a plot."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import report  # noqa: E402


def test_report_from_json(tmp_path):
    kernels = {"benchmark": "kernels", "reps": 7, "names": ["saxpy", "matmul"],
               "results": {"cudalite": {"saxpy": {"ms": 0.5, "ok": True}, "matmul": {"ms": 2.0, "ok": True}},
                           "cuda-c": {"saxpy": {"ms": 0.5, "ok": True}, "matmul": {"ms": 2.2, "ok": True}},
                           "numba": "numba-cuda not importable"}}
    launch = {"benchmark": "jit_launch", "rows": [
        {"name": "floor: cuda.bindings cuLaunchKernel, prebuilt params", "enqueue_us": 2.0, "sustained_us": 2.5},
        {"name": "cudalite kernel[1, 1](CuPy x3, 1.5)", "enqueue_us": 3.0, "sustained_us": 5.0},
        {"name": "CuPy RawKernel <&>", "enqueue_us": 4.0, "sustained_us": 6.0}]}
    latency = {"benchmark": "compile_latency", "runs": 5,
               "rows": [{"key": "first", "title": "saxpy first call, empty cache", "target_ms": 200}],
               "results": {"cudalite": {"first": 0.0351}, "numba-cuda": {"first": 0.5}}}
    paths = {}
    for name, data in (("kernels", kernels), ("launch", launch), ("latency", latency)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(data))
    out, svg = tmp_path / "benchmarks.md", tmp_path / "launch.svg"
    assert report.main(["--kernels", str(paths["kernels"]), "--launch", str(paths["launch"]),
                        "--latency", str(paths["latency"]), "--note", "H100, 2026-11-24",
                        "--out", str(out), "--svg", str(svg)]) == 0
    text = out.read_text()
    assert "Measured on: H100, 2026-11-24." in text
    assert "| saxpy | 0.500 | 0.500 | 1.00x |" in text and "| matmul | 2.000 | 2.200 | 1.10x |" in text
    assert "| cudalite kernel[1, 1](CuPy x3, 1.5) | 3.00 | 1.50x | 5.00 | 2.00x |" in text
    assert "| saxpy first call, empty cache | 35.1 | 500.0 | < 200 |" in text
    assert "![sustained launch time per launcher](launch.svg)" in text
    assert "\n".join(report.peer_sections()).strip() in text  # the sections of the scripts it has no JSON for
    root = ET.fromstring(svg.read_text())  # well-formed, names escaped
    bars = [e for e in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert [round(float(b.get("width")), 1) for b in bars] == [round(330 * v / 6.0, 1) for v in (2.5, 5.0, 6.0)]
    assert "CuPy RawKernel <&>" in [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_docs_page_lists_the_peer_benchmarks():
    """docs/benchmarks.md has report.py's section for each peer benchmark (measured tables may
    be pasted under them), each naming a script that exists."""
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    for title, _ in report.PEER_SECTIONS:
        assert f"\n## {title}\n" in page
        script = title.rsplit("`", 2)[1]
        assert (ROOT / script).is_file(), script
        assert f"`python {script}`" in page
