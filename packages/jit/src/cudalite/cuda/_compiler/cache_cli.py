"""``cudalite-cache``: show and clear the on-disk kernel cache.

    cudalite-cache [--dir DIR] info      # directory, entries, bytes (default command)
    cudalite-cache [--dir DIR] list      # one line per entry: key, size, arch, kernel(signature)
    cudalite-cache [--dir DIR] clear     # remove what cudalite wrote (and the shim's run-time builds)
    cudalite-cache [--dir DIR] prune     # evict least recently used entries down to the cap
    cudalite-cache [--dir DIR] path      # print the directory

``--json`` prints ``info``/``list`` as JSON.  Text from the directory (file names,
an entry's metadata) is printed with control characters escaped: listing an
untrusted directory sends no terminal escape sequence.  ``info`` says when the runtime refuses the
directory (not owned by you, or writable by group/others: docs/cache.md); listing
and clearing still work there (entries are data).  The directory defaults to the one the
runtime uses (``$CUDALITE_CACHE_DIR/kernels``, else ``~/.cache/cudalite/kernels``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import unicodedata

from cudalite.core.progress import log_to_stderr
from cudalite.driver import remove_shim_builds

from .. import __version__
from ..config import kernel_cache_dir, load_config, parse_size
from .cache import CacheStore

__all__ = ["main"]


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))  # controls, bidi/format marks, surrogates...


def _shown(text: str) -> str:
    """``text`` safe to print from an untrusted directory: control, format, private and
    unassigned characters (terminal escape sequences, bidi overrides, newlines) as
    Python escapes; a byte of a file name that is not UTF-8 (a surrogate escape) as
    ``\\xNN``."""
    return "".join(_escaped(ch) if unicodedata.category(ch) in _UNSAFE else ch for ch in text)


def _escaped(ch: str) -> str:
    if 0xDC80 <= ord(ch) <= 0xDCFF:  # os.fsdecode's escape of an undecodable byte
        return f"\\x{ord(ch) - 0xDC00:02x}"
    return ascii(ch)[1:-1]


_COMMANDS = {
    "info": "the directory, its entries and bytes, the size cap (the default command)",
    "list": "one line per entry: key, size, target, kernel(signature)",
    "clear": "remove every entry, stamp and temporary file that cudalite wrote (its names and headers "
             "prove it: other files stay); with the default directory also the launch shim's run-time "
             "builds in the cache root",
    "prune": "remove least recently used entries until the cache is under its size cap "
             "(CUDALITE_CACHE_MAX_SIZE, or --max-size)",
    "path": "print the directory",
}


def _parser():
    ap = argparse.ArgumentParser(
        prog="cudalite-cache", description="Show, prune or clear cudalite's on-disk kernel cache (docs/cache.md).",
        epilog="commands:\n" + "\n".join(f"  {name:<6} {text}" for name, text in _COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    ap.add_argument("--dir", help="cache directory (default: the runtime's, $CUDALITE_CACHE_DIR/kernels "
                                  "or ~/.cache/cudalite/kernels)")
    ap.add_argument("--json", action="store_true", help="machine-readable output of info and list")
    ap.add_argument("--max-size", help="the cap for prune, e.g. 500M (default: CUDALITE_CACHE_MAX_SIZE)")
    ap.add_argument("-v", "--verbose", action="count", default=0,
                    help="log what cudalite does on stderr (-v: INFO, -vv: DEBUG)")
    ap.add_argument("command", nargs="?", default="info", choices=tuple(_COMMANDS), metavar="command",
                    help="one of: " + ", ".join(_COMMANDS) + " (see below)")
    return ap


def _main(argv=None) -> int:

    args = _parser().parse_args(argv)
    if args.verbose:
        log_to_stderr(args.verbose)
    store = CacheStore(args.dir)
    if args.command == "info" or (args.command == "prune" and not args.max_size):
        try:
            load_config()
        except ValueError as e:  # a bad CUDALITE_CACHE_MAX_SIZE (or other variable): one line, no traceback
            _report(str(e))
            return 2
    if args.command == "path":
        print(store.path)
    elif args.command == "info":
        info = store.info()
        refused = store.refusal(warn=False)
        if args.json:
            print(json.dumps(dict(info, refused=refused)))
        else:
            cap = f"cap {_size(info['max_size'])}" if info["max_size"] else "no size cap"
            print(f"{_shown(info['path'])}: {info['entries']} entries, {_size(info['bytes'])} ({cap})"
                  + (f" ({info['invalid']} invalid)" if info["invalid"] else ""))
            if refused:
                print(f"refused: {refused}: the runtime does not use this directory (chmod 700 "
                      f"{_shown(info['path'])}, or set CUDALITE_CACHE_DIR to a directory only you can write)")
    elif args.command == "list":
        entries = store.entries()
        if args.json:
            print(json.dumps(entries))
        else:
            for e in entries:
                state = "" if e["valid"] else "  [invalid]"
                print(f"{_shown(e['key'][:16])}  {_size(e['size']):>10}  {_shown(e['arch']):<6}  "
                      f"{_shown(e['qualname'])}{_shown(e['signature'])}{state}")
            print(f"{len(entries)} entries in {_shown(store.path)}")
    elif args.command == "prune":
        try:
            cap = parse_size("--max-size", args.max_size, None) if args.max_size else load_config().cache_max_size
        except ValueError as e:
            _parser().error(str(e))
        if not cap:
            print(f"no size cap (CUDALITE_CACHE_MAX_SIZE=0): nothing removed from {_shown(store.path)}")
        else:
            n, freed = store.evict(cap)
            print(f"removed {n} entries ({_size(freed)}) from {_shown(store.path)}; cap {_size(cap)}")
    else:
        n = store.clear()
        line = f"removed {n} entries from {_shown(store.path)}"
        if args.dir is None and os.path.abspath(store.path) == os.path.abspath(kernel_cache_dir()):
            root = os.path.dirname(store.path)
            line += f"; {remove_shim_builds(root)} launch shim builds from {_shown(root)}"
        print(line)
    return 0


def _report(message: str) -> None:
    """One line on stderr, if there is one (``print(file=None)`` would write to stdout)."""
    if sys.stderr is not None:
        try:
            sys.stderr.write(f"cudalite-cache: error: {message}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _emit(stream, text: str) -> None:
    """Write ``text`` straight to ``stream``'s file descriptor: nothing stays buffered
    to fail again when the interpreter exits (an in-memory stream is written as is)."""
    if not text:
        return
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    view = memoryview(text.encode("utf-8", "surrogateescape"))  # `path`: a non-UTF-8 name as its bytes
    while view:
        view = view[os.write(fd, view):]


def main(argv=None) -> int:
    """Entry point of ``cudalite-cache``: the report is made in memory, then written at once.

    Exit status: 0 done; 1 the report could not be written -- stdout closed (checked
    before any command runs, so ``clear >&-`` clears nothing), a full disk, a reader
    that went away (``| head``) -- one line on stderr, no traceback; 2 a usage error."""
    stdout = sys.stdout
    if stdout is None or getattr(stdout, "closed", False):
        _report("standard output is closed")
        return 1
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            code = _main(argv)
    except SystemExit:  # argparse: --help (its text is in buf) or a usage error
        _flush(stdout, buf.getvalue())
        raise
    return _flush(stdout, buf.getvalue()) or code


def _flush(stdout, text: str) -> int:
    try:
        _emit(stdout, text)
    except (OSError, ValueError) as e:
        _report(f"cannot write to standard output: {getattr(e, 'strerror', None) or e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
