"""``python -m cudalite.cuda``: the ``cudalite-info`` report (versions, libraries, GPUs,
cache, launch path) for bug reports; see :mod:`cudalite.cuda._info`."""

import sys

from ._info import main

sys.exit(main())
