"""Links with untrusted binary inputs run in a child process.

nvJitLink decodes some input bytes that cannot be checked beforehand (the encoded
payload of an LTO-IR container, the compressed cubins inside fatbins, objects and
archives, a few cubin attribute fields), and some corruptions there crash it with
SIGSEGV.  ``_validate`` rejects every *structural* fault cheaply; what is left is
contained here: when a link has a binary input that cudalite did not produce
itself, a :class:`LinkServer` runs the same :func:`~._nvjitlink.run_link` in a
child interpreter (``sys.executable``, the parent's ``sys.path``), kept warm for
the next link, and turns a child killed by a signal into a
:class:`~._errors.LinkerError` naming the input that was being added.  The
caller's process never runs nvJitLink on those bytes.

Wire format (a pipe each way, no pickle): a request is an 8-byte little-endian
length, a JSON header (flags, output kind, and per input its nvJitLink type, name
and size) and the inputs' bytes back to back.  The child writes ``S <json stage>``
lines as the link progresses, then ``R <json size> <output size>``, the JSON
result (logs, or the failure's fields) and the output bytes.  The child's stderr
(nvJitLink's messages that are not errors) goes to a temporary file and is passed
on to this process's stderr after each link; after a crash its tail is the error
log.
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

from ._errors import InvalidInputError

__all__ = ["LinkServer", "link_server", "can_isolate"]

_LEN = struct.Struct("<Q")
_BOOTSTRAP = ("import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
              "from cudalite.linker._isolated import _child_main; _child_main()")
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


def _request(flags, inputs, output) -> bytes:
    header = json.dumps({"flags": list(flags), "output": output,
                         "inputs": [[t, name, len(data)] for t, data, name in inputs]}).encode()
    return b"".join([_LEN.pack(len(header)), header, *(bytes(data) for _, data, _ in inputs)])


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

    def link(self, flags, inputs, *, output="cubin", untrusted=()) -> tuple:
        """:func:`~._nvjitlink.run_link` in the child: same arguments, same result
        ``(output_bytes, info_log)``, same :class:`~._nvjitlink.LinkFailure` on a
        failed link.  ``untrusted`` names the inputs that caused the isolation (for
        messages).  A child killed by a signal raises :class:`InvalidInputError` for
        the input being added (or a ``LinkFailure`` if it died linking)."""
        from ._nvjitlink import LinkFailure

        request = _request(flags, inputs, output)
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._stop()
                self._start()
            stage, result, data = self._exchange(request)
            if result is None:
                try:
                    self._proc.stdin.close()
                except OSError:  # a broken pipe: the child is gone
                    pass
                returncode = self._proc.wait()
                tail = self._new_stderr().decode(errors="replace").strip().splitlines()[-12:]
                self._stop()
                how = _signal_name(returncode) if returncode < 0 else f"exit status {returncode}"
                if isinstance(stage, str) and stage.startswith("add "):
                    name = stage[4:]
                    kind = next((t for t, _, n in inputs if n == name), "input")
                    raise InvalidInputError(name, kind, f"nvJitLink crashed ({how}) decoding it in the isolated "
                                            "link process; the input is corrupt or not what its kind says")
                names = ", ".join(untrusted) or "the inputs"
                what = "linking" if stage == "complete" else "starting"
                raise LinkFailure(f"nvJitLink crashed ({how}) in the isolated link process while {what}; "
                                  f"suspect inputs: {names}", "\n".join(tail), status="crashed",
                                  stage=stage or "create")
            passthrough = self._new_stderr()
        if passthrough:
            try:
                os.write(2, passthrough)
            except OSError:
                pass
        if not result.get("ok"):
            raise LinkFailure(result["message"], result.get("error_log", ""), result.get("info_log", ""),
                              status=result.get("status"), stage=result.get("stage"),
                              input_name=result.get("input_name"))
        return data, result.get("info_log", "")


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


def _child_main() -> None:
    """The child: link each request read from stdin, write each reply to stdout;
    exit at end of input."""
    from ._nvjitlink import LinkFailure, nvjitlink_version, run_link

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        nvjitlink_version()  # load nvJitLink before the first request arrives
    except Exception:  # noqa: BLE001 -- the first link reports it as a LinkFailure
        pass

    def progress(stage):
        stdout.write(b"S " + json.dumps(stage).encode() + b"\n")
        stdout.flush()

    while True:
        head = stdin.read(_LEN.size)
        if len(head) != _LEN.size:
            return
        (size,) = _LEN.unpack(head)
        if size > _MAX_HEADER:
            raise SystemExit(3)
        try:
            header = json.loads(_read_exact(stdin, size))
            inputs = [(t, _read_exact(stdin, n), name) for t, name, n in header["inputs"]]
        except EOFError:
            return
        try:
            out, info_log = run_link(header["flags"], inputs, output=header["output"], progress=progress)
            result = {"ok": True, "info_log": info_log}
        except LinkFailure as e:
            out, result = b"", {"ok": False, "message": e.message, "error_log": e.error_log,
                                "info_log": e.info_log, "status": e.status, "stage": e.stage,
                                "input_name": e.input_name}
        except Exception as e:  # noqa: BLE001 -- reported to the parent as a LinkFailure
            out, result = b"", {"ok": False, "message": f"the isolated link failed: {type(e).__name__}: {e}",
                                "status": "error", "stage": "create"}
        body = json.dumps(result).encode()
        stdout.write(b"R %d %d\n" % (len(body), len(out)) + body + out)
        stdout.flush()
