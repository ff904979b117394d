"""A device function to compile with cudalite-compile (see the README).

    cudalite-compile examples/add.py:add "float32(float32, float32)" --abi c --emit ptx
"""


def add(x, y):
    return x + y
