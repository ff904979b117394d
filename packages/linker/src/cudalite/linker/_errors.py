"""The error family of cudalite.linker.

Every failure of this package is a :class:`LinkerError`.  Errors that come from
a tool carry that tool's log: ``LinkerError.error_log``/``info_log`` hold
nvJitLink's logs, :class:`NvrtcError` holds NVRTC's log and the first
``file(line)`` NVRTC reported.  :class:`InvalidInputError` is a structurally
malformed input, rejected before it reaches nvJitLink (which may crash on it), or
an input that crashed nvJitLink in the isolated link process.  :class:`LinkTimeout`
is an isolated job that ran past ``CUDALITE_LINK_TIMEOUT``.
"""

from __future__ import annotations

__all__ = ["LinkerError", "NvrtcError", "MissingFileError", "UnknownFileTypeError", "InvalidInputError",
           "ToolNotFoundError", "LinkTimeout"]


class LinkerError(Exception):
    """A linkable-code, NVRTC or nvJitLink failure.

    ``error_log`` and ``info_log`` are the tool's logs ('' when there are none);
    ``str(err)`` ends with the error log so it is seen without digging.

    Parameters
    ----------
    message : str
        What failed.
    error_log : str, optional
        The tool's error log.
    info_log : str, optional
        The tool's info log.
    """

    def __init__(self, message: str, error_log: str = "", info_log: str = "") -> None:
        self.message = message
        self.error_log = error_log or ""
        self.info_log = info_log or ""
        super().__init__(message)

    @property
    def log(self) -> str:
        """The error log followed by the info log."""
        return "\n".join(part for part in (self.error_log, self.info_log) if part)

    def __str__(self) -> str:
        if self.error_log and self.error_log.strip() not in self.message:
            return f"{self.message}\n{self.error_log.rstrip()}"
        return self.message


class MissingFileError(LinkerError, FileNotFoundError):
    """A linkable file does not exist (also a ``FileNotFoundError``).

    Parameters
    ----------
    path : str or os.PathLike
        The missing file (``filename``).
    """

    def __init__(self, path: str) -> None:
        self.filename = str(path)
        LinkerError.__init__(self, f"linkable file not found: {path}")

    def __str__(self) -> str:
        return self.message


class UnknownFileTypeError(LinkerError, ValueError):
    """A path whose extension names no kind of linkable code (also a ``ValueError``).

    Parameters
    ----------
    message : str
        What failed.
    error_log : str, optional
        The tool's error log.
    info_log : str, optional
        The tool's info log.
    """


class InvalidInputError(LinkerError, ValueError):
    """An input whose structure is malformed (truncated, offsets or sizes past its end,
    bad counts, wrong magic), found before nvJitLink sees it (also a ``ValueError``).

    ``input_name`` is the input's name, ``kind`` what it was read as (``"cubin"``,
    ``"LTO-IR"``, ...), ``reason`` what is wrong.

    Parameters
    ----------
    input_name : str
        The input's name.
    kind : str
        What it was read as.
    reason : str
        What is wrong with it.
    """

    def __init__(self, input_name: str, kind: str, reason: str) -> None:
        self.input_name = input_name
        self.kind = kind
        self.reason = reason
        LinkerError.__init__(self, f"invalid {kind} input {input_name!r}: {reason}")
        self.args = (input_name, kind, reason)  # pickles and copies like the others


class NvrtcError(LinkerError):
    """NVRTC failed to compile a CUDA C++ source.

    ``file`` and ``line`` are the location of the first error NVRTC reported
    (``None`` when the log names none); ``log`` is NVRTC's whole log.

    Parameters
    ----------
    message : str
        What failed.
    log : str, optional
        NVRTC's log (stored as ``error_log``).
    file : str, optional
        File of the first error.
    line : int, optional
        Line of the first error.
    """

    def __init__(self, message: str, log: str = "", file: str | None = None, line: int | None = None) -> None:
        self.file = file
        self.line = line
        super().__init__(message, error_log=log)


class ToolNotFoundError(LinkerError):
    """nvJitLink or NVRTC, which the linker runs, cannot be loaded (its pip wheel is
    missing or broken); the message names the wheel to install."""


class LinkTimeout(LinkerError, TimeoutError):
    """An isolated job (NVRTC compiling a CUDA C++ source, or an nvJitLink link) ran
    past its wall-clock bound and its process was killed (also a ``TimeoutError``).

    ``what`` says what was running (``"NVRTC compiling 'k.cu'"``), ``seconds`` the
    bound, ``setting`` the variable that raises it.

    Parameters
    ----------
    what : str
        What was running.
    seconds : float
        The bound it ran past.
    setting : str, optional
        The setting that sets the bound (default ``"CUDALITE_LINK_TIMEOUT"``).
    reason : str, optional
        Why the job was expected to be slow (a PTX function too big for ptxas to
        optimise quickly), when known; part of the message.
    """

    def __init__(self, what: str, seconds: float, setting: str = "CUDALITE_LINK_TIMEOUT",
                 reason: str = "") -> None:
        self.what = what
        self.seconds = seconds
        self.setting = setting
        self.reason = reason
        why = f" ({reason})" if reason else ""
        LinkerError.__init__(self, f"{what} ran past the {seconds:g} s bound and its isolated process was "
                             f"killed{why}; if the input is trusted and just slow, raise {setting} (seconds; 0: no "
                             f"bound) or pass timeout= to the Linker")
        self.args = (what, seconds, setting, reason)
