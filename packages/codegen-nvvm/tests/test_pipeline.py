"""The pipeline as data: named stages run by one loop, stop after any stage,
resume from a result (PTX <-> LTO-IR re-runs only libNVVM), and the last stage
run alone on stored NVVM IR."""

from __future__ import annotations

import pytest

from cudalite.nvvm import pipeline as P
from cudalite.nvvm.api import make_options


def axpy(a, x, y):
    return a * x + y


SIG = "float32(float32, float32, float32)"


def _run(until, **kw):
    return P.run_pipeline(axpy, SIG, P.EntrySpec(), make_options(cc=(9, 0), **kw), until=until)


def test_stages_are_an_ordered_list_of_named_functions():
    assert [s.name for s in P.PIPELINE] == ["parse", "infer", "lower", "nvvm"]
    made = [k for s in P.PIPELINE for k in s.makes]
    assert tuple(made) == P.STAGES


@pytest.mark.parametrize("until,stages,timed", [
    ("source", ["source", "ast"], ["parse"]),
    ("typed-ir", ["source", "ast", "typed-ir"], ["parse", "infer"]),
    ("nvvm-ir", ["source", "ast", "typed-ir", "nvvm-ir"], ["parse", "infer", "lower"]),
    ("ptx", ["source", "ast", "typed-ir", "nvvm-ir", "ptx"], ["parse", "infer", "lower", "nvvm"]),
])
def test_stop_after_any_stage(until, stages, timed):
    res = _run(until)
    assert list(res.artifacts) == stages
    assert list(res.timings) == timed and all(t >= 0 for t in res.timings.values())


def test_unknown_stage_is_a_value_error():
    with pytest.raises(ValueError, match="unknown stage 'sass'"):
        _run("sass")


def test_resume_switches_output_running_only_libnvvm(monkeypatch):
    res = _run("ptx")
    calls = []
    real = P.PIPELINE

    def spy(stage):
        def run(job, state):
            calls.append(stage.name)
            return stage.run(job, state)

        return P.Stage(stage.name, stage.makes, run)

    monkeypatch.setattr(P, "PIPELINE", tuple(spy(s) for s in real))
    lto = P.resume(res, "ltoir")
    assert calls == ["nvvm"]
    assert isinstance(lto["ltoir"].data, bytes) and lto["ltoir"].data
    assert lto["nvvm-ir"] is res["nvvm-ir"] and lto["ptx"] is res["ptx"]
    assert P.resume(lto, "ltoir") is lto and calls == ["nvvm"]
    assert P.resume(lto, "typed-ir") is lto


def test_resume_from_a_stopped_result_continues():
    res = _run("typed-ir")
    full = P.resume(res, "ptx")
    assert ".target sm_90" in full["ptx"].data
    assert full.typed is res.typed  # typing was not run again
    assert full.entry_name and full.entry_name in full["ptx"].data


def test_compile_nvvm_ir_from_stored_text_matches_the_pipeline():
    res = _run("ptx")
    ptx = P.compile_nvvm_ir(res["nvvm-ir"].data, res.job.options, "ptx")
    assert ptx == res["ptx"].data
    with pytest.raises(ValueError, match="output must be"):
        P.compile_nvvm_ir(res["nvvm-ir"].data, res.job.options, "cubin")


def test_compile_stages_runs_the_pipeline_once(monkeypatch):
    from cudalite import nvvm

    runs = []
    real = P.run_stages

    def counting(*a, **k):
        runs.append(1)
        return real(*a, **k)

    monkeypatch.setattr(P, "run_stages", counting)
    stages = nvvm.compile_stages(axpy, SIG, cc=(9, 0))
    assert len(runs) == 1
    assert list(stages) == ["source", "ast", "typed-ir", "nvvm-ir", "ptx"]
    assert "def axpy" in stages["source"].data and "FunctionDef" in stages["ast"].data


def test_lowered_module_is_the_only_channel_out_of_lowering():
    res = _run("nvvm-ir")
    mod = res.module
    assert mod.text == res["nvvm-ir"].data
    assert res.entry_name == mod.entry_name and res.link_items == () and not res.uses_grid_sync
    with pytest.raises(AttributeError):
        mod.text = "x"
