"""cudalite's cache directories as untrusted input: private creation, the trust check,
and bounded reads of regular files.

Shared by the driver's launch shim and the jit's kernel cache (the lowest package
that needs it).  The rules (docs/cache.md, "Trusting the cache directory"):

* :func:`make_private_dirs` creates every missing directory of a path with mode
  0700, whatever the umask (the XDG rule for cache directories).
* :func:`dir_refusal` says why a directory must not be used: on POSIX it must be owned
  by the current user and writable by nobody else (no group or other write bit),
  as pip and ccache require.  The path is resolved first: a cache directory that is
  the user's own symlink is followed, and the directory it ends at is judged.  A
  directory that does not exist (yet) is not refused: cudalite creates it private.
* :func:`read_regular` reads a file only if it is a regular file of bounded size,
  opened without following a symlink (``O_NOFOLLOW``) and without blocking on a FIFO;
  ``private=True`` also requires it to be owned by the user and not writable by
  group or others.  Symlinks inside a cache directory are never followed.

On Windows (no ``os.getuid``) ownership and mode bits are not checked (ACLs decide).
Nothing here warns: callers warn once per process (see :func:`refusal_message`).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

__all__ = ["UntrustedCacheWarning", "make_private_dirs", "dir_refusal", "file_refusal", "refusal_message",
           "remove_shim_builds", "SHIM_BUILD_DIR",
           "read_regular"]


class CacheUnavailableWarning(UserWarning):
    """A cache directory cannot be created or written (read-only, no home, disk full):
    cudalite goes on without it."""


class UntrustedCacheWarning(UserWarning):
    """A cache directory or cached file was refused (not owned by the user, writable
    by others, or not matching what cudalite recorded)."""


def make_private_dirs(path: Any) -> str:
    """Create ``path`` and its missing parents, each with mode 0700 regardless of the
    umask (directories that already exist are left alone).  Returns ``path``; raises
    OSError when it cannot be made (a file in the way, no permission)."""
    path = os.path.abspath(os.fspath(path))
    missing = []
    p = path
    while not os.path.isdir(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            if not os.path.isdir(d):
                raise
            continue  # made meanwhile by another process: the trust check judges it
        os.chmod(d, 0o700)  # the umask may have taken bits away (never adds any)
    return path


def _mode_refusal(st):
    uid = os.getuid()
    reasons = []
    if st.st_uid != uid:
        reasons.append(f"it is owned by uid {st.st_uid}, not by you (uid {uid})")
    writable = [who for who, bit in (("group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if st.st_mode & bit]
    if writable:
        reasons.append(f"it is writable by {' and '.join(writable)} (mode {stat.S_IMODE(st.st_mode):04o})")
    return "; ".join(reasons) or None


def dir_refusal(path: Any) -> Any:
    """Why directory ``path`` must not be used, or None (trusted, or absent).  Symlinks
    in ``path`` are resolved: the final directory is judged."""
    if not hasattr(os, "getuid"):
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None  # absent or unreadable: nothing can be read from it
    if not stat.S_ISDIR(st.st_mode):
        return None  # every use fails as for an unwritable directory
    return _mode_refusal(st)


def file_refusal(st: Any) -> Any:
    """Why a file with ``os.stat_result`` ``st`` must not be trusted, or None."""
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if not hasattr(os, "getuid"):
        return None
    return _mode_refusal(st)


def refusal_message(path: Any, reason: Any, what: Any, consequence: Any) -> str:
    """The one-line warning for a refused directory: which, why, what happens, and how
    to fix it."""
    return (f"cudalite: not using the {what} {path}: {reason}; {consequence}. "
            f"Fix: make it yours and private (chown to you, chmod 700 {path}) or set "
            f"CUDALITE_CACHE_DIR to a directory only you can write.")


def read_regular(path: Any, limit: int, *, private: bool = False) -> Any:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes (not a
    symlink, FIFO or device: no hang, no unbounded read) and, with ``private``, owned
    by the user and not writable by group or others; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        if private and file_refusal(st) is not None:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


SHIM_BUILD_DIR = re.compile(r"driver-cp\d+-[0-9a-f]{16}")  # _shim.shim_location's directory names (tested)


def remove_shim_builds(cache_root: Any) -> int:
    """Remove the launch shim's run-time builds (``driver-cpXY-<hash>/``, every Python's
    and version's) from the cache root ``cache_root``: only real directories with that
    name (a symlink is left alone); returns how many were removed.

    Parameters
    ----------
    cache_root : str or os.PathLike
        The cudalite cache root (the ``cache_dir`` the shim was built under).

    Returns
    -------
    int
        The number of build directories removed.
    """
    root = os.fspath(cache_root)
    try:
        names = os.listdir(root)
    except OSError:
        return 0
    removed = 0
    for name in names:
        path = os.path.join(root, name)
        if SHIM_BUILD_DIR.fullmatch(name) and os.path.isdir(path) and not os.path.islink(path):
            import shutil  # here, not at import: rarely needed

            shutil.rmtree(path, ignore_errors=True)
            removed += not os.path.exists(path)
    return removed
