"""Ready-made kernels of numba-cuda's ``numba.cuda.kernels`` (``transpose``)."""
