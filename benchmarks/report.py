"""Write docs/benchmarks.md (tables) and docs/benchmarks-launch.svg (a plot) from the
JSON the benchmark scripts write with ``--json``.

    python benchmarks/kernels.py --json kernels.json          # on a GPU host
    python benchmarks/jit_launch.py --json launch.json
    python benchmarks/compile_latency.py --runs 5 --json latency.json
    python benchmarks/report.py --kernels kernels.json --launch launch.json \\
        --latency latency.json --note "NVIDIA H100 80GB HBM3, driver 580, 2026-11-24"

Every table is made from the files given (a missing one leaves its section out); the
plot is a plain SVG written here (no plotting library needed on the GPU host).
"""

from __future__ import annotations

import argparse
import html
import json
import os

__all__ = ["kernels_table", "launch_table", "latency_table", "launch_svg", "peer_sections", "main"]


def kernels_table(data) -> list:
    """Markdown lines: GPU time per kernel for cudalite, CUDA C and numba-cuda."""
    res = data["results"]
    impls = [i for i in ("cudalite", "cuda-c", "numba") if isinstance(res.get(i), dict)]
    lines = ["| kernel | " + " | ".join(f"{i} ms" for i in impls) + " | CUDA C / cudalite |",
             "|---|" + "---:|" * len(impls) + "---:|"]
    for name in data["names"]:
        ms = {i: res[i].get(name, {}).get("ms") for i in impls}
        ratio = f"{ms['cuda-c'] / ms['cudalite']:.2f}x" if ms.get("cuda-c") and ms.get("cudalite") else "-"
        cells = [f"{ms[i]:.3f}" if ms[i] else "-" for i in impls]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio} |")
    lines.append("")
    lines.append(f"GPU time per kernel, median of {data.get('reps', '?')} runs; the last column above 1.00x "
                 "means cudalite's kernel is faster than the hand-written CUDA C one.")
    return lines


FLOOR_NOTE = ('The floor itself is not stable: in some processes it is ~1.8 µs, in others (same machine, same '
              'code) ~3.4-4.1 µs, and ~4-5 µs in a process pinned to one core, while launches that do any '
              'Python work between driver calls cost about the same in both states; '
              '`benchmarks/launch_floor.py` measures it in fresh processes. Compare rows within one table, and '
              "read the cost above the shim's prebuilt launch (the driver call alone) as cudalite's own.")


def launch_table(data) -> list:
    rows = data["rows"]
    floor_e, floor_s = rows[0]["enqueue_us"], rows[0]["sustained_us"]
    lines = ["| launcher | enqueue µs | x floor | sustained µs | x floor |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['enqueue_us']:.2f} | {r['enqueue_us'] / floor_e:.2f}x | "
                     f"{r['sustained_us']:.2f} | {r['sustained_us'] / floor_s:.2f}x |")
    lines.append("")
    lines.append("Host time per launch of an empty 4-argument kernel; the floor is cuda.bindings' "
                 "`cuLaunchKernel` with a prebuilt parameter array; rows interleaved over 5 rounds, "
                 "best round per row.")
    lines.append("")
    lines.append(FLOOR_NOTE)
    return lines


def latency_table(data) -> list:
    labels = list(data["results"])
    lines = ["| measure | " + " | ".join(f"{lab} ms" for lab in labels) + " | target |",
             "|---|" + "---:|" * len(labels) + "---:|"]
    for row in data["rows"]:
        cells = [f"{data['results'][lab][row['key']] * 1e3:.1f}" for lab in labels]
        target = f"< {row['target_ms']}" if row["target_ms"] else ""
        lines.append(f"| {row['title']} | " + " | ".join(cells) + f" | {target} |")
    lines.append("")
    lines.append(f"Fresh interpreter per run, median of {data.get('runs', '?')}.")
    return lines


