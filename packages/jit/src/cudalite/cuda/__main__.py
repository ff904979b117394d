"""``python -m cudalite.cuda``: the ``cudalite-info`` report (versions, libraries, GPUs,
cache, launch path) for bug reports; see :mod:`cudalite.cuda._runtime.info`."""

import sys

from ._runtime.info import main

sys.exit(main())
