"""Named tuples as kernel arguments and constants, GPU-less (numba-cuda's
test_array_args test_namedtuple / test_namedunituple): the argument is keyed by
its class, typed as a :class:`NamedTuple` (a tuple whose fields are also read by
name), flattened like a tuple in the kernel ABI, and ``p.x`` compiles to the
item at the field's position."""

from collections import namedtuple

import numpy as np
import pytest

from cudalite import types
from cudalite.core.abi import kernel_abi
from cudalite.core.errors import TypingError
from cudalite.core.types import NamedTuple, typeof_constant
from cudalite.cuda._launch.keys import compatible, key_to_type
from cudalite.cuda._launch.kinds import kind_for
from cudalite.nvvm import compile_ptx

Point = namedtuple("Point", ("x", "y", "r"))
Pair = namedtuple("Pair", ("x", "y"))
Other = namedtuple("Other", ("x", "y"))


def _resolve(cls, x):
    return kind_for(cls, x, _resolve)


def test_namedtuple_argument_key_type_and_flat_values():
    p = Point(1, 2, 2.236)
    h = _resolve(Point, p)
    key = h.key(p)
    assert key[:2] == ("namedtuple", Point)
    t = key_to_type(key)
    assert isinstance(t, NamedTuple) and t.fields == ("x", "y", "r")
    assert t.types == (types.int64, types.int64, types.float64)
    assert t != types.Tuple(t.types)  # the class is part of the type
    abi = kernel_abi((t,))
    assert abi.param_format == "qqd"
    assert h.flat(p, abi.args[0], None) == (1, 2, 2.236)


def test_namedtuple_of_other_class_does_not_match_a_signature():
    a, b = Pair(1, 2), Other(1, 2)
    ta = key_to_type(_resolve(Pair, a).key(a))
    assert compatible(_resolve(Pair, a).key(a), ta) == 1
    assert compatible(_resolve(Other, b).key(b), ta) == -1
    assert compatible(_resolve(tuple, (1, 2)).key((1, 2)), ta) == -1


def test_namedtuple_holding_host_arrays_is_rebuilt_as_its_class(monkeypatch):
    from cudalite.cuda._launch import host

    monkeypatch.setattr(host, "to_device", lambda a, stream=0: ("dev", a))
    x = Pair(np.zeros(2), 3)
    h = _resolve(Pair, x)
    assert h.key(x)[0] == "namedtuple-host" and h.needs_copy(x)
    after = []
    out = h.stage_in(x, 0, after)
    assert type(out) is Pair and out.y == 3 and out.x[0] == "dev" and len(after) == 1


def _fields(r1, r2, p):
    r1[0] = p.x
    r1[1] = p.y
    r2[0] = p.r + p[2] + len(p)


def test_field_access_compiles_to_the_items():
    t = key_to_type(_resolve(Point, Point(1, 2, 2.5)).key(Point(1, 2, 2.5)))
    ptx, _ = compile_ptx(_fields, (types.int64[::1], types.float64[::1], t), cc=(9, 0))
    assert ptx.count(".param .u64") + ptx.count(".param .f64") >= 5


def _missing_field(r, p):
    r[0] = p.z


def test_unknown_field_is_a_located_typing_error():
    t = NamedTuple((types.int64, types.int64), Pair)
    with pytest.raises(TypingError, match=r"has no attribute 'z'"):
        compile_ptx(_missing_field, (types.int64[::1], t), cc=(9, 0))


ORIGIN = Pair(3, 4.5)


def _global_fields(r):
    r[0] = ORIGIN.x + ORIGIN.y


def test_namedtuple_constants_keep_their_fields():
    assert typeof_constant(ORIGIN) == NamedTuple((types.int64, types.float64), Pair)
    compile_ptx(_global_fields, (types.float64[::1],), cc=(9, 0))