def launch_svg(data) -> str:
    """A horizontal bar chart of the sustained launch times, the floor drawn as a line."""
    rows = data["rows"]
    width, left, bar, gap, top = 760, 360, 18, 8, 30
    scale = (width - left - 70) / max(r["sustained_us"] for r in rows)
    height = top + len(rows) * (bar + gap) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="18" font-weight="bold">sustained host time per launch (µs)</text>']
    for k, r in enumerate(rows):
        y = top + k * (bar + gap)
        w = r["sustained_us"] * scale
        colour = "#999999" if k == 0 else ("#2b6cb0" if r["name"].startswith("cudalite") else "#dd8833")
        out.append(f'<text x="{left - 8}" y="{y + bar - 5}" text-anchor="end">{html.escape(r["name"])}</text>')
        out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar}" fill="{colour}"/>')
        out.append(f'<text x="{left + w + 5:.1f}" y="{y + bar - 5}">{r["sustained_us"]:.2f}</text>')
    x = left + rows[0]["sustained_us"] * scale
    out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{height - 24}" stroke="#444" '
               f'stroke-dasharray="4,3"/>')
    out.append(f'<text x="{x:.1f}" y="{height - 8}" text-anchor="middle">floor</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


PEER_SECTIONS = [
    ("CUDA ufuncs against CuPy (`benchmarks/vectorize.py`)",
     "`@cuda.vectorize` (`a * x + y` with a scalar `a`, `exp(-x * x) * y`; float32 and float64; 1e3, 1e6 "
     "and 1e8 elements) against CuPy `ElementwiseKernel`s of the same math: GPU time and bandwidth with a "
     "preallocated `out=`, host time per call for device-array and CuPy inputs with and without `out=`, a "
     "broadcast (N, 1) x (1, N) case; `@cuda.guvectorize` row sums `'(n)->()'` against a CuPy RawKernel of "
     "the same algorithm and a CuPy `ReductionKernel`."),
    ("Thread-block clusters against CUDA C (`benchmarks/clusters.py`)",
     "A float32 sum whose blocks combine their partial sums through distributed shared memory "
     "(`cluster.map_shared_rank`, one atomic per cluster; clusters of 2, 4 and 8) and a 16,384-bin "
     "histogram whose bins are spread over the shared memory of a cluster's blocks, against the same "
     "CUDA C (`__cluster_dims__`, `cg::this_cluster()`; CuPy RawModule) and against versions without "
     "clusters (global atomics). Needs compute capability 9.0."),
    ("Dynamic shared memory above 48 KiB against CUDA C (`benchmarks/smem_big.py`)",
     "A 1-D box filter (radius 2048) staging a 200 KiB tile per block in dynamic shared memory, against "
     "the same CUDA C kernel (CuPy RawKernel with `max_dynamic_shared_size_bytes` raised), and both with "
     "44 KiB tiles (48 KiB in all, no opt-in) to show what the big tile buys."),
    ("Inline PTX against CUDA C `asm volatile` (`benchmarks/inline_ptx.py`)",
     "An element-wise uint32 mix using `cuda.inline_ptx` (`lop3.b32`, `prmt.b32`), 1 round "
     "(bandwidth-bound) and 64 rounds (compute-bound), against the same CUDA C with `asm volatile`, and "
     "both against versions written with plain operators."),
]


def peer_sections() -> list:
    """Markdown lines describing the peer benchmarks whose tables are not generated here."""
    lines = []
    for title, text in PEER_SECTIONS:
        script = title.rsplit("`", 2)[1]
        lines += [f"## {title}", "", text, "",
                  f"Results: run `python {script}` on a GPU host with CuPy (it prints the device, a markdown "
                  "table and the ratios; `--quick` for a short run); the tables measured on an H200 are in "
                  "[benchmarks-peers.md](benchmarks-peers.md).", ""]
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernels")
    ap.add_argument("--launch")
    ap.add_argument("--latency")
    ap.add_argument("--note", default="", help="the machine and date, printed under the title")
    ap.add_argument("--out", default=os.path.join("docs", "benchmarks.md"))
    ap.add_argument("--svg", default=os.path.join("docs", "benchmarks-launch.svg"))
    args = ap.parse_args(argv)

    def load(path):
        with open(path) as f:
            return json.load(f)

    lines = ["# Benchmark results", "",
             "Made by `benchmarks/report.py` from the JSON of the benchmark scripts (its docstring "
             "says how to regenerate this page). Every ratio compares programs measured in the same run "
             "on the same machine.", ""]
    if args.note:
        lines += [f"Measured on: {args.note}.", ""]
    if args.kernels:
        lines += ["## Kernels against hand-written CUDA C (`benchmarks/kernels.py`)", ""]
        lines += kernels_table(load(args.kernels)) + [""]
    if args.launch:
        launch = load(args.launch)
        lines += ["## Launch overhead (`benchmarks/jit_launch.py`)", ""]
        lines += launch_table(launch) + [""]
        with open(args.svg, "w") as f:
            f.write(launch_svg(launch))
        lines += [f"![sustained launch time per launcher]({os.path.basename(args.svg)})", ""]
    if args.latency:
        lines += ["## Compile latency (`benchmarks/compile_latency.py`)", ""]
        lines += latency_table(load(args.latency)) + [""]
    lines += peer_sections()
    with open(args.out, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
