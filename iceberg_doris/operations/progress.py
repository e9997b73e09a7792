"""Phase log lines for long work: loads, overwrites, deletes and compactions say what they are
doing, with row counts and elapsed time, through Python ``logging``.

Each phase logs one INFO line when it starts and one when it is done, on the logger
``iceberg_doris.progress``::

    load sales.orders: check started
    load sales.orders: check done in 41.20 s (loaded_rows=5000000, filtered_rows=0, unselected_rows=0)

The phases are ``read`` (the source planned), ``check`` (every row read, mapped, checked and
counted), ``lookup`` (the keys of a unique/aggregate load found in the table; the new rows are
written with it), ``write`` (data or delete files written) and ``commit``. Each record carries
``doris_operation``, ``doris_table``, ``doris_phase``, ``doris_rows`` (a dict) and, when done,
``doris_elapsed_s`` for handlers that want the numbers.

:func:`iceberg_doris.session` shows them on stderr by default (:func:`show_progress`): a script
needs no logging set up, and only this logger is turned on (py4j's per-call lines on the ``py4j``
logger stay off). Once the application configures logging (a handler on the root logger), the
lines go to its handlers instead, once. ``session(progress=False)`` or
``logging.getLogger("iceberg_doris.progress").setLevel(logging.WARNING)`` turns them off.
One call decides for itself with :func:`shown` (``doris.load(..., progress=False)``).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# The name users turn the lines on and off by (the README's), not this module's __name__.
LOGGER_NAME = "iceberg_doris.progress"
log = logging.getLogger(LOGGER_NAME)
_level_set_here = False  # the logger's level is show_progress's, not the application's
# One call's own choice (shown()): None follows the logger's level and handlers.
_shown_here: ContextVar[bool | None] = ContextVar("iceberg_doris_progress_shown", default=None)


class Phase:
    """One running phase of an operation; :meth:`done` logs its end with the rows it counted."""

    def __init__(self, operation: str, table: str, name: str):
        self.operation, self.table, self.name = operation, table, name
        self.rows: dict[str, int] = {}
        self._started = time.monotonic()
        self._finished = False
        self._log("%s %s: %s started", {})

    def count(self, **rows: int) -> None:
        self.rows.update({key: int(value) for key, value in rows.items()})

    def done(self, **rows: int) -> None:
        if self._finished:
            return
        self._finished = True
        self.count(**rows)
        elapsed = time.monotonic() - self._started
        counted = ", ".join(f"{key}={value}" for key, value in self.rows.items())
        self._log(
            "%s %s: %s done in %.2f s" + (f" ({counted})" if counted else ""), {"doris_elapsed_s": elapsed}, elapsed,
        )

    def _log(self, message: str, extra: dict[str, object], *more: object) -> None:
        shown = _shown_here.get()
        if shown is False or (shown is None and not log.isEnabledFor(logging.INFO)):
            return
        fields = {
            "doris_operation": self.operation, "doris_table": self.table, "doris_phase": self.name,
            "doris_rows": dict(self.rows),
        }
        if log.isEnabledFor(logging.INFO):
            log.info(message, self.operation, self.table, self.name, *more, extra=fields | extra)
            return
        # Shown for this call although the session turned the lines off: past the logger's level to
        # its handlers and the application's, and to stderr while the application has none.
        record = log.makeRecord(
            log.name, logging.INFO, __file__, 0, message, (self.operation, self.table, self.name, *more), None,
            extra=fields | extra,
        )
        log.handle(record)
        if not any(isinstance(handler, StderrUnlessConfigured) for handler in log.handlers):
            _fallback_handler().handle(record)


class StderrUnlessConfigured(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes progress lines to the current ``sys.stderr`` while the application has no logging
    of its own (no root handler); once it has, the lines reach its handlers by propagation alone."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        if logging.getLogger().handlers:
            return
        self.setStream(sys.stderr)  # sys.stderr may have been replaced since (notebooks, tests)
        super().emit(record)


_FALLBACK: list["StderrUnlessConfigured"] = []


def _fallback_handler() -> "StderrUnlessConfigured":
    if not _FALLBACK:
        _FALLBACK.append(StderrUnlessConfigured())
    return _FALLBACK[0]


@contextmanager
def shown(enabled: bool | None) -> Iterator[None]:
    """Within the block, phase lines are shown (True) or not (False) whatever the session's
    setting; None leaves the session's setting in force."""
    token = _shown_here.set(enabled)
    try:
        yield
    finally:
        _shown_here.reset(token)


def show_progress(enabled: bool) -> None:
    """Shows the phase lines on stderr (``enabled``), or turns them off.

    On: the logger's level becomes INFO unless it was set (a level the application chose stays)
    and a :class:`StderrUnlessConfigured` handler is attached once. Off: level WARNING, handler gone.
    """
    global _level_set_here
    ours = [handler for handler in log.handlers if isinstance(handler, StderrUnlessConfigured)]
    if enabled:
        if log.level == logging.NOTSET or _level_set_here:
            log.setLevel(logging.INFO)
            _level_set_here = True
        if not ours:
            log.addHandler(StderrUnlessConfigured())
        return
    log.setLevel(logging.WARNING)
    _level_set_here = True
    for handler in ours:
        log.removeHandler(handler)


def start(operation: str, table: str, name: str) -> Phase:
    """Logs the start of phase ``name`` of ``operation`` on ``table``; call ``done()`` at its end."""
    return Phase(operation, table, name)


@contextmanager
def phase(operation: str, table: str, name: str) -> Iterator[Phase]:
    """A phase around a block: done when the block ends normally (a failure logs no end: the
    operation's own error says what happened)."""
    running = Phase(operation, table, name)
    yield running
    running.done()
