"""Where ``cudalite-compile`` writes: output files replaced atomically, and stdout.

A build system takes an output file that exists and is newer than its inputs as up to
date, so an output must never be seen half written or empty:

* :func:`write_files` writes every file to a temporary file in its destination
  directory (created with ``O_EXCL``, mode ``0o666`` less the umask, like ``open``),
  flushes it to disk (``fsync``), and only when *all* of them are written renames
  each over its destination (:func:`os.replace`: atomic on POSIX and Windows).  On
  any failure it removes every temporary file, every output it already renamed in
  place during this call, and the directories it created: the old outputs not yet
  replaced stay untouched, and nothing newer than the inputs is left behind.
  An existing destination that is not a regular file (``/dev/null``, a FIFO) is
  written in place: there is nothing to replace atomically.
* :func:`write_stdout` writes straight to the file descriptor, unbuffered, so a
  closed stdout, a full disk (``> /dev/full``) or a reader that went away
  (``| head -c 10``, EPIPE) is one :class:`OutputError` -- and no unflushed
  buffer fails again when the interpreter exits.
"""

from __future__ import annotations

import os
import secrets
import stat

__all__ = ["OutputError", "write_files", "write_stdout", "missing_dirs"]

_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


class OutputError(Exception):
    """An output could not be written (the message names the output and the reason)."""


def _as_bytes(data) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def missing_dirs(path: str) -> list:
    """The directories ``os.makedirs(path)`` would create, outermost first."""
    out = []
    path = os.path.abspath(path)
    while not os.path.exists(path):
        out.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return out[::-1]


def _temp_file(directory: str, name: str):
    for _ in range(100):
        tmp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {directory}")


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _is_special(path: str) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _sync_dir(directory: str) -> None:
    """Make the renames durable (best effort: not every platform opens directories)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_files(files, make_dirs=()) -> None:
    """Write ``files`` (``[(path, str | bytes), ...]``) all or nothing.

    ``make_dirs`` are created first (outermost first, as :func:`missing_dirs` lists
    them) and removed again on failure.  Raises :class:`OutputError`."""
    created, temps, placed = [], [], []
    current = None
    try:
        for d in make_dirs:
            current = d
            os.mkdir(d)
            created.append(d)
        for path, data in files:
            current = path
            data = _as_bytes(data)
            if _is_special(path):  # /dev/null, a FIFO: written in place
                with open(path, "wb") as f:
                    f.write(data)
                continue
            directory, name = os.path.split(os.path.abspath(path))
            fd, tmp = _temp_file(directory, name)
            temps.append((tmp, path))
            try:
                _write_fd(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        for tmp, path in list(temps):
            current = path
            os.replace(tmp, path)
            temps.remove((tmp, path))
            placed.append(path)
        for directory in {os.path.dirname(os.path.abspath(p)) for p in placed}:
            _sync_dir(directory)
    except BaseException as e:
        for tmp, _ in temps:
            _unlink(tmp)
        for path in placed:
            _unlink(path)
        for d in reversed(created):
            try:
                os.rmdir(d)
            except OSError:
                pass
        if isinstance(e, OSError):
            raise OutputError(f"{current}: cannot write: {_reason(e)}") from None
        raise


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_stdout(stream, data) -> None:
    """Write ``data`` (text or bytes) to ``stream`` (``sys.stdout``); text gets a final newline.

    Raises :class:`OutputError` when the stream is closed or the write fails."""
    if isinstance(data, str) and not data.endswith("\n"):
        data += "\n"
    if stream is None or getattr(stream, "closed", False):
        raise OutputError("standard output is closed; write to a file with -o FILE")
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation: an in-memory stream
        fd = None
    try:
        if fd is None:
            if isinstance(data, str):
                stream.write(data)
            else:
                stream.buffer.write(data)
            stream.flush()
            return
        stream.flush()  # whatever was printed before goes first
        _write_fd(fd, _as_bytes(data))
    except OSError as e:
        raise OutputError(f"cannot write to standard output: {_reason(e)}") from None
    except ValueError:  # the stream was closed under us
        raise OutputError("standard output is closed; write to a file with -o FILE") from None
