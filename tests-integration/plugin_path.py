"""Entry-point registration for source-tree runs: ``cudalite-compile --emit fatbin`` finds
its linking step as the ``fatbin`` entry point cudalite-linker's pyproject.toml declares,
which an installed cudalite-linker provides; a test running the packages from their
source folders (PYTHONPATH) gets the same declaration from :func:`fatbin_plugin_dir`."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fatbin_plugin_dir(tmp_path) -> str:
    """A folder to put on PYTHONPATH that declares the linker's ``cudalite.compile_outputs``
    entry points, read from packages/linker/pyproject.toml (the one declaration)."""
    text = (ROOT / "packages" / "linker" / "pyproject.toml").read_text()
    section = re.search(r'^\[project\.entry-points\."cudalite\.compile_outputs"\]\n((?:[^\[\n].*\n?)*)', text, re.M)
    assert section, "packages/linker/pyproject.toml declares no cudalite.compile_outputs entry point"
    entries = [line for line in section.group(1).splitlines() if "=" in line]
    info = Path(tmp_path) / "entry-points" / "cudalite_linker_source-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cudalite-linker-source\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[cudalite.compile_outputs]\n" + "\n".join(
        line.replace('"', "").replace(" ", "") for line in entries) + "\n")
    return str(info.parent)
