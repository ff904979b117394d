"""Type inference and the typing rules (importing this registers the built-ins).

Inference fills :class:`TypedFunction`; what it resolved for each node is a
frozen record from ``_records`` (:class:`CallInfo` with a :class:`CallKind`, the
:class:`IterPlan` variants, :class:`Comparison` links and the payload records of
the built-in rules), the only data lowering reads.
"""

from . import rules  # noqa: F401  (registers built-in typing rules)
from ._infer import TypedFunction, TypingContext, infer
from ._records import *  # noqa: F401,F403
from ._records import __all__ as _records_all

__all__ = ["TypedFunction", "TypingContext", "infer", *_records_all]
