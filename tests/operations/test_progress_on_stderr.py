"""Progress lines on stderr by default, once, and off on request (issue 39)."""

from __future__ import annotations

import logging

import pytest

from iceberg_doris.operations import progress


@pytest.fixture
def restored():
    log = logging.getLogger(progress.LOGGER_NAME)
    level, handlers, root_handlers = log.level, list(log.handlers), list(logging.getLogger().handlers)
    yield log
    log.setLevel(level)
    log.handlers[:] = handlers
    logging.getLogger().handlers[:] = root_handlers


def test_on_stderr_without_any_logging_set_up(restored, capsys):
    logging.getLogger().handlers[:] = []
    progress.show_progress(True)
    progress.start("load", "db.t", "read").done(loaded_rows=3)
    lines = [line.split(" ", 1)[1] for line in capsys.readouterr().err.splitlines()]  # after the time
    assert lines[0] == "load db.t: read started"
    assert lines[1].startswith("load db.t: read done in ") and lines[1].endswith(" s (loaded_rows=3)")
    assert len(lines) == 2
    assert logging.getLogger("py4j").getEffectiveLevel() >= logging.WARNING


def test_an_applications_handler_gets_them_once(restored, capsys):
    progress.show_progress(True)
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger().handlers[:] = [handler]
    progress.start("load", "db.t", "read")
    assert seen == ["load db.t: read started"]
    assert capsys.readouterr().err == ""


def test_off_means_off(restored, capsys):
    logging.getLogger().handlers[:] = []
    progress.show_progress(True)
    progress.show_progress(False)
    progress.start("load", "db.t", "read")
    assert capsys.readouterr().err == ""
    progress.show_progress(True)  # and on again
    progress.start("load", "db.t", "read")
    assert "load db.t: read started" in capsys.readouterr().err
