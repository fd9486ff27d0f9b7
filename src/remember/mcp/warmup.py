"""What a first tool call waits for, made ready on a thread of its own while the client has nothing to ask.

The stdio server starts it once it has answered ``tools/list`` (a client then waits for its
user), or when a call comes first: the services are built, the embedding model loaded and
the template suggestion engine imported with the built-in templates' vectors, so that the
first ``remember_create_memory`` finds them ready. Each step is what the first call would
do, through the same objects, so no answer changes; a call that arrives meanwhile waits for
the steps to end (``wait``) rather than running beside them.

An error is not raised here (it is logged at DEBUG): the call that needs what failed tries
again and meets it, as it would have without the warm-up. ``stop`` skips the steps not begun
and waits for the one in progress, so that the thread is gone before the database is closed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

_log = logging.getLogger("remember")


class WarmUp:
    """``steps`` run one after another on one thread, from the first ``start`` until done or ``stop``."""

    def __init__(self, steps: Sequence[Callable[[], object]]) -> None:
        self._steps = tuple(steps)
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def pending(self) -> bool:
        """Whether there are steps and they are neither begun nor stopped."""
        return bool(self._steps) and self._thread is None and not self._stopping.is_set()

    def start(self) -> None:
        """Begin, unless there is nothing to do or it was begun or stopped already."""
        with self._lock:
            if not self.pending:
                return
            self._thread = threading.Thread(target=self._run, name="remember-warm-up")
            self._thread.start()

    def wait(self) -> None:
        """Wait until the steps begun have ended. A call waits so that it never runs beside them: two threads
        importing NumPy for the first time at once can each meet it half-initialised (an ImportError)."""
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def stop(self) -> None:
        """Skip the steps not begun and wait for the one in progress."""
        with self._lock:
            self._stopping.set()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        began = time.perf_counter()
        _log.debug("warming up")
        for step in self._steps:
            if self._stopping.is_set():
                _log.debug("warm-up stopped")
                return
            try:
                step()
            except Exception:  # the call that needs it meets the same error
                _log.debug("a warm-up step failed; the call that needs it will try again", exc_info=True)
        _log.debug("warmed up in %.0f ms", (time.perf_counter() - began) * 1000)
