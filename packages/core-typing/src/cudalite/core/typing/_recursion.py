"""The functions being typed, and calls back into them (typed recursion).

numba's rule: a call to a function that is being typed, with the same argument
types, has that function's declared return type, or else the unification of
the types its ``return`` statements have had so far -- its non-recursive paths
type it first (``if n < 2: return n``).  Until one has, the call is *deferred*:
the statement holding it is skipped by that function's early (non-strict)
passes, which run again once a return type is known; if none ever is, the call
is an error.  A function typed while another is in progress, and which used
that one's provisional return type, is reused only while that type holds.
A function calling itself with argument types that keep changing (a tuple
growing at every level) is stopped after a few specializations.
"""

from __future__ import annotations

from ..errors import TypingError

__all__ = ["CallStack", "Unknown", "Deferred", "MAX_SPECIALIZATIONS", "recursion_error", "is_recursion_error"]


def recursion_error(msg: str, loc=None) -> TypingError:
    """The TypingError of a recursive function that cannot be typed, marked as such
    (constant-argument specialization must not retry it: ``_specialize``)."""
    err = TypingError(msg, loc)
    err.from_recursion = True
    return err


def is_recursion_error(err) -> bool:
    return getattr(err, "from_recursion", False) is True

MAX_SPECIALIZATIONS = 8  # of one function on the typing stack: more is runaway type recursion


class Unknown(Exception):
    """Raised in non-strict passes when an operand's type is not known yet."""


class Deferred(Unknown):
    """A recursive call whose return type is not known yet: raised through the
    callees typed meanwhile, up to a non-strict pass of the function called."""


class _Frame:
    __slots__ = ("key", "inference", "assumed")

    def __init__(self, key):
        self.key = key  # (pyfunc, argtypes, declared return type or None)
        self.inference = None  # its inference, once made
        self.assumed: dict = {}  # key of a function in progress -> the return type this result assumed


def _args(argtypes):
    return f"({', '.join(map(str, argtypes))})"


class CallStack:
    """One compilation's functions in progress and typed results."""

    def __init__(self):
        self.frames: list = []
        self.typed: dict = {}  # key -> (TypedFunction, {key: the return type it assumed})

    def lookup(self, key):
        """A result typed before, still valid, or None."""
        done = self.typed.get(key)
        if done is not None and all(self._return_of(k) == t for k, t in done[1].items()):
            return done[0]
        return None

    def _return_of(self, key):
        for frame in self.frames:
            if frame.key == key:
                return None if frame.inference is None else frame.inference.partial_return
        done = self.typed.get(key)
        return None if done is None else done[0].return_type

    def recursive_frame(self, pyfunc, argtypes):
        """The frame of ``pyfunc`` being typed for ``argtypes`` (a recursive call), or None."""
        for frame in reversed(self.frames):
            if frame.key[0] is pyfunc and frame.key[1] == argtypes:
                return frame
        return None

    def check_depth(self, pyfunc, qualname, argtypes, loc):
        same = [f.key[1] for f in self.frames if f.key[0] is pyfunc]
        if len(same) >= MAX_SPECIALIZATIONS:
            chain = ", ".join(_args(a) for a in same[-3:])
            raise recursion_error(f"runaway type recursion: {qualname} calls itself with argument types that keep "
                              f"changing (... {chain}, {_args(argtypes)}); give the recursive calls arguments "
                              "of fixed types", loc)

    def push(self, key):
        frame = _Frame(key)
        self.frames.append(frame)
        return frame

    def pop(self, frame, tf=None):
        """Close ``frame``; with a result, keep it (with what it assumed)."""
        self.frames.remove(frame)
        if tf is None:
            return
        assumed = {k: t for k, t in frame.assumed.items() if k != frame.key}
        for outer in self.frames:  # what this result assumed, its callers assume too
            outer.assumed.update(assumed)
        self.typed[frame.key] = (tf, assumed)

    def recursive_call(self, frame, loc):
        """A call back into a function being typed: its TypedFunction in the making,
        with its return type (declared, or typed by a non-recursive return)."""
        inference = frame.inference
        tf = inference.tf
        if inference.declared_return is not None:
            tf.return_type = inference.declared_return
            return tf
        rt = inference.partial_return
        if rt is None:
            if not inference.strict:
                raise Deferred()
            if any(t is None for _, t in inference.returns):  # a non-recursive path returns None
                raise recursion_error(
                    f"Return type of recursive function does not converge: {inference.fir.qualname}"
                    f"{_args(frame.key[1])} returns None on a path that does not recurse and a value built "
                    "from its recursive call on another (optional return types are not supported)", loc)
            raise recursion_error(
                f"cannot type infer runaway recursion: cannot infer the return type of the recursive function "
                f"{inference.fir.qualname}{_args(frame.key[1])}: every return path calls it again (give it a "
                "return path that does not recurse, or an explicit signature)", loc)
        for outer in self.frames[self.frames.index(frame) + 1:]:  # typed meanwhile: valid while rt holds
            outer.assumed[frame.key] = rt
        tf.return_type = rt  # provisional: the inference sets the final one (equal at the fixpoint)
        return tf
