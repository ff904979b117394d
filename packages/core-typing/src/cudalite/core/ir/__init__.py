"""cudalite IR: structured statement/expression nodes carrying source locations."""

from ._nodes import *  # noqa: F401,F403
from ._nodes import __all__  # noqa: F401
