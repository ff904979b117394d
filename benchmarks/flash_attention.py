"""Attention forward throughput: the cudalite Python kernel of ``examples/flash_attention.py``
(TMA + wgmma, warp-specialised; sm_90a) against torch's
``scaled_dot_product_attention`` in the same run -- its flash backend and its default
choice (cuDNN on Hopper where torch has it).

Q, K, V of shape (batch, heads, seq, head_dim) in float16 (default: 2 x 16 x 8192 x 128,
non-causal); FLOPs counted as FlashAttention's papers do (4 * batch * heads * seq^2 *
head_dim, halved when causal).  Each figure is the median of ``--reps`` timed runs (CUDA
events) after a warm-up; cudalite's output is checked against torch's flash output.
Targets (issue 27): >= 550 TFLOP/s (float16, head_dim 128, seq 8k, non-causal) and
>= 1.0x torch's flash backend.  Run on an H100/H200 with torch:
``python benchmarks/flash_attention.py [--causal] [--head-dim 64]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

from bench_util import gpu_ms, gpu_or_skip  # noqa: E402


def run_case(cuda, torch, fa, batch, heads, seq, d, causal, reps):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn((batch, heads, seq, d), device="cuda", dtype=torch.float16, generator=g)
               for _ in range(3))
    out = torch.empty_like(q)
    dq, dk, dv, dout = (cuda.as_cuda_array(x) for x in (q, k, v, out))
    flat = (batch * heads * seq, d)
    maps = fa.tensor_maps(dq.reshape(flat), dk.reshape(flat), dv.reshape(flat))
    kernel, overlapped = fa.make_attention(d, causal), fa.make_attention(d, causal, overlap=True)
    variants = {"pingpong": fa.make_attention(d, causal, pingpong=True),
                "stages3": fa.make_attention(d, causal, stages=3),
                "overlap+pingpong": fa.make_attention(d, causal, overlap=True, pingpong=True)}

    def torch_time(run):  # seconds: torch's events on its (the legacy default) stream, where both launch
        return gpu_ms(run, reps, 1, lambda: torch.cuda.Event(enable_timing=True), lambda s, e: s.elapsed_time(e),
                      torch.cuda.synchronize) / 1e3

    overlap = torch_time(lambda: fa.attention_forward(overlapped, dq, dk, dv, dout, maps))
    others = {name: torch_time(lambda k=k: fa.attention_forward(k, dq, dk, dv, dout, maps))
              for name, k in variants.items()}
    ours = torch_time(lambda: fa.attention_forward(kernel, dq, dk, dv, dout, maps))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        flash_out = sdpa(q, k, v, is_causal=causal)
        flash = torch_time(lambda: sdpa(q, k, v, is_causal=causal))
    default = torch_time(lambda: sdpa(q, k, v, is_causal=causal))
    err = float((out.float() - flash_out.float()).abs().max())
    flops = 4.0 * batch * heads * seq * seq * d / (2 if causal else 1)
    return {"batch": batch, "heads": heads, "seq": seq, "head_dim": d, "causal": causal,
            "cudalite_tflops": flops / ours / 1e12, "overlap_tflops": flops / overlap / 1e12,
            **{f"{name}_tflops": flops / t / 1e12 for name, t in others.items()},
            "flash_tflops": flops / flash / 1e12,
            "default_tflops": flops / default / 1e12, "vs_flash": flash / ours, "vs_default": default / ours,
            "max_abs_err": err}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    found = gpu_or_skip("attention", (9, 0))
    if found is None:
        return
    cuda, dev = found
    if tuple(dev.compute_capability) != (9, 0):
        print(f"attention benchmark skipped: wgmma exists only on sm_90a (H100/H200), not {dev.name}")
        return
    try:
        import torch
    except ImportError:
        print("attention benchmark skipped: no torch to compare with")
        return
    import flash_attention as fa

    r = run_case(cuda, torch, fa, args.batch, args.heads, args.seq, args.head_dim, args.causal, args.reps)
    print(f"# device: {dev.name}; float16 attention forward, batch {r['batch']} x heads {r['heads']} x seq "
          f"{r['seq']} x head_dim {r['head_dim']}, causal={r['causal']}; median of {args.reps}; torch "
          f"{torch.__version__}")
    print("| kernel | TFLOP/s | cudalite is x faster |")
    print("|---|---:|---:|")
    print(f"| cudalite (examples/flash_attention.py) | {r['cudalite_tflops']:.0f} | |")
    print(f"| cudalite, softmax overlapped within a warpgroup (overlap=True) | {r['overlap_tflops']:.0f} | |")
    print(f"| cudalite, warpgroups taking turns (pingpong=True) | {r['pingpong_tflops']:.0f} | |")
    print(f"| cudalite, overlap=True, pingpong=True | {r['overlap+pingpong_tflops']:.0f} | |")
    print(f"| cudalite, 3 stages of K and V (stages=3) | {r['stages3_tflops']:.0f} | |")
    print(f"| torch SDPA, flash backend | {r['flash_tflops']:.0f} | {r['vs_flash']:.3f} |")
    print(f"| torch SDPA, default backend | {r['default_tflops']:.0f} | {r['vs_default']:.3f} |")
    print(f"max |cudalite - torch flash| = {r['max_abs_err']:.2e}")
    print("targets: >= 550 TFLOP/s (head_dim 128, seq 8k, non-causal), >= 1.0x the flash backend")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "flash_attention", "device": dev.name, **r}, f, indent=1)


if __name__ == "__main__":
    main()
