"""``cudalite-info`` / ``python -m cudalite.cuda``: the bug-report summary (GPU-less)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from cudalite.cuda._runtime import info as _info


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def test_json_report_has_every_section():
    proc = subprocess.run([sys.executable, "-m", "cudalite.cuda", "--json"], capture_output=True, text=True,
                          env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert list(report) == ["python", "packages", "libraries", "gpus", "cache", "launch"]
    assert report["python"]["version"] == sys.version.split()[0]
    assert "numpy" in report["packages"] and "cuda-bindings" in report["packages"]
    nvvm = report["libraries"]["libnvvm"]
    assert os.path.isfile(nvvm["path"]) and os.path.isfile(report["libraries"]["libdevice"]["path"])
    assert "devices" in report["gpus"] or report["gpus"]["unavailable"]  # a GPU, or why there is none
    assert report["cache"]["kernels"].endswith("kernels") and report["cache"]["max_size"] >= 0
    assert report["launch"]["path"]


def test_text_report_and_a_failing_section(monkeypatch, capsys):
    def broken():
        raise OSError("no such thing")

    monkeypatch.setattr(_info, "SECTIONS", (("python", _info._python), ("gpus", broken)))
    assert _info.main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("python:\n  version: ")
    assert "gpus:\n  unavailable: OSError: no such thing\n" in out


def test_compile_cli_verbose_logs_each_stage():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cmd = [sys.executable, "-m", "cudalite.nvvm.cli", os.path.join(root, "examples", "add.py") + ":add",
           "float32(float32, float32)", "--abi", "c", "--emit", "ptx"]
    quiet = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=120)
    loud = subprocess.run(cmd + ["-vv"], capture_output=True, text=True, env=_env(), timeout=120)
    assert quiet.returncode == loud.returncode == 0 and quiet.stdout == loud.stdout
    assert quiet.stderr == ""
    stages = [line.split(": ")[3].split()[0] for line in loud.stderr.splitlines()
              if line.startswith("cudalite.nvvm.pipeline: DEBUG: add: ")]
    assert stages == ["parse", "infer", "lower", "nvvm"]
