"""``@cuda.jit(inline='always')``: a device function's body lowered straight into
its caller, as numba-cuda inlines at the Numba IR level, so no ``call`` remains.

An :class:`InlineLowerer` lowers the callee's typed function with the caller's
LLVM function and builder: its locals get their own ``alloca`` slots in the
caller's entry block, and ``return`` (also the early returns of ``raise`` and of a
raising call in debug mode) stores the result and branches to the block after
the inlined body.  A cost-model ``inline`` callable is called as numba calls it,
``cost_model(call, caller_ir, callee_ir)``, with cudalite's call node and the
caller's and callee's function IR; a true answer inlines.  A call that would
inline into itself (recursion) stays a call.
"""

from __future__ import annotations

from llvmlite import ir

from ._irtypes import value_type

__all__ = ["InlineLowerer", "should_inline", "inline_call"]


def should_inline(lc, node, info) -> bool:
    """Whether the FUNCTION call ``node`` is inlined at this site."""
    choice = info.inline[0]
    if choice == "never":
        return False
    if info.callee in _inlining(lc):
        return False  # recursion: inline once at most, then call
    if choice == "always":
        return True
    return bool(choice(node, lc.tf.fir, info.callee.fir))


def inline_call(lc, tf, args):
    """Lower ``tf``'s body in place of a call from ``lc`` with argument values
    ``args``; its result value (None for a function without one)."""
    # the function lowerer class comes from the caller, so this module does not import it
    base = next(c for c in type(lc).__mro__ if not issubclass(c, InlineLowerer))
    return type("Inline" + base.__name__, (InlineLowerer, base), {})(lc, tf).inline(args)


def _inlining(lc):
    """The typed functions being inlined around ``lc`` (innermost last)."""
    chain = []
    while isinstance(lc, InlineLowerer):
        chain.append(lc.tf)
        lc = lc.caller
    chain.append(lc.tf)
    return chain


class InlineLowerer:
    """Lowers ``tf`` in place of a call from ``caller`` (a FunctionLowerer); mixed
    into the function lowerer class by :func:`inline_call`."""

    def __init__(self, caller, tf):
        super().__init__(caller.module, tf)
        self.caller = caller
        self.fn = caller.fn
        self.builder = caller.builder
        self.subprogram = caller.subprogram
        self.range_hints = caller.range_hints  # proved once, with the caller's function
        self.exit_block = None
        self.result_slot = None

    def set_loc(self, loc):
        pass  # the inlined code keeps the call's debug location

    def dead_block(self):
        self.builder.position_at_end(self.fn.append_basic_block("inl.dead"))

    def ret_default(self):
        rt = self.return_type
        if rt is not None:
            self.builder.store(ir.Constant(value_type(rt), None), self.result_slot)
        self.builder.branch(self.exit_block)

    def stmt_Return(self, s):
        rt = self.return_type
        if rt is None:
            if s.value is not None:
                self.expr(s.value)
        else:
            v = self.expr(s.value)
            self.builder.store(self.cast(v, self.typeof(s.value), rt), self.result_slot)
        self.builder.branch(self.exit_block)
        self.dead_block()

    def inline(self, args):
        """Emit the body with ``args`` bound to the parameters; the result value
        (None for a function without one)."""
        b = self.builder
        rt = self.return_type
        for name, t in self.tf.vartypes.items():
            self.slots[name] = self.alloca(value_type(t), name=f"inl.{name.replace('$', 'tmp.')}")
        if rt is not None:
            self.result_slot = self.alloca(value_type(rt), name="inl.result")
        self.exit_block = self.fn.append_basic_block("inl.exit")
        ssa = self.tf.fir.ssa
        for pname, pty, arg in zip(self.tf.fir.params, self.tf.argtypes, args):
            self.define(ssa.versions[pname], arg, pty)
        self.block(self.tf.fir.body)
        if not b.block.is_terminated:
            self.ret_default()
        b.position_at_end(self.exit_block)
        return None if rt is None else b.load(self.result_slot)
