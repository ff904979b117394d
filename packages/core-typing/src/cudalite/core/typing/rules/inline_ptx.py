"""Typing of ``cuda.inline_ptx(ptx, constraints, result_type, *operands)``: one PTX
instruction (or a ``{ ... }`` block) the device API lacks, with typed operands.

``ptx`` and ``constraints`` are string constants; ``result_type`` is a scalar type
(``types.int32``, ``np.float32``...), a tuple of them (several outputs: the call
returns a tuple), or ``None`` for no result.  The constraints are LLVM's, as in CUDA
C's ``asm()``: one ``=`` output per result first, then one input per operand, then
optional clobbers (``~{memory}``); the letters and the
types they take are ``h`` (16-bit integer), ``r`` (32-bit), ``l`` (64-bit), ``f``
(float32), ``d`` (float64).  Every operand must already have its constraint's type
(no implicit conversion: ``types.int32(x)`` converts), and every ``$N`` in the PTX
must name an operand.  Refused otherwise, with the reason, at the call's line.  The
PTX text itself is checked by ptxas when the kernel is linked.
"""

from __future__ import annotations

import re

from ... import device_api as api
from ...registry import registry
from ...types import Float, Integer, NoneType, NumberClass, Signature, StringLiteral, Tuple, void

__all__ = ["CONSTRAINT_TYPES", "parse_constraints"]

# constraint letter -> (kind, bit width, description)
CONSTRAINT_TYPES = {"h": ("i", 16, "a 16-bit integer"), "r": ("i", 32, "a 32-bit integer"),
                    "l": ("i", 64, "a 64-bit integer"), "f": ("f", 32, "a float32"), "d": ("f", 64, "a float64")}


def parse_constraints(text: str):
    """``([output letters], [input letters], [clobbers])``; ValueError with the reason."""
    entries = [e.strip() for e in text.split(",")] if text.strip() else []
    outputs, inputs, clobbers = [], [], []
    for k, e in enumerate(entries):
        if e.startswith("~"):
            if not re.fullmatch(r"~\{[a-z0-9]+\}", e):
                raise ValueError(f"clobber {e!r} is not of the form ~{{name}} (e.g. ~{{memory}})")
            clobbers.append(e)
            continue
        if clobbers:
            raise ValueError(f"constraint {e!r} comes after a clobber; clobbers go last")
        if e.startswith("="):
            if k != len(outputs):
                raise ValueError(f"output constraint {e!r} must come before every input")
            letter = e[1:]
            if letter not in CONSTRAINT_TYPES:
                raise ValueError(f"unknown output constraint {e!r} (use =h, =r, =l, =f or =d)")
            outputs.append(letter)
            continue
        if e not in CONSTRAINT_TYPES:
            raise ValueError(f"unknown constraint {e!r} (use h, r, l, f or d; outputs start with '=')")
        inputs.append(e)
    return outputs, inputs, clobbers


def _fits(t, letter) -> bool:
    kind, bits, _ = CONSTRAINT_TYPES[letter]
    if kind == "i":
        return isinstance(t, Integer) and t.bitwidth == bits
    return isinstance(t, Float) and t.bitwidth == bits


@registry.call(api.inline_ptx, name="cuda.inline_ptx")
def _inline_ptx(site):
    args = site.args
    if len(args) < 3:
        raise site.error("takes the PTX text, the constraints and the result type (or None), then the operands: "
                         f"{len(args)} argument(s) given")
    ptx, cons, result = args[0], args[1], args[2]
    if not isinstance(ptx, StringLiteral):
        raise site.error(f"the PTX text must be a string constant, not {ptx}")
    if not isinstance(cons, StringLiteral):
        raise site.error(f"the constraints must be a string constant, not {cons}")
    scalar = (Integer, Float)
    if isinstance(result, NoneType):
        rtype, results = void, ()
    elif isinstance(result, NumberClass) and isinstance(result.instance_type, scalar):
        rtype = result.instance_type
        results = (rtype,)
    elif (isinstance(result, Tuple) and result.types
          and all(isinstance(t, NumberClass) and isinstance(t.instance_type, scalar) for t in result.types)):
        results = tuple(t.instance_type for t in result.types)
        rtype = Tuple(results)
    else:
        raise site.error("the result type must be an integer or float type (e.g. types.int32), a tuple of them, "
                         f"or None, not {result}")
    try:
        outputs, inputs, _ = parse_constraints(cons.value)
    except ValueError as e:
        raise site.error(f"constraints {cons.value!r}: {e}") from None
    operands = args[3:]
    if len(outputs) != len(results):
        raise site.error(f"{len(results)} result(s) need as many output constraints ('=r' ...) first; constraints "
                         f"{cons.value!r} have {len(outputs)}")
    for k, (t, letter) in enumerate(zip(results, outputs)):
        if not _fits(t, letter):
            which = "the result type" if len(results) == 1 else f"result {k + 1}"
            raise site.error(f"{which} {t} does not fit output constraint '={letter}' "
                             f"({CONSTRAINT_TYPES[letter][2]})")
    if len(inputs) != len(operands):
        raise site.error(f"constraints {cons.value!r} name {len(inputs)} input(s) but {len(operands)} operand(s) "
                         "were given")
    for k, (t, letter) in enumerate(zip(operands, inputs)):
        if not _fits(t, letter):
            raise site.error(f"operand {k + 1} is {t} but its constraint '{letter}' takes {CONSTRAINT_TYPES[letter][2]}"
                             " (convert it, e.g. types.int32(x))")
    count = len(inputs) + len(outputs)
    for m in re.finditer(r"\$(\d+)", ptx.value):
        if int(m.group(1)) >= count:
            raise site.error(f"the PTX text refers to ${m.group(1)} but there are only {count} operand(s) "
                             f"($0 to ${count - 1})" if count else
                             f"the PTX text refers to ${m.group(1)} but there are no operands")
    return Signature(rtype, tuple(args))
