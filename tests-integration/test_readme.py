"""The README starts with the two commands (install + compile the example to PTX;
run the tests), .ci/run runs the second, and the example compiles with the CLI."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _first_two_commands() -> list[str]:
    blocks = re.findall(r"```[a-z]*\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    commands = [line.strip() for block in blocks for line in block.splitlines() if line.strip()]
    return commands[:2]


def test_readme_starts_with_two_commands():
    install, run_tests = _first_two_commands()
    assert ("pip install ./packages/core-typing ./packages/codegen-nvvm ./packages/linker ./packages/driver "
            "./packages/jit") in install
    assert "cudalite-compile examples/add.py:add" in install and "--emit ptx" in install
    assert "nox -s tests" in run_tests
    text = README.read_text(encoding="utf-8")
    before_first_block = text.split("```", 1)[0]
    assert before_first_block.count("\n") < 6, "the two commands must open the README"


def test_ci_runs_the_readme_test_command():
    _, run_tests = _first_two_commands()
    ci = ROOT / ".ci" / "run"
    assert ci.stat().st_mode & 0o111, ".ci/run must be executable"
    assert run_tests in ci.read_text(encoding="utf-8")


def test_example_compiles_with_the_readme_cli_command(tmp_path):
    install, _ = _first_two_commands()
    cli_part = install.split("&&")[-1].strip()
    argv = shlex.split(cli_part)
    assert argv[0].endswith("cudalite-compile")
    r = subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", *argv[1:]], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert ".visible .func  (.param .b32 func_retval0) add(" in r.stdout
    assert "add_param_0" in r.stdout and "add_param_1" in r.stdout
