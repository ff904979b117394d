"""A NUL byte inside CUDA C++ source is refused before NVRTC sees it (GPU-less): NVRTC
reads a C string and would compile only the text before the NUL, silently."""

from __future__ import annotations

import pytest

from cudalite.linker import CUSource, InvalidInputError, Linker, compile_cuda

GOOD = 'extern "C" __device__ int g(int x) { return x + 1; }\n'


@pytest.mark.parametrize("source", [GOOD[:10] + "\0" + GOOD[10:], (GOOD + "\0").encode() + b"junk\n"], ids=repr)
def test_nul_inside_is_refused(source):
    with pytest.raises(InvalidInputError, match=r"^invalid CUDA C\+\+ input 'k\.cu': a NUL byte at line [12], .*NVRTC "
                                                r"would silently compile only the text before it$"):
        compile_cuda(source, name="k.cu")


def test_the_error_locates_the_nul():
    source = b"// one\n// two\nint a;\0int b;\n"
    with pytest.raises(InvalidInputError) as e:
        compile_cuda(CUSource(source, name="dir/k.cu"))
    assert str(e.value) == ("invalid CUDA C++ input 'dir/k.cu': a NUL byte at line 3, column 7 (offset 20); NVRTC "
                            "would silently compile only the text before it")
    assert isinstance(e.value, ValueError)


def test_the_linker_path_refuses_it():
    linker = Linker("sm_90", isolate=False)
    with pytest.raises(InvalidInputError, match=r"^invalid CUDA C\+\+ input 'mod\.cu': a NUL byte at line 1, "):
        linker._compile(CUSource("in\0t x;\n", name="mod.cu"), lto=False)


def test_trailing_nuls_are_the_end_of_the_text():
    try:
        ptx = compile_cuda((GOOD + "\0\0").encode(), name="g.cu", arch="sm_90")
    except (ImportError, OSError) as e:  # no NVRTC here
        pytest.skip(f"NVRTC not available: {e}")
    assert ptx.text == compile_cuda(GOOD, name="g.cu", arch="sm_90").text
