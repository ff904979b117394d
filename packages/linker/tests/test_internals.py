"""Helpers behind the linker: symbol scan, ELF reader, stderr capture of nvJitLink."""

from __future__ import annotations

import os

from cudalite.linker import Cubin, CUSource, PTXSource, compile_cuda
from cudalite.linker._elf import elf_sm, elf_symbols
from cudalite.linker._nvjitlink import _captured_stderr, _split_stderr
from cudalite.linker._symbols import defined_symbols, duplicate_definitions

MANY = ('extern "C" __device__ int gv = 5;\n'
        'extern "C" __device__ int arr[4] = {1, 2, 3, 4};\n'
        'extern "C" __device__ int declared_only(int);\n'
        'extern "C" __device__ __noinline__ int f(int x) { return x + gv + arr[x] + declared_only(x); }\n'
        'extern "C" __device__ int none(void) { return 1; }\n'
        'extern "C" __global__ void k(int *p) { p[0] = f(p[1]); }\n')


def test_ptx_definitions_not_declarations():
    names = defined_symbols(compile_cuda(MANY, name="many.cu"))
    assert names == {"gv", "arr", "f", "none", "k"}


def test_cubin_definitions_not_undefined_references():
    names = defined_symbols(compile_cuda(MANY, name="many.cu", cubin=True))
    assert {"gv", "arr", "f", "none", "k"} <= names
    assert "declared_only" not in names


def test_opaque_kinds_are_not_inspected():
    assert defined_symbols(CUSource("x")) is None


def test_duplicates_name_both_inputs():
    a = PTXSource(".visible .entry k(\n)\n{\nret;\n}\n", name="a.ptx")
    b = PTXSource(".visible .func  (.param .b32 r) k(\n)\n{\nret;\n}\n", name="b.ptx")
    weak = PTXSource(".weak .func k()\n{\nret;\n}\n", name="w.ptx")
    assert duplicate_definitions([a, weak]) == []
    assert duplicate_definitions([a, b]) == [
        "error   : Multiple definition of 'k' in 'b.ptx', first defined in 'a.ptx'"]


def test_elf_reader():
    cubin = compile_cuda(MANY, name="many.cu", arch="sm_75", cubin=True)
    assert elf_sm(cubin.data) == 75
    assert elf_sm(b"not an elf at all" * 8) is None
    undefined = [s.name for s in elf_symbols(cubin.data) if not s.defined]
    assert "declared_only" in undefined
    assert "declared_only" in Cubin(cubin.data).symbol_names(defined_only=False)
    assert "declared_only" not in Cubin(cubin.data).symbol_names()


def test_split_stderr():
    raw = b"@E@error   : Multiple definition of 'f'\nplain line\n@W@warning   : w\n"
    errors, infos, passthrough = _split_stderr(raw)
    assert errors == ["error   : Multiple definition of 'f'"]
    assert infos == ["warning   : w"]
    assert passthrough == b"plain line\n"


def test_captured_stderr_restores_fd2(capfd):
    sink = []
    with _captured_stderr(sink):
        os.write(2, b"@E@inside\n")
    os.write(2, b"outside\n")
    assert b"".join(sink) == b"@E@inside\n"
    assert capfd.readouterr().err == "outside\n"
