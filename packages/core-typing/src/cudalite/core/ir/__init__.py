"""cudalite IR: structured statement/expression nodes carrying source locations."""

from ._nodes import *  # noqa: F401,F403
from ._nodes import __all__ as _nodes_all
from ._ssa import SSAInfo, Version, build_ssa
from ._walk import STMT_BODIES, walk_exprs, walk_stmts

__all__ = [*_nodes_all, "SSAInfo", "Version", "build_ssa", "STMT_BODIES", "walk_exprs", "walk_stmts"]
