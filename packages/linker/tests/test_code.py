"""Linkable-code value objects: construction, immutability, hashing, from_path."""

from __future__ import annotations

import hashlib

import pytest

from cudalite.linker import (
    LTOIR, Archive, Cubin, CUSource, Fatbin, LinkableCode, LinkerError, MissingFileError, Object,
    PTXSource, UnknownFileTypeError,
)

ALL_KINDS = [PTXSource, CUSource, Cubin, Fatbin, Object, Archive, LTOIR]


def test_str_and_bytes_give_the_same_data():
    assert PTXSource(".version 9.0", name="a.ptx").data == b".version 9.0"
    assert PTXSource(b".version 9.0").data == b".version 9.0"
    assert Cubin(bytearray(b"\x7fELF")).data == b"\x7fELF"


def test_bad_data_type():
    with pytest.raises(TypeError, match="bytes or str"):
        PTXSource(123)


def test_base_class_is_abstract():
    with pytest.raises(TypeError, match="abstract"):
        LinkableCode(b"x")


def test_name_defaults_per_kind():
    assert PTXSource(b"").name.endswith(".ptx")
    assert CUSource(b"").name.endswith(".cu")
    assert PTXSource(b"", name="mine.ptx").name == "mine.ptx"


def test_immutable():
    code = PTXSource(b"abc", name="a.ptx")
    with pytest.raises(AttributeError, match="immutable"):
        code.name = "b"
    with pytest.raises(AttributeError):
        code.data = b"zzz"
    with pytest.raises(AttributeError):
        del code.name
    assert code.data == b"abc" and code.name == "a.ptx"


def test_content_hash_is_sha256_of_kind_and_data():
    code = PTXSource(b"abc")
    assert code.content_hash == hashlib.sha256(b"ptx\0abc").hexdigest()


def test_content_hash_changes_with_content_and_kind_not_name():
    a = PTXSource(b"abc", name="a.ptx")
    assert a.content_hash != PTXSource(b"abd", name="a.ptx").content_hash
    assert a.content_hash == PTXSource(b"abc", name="other.ptx").content_hash
    assert a.content_hash != LTOIR(b"abc").content_hash
    assert len({kind(b"same").content_hash for kind in ALL_KINDS}) == len(ALL_KINDS)


def test_equality_and_hash():
    assert PTXSource(b"x", name="a") == PTXSource("x", name="a")
    assert PTXSource(b"x", name="a") != PTXSource(b"x", name="b")
    assert PTXSource(b"x", name="a") != LTOIR(b"x", name="a")
    assert len({PTXSource(b"x", name="a"), PTXSource(b"x", name="a")}) == 1


def test_callbacks():
    def setup(mod):
        pass

    def teardown(mod):
        pass

    code = Cubin(b"", setup_callback=setup, teardown_callback=teardown)
    assert code.setup_callback is setup and code.teardown_callback is teardown
    assert PTXSource(b"").setup_callback is None
    with pytest.raises(TypeError, match="setup_callback must be callable"):
        PTXSource(b"", setup_callback="not callable")


@pytest.mark.parametrize("suffix, kind", [
    (".ptx", PTXSource), (".cu", CUSource), (".cubin", Cubin), (".fatbin", Fatbin),
    (".o", Object), (".a", Archive), (".lib", Archive), (".ltoir", LTOIR), (".PTX", PTXSource),
])
def test_from_path_dispatches_on_extension(tmp_path, suffix, kind):
    path = tmp_path / f"thing{suffix}"
    path.write_bytes(b"payload " + suffix.encode())
    code = LinkableCode.from_path(path)
    assert type(code) is kind
    assert code.data == b"payload " + suffix.encode()
    assert code.name == f"thing{suffix}"


def test_subclass_from_path_ignores_extension(tmp_path):
    path = tmp_path / "kernel.bin"
    path.write_bytes(b"\x7fELF")
    code = Cubin.from_path(path, name="k")
    assert type(code) is Cubin and code.name == "k" and code.data == b"\x7fELF"


def test_from_path_keeps_callbacks(tmp_path):
    path = tmp_path / "a.ptx"
    path.write_text("x")
    cb = print
    assert LinkableCode.from_path(path, setup_callback=cb).setup_callback is cb


def test_missing_file_names_the_path(tmp_path):
    path = tmp_path / "nope.ptx"
    with pytest.raises(MissingFileError, match="nope.ptx") as info:
        LinkableCode.from_path(path)
    assert isinstance(info.value, LinkerError)
    assert isinstance(info.value, FileNotFoundError)
    assert info.value.filename == str(path)
    with pytest.raises(FileNotFoundError, match="nope.cubin"):
        Cubin.from_path(tmp_path / "nope.cubin")


def test_unknown_extension_names_it_and_lists_accepted(tmp_path):
    path = tmp_path / "thing.xyz"
    path.write_bytes(b"")
    with pytest.raises(UnknownFileTypeError) as info:
        LinkableCode.from_path(path)
    message = str(info.value)
    assert "'.xyz'" in message and "thing.xyz" in message
    for suffix in (".ptx", ".cu", ".cubin", ".fatbin", ".o", ".a", ".lib", ".ltoir"):
        assert suffix in message
    assert isinstance(info.value, LinkerError) and isinstance(info.value, ValueError)


def test_no_extension(tmp_path):
    path = tmp_path / "Makefile"
    path.write_bytes(b"")
    with pytest.raises(UnknownFileTypeError, match="no extension"):
        LinkableCode.from_path(path)


def test_text_views():
    assert PTXSource(b".version 9.0\0").text == ".version 9.0"
    assert CUSource("__global__ void k() {}").text == "__global__ void k() {}"


def test_import_loads_no_native_library():
    import subprocess
    import sys

    code = ("import sys, cudalite.linker; "
            "print(sorted(m for m in sys.modules if m.startswith('cuda.bindings.') and "
            "m.split('.')[2] in ('nvrtc', 'nvjitlink', 'nvfatbin')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
