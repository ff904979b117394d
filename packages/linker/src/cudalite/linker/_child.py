"""The isolated link process's side of ``_isolated``: read each request from stdin,
run it (an nvJitLink link or an NVRTC compile), write the reply to stdout; exit at
end of input.  Started by :class:`~._isolated.LinkServer` as
``python -c "from cudalite.linker._child import child_main; child_main()"``; the
wire format is described in ``_isolated``."""

from __future__ import annotations

import json
import sys

from ._errors import InvalidInputError, NvrtcError, ToolNotFoundError
from ._isolated import _LEN, _MAX_HEADER, _read_exact

__all__ = ["child_main"]


def _child_link(header, stdin, progress):
    from ._nvjitlink import LinkFailure, run_link

    inputs = [(t, _read_exact(stdin, n), name) for t, name, n in header["inputs"]]
    try:
        out, info_log = run_link(header["flags"], inputs, output=header["output"], progress=progress)
        return out, {"ok": True, "info_log": info_log}
    except LinkFailure as e:
        return b"", {"ok": False, "message": e.message, "error_log": e.error_log, "info_log": e.info_log,
                     "status": e.status, "stage": e.stage, "input_name": e.input_name}
    except Exception as e:  # noqa: BLE001 -- reported to the parent as a LinkFailure
        return b"", {"ok": False, "message": f"the isolated link failed: {type(e).__name__}: {e}",
                     "status": "error", "stage": "create"}


def _child_nvrtc(header, stdin, progress):
    from ._nvrtc import compile_cuda

    source = _read_exact(stdin, header["size"])
    progress(f"nvrtc {header['name']}")
    try:
        code = compile_cuda(source, name=header["name"], arch=header["arch"], lto=header["lto"],
                            include_dirs=header["include_dirs"], options=header["options"],
                            relocatable=header["relocatable"], cuda_include_path=header["cuda_include_path"],
                            cubin=header["cubin"])
        return bytes(code.data), {"ok": True}
    except NvrtcError as e:
        return b"", {"ok": False, "error": "NvrtcError", "message": e.message, "log": e.error_log,
                     "file": e.file, "line": e.line}
    except InvalidInputError as e:
        return b"", {"ok": False, "error": "InvalidInputError", "input_name": e.input_name, "kind": e.kind,
                     "reason": e.reason}
    except ToolNotFoundError as e:
        return b"", {"ok": False, "error": "ToolNotFoundError", "message": e.message}
    except Exception as e:  # noqa: BLE001 -- reported to the parent as a LinkerError
        return b"", {"ok": False, "error": "LinkerError",
                     "message": f"NVRTC failed in the isolated process: {type(e).__name__}: {e}"}


def child_main() -> None:
    """The child: run each request read from stdin, write each reply to stdout;
    exit at end of input."""
    from ._nvjitlink import nvjitlink_version

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        nvjitlink_version()  # load nvJitLink before the first request arrives
    except Exception:  # noqa: BLE001 -- the first link reports it as a LinkFailure
        pass

    def progress(stage):
        stdout.write(b"S " + json.dumps(stage).encode() + b"\n")
        stdout.flush()

    jobs = {"link": _child_link, "nvrtc": _child_nvrtc}
    while True:
        head = stdin.read(_LEN.size)
        if len(head) != _LEN.size:
            return
        (size,) = _LEN.unpack(head)
        if size > _MAX_HEADER:
            raise SystemExit(3)
        try:
            header = json.loads(_read_exact(stdin, size))
            out, result = jobs[header.get("job", "link")](header, stdin, progress)
        except (EOFError, KeyError, TypeError, ValueError):
            return  # a truncated or malformed request: the parent sees the child end
        body = json.dumps(result).encode()
        stdout.write(b"R %d %d\n" % (len(body), len(out)) + body + out)
        stdout.flush()
