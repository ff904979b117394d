"""Untrusted work runs in a child process: links with untrusted binary inputs, and
NVRTC compiling CUDA C++ sources given to the linker.

nvJitLink decodes some input bytes that cannot be checked beforehand (the encoded
payload of an LTO-IR container, the compressed cubins inside fatbins, objects and
archives, a few cubin attribute fields), and some corruptions there crash it with
SIGSEGV.  ``_validate`` rejects every *structural* fault cheaply; what is left is
contained here: when a link has a binary input that cudalite did not produce
itself, a :class:`LinkServer` runs the same :func:`~._nvjitlink.run_link` in a
child interpreter (``sys.executable``, the parent's ``sys.path``), kept warm for
the next link, and turns a child killed by a signal into a
:class:`~._errors.LinkerError` naming the input that was being added.  The
caller's process never runs nvJitLink on those bytes.  NVRTC has the same
exposure to a CUDA C++ source (an ``#include`` of a FIFO blocks it forever, a
macro bomb runs for minutes), so :meth:`LinkServer.compile` runs
:func:`~._nvrtc.compile_cuda` there too.

Every job has a wall-clock bound (``timeout`` seconds, ``CUDALITE_LINK_TIMEOUT``;
``0``/``None``: none): past it the child is killed and :class:`~._errors.LinkTimeout`
says what was running; the next job starts a new child.

Wire format (a pipe each way, no pickle): a request is an 8-byte little-endian
length, a JSON header (``job``: ``"link"`` with flags, output kind, and per input
its nvJitLink type, name and size; or ``"nvrtc"`` with compile_cuda's arguments
and the source's size) and the inputs' bytes back to back.  The child writes
``S <json stage>`` lines as the job progresses, then ``R <json size> <output
size>``, the JSON result (logs, or the failure's fields) and the output bytes.
The child's stderr (nvJitLink's messages that are not errors) goes to a temporary
file and is passed on to this process's stderr after each job; after a crash its
tail is the error log.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading

from ._errors import InvalidInputError, LinkerError, LinkTimeout, NvrtcError, ToolNotFoundError

__all__ = ["LinkServer", "link_server", "can_isolate"]

_LEN = struct.Struct("<Q")
_BOOTSTRAP = ("import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
              "from cudalite.linker._child import child_main as _child_main; _child_main()")
_MAX_HEADER = 1 << 24


def can_isolate() -> bool:
    """Whether a child interpreter can be started (an embedded Python may have no
    usable ``sys.executable``)."""
    return bool(sys.executable) and os.path.isfile(sys.executable)


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _request(header: dict, blobs) -> bytes:
    head = json.dumps(header).encode()
    return b"".join([_LEN.pack(len(head)), head, *(bytes(b) for b in blobs)])


def _bound(timeout) -> float | None:
    """``timeout`` as seconds to wait, None for no bound (``None`` or ``0``)."""
    if timeout is None:
        return None
    timeout = float(timeout)
    if not timeout >= 0:
        raise ValueError(f"timeout must be a number of seconds >= 0 (0: no bound), not {timeout!r}")
    return timeout or None


def _nvrtc_failure(result: dict) -> LinkerError:
    """The exception a failed NVRTC job in the child stands for (same class and fields
    as :func:`~._nvrtc.compile_cuda` raises in-process)."""
    kind = result.get("error")
    if kind == "NvrtcError":
        return NvrtcError(result["message"], result.get("log", ""), result.get("file"), result.get("line"))
    if kind == "InvalidInputError":
        return InvalidInputError(result["input_name"], result["kind"], result["reason"])
    if kind == "ToolNotFoundError":
        return ToolNotFoundError(result["message"])
    return LinkerError(result.get("message", "NVRTC failed in the isolated process"), result.get("log", ""))


class LinkServer:
    """A child interpreter that runs links on request, started on first use and
    restarted after it dies.  Thread-safe: one request at a time.  The child exits
    when its stdin closes (:meth:`close`, or this process exiting)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._proc = None
        self._stderr = None     # the child's stderr: an unnamed temporary file
        self._stderr_pos = 0

    def _start(self):
        from ._nvjitlink import LinkFailure

        argv = [sys.executable, "-c", _BOOTSTRAP, json.dumps([p for p in sys.path if isinstance(p, str)])]
        self._stderr = tempfile.TemporaryFile()
        self._stderr_pos = 0
        try:
            self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, close_fds=True)
        except OSError as e:
            self._stderr.close()
            self._stderr = None
            raise LinkFailure(f"cannot start the isolated link process {sys.executable!r}: {e}",
                              status="isolation failed", stage="create") from None

    def start(self) -> None:
        """Start the child now if it is not running (it loads nvJitLink while this
        process goes on), so the first link does not wait for it; idempotent."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._stop()
                self._start()

    def _new_stderr(self) -> bytes:
        f = self._stderr
        f.seek(self._stderr_pos)
        data = f.read()
        self._stderr_pos += len(data)
        return data

    def close(self) -> None:
        """Stop the child (idempotent)."""
        with self._lock:
            self._stop()

    def _stop(self):
        proc, self._proc = self._proc, None
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _exchange(self, request: bytes):
        """(last stage, result or None, output bytes); None result: the child died."""
        proc = self._proc
        stage = None
        try:
            proc.stdin.write(request)
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                if line.startswith(b"S "):
                    stage = json.loads(line[2:])
                elif line.startswith(b"R "):
                    size, out_size = (int(x) for x in line[2:].split())
                    result = json.loads(_read_exact(proc.stdout, size))
                    return stage, result, _read_exact(proc.stdout, out_size)
                else:
                    return stage, None, b""
        except (OSError, ValueError, EOFError):
            return stage, None, b""

    def _job(self, request: bytes, timeout, what: str, reason: str = ""):
        """Send one request; ``(stage, result, output, crash)``: ``crash`` is None, or
        ``(how, stderr tail)`` when the child died (the result then None).  A job past
        ``timeout`` seconds kills the child and raises :class:`LinkTimeout`."""
        seconds = _bound(timeout)
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._stop()
                self._start()
            proc, expired = self._proc, threading.Event()
            timer = None
            if seconds is not None:
                def kill():
                    expired.set()
                    proc.kill()
                timer = threading.Timer(seconds, kill)
                timer.daemon = True
                timer.start()
            try:
                stage, result, data = self._exchange(request)
            finally:
                if timer is not None:
                    timer.cancel()
            if result is None:
                try:
                    proc.stdin.close()
                except OSError:  # a broken pipe: the child is gone
                    pass
                returncode = proc.wait()
                tail = self._new_stderr().decode(errors="replace").strip().splitlines()[-12:]
                self._stop()
                if expired.is_set():
                    raise LinkTimeout(what, seconds, reason=reason)
                how = _signal_name(returncode) if returncode < 0 else f"exit status {returncode}"
                return stage, None, b"", (how, tail)
            if expired.is_set():  # the reply came as the bound passed: keep it, restart next time
                self._stop()
                passthrough = b""
            else:
                passthrough = self._new_stderr()
        if passthrough:
            try:
                os.write(2, passthrough)
            except OSError:
                pass
        return stage, result, data, None

    def link(self, flags, inputs, *, output="cubin", untrusted=(), timeout=None, reason: str = "") -> tuple:
        """:func:`~._nvjitlink.run_link` in the child: same arguments, same result
        ``(output_bytes, info_log)``, same :class:`~._nvjitlink.LinkFailure` on a
        failed link.  ``untrusted`` names the inputs that caused the isolation (for
        messages).  A child killed by a signal raises :class:`InvalidInputError` for
        the input being added (or a ``LinkFailure`` if it died linking); a link past
        ``timeout`` seconds raises :class:`LinkTimeout`, which carries ``reason`` (why
        the link was expected to be slow, if known)."""
        from ._nvjitlink import LinkFailure

        request = _request({"job": "link", "flags": list(flags), "output": output,
                            "inputs": [[t, name, len(data)] for t, data, name in inputs]},
                           [data for _, data, _ in inputs])
        names = ", ".join(untrusted) or ", ".join(name for _, _, name in inputs) or "the inputs"
        stage, result, data, crash = self._job(request, timeout, f"nvJitLink linking {names}", reason)
        if crash is not None:
            how, tail = crash
            if isinstance(stage, str) and stage.startswith("add "):
                name = stage[4:]
                kind = next((t for t, _, n in inputs if n == name), "input")
                raise InvalidInputError(name, kind, f"nvJitLink crashed ({how}) decoding it in the isolated "
                                        "link process; the input is corrupt or not what its kind says")
            what = "linking" if stage == "complete" else "starting"
            raise LinkFailure(f"nvJitLink crashed ({how}) in the isolated link process while {what}; "
                              f"suspect inputs: {names}", "\n".join(tail), status="crashed",
                              stage=stage or "create")
        if not result.get("ok"):
            raise LinkFailure(result["message"], result.get("error_log", ""), result.get("info_log", ""),
                              status=result.get("status"), stage=result.get("stage"),
                              input_name=result.get("input_name"))
        return data, result.get("info_log", "")

    def compile(self, source: bytes, *, name: str, arch: str, lto: bool, include_dirs, options,
                relocatable: bool, cuda_include_path, cubin: bool, timeout=None) -> bytes:
        """:func:`~._nvrtc.compile_cuda` of ``source`` (bytes, already checked) in the
        child; returns the output's bytes (PTX, LTO-IR or cubin as asked).  Raises what
        compile_cuda raises (:class:`NvrtcError` with NVRTC's log and location, ...),
        :class:`NvrtcError` if NVRTC crashed the child, :class:`LinkTimeout` past
        ``timeout`` seconds."""
        header = {"job": "nvrtc", "name": name, "arch": arch, "lto": bool(lto), "cubin": bool(cubin),
                  "include_dirs": [os.fspath(d) for d in include_dirs], "options": [str(o) for o in options],
                  "relocatable": bool(relocatable), "cuda_include_path": cuda_include_path, "size": len(source)}
        _, result, data, crash = self._job(_request(header, [source]), timeout, f"NVRTC compiling {name!r}")
        if crash is not None:
            how, tail = crash
            raise NvrtcError(f"NVRTC crashed ({how}) compiling {name} in the isolated process", "\n".join(tail))
        if not result.get("ok"):
            raise _nvrtc_failure(result)
        return data


def link_server() -> LinkServer:
    """The process's one :class:`LinkServer`, created on first use.

    A deliberate process-wide object, like the driver singleton: the child is a
    process resource, and one warm child serves every link (starting one costs
    about 0.5 s, mostly nvJitLink's own initialisation)."""
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None:
            _SERVER = LinkServer()
            atexit.register(_SERVER.close)  # closes the pipes: the child sees end of input and exits
        return _SERVER


_SERVER = None
_SERVER_LOCK = threading.Lock()


def _read_exact(stream, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError(f"expected {size} bytes, got {len(data)}")
    return data
