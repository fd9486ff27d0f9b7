"""Stdio that answers every line: a request the SDK cannot read gets a JSON-RPC error, not silence.

The SDK's stdio transport logs a line it cannot parse (a lone surrogate such as
``"\\ud800"``, nesting thousands deep, no JSON at all) at debug level and sends
nothing, so the client waits until its timeout. ``answering_bad_lines`` runs the
server behind two pipes, given to it as ``sys.stdin`` and ``sys.stdout``: lines from the client
are checked with the same parser the SDK uses, good ones are passed on, and a bad
one is answered ``-32700`` (not JSON) or ``-32600`` (JSON, but not a JSON-RPC
message) with ``id: null``. The server's answers are copied out a whole line at a
time under the lock that also writes those errors, so frames never interleave.
Only the SDK's public entry point (``server.run()``) and the operating system's
descriptors are involved.

Ctrl-C (SIGINT) or SIGTERM stops the server the way a client hanging up does: the
server's input ends, so the SDK finishes what it is doing (a write in flight is
committed) and returns. A second Ctrl-C stops it at once.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import BinaryIO

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def error_line(line: bytes) -> bytes | None:
    """The JSON-RPC error answering ``line``, or None when the SDK can read it (or it is blank)."""
    if not line.strip():
        return None
    import mcp_types
    from pydantic import ValidationError

    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:
        unreadable = any(problem["type"] == "json_invalid" for problem in exc.errors())
        code, message = (
            (PARSE_ERROR, "Parse error: the line is not valid JSON (UTF-8, no lone surrogates, bounded nesting).")
            if unreadable
            else (INVALID_REQUEST, "Invalid Request: the JSON is not a JSON-RPC 2.0 request, notification or response.")
        )
        answer = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
        return json.dumps(answer).encode() + b"\n"
    return None


@contextmanager
def answering_bad_lines() -> Iterator[None]:
    """Within the block, ``sys.stdin`` and ``sys.stdout`` are pipes whose other ends check the
    client's lines and copy the server's answers; fd 0 reads nothing and fd 1 goes to stderr,
    so stray output of a library cannot reach the client."""
    real_in, real_out = os.dup(0), os.dup(1)
    to_server_read, to_server = os.pipe()
    from_server, from_server_write = os.pipe()
    saved = sys.stdin, sys.stdout
    sys.stdin = _ProtocolIn(os.fdopen(to_server_read, "rb"), encoding="utf-8")
    sys.stdout = _ProtocolOut(os.fdopen(from_server_write, "wb"), encoding="utf-8", write_through=True)
    _divert_standard_descriptors()
    lock = threading.Lock()
    output = os.fdopen(real_out, "wb")
    reader = threading.Thread(target=_pass_in, args=(real_in, to_server, output, lock), daemon=True)
    writer = threading.Thread(target=_pass_out, args=(from_server, output, lock), daemon=True)
    reader.start()
    writer.start()
    try:
        with _stopping_on_signals(to_server):
            yield
    finally:
        served_in, served_out = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = saved
        with contextlib.suppress(OSError, ValueError):
            served_out.close()  # the writer copies what is left, then ends
        writer.join(timeout=10)
        with contextlib.suppress(OSError, ValueError):
            served_in.close()
        os.dup2(real_in, 0)
        os.dup2(output.fileno(), 1)


@contextmanager
def _stopping_on_signals(to_server: int) -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM end the server's input (``to_server`` then writes to
    nothing); the handlers before are restored after, and at once for SIGINT, so a second Ctrl-C
    interrupts. Outside the main thread, signals are left alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def stop(signum: int, frame: FrameType | None) -> None:  # noqa: ARG001 - a signal handler's signature
        signal.signal(signal.SIGINT, before[signal.SIGINT])
        if signum == signal.SIGINT:
            sys.stderr.write("remember: stopping (Ctrl-C again to stop at once)\n")
        nothing = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nothing, to_server)  # the pipe's last writer is gone: the server reads the end of its input
        os.close(nothing)

    for sig in before:
        signal.signal(sig, stop)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


class _ProtocolIn(io.TextIOWrapper):
    """Its ``buffer`` carries the client's lines to the SDK; text reads (``input()``) see nothing."""

    def read(self, size: int | None = -1) -> str:  # noqa: ARG002 - the signature of TextIOWrapper.read
        return ""

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]  # noqa: ARG002 - typeshed gives _IOBase a bytes readline
        return ""


class _ProtocolOut(io.TextIOWrapper):
    """Its ``buffer`` carries the SDK's answers; text written to it (a stray ``print()``) goes to stderr."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)


def _divert_standard_descriptors() -> None:
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)


def _pass_in(source: int, to_server: int, output: BinaryIO, lock: threading.Lock) -> None:
    # The client's descriptor stays open: it goes back to fd 0 when the server is done.
    with os.fdopen(source, "rb", closefd=False) as lines, os.fdopen(to_server, "wb", closefd=True) as server:
        for line in lines:
            answer = error_line(line)
            try:
                if answer is None:
                    server.write(line)
                    server.flush()
                else:
                    _send(output, answer, lock)
            except (BrokenPipeError, ValueError):  # the server or the client is gone
                return


def _pass_out(from_server: int, output: BinaryIO, lock: threading.Lock) -> None:
    with os.fdopen(from_server, "rb", closefd=True) as lines:
        for line in lines:
            try:
                _send(output, line, lock)
            except (BrokenPipeError, ValueError):
                return


def _send(output: BinaryIO, line: bytes, lock: threading.Lock) -> None:
    with lock:
        output.write(line)
        output.flush()
