"""Type inference and the typing rules (importing this registers the built-ins)."""

from . import rules  # noqa: F401  (registers built-in typing rules)
from ._infer import CallInfo, TypedFunction, TypingContext, infer

__all__ = ["CallInfo", "TypedFunction", "TypingContext", "infer"]
