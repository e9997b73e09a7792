"""The command line's interactive prompt, when it is started at a terminal without statements.

Statements end with ``;`` and may span lines; each runs when its line ends, its result printed.
``exit`` or ``quit`` (or Ctrl-D) leaves; Ctrl-C drops the statement being typed. Line editing
comes from ``readline`` where Python has it; the history stays in memory and is never written
to a file (statements can hold secrets).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from iceberg_doris.cli.sql_script import split_statements

PROMPT = "doris> "
CONTINUATION = "    -> "
LEAVE = frozenset({"exit", "quit", "exit;", "quit;"})


def run_prompt(run_statement: Callable[[str], bool], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Reads statements until ``exit`` or end of input and runs each with ``run_statement``
    (which prints its result or error); returns 0."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    _line_editing(stdin)
    pending: list[str] = []
    while True:
        try:
            line = _read_line(CONTINUATION if pending else PROMPT, stdin, stdout)
        except KeyboardInterrupt:
            print("", file=stdout)
            pending = []
            continue
        if line is None:
            print("", file=stdout)
            return 0
        if not pending and line.strip().lower() in LEAVE:
            return 0
        pending.append(line)
        text = "\n".join(pending)
        if not text.strip():
            pending = []
            continue
        if not text.rstrip().endswith(";"):
            continue
        statements = split_statements(text)
        if not _complete(text, statements):
            continue  # the ";" was inside a quote or a comment
        pending = []
        for statement in statements:
            run_statement(statement)
        stdout.flush()


def _complete(text: str, statements: list[str]) -> bool:
    """Whether ``text`` ends after a statement's own ``;`` (not one inside a quote or comment)."""
    return bool(statements) and split_statements(text + "\nSELECT 1") [-1] == "SELECT 1"


def _read_line(prompt: str, stdin: TextIO, stdout: TextIO) -> str | None:
    if stdin is sys.stdin and stdout is sys.stdout and stdin.isatty():
        try:
            return input(prompt)
        except EOFError:
            return None
    stdout.write(prompt)
    stdout.flush()
    line = stdin.readline()
    return line.rstrip("\n") if line else None


def _line_editing(stdin: TextIO) -> None:
    if stdin is not sys.stdin or not stdin.isatty():
        return
    try:
        import readline  # noqa: F401 - input() edits lines once it is loaded; history is never saved
    except ImportError:
        pass
